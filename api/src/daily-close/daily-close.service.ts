import type { Knex } from 'knex';
import type { TFunction } from 'i18next';
import {
  formatMinor,
  isCalendarDay,
  type DailyCloseCorrection,
  type DailyCloseDay,
  type DailyCloseDifference,
  type DailyCloseResponse,
  type DailyCloseTotals,
  type DifferenceAction,
  type ResolveDifferenceInput,
} from '@app/contracts';
import { AppError, fieldError, forbidden, notFound } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { pageParams, type Page } from '../http/list-query.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { timeBucket } from '../reports/time-buckets.ts';
import { MARGIN_KNOWN, marginSums } from '../reports/margins.service.ts';
import { zonedIsoTime } from '../http/csv.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { adjust } from '../wallets/wallet.service.ts';
import { settleRecharge, type RechargeMoney } from '../recharges/recharge-console.service.ts';
import type { OperatorAdapter, TopUpReport } from '../connectors/deliveries/operator-adapter.ts';
import type { LookupResult } from '../connectors/payments/payment-adapter.ts';
import type { PaymentGateways } from '../connectors/payments/payment-gateways.ts';
import {
  compareTopUp,
  comparePayment,
  evidence,
  hadPayment,
  matchDay,
  SETTLED_STATUSES,
  type Difference,
  type Evidence,
  type MatchOutput,
  type SaleView,
  type VendorSummary,
} from './daily-close-matcher.ts';
import { translator } from '../i18n/server-i18n.ts';

/**
 * The daily close (issue 26): a company day's sales compared with the vendors' own records, the
 * differences handled by people, then the day closed with its figures frozen.
 *
 * - A company day is [start, end) of the calendar day in the company's time zone; a sale belongs to
 *   the day of its `created_at`. The vendors are asked about the day widened by an hour each side,
 *   so a top-up recorded just after midnight still meets its sale (daily-close-matcher.ts).
 * - Refresh asks again and recomputes an open day's differences: those already handled stay as they
 *   are (same day, vendor, kind and reference: same id); unhandled ones that no longer show go.
 * - Close freezes the totals and each sale's figures. Whatever happens later to a closed day's sale
 *   (a refund, a review settled, a sale after the cutoff) is reported as a correction of the next
 *   open day, so closed figures never move.
 * - A closed day's figures are only those the vendors were asked about. A past day closes only once
 *   it was refreshed after its end plus the report margin (an hour): else 409 "refresh first", and the
 *   finance person refreshes, handles what that finds, and closes. Closing today cuts the day at its
 *   last refresh (`cutoff_at` = `refreshed_at`, the instant that refresh read the sales): sales after
 *   it, and wallet activity after it, belong to the next open day, which compares them, corrects
 *   them in and counts that ledger (its comparison and ledger start at the cutoff).
 * - Corrections are found on refresh, on close and by the schedule (never on a GET, which only
 *   reads): the sales of closed days changed (`recharges.updated_at`) since the last detection, a
 *   watermark in `settings` (group `daily_close`), less a slack for transactions still open then.
 *   Each is written in a transaction that locks the target day's row and checks it is still open;
 *   closed meanwhile, the correction goes to the next open day.
 * - Live money only: a test key's sales (recharges.mode 'test', charged and delivered through the
 *   sandbox) and its test wallet's ledger are never a day's sales, differences, corrections or
 *   ledger, nor make a day one with sales. The sandbox's records of test sales are passed over.
 * - The day's money totals follow the margins report's rule (reports/margins.service.ts,
 *   marginSums). Cost, list profit, aggregator cost and margin are null for a user without
 *   "view bundles prices", as are a vendor record's cost and a correction's profit.
 * - The hourly schedule does not ask the gateway again about a sale whose last answer matched and
 *   whose row has not changed since (kept per day with the vendors' summary); the console's Refresh
 *   asks about every sale.
 */

/** What the close needs from the running process, read at each call (a test's adapters are set after the app is made). */
export interface DailyCloseDeps {
  operators: () => Record<string, OperatorAdapter>;
  gateways: () => PaymentGateways | undefined;
  money: RechargeMoney;
}

type Db = Knex | Knex.Transaction;
const HOUR = 3_600_000;
/** How far around the day the aggregators' records are pulled. */
const REPORT_MARGIN_MS = HOUR;
/** Gateway lookups in flight at once during a refresh. */
const LOOKUP_CONCURRENCY = 8;
/** How many days back an open day looks for the closed days right before it (where its comparison and ledger start). */
const RUN_LOOKBACK_DAYS = 31;
/** Corrections: sales changed since the last detection, less this (a transaction still open then). */
const CORRECTION_SLACK_MS = 15 * 60_000;
const WATERMARK = { group: 'daily_close', key: 'corrections_checked_at' } as const;

interface CloseRow {
  id: number;
  day: string;
  status: 'open' | 'closed';
  vendors: string | null;
  totals: string | null;
  snapshot: string | null;
  refreshed_at: string | null;
  closed_at: string | null;
  closed_by: number | null;
  cutoff_at: string | null;
}

interface DifferenceRow {
  id: number;
  day: string;
  kind: Difference['kind'];
  source: Difference['source'];
  vendor: string;
  reference: string;
  recharge_id: number | null;
  ours: string | null;
  theirs: string | null;
  evidence: string;
  handled: boolean | number;
  action: DifferenceAction | null;
  note: string | null;
  handled_by: number | null;
  handled_by_name?: string | null;
  handled_at: string | null;
  details: string | null;
}

interface CorrectionRow {
  id: number;
  day: string;
  closed_day: string;
  recharge_id: number;
  reference: string | null;
  seq: number;
  from_status: string;
  to_status: string;
  amount_after: number | string;
  profit_after: number | string;
  amount: number | string;
  profit: number | string;
  created_at: string;
}

/** A sale's figures as the close counts them: only a completed sale counts its amount and profit. */
interface Counted {
  status: string;
  amount: number;
  profit: number;
}
/** Each sale's frozen figures; `cost` and the states are kept for the day's files. */
type Snapshot = Record<string, Counted & { reference: string; cost?: number; payment_state?: string; delivery_state?: string }>;

/** What the last refresh kept: the vendors' summary, and the gateway answers that matched (by sale id, with the row's updated_at then). */
interface VendorState {
  vendors: VendorSummary[];
  gateway_matched?: Record<string, { at: string; vendor: string; result: LookupResult }>;
}
const vendorState = (text: string | null | undefined): VendorState => {
  const v = json<unknown>(text, []);
  if (Array.isArray(v)) return { vendors: v as VendorSummary[] };
  return v && typeof v === 'object' && Array.isArray((v as VendorState).vendors) ? (v as VendorState) : { vendors: [] };
};

/** Cost, profit and margin figures are shown only to holders of "view bundles prices". */
export const seesCost = (ctx: ServiceContext): boolean => ctx.actor.permissions.has('view bundles prices');

