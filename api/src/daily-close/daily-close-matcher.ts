import { formatMinor, toMinor, type DifferenceKind } from '@app/contracts';
import type { TopUpReport, VendorTopUp } from '../connectors/deliveries/operator-adapter.ts';
import type { LookupResult } from '../connectors/payments/payment-adapter.ts';

/**
 * The comparison of a company day's sales with the vendors' own records, as a pure function over
 * what was read (the service reads the sales and asks the vendors; tests call this directly).
 *
 * - Aggregators: each one's report over the day widened by a margin, matched by our reference
 *   first. A record whose reference is a sale of another day is that day's business (a test sale's,
 *   in the sandbox's books, is passed over the same way: the service puts it in `otherDays`); a record
 *   with no reference, or one we never made, dated inside the day, is `only_theirs`.
 * - Gateways: the sale's own gateway asked about each sale that had a payment. A gateway that could
 *   not answer is no difference: the sale is counted `unreachable` on that vendor, to ask again.
 */

/** What the matcher needs of a sale (the recharge row, read by the service). */
export interface SaleView {
  id: number;
  reference: string;
  status: string;
  payment_state: string;
  delivery_state: string;
  payment_flow: string | null;
  payment_adapter: string | null;
  payment_reference: string | null;
  operator_adapter: string | null;
  /** The product sent (route_product): a fixed amount at Reloadly, a product id at DT One. */
  route_product: string | null;
  /** Cents. */
  amount: number;
  cost: number;
}

export interface Difference {
  kind: DifferenceKind;
  /** Whose records: a gateway's or an aggregator's (the sandbox is both, so the name alone does not say). */
  source: 'gateway' | 'aggregator';
  vendor: string;
  /** Our reference, or `~<vendor id>` for a vendor record that carries none (the stored key). */
  key: string;
  recharge_id: number | null;
  ours: Record<string, unknown> | null;
  theirs: Record<string, unknown> | null;
  evidence: Evidence;
}

/** Why a difference is one: a message of `api:daily_close.evidence` and its values, shown in the reader's language. */
export interface Evidence {
  key: string;
  vars: Record<string, string>;
}

export const evidence = (key: string, vars: Record<string, string | number | null | undefined>): Evidence => ({
  key,
  vars: Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)])),
});

export interface VendorSummary {
  vendor: string;
  kind: 'gateway' | 'aggregator';
  records: number;
  matched: number;
  /** Cents. */
  amount: number;
  error: string | null;
  unreachable: number;
}

export interface MatchInput {
  /** The day's sales (in-flight ones are skipped here). */
  sales: SaleView[];
  /** [start, end) of the company day. */
  range: { start: Date; end: Date };
  /** Each reporting aggregator's answer for the widened day. */
  reports: Record<string, TopUpReport>;
  /** References of sales of other days, or test sales, among the records (their business, or nobody's; not this day's). */
  otherDays: ReadonlySet<string>;
  /** The gateway's answer for each sale asked (by sale id), with the gateway's name. */
  lookups: Map<number, { vendor: string; result: LookupResult }>;
}

export interface MatchOutput {
  differences: Difference[];
  vendors: VendorSummary[];
  /** Aggregators whose whole answer is missing, and sales whose gateway could not answer: their differences are kept as they were. */
  unknownVendors: Set<string>;
  unknownSales: Set<number>;
}

/** Statuses compared with the vendors; pending and processing are still moving. */
export const SETTLED_STATUSES = new Set(['completed', 'failed', 'refunded', 'needs_review']);
/** Payment states where we hold that the customer's money was taken. */
const TAKEN = new Set(['collected', 'committing', 'refund_due', 'paid_back']);
/** Payment states where we hold that it was let go or given back. */
const GIVEN_BACK = new Set(['released', 'refunded', 'releasing']);

/** What we sent to the aggregator (cents): the route's fixed amount when the product is one, else the cost; null when the product is an id (DT One). */
export function sentAmount(sale: Pick<SaleView, 'operator_adapter' | 'route_product' | 'cost'>): number | null {
  const product = sale.route_product?.trim() ?? '';
  if (/^\d{1,6}(\.\d{1,2})?$/.test(product) && sale.operator_adapter !== 'dtone') return toMinor(product);
  if (sale.operator_adapter === 'dtone' && product) return null;
  return sale.cost;
}

/** Whether a sale had a payment a gateway can be asked about. */
export function hadPayment(sale: Pick<SaleView, 'payment_flow' | 'payment_state' | 'payment_reference'>): boolean {
  if (sale.payment_flow === 'wallet') return false;
  return !['none', 'declined'].includes(sale.payment_state) || Boolean(sale.payment_reference);
}

