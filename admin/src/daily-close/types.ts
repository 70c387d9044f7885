/**
 * The answers of /daily-close (issue 26), declared here while the API's contracts are written: a
 * company day reconciled with the gateways' and aggregators' records. Money is decimal strings.
 */
export type DayStatus = 'open' | 'closed';

/** One day of GET /daily-close (react-admin's id is its date, dataProvider.getList). */
export interface DailyCloseDay {
  id: string;
  date: string;
  status: DayStatus;
  sales_count: number;
  amount: string;
  /** Null for a reader without 'view bundles prices'. */
  margin: string | null;
  differences_total: number;
  differences_unhandled: number;
  refreshed_at: string | null;
  closed_at: string | null;
}

export const DIFFERENCE_KINDS = ['only_ours', 'only_theirs', 'amount', 'state'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];
export const DIFFERENCE_ACTIONS = ['reask', 'settle', 'adjust', 'accept'] as const;
export type DifferenceAction = (typeof DIFFERENCE_ACTIONS)[number];

export interface Person {
  id: number;
  name: string;
}

export interface Difference {
  id: number;
  kind: DifferenceKind;
  vendor: string;
  /** Whose record it is: the payment gateway's or the aggregator's (one sale can differ with both). */
  source: 'gateway' | 'aggregator';
  /** What else the comparison found (free-form, from the API). */
  details?: Record<string, unknown> | null;
  reference: string | null;
  recharge_id: number | null;
  ours: Record<string, unknown> | null;
  theirs: Record<string, unknown> | null;
  evidence: string;
  handled: boolean;
  action: DifferenceAction | null;
  note: string | null;
  handled_by: Person | null;
  handled_at: string | null;
}

export interface Correction {
  id: number;
  day: string;
  reference: string | null;
  recharge_id?: number | null;
  what: string;
  amount: string;
  profit: string | null;
  at: string;
}

export interface VendorTotals {
  vendor: string;
  kind: 'gateway' | 'aggregator';
  records: number;
  matched: number;
  amount: string;
  /** The vendor (or some of its answers) could not be had: those sales were not compared; a refresh retries. */
  error?: string | null;
  unreachable?: number;
}

export interface DailyClose {
  date: string;
  status: DayStatus;
  currency: string;
  time_zone: string;
  starts_at: string;
  ends_at: string;
  refreshed_at: string | null;
  closed_at: string | null;
  closed_by: Person | null;
  cutoff_at: string | null;
  totals: {
    /** cost, profit, gateway_charges, aggregator_cost and margin: null for a reader without 'view bundles prices'. */
    sales: {
      count: number;
      amount: string;
      cost: string | null;
      profit: string | null;
      gateway_charges: string | null;
      aggregator_cost: string | null;
      margin: string | null;
      unknown_cost?: number;
    };
    by_status: { completed: number; failed: number; refunded: number; needs_review: number; in_flight: number };
    ledger: { credits: string; debits: string; net: string };
    vendors: VendorTotals[];
    corrections: { count: number; amount: string; profit: string | null };
    differences: { total: number; unhandled: number };
  };
  differences: Difference[];
  corrections: Correction[];
}