const json = <T>(text: string | null | undefined, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export function assertStaff(ctx: ServiceContext): void {
  // The close covers every dealer's sales: never a dealer's to read, whatever its role holds.
  if (isDealer(ctx.actor)) throw forbidden();
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const previousDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export function dayRange(day: string, timeZone: string) {
  return { start: startOfZonedDay(day, timeZone), end: startOfZonedDay(nextDay(day), timeZone) };
}

/** The company's settings and the day checked: a real calendar day, today at the latest. */
async function companyDay(ctx: ServiceContext, day: string) {
  const company = await readCompanySettings(ctx.db);
  if (!isCalendarDay(day)) throw fieldError('date', 'validation:date_invalid');
  const today = zonedDay(new Date(), company.timezone);
  if (day > today) throw fieldError('date', 'validation:daily_close_day_future');
  return { company, today, range: dayRange(day, company.timezone) };
}

/** A completed sale's real margin, the margins report's rule (MARGIN_KNOWN): 0 where it is not known. */
const MARGIN_SQL = `CASE WHEN ${MARGIN_KNOWN} THEN recharges.amount - COALESCE(recharges.gateway_charges, 0) - recharges.aggregator_cost ELSE 0 END`;

async function ensureRow(db: Db, day: string): Promise<void> {
  const now = toDbTime();
  await db('daily_closes').insert({ day, status: 'open', created_at: now, updated_at: now }).onConflict('day').ignore();
}

const closeRow = (db: Db, day: string): Promise<CloseRow | undefined> => db('daily_closes').where({ day }).first();

type SaleRow = Record<string, any>;

/** The day's live sales (a test key's are not the company's). */
function salesQuery(db: Db, range: { start: Date; end: Date }, cutoff?: string | null) {
  const qb = db('recharges').where('mode', 'live').where('created_at', '>=', toDbTime(range.start)).where('created_at', '<', toDbTime(range.end));
  if (cutoff) qb.where('created_at', '<', cutoff);
  return qb;
}

const view = (r: SaleRow): SaleView => ({
  id: Number(r.id),
  reference: String(r.reference),
  status: r.status,
  payment_state: r.payment_state,
  delivery_state: r.delivery_state,
  payment_flow: r.payment_flow ?? null,
  payment_adapter: r.payment_adapter ?? null,
  payment_reference: r.payment_reference ?? null,
  operator_adapter: r.operator_adapter ?? null,
  route_product: r.route_product ?? null,
  amount: Number(r.amount),
  cost: Number(r.cost),
});

const counted = (r: SaleRow): Counted => ({
  status: r.status,
  amount: r.status === 'completed' ? Number(r.amount) : 0,
  profit: r.status === 'completed' ? Number(r.profit) : 0,
});

/** Asks an aggregator for one top-up by our reference (a record outside the pulled window). */
async function lookupTopUp(operator: OperatorAdapter, reference: string, rechargeId: number | null) {
  return operator.lookup(reference, { rechargeId }).catch((err: Error): { status: 'unknown'; error: string } => ({ status: 'unknown', error: err.message }));
}

/**
 * An aggregator's `only_ours` is asked once more by our reference before it stands: a sale made
 * late in the day and delivered more than the margin after midnight has no record in the window.
 * Delivered: no difference (matched). Failed there: a state difference. No answer: it stands.
 */
async function confirmOnlyOurs(operators: Record<string, OperatorAdapter>, matched: MatchOutput): Promise<void> {
  const kept: Difference[] = [];
  for (const d of matched.differences) {
    const operator = d.kind === 'only_ours' && d.source === 'aggregator' ? operators[d.vendor] : undefined;
    if (!operator?.capabilities.lookupByOwnReference) {
      kept.push(d);
      continue;
    }
    const found = await lookupTopUp(operator, d.key, d.recharge_id);
    if (found.status === 'delivered') {
      const v = matched.vendors.find((x) => x.kind === 'aggregator' && x.vendor === d.vendor);
      if (v) {
        v.records++;
        v.matched++;
      }
      continue;
    }
    if (found.status === 'failed')
      kept.push({
        ...d,
        kind: 'state',
        theirs: { state: 'failed', vendor_id: found.deliveryId, reason: found.reason },
        evidence: evidence('not_delivered_theirs', { vendor: d.vendor, reference: d.key, state: 'failed' }),
      });
    else kept.push(d);
  }
  matched.differences = kept;
}

// ---- asking the vendors ------------------------------------------------------------------------

async function pullReports(operators: Record<string, OperatorAdapter>, range: { start: Date; end: Date }): Promise<Record<string, TopUpReport>> {
  const widened = { from: new Date(range.start.getTime() - REPORT_MARGIN_MS), to: new Date(range.end.getTime() + REPORT_MARGIN_MS) };
  const reporting = Object.values(operators)
    .filter((o) => o.capabilities.transactionReport && typeof o.transactions === 'function')
    .sort((a, b) => a.name.localeCompare(b.name));
  const answers = await Promise.all(
    reporting.map(async (o) => {
      // A report that throws is an unknown answer like any other: asked again at the next refresh.
      const answer: TopUpReport = await o.transactions(widened, { rechargeId: null }).catch((err: Error) => ({ status: 'unknown', error: err.message }));
      return [o.name, answer] as const;
    }),
  );
  return Object.fromEntries(answers);
}

async function lookupPayment(gateways: PaymentGateways | undefined, sale: SaleView): Promise<{ vendor: string; result: LookupResult } | null> {
  if (!hadPayment(sale)) return null;
  const gateway = gateways?.of(sale);
  const vendor = sale.payment_adapter ?? gateway?.name ?? 'unknown';
  if (!gateway) return { vendor, result: { status: 'unknown', error: `The gateway "${vendor}" is not configured in this process.` } };
  const result = await gateway
    .lookup(sale.reference, { rechargeId: sale.id }, { transactionId: sale.payment_reference })
    .catch((err: Error): LookupResult => ({ status: 'unknown', error: err.message }));
  return { vendor, result };
}

async function lookupAll(gateways: PaymentGateways | undefined, sales: SaleView[]) {
  const lookups = new Map<number, { vendor: string; result: LookupResult }>();
  const queue = sales.filter((s) => SETTLED_STATUSES.has(s.status) && hadPayment(s));
  const worker = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      const asked = await lookupPayment(gateways, s);
      if (asked) lookups.set(s.id, asked);
    }
  };
  await Promise.all(Array.from({ length: LOOKUP_CONCURRENCY }, worker));
  return lookups;
}

/**
 * References among the records that are sales of other days (their day compares them) or test
 * sales (the sandbox's books hold them; never compared): any mode, so neither is `only_theirs`.
 */
async function otherDayReferences(db: Db, reports: Record<string, TopUpReport>, ours: Set<string>): Promise<Set<string>> {
  const refs = new Set<string>();
  for (const r of Object.values(reports))
    if (r.status === 'ok') for (const rec of r.records) if (rec.ourReference && !ours.has(rec.ourReference)) refs.add(rec.ourReference);
  const found = new Set<string>();
  const list = [...refs];
  for (let i = 0; i < list.length; i += 500) {
    const rows: { reference: string }[] = await db('recharges')
      .whereIn('reference', list.slice(i, i + 500))
      .select('reference');
    for (const row of rows) found.add(row.reference);
  }
  return found;
}

