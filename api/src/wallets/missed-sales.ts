import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { formatMinor, type MissedSaleResponse } from '@app/contracts';
import { decodeId } from '../http/ids.ts';
import { fromDbTime, toDbTime, whereInZonedDays, zonedDay } from '../database/time.ts';
import { serviceLog } from '../platform/logger.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import type { MissedSaleListRow } from './wallet-rows.ts';
import { fieldError } from '../http/errors.ts';
import { pageOf, type Page, type PageRequest } from '../http/list-query.ts';
import { readCompanySettings } from '../settings/company-settings.ts';

/**
 * Missed sales (docs/data-model.md, Wallets and the ledger): purchases a "Cost + Profit" dealer's
 * shop refused because its wallet could not pay the cost. Kept so the dealer sees what an empty
 * wallet cost it (GET /my-wallet, the dashboard, GET /missed-sales).
 */
type Db = Knex | Knex.Transaction;

export interface MissedSaleInput {
  dealerId: number;
  bundleId: number | null;
  bundleName: string;
  /** Cents the customer would have paid. */
  amount: number;
  /** Cents the wallet would have been debited. */
  cost: number;
  /** The purchase's idempotency key: a retried purchase is one missed sale. */
  idempotencyKey: string;
}

const KEY_MAX = 128;

/**
 * Records one refused purchase; the same (dealer, idempotency key) again is ignored. Never throws:
 * bookkeeping must not turn a refusal into a server error, so a failure is logged and dropped.
 */
export async function recordMissedSale(db: Knex, input: MissedSaleInput): Promise<void> {
  try {
    const key =
      input.idempotencyKey.length > KEY_MAX ? `sha256:${crypto.createHash('sha256').update(input.idempotencyKey, 'utf8').digest('hex')}` : input.idempotencyKey;
    await db('missed_sales')
      .insert({
        dealer_id: input.dealerId,
        bundle_id: input.bundleId,
        bundle_name: input.bundleName.slice(0, 191),
        amount: input.amount,
        cost: input.cost,
        idempotency_key: key,
        created_at: toDbTime(),
      })
      .onConflict(['dealer_id', 'idempotency_key'])
      .ignore();
  } catch (err) {
    serviceLog.warn({ err, dealer: input.dealerId }, 'missed sale not recorded');
  }
}

export interface MissedSaleFilters {
  dealer_id?: string;
  from?: string;
  to?: string;
}

/** GET /missed-sales (and its CSV): the filters, the days in the company time zone, a dealer only its own. */
export function missedSaleQuery(ctx: ServiceContext, f: MissedSaleFilters, timeZone: string) {
  const qb = ctx
    .db('missed_sales')
    .join('users', 'users.id', 'missed_sales.dealer_id')
    .select(
      'missed_sales.id',
      'missed_sales.dealer_id',
      'missed_sales.bundle_id',
      'missed_sales.bundle_name',
      'missed_sales.amount',
      'missed_sales.cost',
      'missed_sales.created_at',
      'users.name as dealer_name',
      'users.dealer_code',
    );
  if (isDealer(ctx.actor)) qb.where('missed_sales.dealer_id', ctx.actor.id!);
  else if (f.dealer_id) qb.where('missed_sales.dealer_id', decodeId(f.dealer_id) ?? 0);
  whereInZonedDays(qb, 'missed_sales.created_at', f.from, f.to, timeZone);
  return qb;
}

export function presentMissedSale(r: MissedSaleListRow, seesCost: boolean): MissedSaleResponse {
  return {
    id: Number(r.id),
    dealer: dealerRef(Number(r.dealer_id), r.dealer_name ?? '', r.dealer_code),
    bundle_id: r.bundle_id === null || r.bundle_id === undefined ? null : Number(r.bundle_id),
    bundle_name: r.bundle_name,
    amount: formatMinor(Number(r.amount)),
    ...(seesCost ? { cost: formatMinor(Number(r.cost)) } : {}),
    created_at: fromDbTime(r.created_at)!,
  };
}