const oursOf = (s: SaleView) => ({
  state: s.status,
  amount: formatMinor(s.amount),
  delivery_state: s.delivery_state,
  payment_state: s.payment_state,
  sent_amount: sentAmount(s) === null ? null : formatMinor(sentAmount(s)!),
});

const theirsOf = (r: VendorTopUp) => ({
  state: r.state,
  amount: formatMinor(r.amount),
  currency: r.currency,
  vendor_id: r.vendorId,
  at: r.at,
  reference: r.ourReference,
  cost: r.cost === null ? null : formatMinor(r.cost),
  phone: r.phone,
});

export function matchDay(input: MatchInput): MatchOutput {
  const differences: Difference[] = [];
  const vendors = new Map<string, VendorSummary>();
  const unknownVendors = new Set<string>();
  const unknownSales = new Set<number>();
  const summary = (vendor: string, kind: 'gateway' | 'aggregator') => {
    let v = vendors.get(`${kind}:${vendor}`);
    if (!v) vendors.set(`${kind}:${vendor}`, (v = { vendor, kind, records: 0, matched: 0, amount: 0, error: null, unreachable: 0 }));
    return v;
  };
  const byReference = new Map(input.sales.map((s) => [s.reference, s]));
  const inDay = (at: string) => {
    const t = new Date(at).getTime();
    return t >= input.range.start.getTime() && t < input.range.end.getTime();
  };

  // Two aggregator names may read one account's books (the sandbox and an unconfigured Reloadly
  // both speak to the embedded stand-in): a record is compared once, under the aggregator of its
  // sale, and a record of no sale once, under the first name that reports it.
  const reported = new Map<string, Set<string>>();
  for (const [vendor, report] of Object.entries(input.reports))
    if (report.status === 'ok') reported.set(vendor, new Set(report.records.map((r) => `${r.vendorId}|${r.ourReference ?? ''}`)));
  const strangers = new Set<string>();

  // Aggregators: every record of each report, then every delivered sale of that aggregator with none.
  for (const [vendor, report] of Object.entries(input.reports)) {
    const v = summary(vendor, 'aggregator');
    if (report.status !== 'ok') {
      v.error = report.error;
      unknownVendors.add(vendor);
      continue;
    }
    const seen = new Set<string>();
    for (const record of report.records) {
      const sale = record.ourReference ? byReference.get(record.ourReference) : undefined;
      if (!sale) {
        // Another day's sale (the margin around the day) is that day's to compare.
        if (record.ourReference && input.otherDays.has(record.ourReference)) continue;
        if (!inDay(record.at)) continue;
        const signature = `${record.vendorId}|${record.ourReference ?? ''}|${record.at}|${record.amount}`;
        if (strangers.has(signature)) continue;
        strangers.add(signature);
        v.records++;
        if (record.state === 'done') v.amount += record.amount;
        differences.push({
          kind: 'only_theirs',
          source: 'aggregator',
          vendor,
          key: record.ourReference ?? `~${record.vendorId}`,
          recharge_id: null,
          ours: null,
          theirs: theirsOf(record),
          evidence: record.ourReference
            ? evidence('unknown_reference', { vendor, reference: record.ourReference })
            : evidence('no_reference', { vendor, vendor_id: record.vendorId }),
        });
        continue;
      }
      const own = sale.operator_adapter ?? vendor;
      if (own !== vendor && reported.get(own)?.has(`${record.vendorId}|${record.ourReference ?? ''}`)) continue;
      v.records++;
      if (record.state === 'done') v.amount += record.amount;
      // A sale in flight is compared once it settles.
      if (!SETTLED_STATUSES.has(sale.status)) continue;
      seen.add(sale.reference);
      const found = compareTopUp(vendor, sale, record);
      if (found.length) differences.push(...found);
      else v.matched++;
    }
    for (const sale of input.sales) {
      if (sale.operator_adapter !== vendor || seen.has(sale.reference) || !SETTLED_STATUSES.has(sale.status)) continue;
      if (sale.delivery_state !== 'delivered') continue;
      differences.push({
        kind: 'only_ours',
        source: 'aggregator',
        vendor,
        key: sale.reference,
        recharge_id: sale.id,
        ours: oursOf(sale),
        theirs: null,
        evidence: evidence('no_record', { vendor, reference: sale.reference }),
      });
    }
  }

  // Gateways: the answer about each sale that had a payment.
  for (const sale of input.sales) {
    const asked = input.lookups.get(sale.id);
    if (!asked || !SETTLED_STATUSES.has(sale.status)) continue;
    const v = summary(asked.vendor, 'gateway');
    const found = comparePayment(asked.vendor, sale, asked.result);
    if (found === 'unknown') {
      v.unreachable++;
      v.error = asked.result.status === 'unknown' ? asked.result.error : v.error;
      unknownSales.add(sale.id);
      continue;
    }
    if (asked.result.status === 'found') {
      v.records++;
      if (asked.result.amount !== undefined && ['approved', 'committed'].includes(asked.result.state)) v.amount += Math.trunc(asked.result.amount);
    }
    if (found.length) differences.push(...found);
    else v.matched++;
  }

  return { differences, vendors: [...vendors.values()], unknownVendors, unknownSales };
}

