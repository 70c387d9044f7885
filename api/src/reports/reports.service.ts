import type { Knex } from 'knex';
import { formatMinor } from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { timeBucket, type TimeGroup } from './time-buckets.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { missedSalesSummary } from '../wallets/missed-sales.ts';

/**
 * Sales figures, computed in the database (grouping and sums in SQL over indexed columns, never
 * by loading recharges into Node). A sale is a completed recharge unless a status filter says
 * otherwise. Dealers only ever see their own figures. Amounts leave as "12.50" strings.
 */
type Db = Knex | Knex.Transaction;
export const GROUPS = ['day', 'week', 'month', 'provider', 'bundle', 'dealer'] as const;
export type Group = (typeof GROUPS)[number];

export interface SalesFilters {
  from: string;
  to: string;
  group_by: Group;
  dealer_id?: string;
  provider_id?: string;
  category?: string;
  status?: string;
  payment_method_id?: string;
}

/** The recharges a report counts: the range in company days, the filters, the caller's scope. */
export function scopedRecharges(db: Db, ctx: ServiceContext, f: Omit<SalesFilters, 'group_by'>, timeZone: string) {
  const qb = db('recharges')
    .where('recharges.created_at', '>=', toDbTime(startOfZonedDay(f.from, timeZone)))
    .where('recharges.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timeZone).getTime() + 86_400_000)));
  if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
  else if (f.dealer_id) qb.where('recharges.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.provider_id) qb.where('recharges.provider_id', decodeId(f.provider_id) ?? 0);
  if (f.category) qb.where('recharges.category_name', f.category);
  if (f.payment_method_id) qb.where('recharges.payment_method_id', decodeId(f.payment_method_id) ?? 0);
  if (f.status && f.status !== 'all') qb.where('recharges.status', f.status);
  else if (!f.status) qb.where('recharges.status', 'completed');
  return qb;
}

const sums = (db: Db) => [
  db.raw('COUNT(*) as count'),
  db.raw('COALESCE(SUM(recharges.amount), 0) as revenue'),
  db.raw('COALESCE(SUM(recharges.cost), 0) as cost'),
  db.raw('COALESCE(SUM(recharges.profit), 0) as profit'),
];

export interface Figures {
  count: number;
  revenue: string;
  cost?: string;
  profit: string;
}
const figures = (r: Record<string, unknown>, seesCost: boolean): Figures => ({
  count: Number(r.count),
  revenue: formatMinor(Number(r.revenue)),
  ...(seesCost ? { cost: formatMinor(Number(r.cost)) } : {}),
  profit: formatMinor(Number(r.profit)),
});

export async function salesReport(ctx: ServiceContext, f: SalesFilters, timeZone: string, opts: { totals?: boolean } = {}) {
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const base = () => scopedRecharges(ctx.db, ctx, f, timeZone);
  let rows: Record<string, unknown>[];
  if (f.group_by === 'day' || f.group_by === 'week' || f.group_by === 'month') {
    const bucket = timeBucket(ctx.db, 'recharges.created_at', f.group_by as TimeGroup, timeZone, startOfZonedDay(f.from, timeZone));
    rows = await base()
      .select(ctx.db.raw(`${bucket.toQuery()} as period`), ...sums(ctx.db))
      .groupBy('period')
      .orderBy('period');
    rows = rows.map((r) => ({ key: String(r.period), label: String(r.period), ...figures(r, seesCost) }));
  } else {
    const [idCol, nameCol] = {
      provider: ['recharges.provider_id', 'recharges.provider_name'],
      bundle: ['recharges.bundle_id', 'recharges.bundle_name'],
      dealer: ['recharges.dealer_id', 'users.name'],
    }[f.group_by];
    const qb = base();
    if (f.group_by === 'dealer') qb.join('users', 'users.id', 'recharges.dealer_id');
    rows = await qb
      .select(ctx.db.raw(`${idCol} as id`), ctx.db.raw(`MAX(${nameCol}) as name`), ...sums(ctx.db))
      .groupBy(idCol)
      .orderBy('revenue', 'desc');
    rows = rows.map((r) => ({
      key: r.id === null ? 'none' : encodeId(Number(r.id)),
      id: r.id === null ? null : Number(r.id),
      label: String(r.name ?? ''),
      ...figures(r, seesCost),
    }));
  }
  const totals =
    opts.totals === false
      ? figures({ count: 0, revenue: 0, cost: 0, profit: 0 }, seesCost)
      : figures(
          (await base()
            .select(...sums(ctx.db))
            .first()) as Record<string, unknown>,
          seesCost,
        );
  return { rows, totals };
}

/** Profit per dealer over a range; with dealer_id (or for a dealer), also per bundle. */
export async function dealerProfitReport(ctx: ServiceContext, f: { from: string; to: string; dealer_id?: string }, timeZone: string) {
  const base = () => scopedRecharges(ctx.db, ctx, { from: f.from, to: f.to, dealer_id: f.dealer_id }, timeZone);
  const rows = await base()
    .join('users', 'users.id', 'recharges.dealer_id')
    .select(
      'recharges.dealer_id',
      ctx.db.raw('MAX(users.name) as name'),
      ctx.db.raw('MAX(users.dealer_code) as dealer_code'),
      ctx.db.raw('MAX(recharges.pricing_model) as pricing_model'),
      ...sums(ctx.db),
    )
    .groupBy('recharges.dealer_id')
    .orderBy('profit', 'desc');
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const one = isDealer(ctx.actor) || f.dealer_id;
  const bundles = one
    ? (
        await base()
          .select(
            'recharges.bundle_id',
            ctx.db.raw('MAX(recharges.bundle_name) as name'),
            ctx.db.raw('MAX(recharges.provider_name) as provider'),
            ...sums(ctx.db),
          )
          .groupBy('recharges.bundle_id')
          .orderBy('profit', 'desc')
      ).map((r: Record<string, unknown>) => ({
        bundle_id: r.bundle_id === null ? null : Number(r.bundle_id),
        name: String(r.name),
        provider: String(r.provider),
        ...figures(r, seesCost),
      }))
    : undefined;
  return {
    rows: rows.map((r: Record<string, unknown>) => ({
      dealer: dealerRef(Number(r.dealer_id), String(r.name), r.dealer_code as string | null),
      pricing_model: r.pricing_model === 'profit' ? 'profit' : 'cost',
      ...figures(r, seesCost),
    })),
    totals: figures(
      (await base()
        .select(...sums(ctx.db))
        .first()) as Record<string, unknown>,
      seesCost,
    ),
    ...(bundles ? { bundles } : {}),
  };
}

/**
 * The dashboard: today, this month, the last 30 days, top bundles and dealers, the latest sales.
 * Few scans, run at once: the month's sales grouped by status, bundle and dealer give the month's
 * figures and both top lists in one pass (README, Benchmarks: dashboard on 1,000,000 recharges).
 */
export async function dashboard(ctx: ServiceContext, timeZone: string) {
  const now = new Date();
  const today = zonedDay(now, timeZone);
  const monthStart = `${today.slice(0, 8)}01`;
  const thirtyAgo = zonedDay(new Date(startOfZonedDay(today, timeZone).getTime() - 29 * 86_400_000 + 3_600_000), timeZone);
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const db = ctx.db;
  const grouped = (from: string) =>
    scopedRecharges(db, ctx, { from, to: today, status: 'all' }, timeZone)
      .select(
        'recharges.status',
        'recharges.bundle_id',
        'recharges.dealer_id',
        db.raw('MAX(recharges.bundle_name) as bundle_name'),
        db.raw('MAX(recharges.provider_name) as provider_name'),
        ...sums(db),
      )
      .groupBy('recharges.status', 'recharges.bundle_id', 'recharges.dealer_id');
  const walletQuery = db('wallets');
  if (isDealer(ctx.actor)) walletQuery.where('dealer_id', ctx.actor.id!);
  const [monthRows, todayRows, series, latest, wallet, pricingRow, thresholdRow, missed] = await Promise.all([
    grouped(monthStart),
    grouped(today),
    salesReport(ctx, { from: thirtyAgo, to: today, group_by: 'day' }, timeZone, { totals: false }),
    db('recharges')
      .modify((qb) => void (isDealer(ctx.actor) && qb.where('dealer_id', ctx.actor.id!)))
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(8)
      .select('id', 'reference', 'status', 'bundle_name', 'provider_name', 'phone', 'amount', 'currency', 'created_at'),
    walletQuery.sum({ total: 'balance' }).first(),
    isDealer(ctx.actor) ? db('dealer_details').where('user_id', ctx.actor.id!).first('pricing_model') : Promise.resolve(null),
    isDealer(ctx.actor) ? db('wallets').where('dealer_id', ctx.actor.id!).first('low_balance_threshold') : Promise.resolve(null),
    missedSalesSummary(ctx, timeZone),
  ]);
  type G = {
    status: string;
    bundle_id: number | null;
    dealer_id: number;
    bundle_name: string;
    provider_name: string;
    count: number | string;
    revenue: number | string;
    cost: number | string;
    profit: number | string;
  };
  const add = (into: Record<string, number>, r: G) => {
    into.count = (into.count ?? 0) + Number(r.count);
    into.revenue = (into.revenue ?? 0) + Number(r.revenue);
    into.cost = (into.cost ?? 0) + Number(r.cost);
    into.profit = (into.profit ?? 0) + Number(r.profit);
  };
  const period = (rows: G[]) => {
    const counts: Record<string, number> = {};
    const sales: Record<string, number> = { count: 0, revenue: 0, cost: 0, profit: 0 };
    for (const r of rows) {
      counts[r.status] = (counts[r.status] ?? 0) + Number(r.count);
      if (r.status === 'completed') add(sales, r);
    }
    const settled = (counts.completed ?? 0) + (counts.failed ?? 0) + (counts.refunded ?? 0);
    return {
      ...figures(sales, seesCost),
      pending: (counts.pending ?? 0) + (counts.processing ?? 0),
      failed: (counts.failed ?? 0) + (counts.refunded ?? 0),
      success_rate: settled ? Math.round(((counts.completed ?? 0) / settled) * 1000) / 10 : null,
    };
  };
  const top = async (key: 'bundle_id' | 'dealer_id') => {
    const totals = new Map<number | null, Record<string, number> & { label?: string }>();
    for (const r of monthRows as G[]) {
      if (r.status !== 'completed') continue;
      const id = r[key];
      const entry = totals.get(id) ?? {};
      add(entry, r);
      if (key === 'bundle_id') entry.label = `${r.provider_name} · ${r.bundle_name}` as never;
      totals.set(id, entry);
    }
    const best = [...totals.entries()].sort((x, y) => y[1].revenue - x[1].revenue).slice(0, 5);
    const names =
      key === 'dealer_id' && best.length
        ? new Map(
            (
              await db('users')
                .whereIn(
                  'id',
                  best.map(([id]) => id as number),
                )
                .select('id', 'name')
            ).map((u: { id: number; name: string }) => [u.id, u.name]),
          )
        : null;
    return best.map(([id, f]) => ({
      key: id === null ? 'none' : encodeId(Number(id)),
      ...(key === 'dealer_id' ? { id: Number(id) } : {}),
      label: names ? (names.get(Number(id)) ?? '') : String(f.label ?? ''),
      ...figures(f, seesCost),
    }));
  };
  const byDay = new Map(series.rows.map((r) => [r.key as string, r]));
  const days: { date: string; count: number; revenue: string; profit: string }[] = [];
  for (let i = 29; i >= 0; i--) {
    const d = zonedDay(new Date(startOfZonedDay(today, timeZone).getTime() - i * 86_400_000 + 3_600_000), timeZone);
    const r = byDay.get(d) as (Figures & { key: string }) | undefined;
    days.push({ date: d, count: r?.count ?? 0, revenue: r?.revenue ?? '0.00', profit: r?.profit ?? '0.00' });
  }
  const balance = Number((wallet as { total: number | string | null } | undefined)?.total ?? 0);
  const lowBalanceThreshold = (row: unknown) => {
    const t = (row as { low_balance_threshold?: number | string | null } | null | undefined)?.low_balance_threshold;
    return t === null || t === undefined ? 500 : Number(t);
  };
  const pricing = isDealer(ctx.actor) ? ((pricingRow as { pricing_model?: string } | null | undefined)?.pricing_model ?? 'cost') : null;
  return {
    today: period(todayRows as G[]),
    month: period(monthRows as G[]),
    days,
    top_bundles: await top('bundle_id'),
    top_dealers: isDealer(ctx.actor) ? [] : await top('dealer_id'),
    latest: latest.map((r: Record<string, unknown>) => ({
      id: Number(r.id),
      h_id: encodeId(Number(r.id)),
      reference: r.reference,
      status: r.status,
      bundle_name: r.bundle_name,
      provider_name: r.provider_name,
      phone: r.phone,
      amount: formatMinor(Number(r.amount)),
      currency: r.currency,
      created_at: fromDbTime(r.created_at),
    })),
    wallet_balance: formatMinor(balance),
    // A "Cost + Profit" dealer cannot sell without balance: warned below its low-balance threshold (5.00 when none is set).
    low_balance: pricing === 'cost' && balance < lowBalanceThreshold(thresholdRow),
    missed_sales: missed,
  };
}