/** Cost is shown only to those who may see the company's cost prices. */
const seesCost = (ctx: ServiceContext) => ctx.actor.permissions.has('view bundles prices');

async function filteredMissedSales(ctx: ServiceContext, f: MissedSaleFilters) {
  if (f.from && f.to && f.from > f.to) throw fieldError('from', 'validation:date_range_invalid');
  const { timezone } = await readCompanySettings(ctx.db);
  // Wrapped: a knex builder is thenable, so returning it from an async function would run it.
  return { qb: missedSaleQuery(ctx, f, timezone), timezone };
}

/** A page of the filtered missed sales, newest first unless `order` is asc. */
export async function listMissedSales(ctx: ServiceContext, f: MissedSaleFilters, p: PageRequest): Promise<Page<MissedSaleResponse>> {
  const { qb } = await filteredMissedSales(ctx, f);
  const cost = seesCost(ctx);
  return pageOf(qb, p, 'missed_sales.created_at', (r: MissedSaleListRow) => presentMissedSale(r, cost), 'missed_sales.id');
}

/** The filtered missed sales for the CSV, newest first, at most `limit`; with whether cost is shown and the time zone. */
export async function exportMissedSales(ctx: ServiceContext, f: MissedSaleFilters, limit: number) {
  const { qb, timezone } = await filteredMissedSales(ctx, f);
  const rows: MissedSaleListRow[] = await qb.orderBy('missed_sales.created_at', 'desc').orderBy('missed_sales.id', 'desc').limit(limit);
  const cost = seesCost(ctx);
  return { rows: rows.map((r) => presentMissedSale(r, cost)), seesCost: cost, timezone };
}

/** Today's missed sales (company day) of one dealer, or of every dealer with null. */
export async function missedSalesToday(db: Db, dealerId: number | null, timeZone: string): Promise<{ count: number; amount: string }> {
  const today = zonedDay(new Date(), timeZone);
  const qb = db('missed_sales');
  if (dealerId !== null) qb.where('dealer_id', dealerId);
  whereInZonedDays(qb, 'created_at', today, today, timeZone);
  const row = (await qb.select(db.raw('COUNT(*) as n'), db.raw('COALESCE(SUM(amount), 0) as amount')).first()) as
    { n: number | string; amount: number | string } | undefined;
  return { count: Number(row?.n ?? 0), amount: formatMinor(Number(row?.amount ?? 0)) };
}

/** The dashboard's `missed_sales`: today's figures (a dealer: its own) and, for admins, the five dealers who missed most. */
export async function missedSalesSummary(ctx: ServiceContext, timeZone: string) {
  const dealer = isDealer(ctx.actor) ? ctx.actor.id! : null;
  const today = await missedSalesToday(ctx.db, dealer, timeZone);
  let byDealer: { dealer: ReturnType<typeof dealerRef>; count: number; amount: string }[] = [];
  if (dealer === null) {
    const day = zonedDay(new Date(), timeZone);
    const qb = ctx.db('missed_sales').join('users', 'users.id', 'missed_sales.dealer_id');
    whereInZonedDays(qb, 'missed_sales.created_at', day, day, timeZone);
    const rows: Record<string, unknown>[] = await qb
      .select(
        'missed_sales.dealer_id',
        ctx.db.raw('MAX(users.name) as name'),
        ctx.db.raw('MAX(users.dealer_code) as dealer_code'),
        ctx.db.raw('COUNT(*) as n'),
        ctx.db.raw('COALESCE(SUM(missed_sales.amount), 0) as total'),
      )
      .groupBy('missed_sales.dealer_id')
      .orderBy([
        { column: 'total', order: 'desc' },
        { column: 'missed_sales.dealer_id', order: 'asc' },
      ])
      .limit(5);
    byDealer = rows.map((r) => ({
      dealer: dealerRef(Number(r.dealer_id), String(r.name ?? ''), (r.dealer_code as string | null) ?? null),
      count: Number(r.n),
      amount: formatMinor(Number(r.total)),
    }));
  }
  return { today_count: today.count, today_amount: today.amount, by_dealer: byDealer };
}