/** One of our sales against the aggregator's record of it. */
export function compareTopUp(vendor: string, sale: SaleView, record: VendorTopUp): Difference[] {
  const base = { source: 'aggregator' as const, vendor, key: sale.reference, recharge_id: sale.id, ours: oursOf(sale), theirs: theirsOf(record) };
  const delivered = sale.delivery_state === 'delivered';
  // Delivered through another aggregator than the one we recorded: delivered twice, or ours is wrong.
  if (sale.operator_adapter !== vendor) {
    if (record.state !== 'done') return [];
    return [
      {
        ...base,
        kind: 'state',
        evidence: delivered
          ? evidence('other_route', { vendor, reference: sale.reference, route: sale.operator_adapter })
          : evidence('delivered_not_ours', { vendor, reference: sale.reference, status: sale.status, delivery: sale.delivery_state }),
      },
    ];
  }
  if (record.state === 'done' && !delivered)
    return [
      {
        ...base,
        kind: 'state',
        evidence: evidence('delivered_not_ours', { vendor, reference: sale.reference, status: sale.status, delivery: sale.delivery_state }),
      },
    ];
  if ((record.state === 'refunded' || record.state === 'failed') && delivered)
    return [{ ...base, kind: 'state', evidence: evidence('not_delivered_theirs', { vendor, reference: sale.reference, state: record.state }) }];
  const sent = sentAmount(sale);
  if (record.state === 'done' && sent !== null && record.amount !== sent)
    return [
      {
        ...base,
        kind: 'amount',
        evidence: evidence('topup_amount', {
          vendor,
          reference: sale.reference,
          theirs: formatMinor(record.amount),
          currency: record.currency,
          ours: formatMinor(sent),
        }),
      },
    ];
  return [];
}

/** One of our sales against what its gateway says of the payment; 'unknown' when it could not say. */
export function comparePayment(vendor: string, sale: SaleView, result: LookupResult): Difference[] | 'unknown' {
  if (result.status === 'unknown') return 'unknown';
  const ours = { ...oursOf(sale), payment_reference: sale.payment_reference, payment_flow: sale.payment_flow };
  const base = { source: 'gateway' as const, vendor, key: sale.reference, recharge_id: sale.id, ours };
  const taken = TAKEN.has(sale.payment_state);
  if (result.status === 'not_found') {
    if (!taken) return [];
    return [
      { ...base, kind: 'only_ours', theirs: null, evidence: evidence('no_payment', { vendor, reference: sale.reference, amount: formatMinor(sale.amount) }) },
    ];
  }
  const theirs = {
    state: result.state,
    amount: result.amount === undefined ? null : formatMinor(Math.trunc(result.amount)),
    charges: result.charges === undefined ? null : formatMinor(Math.trunc(result.charges)),
    vendor_id: result.transactionId,
    at: null,
  };
  // Taken at the gateway: a committed reserve, or an approved purchase (an approved reserve is only held).
  const gatewayTook = result.state === 'committed' || (result.state === 'approved' && sale.payment_flow !== 'preauthorize');
  const gatewayHolds = result.state === 'approved' && sale.payment_flow === 'preauthorize';
  if (taken && !gatewayTook)
    return [
      {
        ...base,
        kind: 'state',
        theirs,
        evidence: evidence('payment_not_taken', { vendor, reference: sale.reference, state: result.state }),
      },
    ];
  if (GIVEN_BACK.has(sale.payment_state) && (gatewayTook || gatewayHolds))
    return [
      {
        ...base,
        kind: 'state',
        theirs,
        evidence: evidence('payment_still_taken', { vendor, reference: sale.reference, state: result.state }),
      },
    ];
  // WaafiPay truncates to cents: compared in whole cents.
  if (taken && result.amount !== undefined && Math.trunc(result.amount) !== sale.amount)
    return [
      {
        ...base,
        kind: 'amount',
        theirs,
        evidence: evidence('payment_amount', {
          vendor,
          reference: sale.reference,
          theirs: formatMinor(Math.trunc(result.amount)),
          ours: formatMinor(sale.amount),
        }),
      },
    ];
  return [];
}