// ---- refresh -----------------------------------------------------------------------------------

/**
 * Asks the vendors again about an open day and stores its differences; 409 once the day is closed.
 * `askAll` (the console's Refresh): every sale's gateway is asked; otherwise (the schedule) a sale
 * whose last answer matched and whose row has not changed since is not asked again.
 */
export async function refreshDay(ctx: ServiceContext, deps: DailyCloseDeps, day: string, opts: { askAll?: boolean } = {}): Promise<DailyCloseResponse> {
  assertStaff(ctx);
  const { company, range: own } = await companyDay(ctx, day);
  await ensureRow(ctx.db, day);
  const before = await closeRow(ctx.db, day);
  if (before?.status === 'closed') throw new AppError(409, 'api:daily_close.closed');
  // The instant this comparison stands at: the sales are read after it (closing today cuts there).
  const startedAt = toDbTime();
  await detectCorrections(ctx);
  const range = await comparisonRange(ctx.db, day, company.timezone, own);
  const rows = (await salesQuery(ctx.db, range)) as SaleRow[];
  const sales = rows.map(view);
  const changedAt = new Map(rows.map((r) => [Number(r.id), fromDbTime(r.updated_at) ?? '']));
  // Aggregators the day's sales went through come first: two names reading one account's books (the
  // sandbox and an unconfigured Reloadly) report a stranger record under the one the shop uses.
  const used = new Set(sales.map((s) => s.operator_adapter));
  const operators = deps.operators();
  const pulled = await pullReports(operators, range);
  const reports = Object.fromEntries(Object.entries(pulled).sort(([a], [b]) => Number(used.has(b)) - Number(used.has(a))));
  // The gateway answers that matched last time, for rows unchanged since: not asked again.
  const previous = opts.askAll ? {} : (vendorState(before?.vendors).gateway_matched ?? {});
  const kept = new Map<number, { vendor: string; result: LookupResult }>();
  for (const s of sales) {
    const last = previous[String(s.id)];
    if (last && last.at && last.at === changedAt.get(s.id)) kept.set(s.id, { vendor: last.vendor, result: last.result });
  }
  const lookups = await lookupAll(
    deps.gateways(),
    sales.filter((s) => !kept.has(s.id)),
  );
  for (const [id, asked] of kept) lookups.set(id, asked);
  const otherDays = await otherDayReferences(ctx.db, reports, new Set(sales.map((s) => s.reference)));
  const matched = matchDay({ sales, range, reports, otherDays, lookups });
  await confirmOnlyOurs(operators, matched);
  const differing = new Set(matched.differences.filter((d) => d.source === 'gateway').map((d) => d.recharge_id));
  const gatewayMatched: NonNullable<VendorState['gateway_matched']> = {};
  for (const [id, asked] of lookups)
    if (asked.result.status !== 'unknown' && !differing.has(id) && changedAt.get(id))
      gatewayMatched[String(id)] = { at: changedAt.get(id)!, vendor: asked.vendor, result: asked.result };
  await storeDifferences(ctx, day, matched, { refreshedAt: startedAt, gatewayMatched });
  return readDay(ctx, day);
}

const keyOf = (d: { source: string; vendor: string; kind: string; reference: string }) => `${d.source}\u0000${d.vendor}\u0000${d.kind}\u0000${d.reference}`;

async function storeDifferences(
  ctx: ServiceContext,
  day: string,
  matched: MatchOutput,
  kept: { refreshedAt: string; gatewayMatched: VendorState['gateway_matched'] },
): Promise<void> {
  await transact(ctx, async (tctx) => {
    const db = tctx.db;
    const row = await db('daily_closes').where({ day }).forUpdate().first();
    if (!row || row.status === 'closed') throw new AppError(409, 'api:daily_close.closed');
    const now = toDbTime();
    const existing: DifferenceRow[] = await db('daily_close_differences').where({ day });
    const byKey = new Map(existing.map((d) => [keyOf(d), d]));
    const found = new Set<string>();
    for (const d of matched.differences) {
      const reference = d.key.slice(0, 191);
      const key = keyOf({ source: d.source, vendor: d.vendor, kind: d.kind, reference });
      if (found.has(key)) continue;
      found.add(key);
      const fields = {
        recharge_id: d.recharge_id,
        ours: d.ours ? JSON.stringify(d.ours) : null,
        theirs: d.theirs ? JSON.stringify(d.theirs) : null,
        evidence: storedEvidence(d.evidence),
        updated_at: now,
      };
      const before = byKey.get(key);
      // Handled ones keep what the person saw and did.
      if (before && !before.handled) await db('daily_close_differences').where({ id: before.id, handled: false }).update(fields);
      else if (!before)
        await db('daily_close_differences')
          .insert({ day, kind: d.kind, source: d.source, vendor: d.vendor, reference, handled: false, created_at: now, ...fields })
          .onConflict(['day', 'source', 'vendor', 'kind', 'reference'])
          .ignore();
    }
    // Gone from the vendors' answers: unhandled ones go, except where the vendor could not answer now.
    const gone = existing
      .filter((d) => !d.handled && !found.has(keyOf(d)))
      .filter((d) =>
        d.source === 'aggregator' ? !matched.unknownVendors.has(d.vendor) : !(d.recharge_id !== null && matched.unknownSales.has(Number(d.recharge_id))),
      )
      .map((d) => d.id);
    if (gone.length) await db('daily_close_differences').whereIn('id', gone).where({ handled: false }).delete();
    const state: VendorState = { vendors: matched.vendors, gateway_matched: kept.gatewayMatched };
    await db('daily_closes')
      .where({ day })
      .update({ vendors: JSON.stringify(state), refreshed_at: kept.refreshedAt, updated_at: now });
  });
}

// ---- reading a day -----------------------------------------------------------------------------

const money = (cents: number) => formatMinor(cents);

const ENGLISH = translator('en');
/** The evidence as stored: its message key and values (shown in each reader's language), within the column. */
function storedEvidence(e: Evidence): string {
  const text = JSON.stringify(e);
  if (text.length <= 1000) return text;
  return JSON.stringify({ key: e.key, vars: Object.fromEntries(Object.entries(e.vars).map(([k, v]) => [k, v.slice(0, 120)])) });
}
/** The evidence in a language; a stored text that is not a message is shown as it is. */
export function evidenceText(t: TFunction, stored: string): string {
  const e = json<Evidence | null>(stored, null);
  if (!e || typeof e !== 'object' || typeof e.key !== 'string') return stored;
  return String(t(`api:daily_close.evidence.${e.key}`, { ...e.vars, interpolation: { escapeValue: false } }));
}

/**
 * The totals of a day as the sales, the ledger and the vendors stand now (an open day, or a close
 * being frozen). Sales in [start, end) before the cutoff, summed by the margins report's own rule;
 * the ledger from `ledgerFrom` (the day's start, or the cutoff of a day closed early before it).
 */
