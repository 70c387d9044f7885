import { parseTranslations, type MyShopInput, type MyShopResponse } from '@app/contracts';
import { forbidden, notFound } from '../http/errors.ts';
import { appUrlOf } from '../config.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { bumpAccessVersion } from '../auth/access-cache.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { DealerDetails, User } from '../users/user.model.ts';

/**
 * A dealer's own shop (GET/PATCH /my-shop; issue 28 item 12): the public face of its storefront,
 * /dealer/{CODE}, that the dealer edits itself. Only a dealer, and only its own: there is no id
 * in the path. Staff edit a dealer's shop through the user form (users/user.service.ts).
 *
 * A change is logged (`updated` on the user, with the fields before and after), and the log
 * entry clears the storefront's cache after the commit (activity-log.ts), so the shop shows the
 * new name and colour at its next visit.
 */
const SHOP_FIELDS = ['company_name', 'brand_color', 'description', 'contact_email', 'contact_phone', 'website'] as const;
type ShopField = (typeof SHOP_FIELDS)[number];

function ownDealerId(ctx: ServiceContext): number {
  if (!isDealer(ctx.actor) || !ctx.actor.id) throw forbidden('api:dealer_shop.dealers_only');
  return ctx.actor.id;
}

/** The shop's address: APP_URL's origin when set (else null: the console uses its own). */
export function shopUrl(code: string | null): string | null {
  const base = appUrlOf();
  return code && base ? `${base}/dealer/${encodeURIComponent(code)}` : null;
}

export async function myShop(ctx: ServiceContext): Promise<MyShopResponse> {
  const id = ownDealerId(ctx);
  const user = await User.query(ctx.db).findById(id).whereNull('deleted_at');
  if (!user) throw notFound();
  const d = await DealerDetails.query(ctx.db).findOne({ user_id: id });
  return {
    dealer_code: user.dealer_code ?? null,
    url: shopUrl(user.dealer_code ?? null),
    status: user.status,
    company_name: d?.company_name ?? null,
    brand_color: d?.brand_color ?? '#000000',
    description: d?.description ?? null,
    contact_email: d?.contact_email ?? null,
    contact_phone: d?.contact_phone ?? null,
    website: d?.website ?? null,
    logo: d?.logo_path ?? null,
  };
}

/** Saves the fields given (a blank text clears one); logs what changed, when anything did. */
export async function updateMyShop(ctx: ServiceContext, input: MyShopInput): Promise<MyShopResponse> {
  const id = ownDealerId(ctx);
  await transact(ctx, async (tctx) => {
    // The dealer's row first, locked: two saves of the same shop follow one another.
    const user = await User.query(tctx.db).findById(id).whereNull('deleted_at').forUpdate();
    if (!user) throw notFound();
    const details = await DealerDetails.query(tctx.db).findOne({ user_id: id });
    const before: Partial<Record<ShopField, string | null>> = {};
    const after: Partial<Record<ShopField, string | null>> = {};
    for (const f of SHOP_FIELDS) {
      const next = input[f];
      if (next === undefined) continue;
      const old = (details?.[f] as string | null | undefined) ?? null;
      if (old === next) continue;
      before[f] = old;
      after[f] = next;
    }
    if (Object.keys(after).length === 0) return;
    // A name or description the dealer rewrites drops its old translations (set by staff): customers
    // reading Arabic or Somali must not keep seeing the old words; staff translate the new ones again.
    const translations = parseTranslations(details?.translations);
    let translationsChanged = false;
    if (translations)
      for (const texts of Object.values(translations))
        for (const f of ['company_name', 'description'] as const)
          if (f in after && texts && f in texts) {
            delete texts[f];
            translationsChanged = true;
          }
    if (details)
      await DealerDetails.query(tctx.db)
        .patch({ ...(after as Partial<DealerDetails>), ...(translationsChanged ? { translations } : {}) } as Partial<DealerDetails>)
        .where('id', details.id);
    else await DealerDetails.query(tctx.db).insert({ user_id: id, brand_color: '#000000', pricing_model: 'cost', ...after } as Partial<DealerDetails>);
    // The console's session answer carries the dealer's details: read again on the next call.
    await bumpAccessVersion(tctx.db);
    await recordActivity(tctx, { action: 'updated', subjectType: 'user', subjectId: id, description: 'shop', before, after });
  });
  return myShop(ctx);
}
