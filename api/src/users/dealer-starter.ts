import { decodeId } from '../http/ids.ts';
import { toDbTime } from '../database/time.ts';
import { onRollback } from '../database/unit-of-work.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { PaymentMethod } from '../settings/settings.models.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { FileStorage } from '../uploads/storage.ts';

/** What the create form sends: a company method's public id and the dealer's own number for it. */
export interface StarterPaymentMethodInput {
  method_id: string;
  account_number: string | null;
}

export interface StarterPaymentMethod {
  source: PaymentMethod;
  accountNumber: string | null;
}

const FIELD = 'starter_payment_methods';

/**
 * Checks a new dealer's starter payment methods before anything is written, so their errors are
 * reported with the rest of the form's. Only a "Cost + Profit" shop has methods of its own (a
 * "Profit Only" shop's customers pay the company); each must be an active company method and,
 * unless it is cash, carry this dealer's own number: copying the company's number would send the
 * shop's takings to the company.
 */
export async function checkStarterPaymentMethods(
  ctx: ServiceContext,
  pricingModel: string,
  wanted: StarterPaymentMethodInput[] | undefined,
  errors: Record<string, string[]>,
): Promise<StarterPaymentMethod[]> {
  if (!wanted?.length) return [];
  if (pricingModel !== 'cost') {
    errors[FIELD] = ['validation:starter_payment_methods_profit'];
    return [];
  }
  const ids = wanted.map((w) => decodeId(w.method_id)).filter((id): id is number => id !== null);
  const company = new Map(
    (
      await PaymentMethod.query(ctx.db)
        .whereIn('id', ids.length ? ids : [0])
        .whereNull('dealer_id')
        .whereNull('deleted_at')
        .where('status', 'active')
    ).map((m) => [m.id, m]),
  );
  const chosen: StarterPaymentMethod[] = [];
  for (const w of wanted) {
    const key = `${FIELD}.${w.method_id}`;
    const source = company.get(decodeId(w.method_id) ?? 0);
    if (!source) errors[key] = ['validation:starter_payment_method_unknown'];
    else if (source.type !== 'cash' && !w.account_number) errors[key] = ['validation:account_number_required'];
    else if (w.account_number && source.account_number && normalise(w.account_number) === normalise(source.account_number))
      errors[key] = ['validation:starter_account_is_company'];
    else chosen.push({ source, accountNumber: w.account_number });
  }
  return chosen;
}

const normalise = (account: string) =>
  account
    .replace(/[\s\-/.]/g, '')
    .replace(/^\+?252/, '0')
    .replace(/^0+/, '')
    .toUpperCase();

/** Writes the checked methods as the dealer's own (name, type, instructions, translations, a copy of the logo), each logged. */
export async function copyStarterPaymentMethods(ctx: ServiceContext, dealerId: number, methods: StarterPaymentMethod[], storage?: FileStorage): Promise<void> {
  const now = toDbTime();
  for (const { source, accountNumber } of methods) {
    // Its own file: replacing or deleting one shop's logo must not take the company's with it.
    const logo = source.logo_path && storage ? await storage.copy(source.logo_path, 'payment-methods') : null;
    // A refused or failed creation leaves no copy behind.
    if (logo && storage) onRollback(() => storage.remove(logo));
    const row = {
      name: source.name,
      type: source.type,
      gateway: source.gateway,
      account_number: accountNumber,
      instructions: source.instructions ?? null,
      translations: source.translations ?? null,
      logo_path: logo,
      status: 'active',
      sort_order: source.sort_order,
      dealer_id: dealerId,
      created_at: now,
      updated_at: now,
    };
    const created = await PaymentMethod.query(ctx.db).insertAndFetch(row as Partial<PaymentMethod>);
    await recordActivity(ctx, {
      action: 'created',
      subjectType: 'payment_method',
      subjectId: created.id,
      description: `${source.name} (from the company's)`,
      after: row,
    });
  }
}