async function liveTotals(
  db: Db,
  day: string,
  range: { start: Date; end: Date },
  cutoff: string | null,
  vendors: VendorSummary[],
  ledgerFrom: Date = range.start,
): Promise<DailyCloseTotals> {
  const statuses: { status: string; n: number | string }[] = await salesQuery(db, range, cutoff).groupBy('status').select('status', db.raw('COUNT(*) as n'));
  const by = { completed: 0, failed: 0, refunded: 0, needs_review: 0, in_flight: 0 };
  for (const s of statuses) {
    if (s.status === 'completed' || s.status === 'failed' || s.status === 'refunded' || s.status === 'needs_review') by[s.status] += Number(s.n);
    else by.in_flight += Number(s.n);
  }
  const sum = ((await salesQuery(db, range, cutoff)
    .where('status', 'completed')
    .select([...marginSums(db), db.raw('COALESCE(SUM(recharges.cost), 0) as cost')])
    .first()) ?? {}) as Record<string, number | string | null>;
  const n = (k: string) => Number(sum[k] ?? 0);
  const ledgerEnd = cutoff && cutoff < toDbTime(range.end) ? cutoff : toDbTime(range.end);
  // The live wallets' ledger: a test wallet's sandbox money (its opening credit, test sales, resets) is nobody's.
  const ledger: { type: string; total: number | string | null }[] = await db('wallet_transactions')
    .join('wallets', 'wallets.id', 'wallet_transactions.wallet_id')
    .where('wallets.mode', 'live')
    .where('wallet_transactions.created_at', '>=', toDbTime(ledgerFrom))
    .where('wallet_transactions.created_at', '<', ledgerEnd)
    .groupBy('wallet_transactions.type')
    .select('wallet_transactions.type as type', db.raw('SUM(wallet_transactions.amount) as total'));
  const credits = Number(ledger.find((l) => l.type === 'credit')?.total ?? 0);
  const debits = Number(ledger.find((l) => l.type === 'debit')?.total ?? 0);
  const corrections: { n: number | string; amount: number | string | null; profit: number | string | null } | undefined = await db('daily_close_corrections')
    .where({ day })
    .first(db.raw('COUNT(*) as n'), db.raw('SUM(amount) as amount'), db.raw('SUM(profit) as profit'));
  const diffs: { n: number | string; open: number | string | null } | undefined = await db('daily_close_differences')
    .where({ day })
    .first(db.raw('COUNT(*) as n'), db.raw('SUM(CASE WHEN handled THEN 0 ELSE 1 END) as open'));
  return {
    sales: {
      count: n('count'),
      amount: money(n('revenue')),
      cost: money(n('cost')),
      profit: money(n('list_profit')),
      gateway_charges: money(n('gateway_charges')),
      aggregator_cost: money(n('aggregator_cost')),
      margin: money(n('margin')),
      unknown_cost: n('unknown_cost'),
    },
    by_status: by,
    ledger: { credits: money(credits), debits: money(debits), net: money(credits - debits) },
    vendors: vendors.map((v) => ({
      vendor: v.vendor,
      kind: v.kind,
      records: v.records,
      matched: v.matched,
      amount: money(v.amount),
      error: v.error,
      unreachable: v.unreachable,
    })),
    corrections: { count: Number(corrections?.n ?? 0), amount: money(Number(corrections?.amount ?? 0)), profit: money(Number(corrections?.profit ?? 0)) },
    differences: { total: Number(diffs?.n ?? 0), unhandled: Number(diffs?.open ?? 0) },
  };
}

/** The totals as a reader may see them: cost, profit, the gateway's charges, the aggregator's cost and margin only with "view bundles prices". */
function redactTotals(ctx: ServiceContext, t: DailyCloseTotals): DailyCloseTotals {
  if (seesCost(ctx)) return t;
  return {
    ...t,
    sales: { ...t.sales, cost: null, profit: null, gateway_charges: null, aggregator_cost: null, margin: null },
    corrections: { ...t.corrections, profit: null },
  };
}

function presentDifference(ctx: ServiceContext, d: DifferenceRow): DailyCloseDifference {
  const theirs = json<Record<string, unknown> | null>(d.theirs, null);
  // What a vendor charged us (an aggregator's cost, a gateway's charges) is a company cost.
  if (theirs && !seesCost(ctx)) for (const field of ['cost', 'charges']) if (field in theirs) theirs[field] = null;
  return {
    id: Number(d.id),
    kind: d.kind,
    source: d.source,
    vendor: d.vendor,
    reference: d.reference.startsWith('~') || d.reference === '' ? null : d.reference,
    recharge_id: d.recharge_id === null ? null : Number(d.recharge_id),
    ours: json(d.ours, null),
    theirs,
    evidence: evidenceText(ctx.t, d.evidence),
    handled: Boolean(d.handled),
    action: d.action ?? null,
    note: d.note ?? null,
    handled_by: d.handled_by ? { id: Number(d.handled_by), name: d.handled_by_name ?? '' } : null,
    handled_at: fromDbTime(d.handled_at),
    details: json(d.details, null),
  };
}

const differenceQuery = (db: Db) =>
  db('daily_close_differences')
    .leftJoin('users', 'users.id', 'daily_close_differences.handled_by')
    .select('daily_close_differences.*', 'users.name as handled_by_name');

function presentCorrection(ctx: ServiceContext, c: CorrectionRow): DailyCloseCorrection {
  const status = (s: string) => ctx.t(`api:daily_close.status_${s}`, { defaultValue: s });
  return {
    id: Number(c.id),
    day: c.closed_day,
    reference: c.reference ?? null,
    recharge_id: Number(c.recharge_id),
    what:
      c.from_status === 'none'
        ? ctx.t('api:daily_close.correction_after_close', { to: status(c.to_status) })
        : ctx.t('api:daily_close.correction_changed', { from: status(c.from_status), to: status(c.to_status) }),
    amount: money(Number(c.amount)),
    profit: seesCost(ctx) ? money(Number(c.profit)) : null,
    at: fromDbTime(c.created_at)!,
  };
}

/**
 * A day as the console shows it: frozen figures once closed, live ones while open. Read only: the
 * corrections shown are those found by the last refresh, close or scheduled run.
 */
export async function readDay(ctx: ServiceContext, day: string): Promise<DailyCloseResponse> {
  assertStaff(ctx);
  const { company, range } = await companyDay(ctx, day);
  const row = await closeRow(ctx.db, day);
  const closed = row?.status === 'closed';
  const totals = redactTotals(
    ctx,
    closed
      ? json<DailyCloseTotals>(row!.totals, null as never)
      : await liveTotals(ctx.db, day, range, null, vendorState(row?.vendors).vendors, (await comparisonRange(ctx.db, day, company.timezone, range)).start),
  );
  const differences: DifferenceRow[] = await differenceQuery(ctx.db).where('daily_close_differences.day', day).orderBy('daily_close_differences.id');
  const corrections: CorrectionRow[] = await ctx.db('daily_close_corrections').where({ day }).orderBy('id');
  const closer = row?.closed_by ? await ctx.db('users').where({ id: row.closed_by }).first('id', 'name') : null;
  return {
    date: day,
    status: closed ? 'closed' : 'open',
    currency: company.currency,
    time_zone: company.timezone,
    starts_at: range.start.toISOString(),
    ends_at: range.end.toISOString(),
    refreshed_at: fromDbTime(row?.refreshed_at),
    closed_at: fromDbTime(row?.closed_at),
    closed_by: row?.closed_by ? { id: Number(row.closed_by), name: closer?.name ?? '' } : null,
    cutoff_at: fromDbTime(row?.cutoff_at),
    totals,
    differences: differences.map((d) => presentDifference(ctx, d)),
    corrections: corrections.map((c) => presentCorrection(ctx, c)),
  };
}

