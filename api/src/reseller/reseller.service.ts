import type { Knex } from 'knex';
import { formatMinor, type RechargeResponse, type ResellerCatalogue, type ResellerRechargeInput, type ResellerRechargeListQuery } from '@app/contracts';
import { AppError, notFound } from '../http/errors.ts';
import type { Page } from '../http/list-query.ts';
import type { ServiceContext } from '../platform/context.ts';
import { storefrontPaymentMethods, storefrontProviders, type StorefrontDealerRow } from '../storefront/storefront.service.ts';
import { saleOffer, sellingDealer } from '../recharges/sale-offers.ts';
import { createRecharge, presentRecharge, rechargeQuery, type SaleRequest } from '../recharges/recharge.service.ts';
import { listRecharges } from '../recharges/recharge-console.service.ts';
import type { RechargeListRow } from '../recharges/recharge-rows.ts';
import { ownWallet, presentTransaction, presentWallet, transactionQuery } from '../wallets/wallet.service.ts';
import type { WalletTransactionListRow } from '../wallets/wallet-rows.ts';

/**
 * The reseller API's rules (docs/api-conventions.md, "Reseller API"). Every call acts as the key's
 * dealer (ctx.actor), so the console's own services scope it: a dealer never reads another's data.
 * Sales go through the storefront's createRecharge, the one sale path (pricing, idempotency, ledger).
 */
type Db = Knex | Knex.Transaction;

/** The key's dealer as its shop sells (the storefront's kept row: active, with its pricing model). */
async function dealerOf(ctx: ServiceContext): Promise<StorefrontDealerRow> {
  const code = ctx.actor.user?.dealer_code;
  if (!code) throw notFound();
  return sellingDealer(ctx.db, code);
}

/** The dealer's operators, categories and bundles at its prices (with their cost for holders of "view bundles prices"), and its customers' payment methods. */
export async function resellerCatalogue(ctx: ServiceContext): Promise<ResellerCatalogue> {
  const dealer = await dealerOf(ctx);
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const [shelves, offer, methods] = await Promise.all([
    storefrontProviders(ctx.db, dealer.id, ctx.language),
    saleOffer(ctx.db, dealer),
    storefrontPaymentMethods(ctx.db, dealer, ctx.language),
  ]);
  return {
    currency: shelves.currency,
    providers: shelves.providers
      .map((p) => ({
        id: p.id,
        h_id: p.h_id,
        name: p.name,
        code: p.code,
        phone_prefixes: p.phone_prefixes,
        categories: p.categories
          .map((c) => ({
            id: c.id,
            h_id: c.h_id,
            name: c.name,
            // Only what a sale would accept now (the shop's offer), each with what the wallet pays for it.
            bundles: c.bundles.flatMap((b) => {
              const offered = offer.bundles.get(b.id);
              return offered ? [{ ...b, ...(seesCost ? { cost: formatMinor(offered.cost) } : {}) }] : [];
            }),
          }))
          .filter((c) => c.bundles.length),
      }))
      .filter((p) => p.categories.length),
    payment_methods: methods.map((m) => ({ id: m.id, h_id: m.h_id, name: m.name, type: m.type })),
  };
}

/** The storefront's field names for what the reseller body calls payment.method_id and payment.payer_phone. */
const FIELD_NAMES: Record<string, string> = { payment_method_id: 'payment.method_id', payer_phone: 'payment.payer_phone' };

async function presentById(ctx: ServiceContext, db: Db, id: number): Promise<RechargeResponse> {
  const row: RechargeListRow = await rechargeQuery(db).where('recharges.id', id).first();
  return presentRecharge(row, ctx.actor.permissions.has('view bundles prices'), undefined, ctx.t);
}

/**
 * A sale under the caller's Idempotency-Key: 'wallet' (the dealer's wallet pays the cost now, the
 * worker delivers) or the customer's mobile-money payment (the storefront's flow). The same key
 * and body again answer the first sale (created: false); another body under the key is a 409.
 */
export async function resellerRecharge(ctx: ServiceContext, input: ResellerRechargeInput, key: string) {
  const dealer = await dealerOf(ctx);
  const sale: SaleRequest =
    input.payment === 'wallet'
      ? { bundle_id: input.bundle_id, phone: input.phone, payment: 'wallet', client_reference: input.client_reference ?? null }
      : {
          bundle_id: input.bundle_id,
          phone: input.phone,
          payment_method_id: input.payment.method_id,
          payer_phone: input.payment.payer_phone,
          client_reference: input.client_reference ?? null,
        };
  try {
    const { id, created } = await createRecharge(ctx, dealer, sale, key);
    return { created, recharge: await presentById(ctx, ctx.db, id) };
  } catch (err) {
    if (err instanceof AppError && err.status === 422 && err.errors) {
      const errors = Object.fromEntries(Object.entries(err.errors).map(([field, messages]) => [FIELD_NAMES[field] ?? field, messages]));
      throw new AppError(422, err.message, errors, err.vars, err.headers);
    }
    throw err;
  }
}

/** One of the dealer's sales by its reference, of the key's mode; another dealer's (or mode's) is the same 404 as none. */
export async function resellerRechargeByReference(ctx: ServiceContext, reference: string): Promise<RechargeResponse> {
  const ref = reference.trim().toUpperCase();
  const row: RechargeListRow | undefined = /^RC[A-Z0-9]{10}$/.test(ref)
    ? await rechargeQuery(ctx.db)
        .where({ 'recharges.dealer_id': ctx.actor.id!, 'recharges.reference': ref, 'recharges.mode': ctx.mode ?? 'live' })
        .first()
    : undefined;
  if (!row) throw notFound('api:recharges.not_found');
  return presentRecharge(row, ctx.actor.permissions.has('view bundles prices'), undefined, ctx.t);
}

/**
 * The dealer's sales (listRecharges scopes a dealer to itself, whatever `q` or client_reference
 * names), filtered and sorted as the query says: newest first by default.
 */
export const resellerRecharges = (ctx: ServiceContext, f: ResellerRechargeListQuery): Promise<Page<RechargeResponse>> =>
  listRecharges(
    ctx,
    {
      // A key reads the sales of its own mode only.
      mode: ctx.mode ?? 'live',
      status: f.status,
      from: f.from,
      to: f.to,
      national_phone: f.phone,
      client_reference: f.client_reference,
      match: f.q,
    },
    { page: f.page?.toString(), per_page: f.per_page?.toString(), sort: f.sort ?? 'created_at', order: f.order ?? 'desc' },
  );

/** The dealer's balance and its latest ledger rows. */
export async function resellerWallet(ctx: ServiceContext, limit: number) {
  const wallet = await ownWallet(ctx);
  const rows: WalletTransactionListRow[] = await transactionQuery(ctx.db)
    .where('wallet_transactions.wallet_id', wallet.id)
    .orderBy('wallet_transactions.id', 'desc')
    .limit(limit);
  return { wallet: presentWallet(wallet), transactions: rows.map(presentTransaction) };
}
