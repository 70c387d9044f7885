import type { Knex } from 'knex';
import { formatMinor } from '@app/contracts';
import { encodeId } from '../http/ids.ts';
import { startOfZonedDay } from '../database/time.ts';
import { forbidden } from '../http/errors.ts';
import { isDealer, type Actor, type ServiceContext } from '../platform/context.ts';
import { scopedRecharges } from './reports.service.ts';
import { timeBucket } from './time-buckets.ts';

/**
 * The company's real margin on its sales (GET /reports/margins, the dashboard's `margin`): what
 * the customer paid less what the gateway charged and what the aggregator said the top-up cost,
 * as the vendors told it and recorded with each sale (recharges.gateway_charges, aggregator_cost;
 * db/migrations/20261127F-vendor-money.ts). `list_profit` is the catalogue's profit (price less the
 * bundle's listed cost) for comparison. A completed sale whose aggregator cost is not known in the
 * sale's currency is never guessed: its margin is left out and it is counted in `unknown_cost`.
 * Computed in SQL from `recharges` (the day totals hold no vendor money), live sales only
 * (scopedRecharges: a test key's sales are the sandbox's, no money of the company's).
 */
type Db = Knex | Knex.Transaction;

/** Who may see the margin: staff with both 'view reports' and 'view bundles prices'; a dealer never (it is the company's cost). */
export const seesMargin = (actor: Actor): boolean => !isDealer(actor) && actor.permissions.has('view reports') && actor.permissions.has('view bundles prices');

/** A sale's gateway charges count when stated in the sale's currency (or with no currency: the sale's). */
export const CHARGES_IN_SALE_CURRENCY = '(recharges.gateway_currency IS NULL OR recharges.gateway_currency = recharges.currency)';
/** Its margin is known when the aggregator's cost is, in the sale's currency, and its charges can be subtracted (recharges/sale-margin.ts: the same rule for one sale). */
export const MARGIN_KNOWN = `(recharges.aggregator_cost IS NOT NULL AND recharges.aggregator_currency = recharges.currency AND (recharges.gateway_charges IS NULL OR ${CHARGES_IN_SALE_CURRENCY}))`;

/** The margin's sums over a query of `recharges` (the daily close counts a day with these too: one rule). */
export const marginSums = (db: Db) => [
  db.raw('COUNT(*) as count'),
  db.raw('COALESCE(SUM(recharges.amount), 0) as revenue'),
  db.raw('COALESCE(SUM(recharges.profit), 0) as list_profit'),
  db.raw(
    `COALESCE(SUM(CASE WHEN recharges.gateway_charges IS NOT NULL AND ${CHARGES_IN_SALE_CURRENCY} THEN recharges.gateway_charges ELSE 0 END), 0) as gateway_charges`,
  ),
  db.raw(`COALESCE(SUM(CASE WHEN ${MARGIN_KNOWN} THEN recharges.aggregator_cost ELSE 0 END), 0) as aggregator_cost`),
  db.raw(
    `COALESCE(SUM(CASE WHEN ${MARGIN_KNOWN} THEN recharges.amount - COALESCE(recharges.gateway_charges, 0) - recharges.aggregator_cost ELSE 0 END), 0) as margin`,
  ),
  db.raw(`COALESCE(SUM(CASE WHEN ${MARGIN_KNOWN} THEN 0 ELSE 1 END), 0) as unknown_cost`),
];

export const MARGIN_GROUPS = ['day', 'dealer', 'provider', 'route'] as const;
export type MarginGroup = (typeof MARGIN_GROUPS)[number];

export interface MarginFilters {
  /** Company days, YYYY-MM-DD. */
  from: string;
  to: string;
  group_by: MarginGroup;
  dealer_id?: string;
  provider_id?: string;
}

/** The figures of a row or the totals: money as decimal strings. */
export interface MarginFigures {
  count: number;
  revenue: string;
  list_profit: string;
  gateway_charges: string;
  aggregator_cost: string;
  margin: string;
  /** Completed sales whose aggregator cost is not known: left out of `margin`. */
  unknown_cost: number;
}

type Row = Record<string, unknown>;
const figures = (r: Row): MarginFigures => ({
  count: Number(r.count),
  revenue: formatMinor(Number(r.revenue)),
  list_profit: formatMinor(Number(r.list_profit)),
  gateway_charges: formatMinor(Number(r.gateway_charges)),
  aggregator_cost: formatMinor(Number(r.aggregator_cost)),
  margin: formatMinor(Number(r.margin)),
  unknown_cost: Number(r.unknown_cost),
});

const GROUPS: Record<Exclude<MarginGroup, 'day'>, { id: string; label: string }> = {
  dealer: { id: 'recharges.dealer_id', label: 'users.name' },
  provider: { id: 'recharges.provider_id', label: 'recharges.provider_name' },
  // The aggregator that delivered the sale.
  route: { id: 'recharges.operator_adapter', label: 'recharges.operator_adapter' },
};

/** The margins report: completed sales of the company-day range, grouped, with totals. Staff only. */
export async function marginsReport(
  ctx: ServiceContext,
  f: MarginFilters,
  timeZone: string,
): Promise<{ rows: (MarginFigures & { key: string; label: string })[]; totals: MarginFigures }> {
  if (!seesMargin(ctx.actor)) throw forbidden('api:reports.margins_staff_only');
  const db = ctx.db;
  const base = () => scopedRecharges(db, ctx, { from: f.from, to: f.to, dealer_id: f.dealer_id, provider_id: f.provider_id }, timeZone);
  let rows: (MarginFigures & { key: string; label: string })[];
  if (f.group_by === 'day') {
    const bucket = timeBucket(db, 'recharges.created_at', 'day', timeZone, startOfZonedDay(f.from, timeZone));
    const found: Row[] = await base()
      .select(db.raw(`${bucket.toQuery()} as period`), ...marginSums(db))
      .groupBy('period')
      .orderBy('period');
    rows = found.map((r) => ({ key: String(r.period), label: String(r.period), ...figures(r) }));
  } else {
    const { id, label } = GROUPS[f.group_by];
    const qb = base();
    if (f.group_by === 'dealer') qb.join('users', 'users.id', 'recharges.dealer_id');
    const found: Row[] = await qb
      .select(db.raw(`${id} as id`), db.raw(`MAX(${label}) as name`), ...marginSums(db))
      .groupBy(id)
      .orderBy('revenue', 'desc')
      .orderBy(id);
    rows = found.map((r) => {
      const key = r.id === null ? 'none' : f.group_by === 'route' ? String(r.id) : encodeId(Number(r.id));
      return { key, label: r.name === null ? 'none' : String(r.name), ...figures(r) };
    });
  }
  const totals = figures(
    (await base()
      .select(...marginSums(db))
      .first()) as Row,
  );
  return { rows, totals };
}

/** The dashboard's margin over a company-day range: margin, list profit and the sales whose cost is not known. */
export async function marginSummary(ctx: ServiceContext, from: string, to: string, timeZone: string) {
  const t = figures(
    (await scopedRecharges(ctx.db, ctx, { from, to }, timeZone)
      .select(...marginSums(ctx.db))
      .first()) as Row,
  );
  return { margin: t.margin, list_profit: t.list_profit, unknown_cost: t.unknown_cost };
}