// ---- corrections -------------------------------------------------------------------------------

/**
 * The closed days whose later changes belong to `day`: those right before it, with nothing between
 * but other closed days and days nobody closes (no sale, no close row, no corrections). Newest first.
 */
async function closedRunBefore(db: Db, day: string, timeZone: string): Promise<string[]> {
  const since = new Date(Date.parse(`${day}T00:00:00Z`) - RUN_LOOKBACK_DAYS * 86_400_000).toISOString().slice(0, 10);
  const rows: Pick<CloseRow, 'day' | 'status'>[] = await db('daily_closes').where('day', '>=', since).where('day', '<', day).select('day', 'status');
  const closedDays = new Set(rows.filter((r) => r.status === 'closed').map((r) => r.day));
  if (!closedDays.size) return [];
  const openRows = new Set(rows.filter((r) => r.status !== 'closed').map((r) => r.day));
  const bucket = timeBucket(db as Knex, 'created_at', 'day', timeZone, new Date());
  const withSales: { d: string }[] = await db('recharges')
    .where('mode', 'live')
    .where('created_at', '>=', toDbTime(startOfZonedDay(since, timeZone)))
    .where('created_at', '<', toDbTime(startOfZonedDay(day, timeZone)))
    .groupByRaw(bucket.toQuery())
    .select(db.raw(`${bucket.toQuery()} as d`));
  const corrected: string[] = await db('daily_close_corrections').where('day', '>=', since).where('day', '<', day).distinct().pluck('day');
  const active = new Set([...openRows, ...withSales.map((r) => r.d), ...corrected]);
  const run: string[] = [];
  for (let d = previousDay(day); d >= since; d = previousDay(d)) {
    if (closedDays.has(d)) run.push(d);
    else if (active.has(d)) break;
  }
  return run;
}

/**
 * Where an open day's comparison (and its ledger) starts: its own start, or the cutoff of the day
 * closed early right before it (its sales and wallet activity after the cutoff were in no closed
 * figures: they are this day's business, as its corrections are). Only the newest closed day before
 * counts: an older one's late part was the business of the day after it.
 */
async function comparisonRange(db: Db, day: string, timeZone: string, range: { start: Date; end: Date }) {
  const run = await closedRunBefore(db, day, timeZone);
  if (!run.length) return range;
  const newest = await db('daily_closes').where({ day: run[0] }).first('cutoff_at');
  const cutoff = fromDbTime(newest?.cutoff_at);
  return cutoff && cutoff < range.start.toISOString() ? { start: new Date(cutoff), end: range.end } : range;
}

/**
 * The day a closed day's later changes go to: the first day after it that is not closed, skipping
 * days nobody closes (no close row and no sale); today at the latest, tomorrow when today is closed.
 */
async function nextOpenDay(db: Db, after: string, timeZone: string): Promise<string> {
  const today = zonedDay(new Date(), timeZone);
  const rows: Pick<CloseRow, 'day' | 'status'>[] = await db('daily_closes').where('day', '>', after).where('day', '<=', today).select('day', 'status');
  const status = new Map(rows.map((r) => [r.day, r.status]));
  for (let d = nextDay(after); d <= today; d = nextDay(d)) {
    const s = status.get(d);
    if (s === 'closed') continue;
    if (s === 'open' || d === today) return d;
    const r = dayRange(d, timeZone);
    if (await db('recharges').where('mode', 'live').where('created_at', '>=', toDbTime(r.start)).where('created_at', '<', toDbTime(r.end)).first('id'))
      return d;
  }
  return nextDay(today > after ? today : after);
}

interface Found {
  recharge_id: number;
  reference: string | null;
  seq: number;
  from: Counted;
  to: Counted;
}

/**
 * Writes a closed day's corrections on the next open day, in a transaction that locks that day's
 * row and checks it is still open (SQLite serialises writers anyway); closed meanwhile, they go to
 * the next one. The unique (closed_day, recharge_id, seq) writes each change once.
 */
async function recordCorrections(ctx: ServiceContext, closedDay: string, found: Found[], timeZone: string): Promise<void> {
  let day = await nextOpenDay(ctx.db, closedDay, timeZone);
  for (let tries = 0; tries < 400; tries++) {
    // Made outside the transaction: an insert-or-ignore then a lock on one row could deadlock two writers (MySQL).
    await ensureRow(ctx.db, day);
    const written = await transact(ctx, async (tctx) => {
      const row: CloseRow | undefined = await tctx.db('daily_closes').where({ day }).forUpdate().first();
      if (!row || row.status === 'closed') return false;
      const now = toDbTime();
      for (const f of found)
        await tctx
          .db('daily_close_corrections')
          .insert({
            day,
            closed_day: closedDay,
            recharge_id: f.recharge_id,
            reference: f.reference,
            seq: f.seq,
            from_status: f.from.status,
            to_status: f.to.status,
            amount_after: f.to.amount,
            profit_after: f.to.profit,
            amount: f.to.amount - f.from.amount,
            profit: f.to.profit - f.from.profit,
            created_at: now,
          })
          .onConflict(['closed_day', 'recharge_id', 'seq'])
          .ignore();
      return true;
    });
    if (written) return;
    day = await nextOpenDay(ctx.db, day, timeZone);
  }
}

/**
 * Finds what changed in closed days' sales and records it on the next open day after each. Only
 * the sales of closed days changed (`updated_at`) since the last detection are read, less a slack
 * for transactions not yet committed then; so any closed day is covered, however old, and the work
 * follows what changed (recharges is indexed by updated_at: migration 20261127H). A sale's last known figures are its latest
 * correction's, else the frozen snapshot's; one not in the snapshot (made after the cutoff) starts
 * from nothing. Sales still in flight wait until they settle (settling bumps updated_at).
 */
