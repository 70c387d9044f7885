import type { Knex } from 'knex';
import { formatMinor, type Permission } from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { timeBucket, totalsBucket, type TimeGroup } from './time-buckets.ts';
import { followZone, IN_FLIGHT_STATUSES, isInFlight, readDayTotalsState, totalsCover, type DayTotalsState } from './day-totals.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { missedSalesSummary } from '../wallets/missed-sales.ts';
import { belowAlertCount } from '../wallets/wallet.service.ts';
import { pendingRequestCount } from '../wallets/top-up-requests.ts';
import { floatAlerts } from '../aggregators/float.service.ts';
import { marginSummary, seesMargin } from './margins.service.ts';

/**
 * Sales figures, computed in the database (grouping and sums in SQL over indexed columns, never
 * by loading recharges into Node). A sale is a completed recharge unless a status filter says
 * otherwise. Dealers only ever see their own figures. Amounts leave as "12.50" strings.
 *
 * Settled sales are read from the day totals (`recharge_day_totals`, kept by triggers; see
 * day-totals.ts) whenever those give the same answer, and the in-flight ones (pending, processing,
 * needs_review) from `recharges`; otherwise everything is counted in `recharges` ("live"). Both
 * ways answer the same figures, labels and order (day-totals.test.ts compares them).
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

/**
 * The recharges a report counts: live sales (a test key's are sandbox money, never counted; the day
 * totals hold live sales only too) of the range in company days, the filters, the caller's scope.
 * `statuses` replaces the status filter (the in-flight part of a report read from the totals).
 */