export async function detectCorrections(ctx: ServiceContext): Promise<void> {
  const db = ctx.db;
  const startedAt = new Date();
  const closed: Pick<CloseRow, 'day' | 'closed_at'>[] = await db('daily_closes').where({ status: 'closed' }).select('day', 'closed_at');
  if (!closed.length) return;
  const { timezone } = await readCompanySettings(db);
  const mark: { value: string | null } | undefined = await db('settings').where(WATERMARK).first('value');
  const firstClose = closed.map((c) => fromDbTime(c.closed_at) ?? '').sort()[0];
  const sinceIso = mark?.value && !Number.isNaN(Date.parse(mark.value)) ? mark.value : firstClose;
  const since = new Date(Date.parse(sinceIso || startedAt.toISOString()) - CORRECTION_SLACK_MS);
  const days = closed.map((c) => c.day).sort();
  const closedDays = new Set(days);
  const changed = (await db('recharges')
    .where('mode', 'live')
    .where('created_at', '>=', toDbTime(startOfZonedDay(days[0], timezone)))
    .where('created_at', '<', toDbTime(dayRange(days[days.length - 1], timezone).end))
    .where('updated_at', '>', toDbTime(since))
    .whereIn('status', ['completed', 'failed', 'refunded'])
    .orderBy('id')
    .select('id', 'reference', 'status', 'amount', 'profit', 'created_at')) as SaleRow[];
  const byDay = new Map<string, SaleRow[]>();
  for (const s of changed) {
    const d = zonedDay(new Date(fromDbTime(s.created_at)!), timezone);
    if (closedDays.has(d)) byDay.set(d, [...(byDay.get(d) ?? []), s]);
  }
  for (const [closedDay, sales] of byDay) {
    const row = await db('daily_closes').where({ day: closedDay }).first('snapshot');
    const snapshot = json<Snapshot>(row?.snapshot, {});
    const last = new Map<number, CorrectionRow>();
    for (let i = 0; i < sales.length; i += 500) {
      const earlier: CorrectionRow[] = await db('daily_close_corrections')
        .where({ closed_day: closedDay })
        .whereIn(
          'recharge_id',
          sales.slice(i, i + 500).map((x) => Number(x.id)),
        )
        .orderBy('seq');
      for (const c of earlier) last.set(Number(c.recharge_id), c);
    }
    const found: Found[] = [];
    for (const s of sales) {
      const id = Number(s.id);
      const before = last.get(id);
      const frozen = snapshot[id];
      const known: Counted = before
        ? { status: before.to_status, amount: Number(before.amount_after), profit: Number(before.profit_after) }
        : frozen
          ? { status: frozen.status, amount: frozen.amount, profit: frozen.profit }
          : { status: 'none', amount: 0, profit: 0 };
      const cur = counted(s);
      if (cur.status === known.status && cur.amount === known.amount && cur.profit === known.profit) continue;
      found.push({ recharge_id: id, reference: s.reference ?? null, seq: (before ? Number(before.seq) : 0) + 1, from: known, to: cur });
    }
    if (found.length) await recordCorrections(ctx, closedDay, found, timezone);
  }
  const now = toDbTime();
  await db('settings')
    .insert({ ...WATERMARK, value: startedAt.toISOString(), is_encrypted: false, created_at: now, updated_at: now })
    .onConflict(['group', 'key'])
    .merge(['value', 'updated_at']);
}

// ---- the list of days --------------------------------------------------------------------------

/** Days that have sales, a close row or corrections, up to today, newest first (oldest first with order asc). */
export async function listDays(ctx: ServiceContext, query: { page?: string; per_page?: string; order?: string }): Promise<Page<DailyCloseDay>> {
  assertStaff(ctx);
  const { timezone } = await readCompanySettings(ctx.db);
  const today = zonedDay(new Date(), timezone);
  const db = ctx.db;
  const bucket = timeBucket(db as Knex, 'created_at', 'day', timezone, new Date());
  const perDay: { d: string; n: number | string; amount: number | string | null; margin: number | string | null }[] = await db('recharges')
    .where('mode', 'live')
    .where('created_at', '<', toDbTime(dayRange(today, timezone).end))
    .groupByRaw(bucket.toQuery())
    .select(
      db.raw(`${bucket.toQuery()} as d`),
      db.raw("SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) as n"),
      db.raw("SUM(CASE WHEN status = 'completed' THEN amount ELSE 0 END) as amount"),
      db.raw(`SUM(CASE WHEN status = 'completed' THEN ${MARGIN_SQL} ELSE 0 END) as margin`),
    );
  const rows: CloseRow[] = await db('daily_closes').where('day', '<=', today);
  // A day that carries corrections is one to close too, sales or not.
  const corrected: string[] = await db('daily_close_corrections').where('day', '<=', today).distinct().pluck('day');
  const byDay = new Map(perDay.map((r) => [r.d, r]));
  const rowOf = new Map(rows.map((r) => [r.day, r]));
  const days = [...new Set([...byDay.keys(), ...rowOf.keys(), ...corrected])].filter((d) => d <= today).sort((a, b) => (a < b ? 1 : -1));
  if ((query.order ?? '').toLowerCase() === 'asc') days.reverse();
  const { page, perPage } = pageParams(query);
  const slice = days.slice((page - 1) * perPage, page * perPage);
  const diffs: { day: string; n: number | string; open: number | string | null }[] = slice.length
    ? await db('daily_close_differences')
        .whereIn('day', slice)
        .groupBy('day')
        .select('day', db.raw('COUNT(*) as n'), db.raw('SUM(CASE WHEN handled THEN 0 ELSE 1 END) as open'))
    : [];
  const diffOf = new Map(diffs.map((d) => [d.day, d]));
  return {
    data: slice.map((d) => {
      const row = rowOf.get(d);
      const live = byDay.get(d);
      const frozen = row?.status === 'closed' ? json<DailyCloseTotals | null>(row.totals, null) : null;
      const diff = diffOf.get(d);
      return {
        date: d,
        status: row?.status === 'closed' ? 'closed' : 'open',
        sales_count: frozen ? frozen.sales.count : Number(live?.n ?? 0),
        amount: frozen ? frozen.sales.amount : money(Number(live?.amount ?? 0)),
        margin: !seesCost(ctx) ? null : frozen ? frozen.sales.margin : money(Number(live?.margin ?? 0)),
        differences_total: Number(diff?.n ?? 0),
        differences_unhandled: Number(diff?.open ?? 0),
        refreshed_at: fromDbTime(row?.refreshed_at),
        closed_at: fromDbTime(row?.closed_at),
      };
    }),
    meta: { current_page: page, per_page: perPage, total: days.length, last_page: Math.max(1, Math.ceil(days.length / perPage)) },
  };
}

// ---- closing -----------------------------------------------------------------------------------

/**
 * Closes a day: refused (409) while a difference is unhandled, before its first refresh, or (a past
 * day) when its last refresh was before the day's end plus the report margin ("refresh first"); the
 * totals and each sale's figures are frozen in the same transaction as the status. Closing the
 * current day cuts it at its last refresh: later sales of the day become the next open day's
 * corrections, its later wallet activity that day's ledger. The close row is locked (MySQL) or the
 * write serialised (SQLite), and the update is conditional on `open`, so of two people closing at
 * once one wins and the other gets the 409.
 */
export async function closeDay(ctx: ServiceContext, day: string): Promise<DailyCloseResponse> {
  assertStaff(ctx);
  const { company, today, range } = await companyDay(ctx, day);
  await ensureRow(ctx.db, day);
  // Corrections first (their own transactions): those found now are in this day's frozen figures.
  await detectCorrections(ctx);
  const ledgerFrom = (await comparisonRange(ctx.db, day, company.timezone, range)).start;
  await transact(ctx, async (tctx) => {
    const db = tctx.db;
    const row: CloseRow = await db('daily_closes').where({ day }).forUpdate().first();
    if (row.status === 'closed') throw new AppError(409, 'api:daily_close.already_closed');
    const refreshedAt = fromDbTime(row.refreshed_at);
    if (!refreshedAt) throw new AppError(409, 'api:daily_close.not_refreshed');
    // A past day's vendors' records are complete an hour after its end: compared before, its last
    // sales were never compared, and the next day's comparison starts at its end.
    if (day !== today && Date.parse(refreshedAt) < range.end.getTime() + REPORT_MARGIN_MS)
      throw new AppError(409, 'api:daily_close.refresh_first', undefined, {
        at: zonedIsoTime(refreshedAt, company.timezone).replace('T', ' ').slice(0, 16),
      });
    const open = await db('daily_close_differences').where({ day, handled: false }).count({ n: '*' }).first();
    const unhandled = Number((open as { n: number | string } | undefined)?.n ?? 0);
    if (unhandled) throw new AppError(409, 'api:daily_close.unhandled', undefined, { count: unhandled });
    const now = toDbTime();
    // Today is cut where its last comparison stood: nothing frozen was left uncompared.
    const cutoff = day === today ? toDbTime(new Date(refreshedAt)) : null;
    const totals = await liveTotals(db, day, range, cutoff, vendorState(row.vendors).vendors, ledgerFrom);
    const sales = (await salesQuery(db, range, cutoff).select(
      'id',
      'reference',
      'status',
      'amount',
      'cost',
      'profit',
      'payment_state',
      'delivery_state',
    )) as SaleRow[];
    const snapshot: Snapshot = Object.fromEntries(
      sales.map((s) => [
        String(s.id),
        {
          reference: s.reference,
          ...counted(s),
          cost: s.status === 'completed' ? Number(s.cost) : 0,
          payment_state: s.payment_state,
          delivery_state: s.delivery_state,
        },
      ]),
    );
    const won = await db('daily_closes')
      .where({ day, status: 'open' })
      .update({
        status: 'closed',
        totals: JSON.stringify(totals),
        snapshot: JSON.stringify(snapshot),
        closed_at: now,
        closed_by: ctx.actor.id,
        cutoff_at: cutoff,
        updated_at: now,
      });
    if (!won) throw new AppError(409, 'api:daily_close.already_closed');
    await recordActivity(tctx, {
      action: 'daily_close_closed',
      subjectType: 'daily_close',
      subjectId: row.id,
      description: `Day ${day} closed`,
      after: { day, cutoff_at: cutoff, sales: totals.sales, differences: totals.differences, corrections: totals.corrections },
    });
  });
  return readDay(ctx, day);
}

// ---- handling a difference ---------------------------------------------------------------------

async function findDifference(db: Db, day: string, rawId: string): Promise<DifferenceRow> {
  const id = decodeId(rawId);
  const d: DifferenceRow | undefined = id
    ? await differenceQuery(db).where('daily_close_differences.id', id).where('daily_close_differences.day', day).first()
    : undefined;
  if (!d) throw notFound();
  return d;
}

/** Marks the difference handled, once: a second person (or click) gets the 409. */
async function claim(
  ctx: ServiceContext,
  d: DifferenceRow,
  action: DifferenceAction,
  note: string,
  details: Record<string, unknown> | null,
  /** What the vendor said when asked again (a re-ask): the evidence the difference keeps. */
  answer?: { evidence: Evidence; theirs?: Record<string, unknown> | null },
): Promise<void> {
  const now = toDbTime();
  const won = await ctx
    .db('daily_close_differences')
    .where({ id: d.id, handled: false })
    .update({
      handled: true,
      action,
      note,
      handled_by: ctx.actor.id,
      handled_at: now,
      details: details ? JSON.stringify(details) : null,
      updated_at: now,
      ...(answer ? { evidence: storedEvidence(answer.evidence) } : {}),
      ...(answer?.theirs !== undefined ? { theirs: answer.theirs ? JSON.stringify(answer.theirs) : null } : {}),
    });
  if (!won) throw new AppError(409, 'api:daily_close.already_handled');
  await recordActivity(ctx, {
    action: 'daily_close_difference_resolved',
    subjectType: 'daily_close_difference',
    subjectId: d.id,
    description: `${d.day} ${d.vendor} ${d.kind} ${d.reference}: ${action}`,
    before: { kind: d.kind, vendor: d.vendor, reference: d.reference, evidence: evidenceText(ENGLISH, d.evidence) },
    after: { action, note, ...(details ?? {}) },
  });
}

/** Handles a difference with one of the four actions (the note always required, by the schema). */
export async function resolveDifference(
  ctx: ServiceContext,
  deps: DailyCloseDeps,
  day: string,
  rawId: string,
  input: ResolveDifferenceInput,
): Promise<{ difference: DailyCloseDifference; handled: boolean }> {
  assertStaff(ctx);
  // The actions do what their own screens do: with the permissions those need, refused before anything changes.
  if (input.action === 'adjust' && !ctx.actor.permissions.has('adjust wallets')) throw forbidden('api:daily_close.adjust_forbidden');
  if (input.action === 'settle' && !ctx.actor.permissions.has('review recharges')) throw forbidden('api:daily_close.settle_forbidden');
  const { company, range: own } = await companyDay(ctx, day);
  const d = await findDifference(ctx.db, day, rawId);
  if (d.handled) throw new AppError(409, 'api:daily_close.already_handled');
  const reread = async () => presentDifference(ctx, await findDifference(ctx.db, day, String(d.id)));

  if (input.action === 'accept') {
    await transact(ctx, (tctx) => claim(tctx, d, 'accept', input.note, null));
    return { difference: await reread(), handled: true };
  }

  if (input.action === 'settle') {
    const sale = d.recharge_id ? await ctx.db('recharges').where({ id: d.recharge_id }).first('id', 'status') : undefined;
    if (!sale || sale.status !== 'needs_review') throw new AppError(409, 'api:daily_close.not_in_review');
    await transact(ctx, async (tctx) => {
      await claim(tctx, d, 'settle', input.note, { outcome: input.outcome });
      // The review queue's own settle, in this transaction: the decision and the handling commit together.
      await settleRecharge(tctx, {}, Number(d.recharge_id), { outcome: input.outcome!, note: input.note });
    });
    deps.money.wake?.();
    return { difference: await reread(), handled: true };
  }

  if (input.action === 'adjust') {
    const walletId = decodeId(String(input.wallet_id ?? ''));
    // A live wallet: the close corrects live money, never a test wallet's.
    const wallet = walletId ? await ctx.db('wallets').where({ id: walletId, mode: 'live' }).first('id') : undefined;
    if (!wallet) throw fieldError('wallet_id', 'validation:daily_close_wallet_unknown');
    await transact(ctx, async (tctx) => {
      await claim(tctx, d, 'adjust', input.note, { wallet_id: wallet.id, type: input.type, amount: formatMinor(input.amount!) });
      // One ledger row through the wallets' own adjustment (its ceilings, its log line), keyed by the difference.
      const posted = await adjust(tctx, wallet.id, { type: input.type!, amount: input.amount!, reference: `CLOSE-${day}-${d.id}`, note: input.note });
      await tctx
        .db('daily_close_differences')
        .where({ id: d.id })
        .update({
          details: JSON.stringify({ wallet_id: wallet.id, type: input.type, amount: formatMinor(input.amount!), wallet_transaction_id: posted.transactionId }),
        });
    });
    return { difference: await reread(), handled: true };
  }

  // reask: the vendor is asked again about this one reference now.
  // The same stretch of time the refresh compared (a late sale of a day closed early included).
  const answer = await reask(ctx, deps, d, await comparisonRange(ctx.db, day, company.timezone, own));
  if (answer.matches) {
    await transact(ctx, (tctx) => claim(tctx, d, 'reask', input.note, { answer: evidenceText(ENGLISH, storedEvidence(answer.evidence)) }, answer));
    return { difference: await reread(), handled: true };
  }
  await transact(ctx, async (tctx) => {
    const now = toDbTime();
    const changed = await tctx
      .db('daily_close_differences')
      .where({ id: d.id, handled: false })
      .update({
        evidence: storedEvidence(answer.evidence),
        ...(answer.theirs !== undefined ? { theirs: answer.theirs ? JSON.stringify(answer.theirs) : null } : {}),
        details: JSON.stringify({ last_reask_at: fromDbTime(now), last_reask_note: input.note }),
        updated_at: now,
      });
    if (!changed) throw new AppError(409, 'api:daily_close.already_handled');
    await recordActivity(tctx, {
      action: 'daily_close_difference_reasked',
      subjectType: 'daily_close_difference',
      subjectId: d.id,
      description: `${d.day} ${d.vendor} ${d.kind} ${d.reference}: asked again, still different`,
      after: { note: input.note, evidence: evidenceText(ENGLISH, storedEvidence(answer.evidence)) },
    });
  });
  return { difference: await reread(), handled: false };
}