export function scopedRecharges(db: Db, ctx: ServiceContext, f: Omit<SalesFilters, 'group_by'>, timeZone: string, statuses?: readonly string[]) {
  const qb = db('recharges')
    .where('recharges.mode', 'live')
    .where('recharges.created_at', '>=', toDbTime(startOfZonedDay(f.from, timeZone)))
    .where('recharges.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timeZone).getTime() + 86_400_000)));
  if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
  else if (f.dealer_id) qb.where('recharges.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.provider_id) qb.where('recharges.provider_id', decodeId(f.provider_id) ?? 0);
  if (f.category) qb.where('recharges.category_name', f.category);
  if (f.payment_method_id) qb.where('recharges.payment_method_id', decodeId(f.payment_method_id) ?? 0);
  if (statuses) qb.whereIn('recharges.status', statuses);
  else if (f.status && f.status !== 'all') qb.where('recharges.status', f.status);
  else if (!f.status) qb.where('recharges.status', 'completed');
  return qb;
}

/**
 * The same selection in the day totals, aliased `recharges` so the columns read the same. Settled
 * statuses only (the totals hold no other); a missing operator, bundle or payment method is 0
 * there, so an id that decodes to nothing asks for -1 (matches no row, as 0 does in `recharges`).
 */
function scopedTotals(db: Db, ctx: ServiceContext, f: Omit<SalesFilters, 'group_by'>) {
  const qb = db('recharge_day_totals as recharges').where('recharges.day', '>=', f.from).where('recharges.day', '<=', f.to);
  if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
  else if (f.dealer_id) qb.where('recharges.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.provider_id) qb.where('recharges.provider_id', decodeId(f.provider_id) ?? -1);
  if (f.category) qb.where('recharges.category_name', f.category);
  if (f.payment_method_id) qb.where('recharges.payment_method_id', decodeId(f.payment_method_id) ?? -1);
  if (f.status && f.status !== 'all') qb.where('recharges.status', f.status);
  else if (!f.status) qb.where('recharges.status', 'completed');
  return qb;
}

/** Where a report reads: the totals' state when they cover its range and status, else null (live). */
async function totalsFor(ctx: ServiceContext, from: string, to: string, status: string | undefined, timeZone: string, opts: ReportOptions) {
  if (opts.live || (status && isInFlight(status))) return null;
  const state = opts.state !== undefined ? opts.state : await readDayTotalsState(ctx.db);
  if (opts.state === undefined) followZone(state, timeZone);
  return totalsCover(state, from, to, timeZone) ? state : null;
}

export interface ReportOptions {
  /** Count `recharges` only (the tests' reference). */
  live?: boolean;
  /** The totals' state, already read (the dashboard reads it once). */
  state?: DayTotalsState | null;
}

const sums = (db: Db, totals = false) => [
  db.raw(totals ? 'COALESCE(SUM(recharges.sales), 0) as count' : 'COUNT(*) as count'),
  db.raw('COALESCE(SUM(recharges.amount), 0) as revenue'),
  db.raw('COALESCE(SUM(recharges.cost), 0) as cost'),
  db.raw('COALESCE(SUM(recharges.profit), 0) as profit'),
];

/** The outer sums over a UNION ALL of totals and in-flight recharges, each already summed. */
const resums = (db: Db) => ['count', 'revenue', 'cost', 'profit'].map((c) => db.raw(`SUM(x.${c}) as ${c}`));
/** `settled UNION ALL live` as the derived table x (each part in its own derived table: knex would put the union before a part's GROUP BY). */
const unionOf = (db: Db, settled: Knex.QueryBuilder, live: Knex.QueryBuilder) =>
  db
    .select('*')
    .from(settled.as('s'))
    .unionAll(db.select('*').from(live.as('l')))
    .as('x');

const total = (rows: Record<string, unknown>[]) => {
  const t = { count: 0, revenue: 0, cost: 0, profit: 0 };
  for (const r of rows) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += Number(r[k]);
  return t;
};

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

type Row = Record<string, unknown>;
const GROUP_COLUMNS = {
  provider: ['recharges.provider_id', 'recharges.provider_name'],
  bundle: ['recharges.bundle_id', 'recharges.bundle_name'],
  dealer: ['recharges.dealer_id', 'users.name'],
} as const;
const isTimeGroup = (g: Group): g is TimeGroup => g === 'day' || g === 'week' || g === 'month';

export async function salesReport(ctx: ServiceContext, f: SalesFilters, timeZone: string, opts: { totals?: boolean } & ReportOptions = {}) {
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  if (await totalsFor(ctx, f.from, f.to, f.status, timeZone, opts)) return salesFromTotals(ctx, f, timeZone, seesCost, opts.totals !== false);
  const base = () => scopedRecharges(ctx.db, ctx, f, timeZone);
  let rows: Row[];
  if (isTimeGroup(f.group_by)) {
    const bucket = timeBucket(ctx.db, 'recharges.created_at', f.group_by, timeZone, startOfZonedDay(f.from, timeZone));
    rows = await base()
      .select(ctx.db.raw(`${bucket.toQuery()} as period`), ...sums(ctx.db))
      .groupBy('period')
      .orderBy('period');
    rows = rows.map((r) => ({ key: String(r.period), label: String(r.period), ...figures(r, seesCost) }));
  } else {
    const [idCol, nameCol] = GROUP_COLUMNS[f.group_by];
    const qb = base();
    if (f.group_by === 'dealer') qb.join('users', 'users.id', 'recharges.dealer_id');
    rows = await qb
      .select(ctx.db.raw(`${idCol} as id`), ctx.db.raw(`MAX(${nameCol}) as name`), ...sums(ctx.db))
      .groupBy(idCol)
      .orderBy('revenue', 'desc')
      .orderBy(idCol);
    rows = rows.map(byId(seesCost));
  }
  const totals =
    opts.totals === false
      ? figures({ count: 0, revenue: 0, cost: 0, profit: 0 }, seesCost)
      : figures(
          (await base()
            .select(...sums(ctx.db))
            .first()) as Row,
          seesCost,
        );
  return { rows, totals };
}

const byId = (seesCost: boolean) => (r: Row) => ({
  key: r.id === null ? 'none' : encodeId(Number(r.id)),
  id: r.id === null ? null : Number(r.id),
  label: String(r.name ?? ''),
  ...figures(r, seesCost),
});

/**
 * The sales report from the day totals: settled sales summed per day row; with status=all, the
 * in-flight recharges of the range summed the live way and added (UNION ALL, summed again, so a
 * label is still the greatest name of both). Totals: the rows' sums (each row is one group of a
 * partition of the sales), except by dealer, whose join with users is counted on its own.
 */
async function salesFromTotals(ctx: ServiceContext, f: SalesFilters, timeZone: string, seesCost: boolean, withTotals: boolean) {
  const db = ctx.db;
  const all = f.status === 'all';
  const inFlight = () => scopedRecharges(db, ctx, f, timeZone, IN_FLIGHT_STATUSES);
  let raw: Row[];
  let rows: Row[];
  if (isTimeGroup(f.group_by)) {
    const settled = scopedTotals(db, ctx, f)
      .select(db.raw(`${totalsBucket(db, 'recharges.day', f.group_by).toQuery()} as period`), ...sums(db, true))
      .groupBy('period');
    if (all) {
      const bucket = timeBucket(db, 'recharges.created_at', f.group_by, timeZone, startOfZonedDay(f.from, timeZone));
      const live = inFlight()
        .select(db.raw(`${bucket.toQuery()} as period`), ...sums(db))
        .groupBy('period');
      raw = await db
        .select('x.period', ...resums(db))
        .from(unionOf(db, settled, live))
        .groupBy('x.period')
        .orderBy('x.period');
    } else raw = await settled.orderBy('period');
    rows = raw.map((r) => ({ key: String(r.period), label: String(r.period), ...figures(r, seesCost) }));
  } else {
    const [idCol, nameCol] = GROUP_COLUMNS[f.group_by];
    const dealer = f.group_by === 'dealer';
    const settled = scopedTotals(db, ctx, f);
    if (dealer) settled.join('users', 'users.id', 'recharges.dealer_id');
    settled.select(db.raw(`${dealer ? idCol : `NULLIF(${idCol}, 0)`} as id`), db.raw(`MAX(${nameCol}) as name`), ...sums(db, true)).groupBy(idCol);
    const totalsOfDealers = () =>
      dealer && withTotals
        ? Promise.all([
            scopedTotals(db, ctx, f)
              .select(...sums(db, true))
              .first(),
            all
              ? inFlight()
                  .select(...sums(db))
                  .first()
              : undefined,
          ])
        : Promise.resolve(null);
    let grouped: Promise<Row[]>;
    if (all) {
      const live = inFlight();
      if (dealer) live.join('users', 'users.id', 'recharges.dealer_id');
      live.select(db.raw(`${idCol} as id`), db.raw(`MAX(${nameCol}) as name`), ...sums(db)).groupBy(idCol);
      grouped = db
        .select('x.id', db.raw('MAX(x.name) as name'), ...resums(db))
        .from(unionOf(db, settled, live))
        .groupBy('x.id')
        .orderBy('revenue', 'desc')
        .orderBy('x.id');
    } else grouped = settled.orderBy('revenue', 'desc').orderBy(idCol);
    const [groupRows, dealerTotals] = await Promise.all([grouped, totalsOfDealers()]);
    raw = groupRows;
    rows = raw.map(byId(seesCost));
    if (dealerTotals) return { rows, totals: figures(total(dealerTotals.filter(Boolean) as Row[]), seesCost) };
  }
  return { rows, totals: figures(withTotals ? total(raw) : total([]), seesCost) };
}

/** Profit per dealer over a range; with dealer_id (or for a dealer), also per bundle. */
export async function dealerProfitReport(ctx: ServiceContext, f: { from: string; to: string; dealer_id?: string }, timeZone: string, opts: ReportOptions = {}) {
  const db = ctx.db;
  const scope = { from: f.from, to: f.to, dealer_id: f.dealer_id };
  const fromTotals = Boolean(await totalsFor(ctx, f.from, f.to, undefined, timeZone, opts));
  const base = () => (fromTotals ? scopedTotals(db, ctx, scope) : scopedRecharges(db, ctx, scope, timeZone));
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const one = isDealer(ctx.actor) || f.dealer_id;
  const [rows, bundleRows, totals] = await Promise.all([
    // Summed per dealer first, then joined: one users row per dealer instead of one per sale or day.
    db
      .select('t.*', 'users.name', 'users.dealer_code')
      .from(
        base()
          .select('recharges.dealer_id', db.raw('MAX(recharges.pricing_model) as pricing_model'), ...sums(db, fromTotals))
          .groupBy('recharges.dealer_id')
          .as('t'),
      )
      .join('users', 'users.id', 't.dealer_id')
      .orderBy('t.profit', 'desc')
      .orderBy('t.dealer_id'),
    one
      ? base()
          .select(
            db.raw(`${fromTotals ? 'NULLIF(recharges.bundle_id, 0)' : 'recharges.bundle_id'} as bundle_id`),
            db.raw('MAX(recharges.bundle_name) as name'),
            db.raw('MAX(recharges.provider_name) as provider'),
            ...sums(db, fromTotals),
          )
          .groupBy('recharges.bundle_id')
          .orderBy('profit', 'desc')
          .orderBy('recharges.bundle_id')
      : Promise.resolve(undefined),
    base()
      .select(...sums(db, fromTotals))
      .first(),
  ]);
  const bundles = bundleRows?.map((r: Row) => ({
    bundle_id: r.bundle_id === null ? null : Number(r.bundle_id),
    name: String(r.name),
    provider: String(r.provider),
    ...figures(r, seesCost),
  }));
  return {
    rows: rows.map((r: Row) => ({
      dealer: dealerRef(Number(r.dealer_id), String(r.name), r.dealer_code as string | null),
      pricing_model: r.pricing_model === 'profit' ? 'profit' : 'cost',
      ...figures(r, seesCost),
    })),
    totals: figures(totals as Row, seesCost),
    ...(bundles ? { bundles } : {}),
  };
}

/**
 * The dashboard: today, this month, the last 30 days, top bundles and dealers, the latest sales.
 * Few scans, run at once: the month's sales grouped by status, bundle and dealer give the month's
 * figures and both top lists in one pass (README, Benchmarks: dashboard on 1,000,000 recharges).
 */
export async function dashboard(ctx: ServiceContext, timeZone: string, opts: ReportOptions = {}) {
  const now = new Date();
  const today = zonedDay(now, timeZone);
  const monthStart = `${today.slice(0, 8)}01`;
  const thirtyAgo = zonedDay(new Date(startOfZonedDay(today, timeZone).getTime() - 29 * 86_400_000 + 3_600_000), timeZone);
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  const db = ctx.db;
  const state = opts.live ? null : await readDayTotalsState(db);
  if (!opts.live) followZone(state, timeZone);
  const order = ['recharges.status', 'recharges.bundle_id', 'recharges.dealer_id'];
  const live = (from: string, statuses?: readonly string[]) =>
    scopedRecharges(db, ctx, { from, to: today, status: 'all' }, timeZone, statuses)
      .select(
        'recharges.status',
        'recharges.bundle_id',
        'recharges.dealer_id',
        db.raw('MAX(recharges.bundle_name) as bundle_name'),
        db.raw('MAX(recharges.provider_name) as provider_name'),
        ...sums(db),
      )
      .groupBy(...order)
      .orderBy(order);
  // From the totals: settled statuses there, in-flight ones live. No group is in both (status is
  // part of it), and the order only matters among completed ones (top bundles' labels).
  const grouped = async (from: string): Promise<Row[]> => {
    if (!totalsCover(state, from, today, timeZone)) return live(from);
    const [settled, inFlight] = await Promise.all([
      scopedTotals(db, ctx, { from, to: today, status: 'all' })
        .select(
          'recharges.status',
          db.raw('NULLIF(recharges.bundle_id, 0) as bundle_id'),
          'recharges.dealer_id',
          db.raw('MAX(recharges.bundle_name) as bundle_name'),
          db.raw('MAX(recharges.provider_name) as provider_name'),
          ...sums(db, true),
        )
        .groupBy(...order)
        .orderBy(order),
      live(from, IN_FLIGHT_STATUSES),
    ]);
    return [...settled, ...inFlight];
  };
  // Live money only: a test wallet's sandbox balance is nobody's.
  const walletQuery = db('wallets').where('mode', 'live');
  if (isDealer(ctx.actor)) walletQuery.where('dealer_id', ctx.actor.id!);
  const staff = !isDealer(ctx.actor);
  const can = (permission: Permission) => staff && ctx.actor.permissions.has(permission);
  const [monthRows, todayRows, series, latest, wallet, pricingRow, thresholdRow, missed, margin, moneyRequests, belowAlert] = await Promise.all([
    grouped(monthStart),
    grouped(today),
    salesReport(ctx, { from: thirtyAgo, to: today, group_by: 'day' }, timeZone, { totals: false, live: opts.live, state }),
    // The latest live sales (a test key's sales are listed with ?mode=test on the recharges page).
    db('recharges')
      .where('mode', 'live')
      .modify((qb) => void (isDealer(ctx.actor) && qb.where('dealer_id', ctx.actor.id!)))
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(8)
      .select('id', 'reference', 'status', 'bundle_name', 'provider_name', 'phone', 'amount', 'currency', 'created_at'),
    walletQuery.sum({ total: 'balance' }).first(),
    isDealer(ctx.actor) ? db('dealer_details').where('user_id', ctx.actor.id!).first('pricing_model') : Promise.resolve(null),
    isDealer(ctx.actor) ? db('wallets').where({ dealer_id: ctx.actor.id!, mode: 'live' }).first('low_balance_threshold') : Promise.resolve(null),
    missedSalesSummary(ctx, timeZone),
    // The company's real margin (margins.service.ts): staff who may see it only.
    seesMargin(ctx.actor) ? marginSummary(ctx, thirtyAgo, today, timeZone) : Promise.resolve(null),
    // What waits for staff (the same counts as the Wallets menu's badges), each for its permission only.
    can('review wallet top-ups') ? pendingRequestCount(ctx) : Promise.resolve(null),
    can('view wallets') ? belowAlertCount(ctx) : Promise.resolve(null),
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
    // Staff who watch the delivery routes: the aggregators whose float was last read below its threshold.
    ...(!isDealer(ctx.actor) && ctx.actor.permissions.has('view delivery routes') ? { floats: await floatAlerts(db as Knex) } : {}),
    ...(margin ? { margin: { last_30_days: margin } } : {}),
    // Staff: requests waiting for a decision and dealers under their low-balance alert (null without the permission).
    ...(staff ? { attention: { money_requests: moneyRequests, below_alert: belowAlert } } : {}),
  };
}