/** What the vendor says now of one difference's reference: whether it matches, with the evidence. */
async function reask(
  ctx: ServiceContext,
  deps: DailyCloseDeps,
  d: DifferenceRow,
  range: { start: Date; end: Date },
): Promise<{ matches: boolean; evidence: Evidence; theirs?: Record<string, unknown> | null }> {
  const sale: SaleRow | undefined = d.recharge_id
    ? await ctx.db('recharges').where({ id: d.recharge_id }).first()
    : d.reference && !d.reference.startsWith('~')
      ? await ctx.db('recharges').where({ reference: d.reference }).first()
      : undefined;
  const operator = d.source === 'aggregator' ? deps.operators()[d.vendor] : undefined;
  if (d.source === 'aggregator') {
    if (!operator) return { matches: false, evidence: evidence('reask_not_configured', { vendor: d.vendor }) };
    const report = (await pullReports({ [d.vendor]: operator }, range))[d.vendor];
    if (!report || report.status !== 'ok') return { matches: false, evidence: evidence('reask_unreachable', { vendor: d.vendor, error: report?.error }) };
    const record = report.records.find((r) => (d.reference.startsWith('~') ? `~${r.vendorId}` === d.reference : r.ourReference === d.reference));
    if (d.kind === 'only_theirs') {
      if (!record) return { matches: true, evidence: evidence('reask_gone', { vendor: d.vendor }) };
      if (sale) return { matches: true, evidence: evidence('reask_now_ours', { reference: d.reference }) };
      return {
        matches: false,
        evidence: evidence('reask_still', { vendor: d.vendor, said: `${record.state}, ${formatMinor(record.amount)} ${record.currency}` }),
      };
    }
    if (!sale) return { matches: true, evidence: evidence('reask_no_sale', { vendor: d.vendor, reference: d.reference }) };
    const v = view(sale);
    let still: { kind: Difference['kind'] }[] = record
      ? compareTopUp(d.vendor, v, record)
      : v.delivery_state === 'delivered'
        ? [{ kind: 'only_ours' as const }]
        : [];
    let said = record ? `${record.state}, ${formatMinor(record.amount)} ${record.currency}` : null;
    let theirs: Record<string, unknown> | null = record
      ? { state: record.state, amount: formatMinor(record.amount), currency: record.currency, vendor_id: record.vendorId, at: record.at }
      : null;
    // No record in the window: asked by our reference (a delivery recorded long after the sale), as the refresh does.
    if (!record && v.delivery_state === 'delivered' && operator.capabilities.lookupByOwnReference) {
      const found = await lookupTopUp(operator, v.reference, v.id);
      if (found.status === 'unknown') return { matches: false, evidence: evidence('reask_unreachable', { vendor: d.vendor, error: found.error }) };
      if (found.status === 'delivered') {
        still = [];
        said = 'done';
        theirs = { state: 'done', vendor_id: found.deliveryId };
      } else if (found.status === 'failed') {
        still = [{ kind: 'state' }];
        said = 'failed';
        theirs = { state: 'failed', vendor_id: found.deliveryId };
      }
    }
    return still.some((x) => x.kind === d.kind)
      ? {
          matches: false,
          evidence: said ? evidence('reask_still', { vendor: d.vendor, said }) : evidence('reask_still_none', { vendor: d.vendor }),
          theirs,
        }
      : {
          matches: true,
          evidence: said ? evidence('reask_agrees', { vendor: d.vendor, said }) : evidence('reask_agrees_none', { vendor: d.vendor }),
          theirs,
        };
  }
  if (!sale) return { matches: false, evidence: evidence('reask_no_sale', { vendor: d.vendor, reference: d.reference }) };
  const asked = await lookupPayment(deps.gateways(), view(sale));
  if (!asked) return { matches: true, evidence: evidence('reask_no_payment', { reference: d.reference }) };
  const still = comparePayment(d.vendor, view(sale), asked.result);
  if (still === 'unknown')
    return {
      matches: false,
      evidence: evidence('reask_unreachable', { vendor: d.vendor, error: asked.result.status === 'unknown' ? asked.result.error : '' }),
    };
  const result = asked.result;
  const theirs =
    result.status === 'found'
      ? { state: result.state, amount: result.amount === undefined ? null : formatMinor(Math.trunc(result.amount)), vendor_id: result.transactionId }
      : null;
  const said = result.status === 'found' ? `${result.state}${result.amount === undefined ? '' : `, ${formatMinor(Math.trunc(result.amount))}`}` : 'not found';
  return still.some((x) => x.kind === d.kind)
    ? { matches: false, evidence: evidence('reask_still', { vendor: d.vendor, said }), theirs }
    : { matches: true, evidence: evidence('reask_agrees', { vendor: d.vendor, said }), theirs };
}

/** The sales of a day with the vendors' view of each, for the CSV (differences by sale). */
export async function daySales(ctx: ServiceContext, day: string) {
  assertStaff(ctx);
  const { company, range } = await companyDay(ctx, day);
  const row = await closeRow(ctx.db, day);
  const sales = (await salesQuery(ctx.db, range).orderBy('id')) as SaleRow[];
  // A closed day's figures are its frozen ones (the files agree with its totals).
  const snapshot = row?.status === 'closed' ? json<Snapshot>(row.snapshot, {}) : null;
  return { sales, cutoff: row?.cutoff_at ?? null, timezone: company.timezone, company, snapshot };
}
