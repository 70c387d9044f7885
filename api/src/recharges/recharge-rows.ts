import type { DeliveryState, PaymentState, RechargeStatus } from '@app/contracts';
import type { PaymentFlow } from '../connectors/payments/payment-adapter.ts';

/**
 * A `recharges` row as the database returns it (docs/data-model.md, "Recharges"). Money is integer
 * minor units (see wallets/wallet-rows.ts); times are the database's strings (database/time.ts).
 */
export interface RechargeRow {
  id: number;
  dealer_id: number;
  bundle_id: number | null;
  provider_id: number | null;
  payment_method_id: number | null;
  /** The sale's snapshot of the catalogue. */
  provider_name: string;
  category_name: string;
  bundle_name: string;
  data_volume_mb: number | null;
  validity_days: number | null;
  pricing_model: string;
  phone: string;
  payer_phone: string | null;
  payer_reference: string | null;
  amount: number;
  cost: number;
  profit: number;
  currency: string;
  status: RechargeStatus;
  reference: string | null;
  client_reference?: string | null;
  /** live, or test: a test key's sale on the sandbox (platform/sale-mode.ts). */
  mode?: string | null;
  payment_reference: string | null;
  operator_reference: string | null;
  failure_reason: string | null;
  idempotency_key: string;
  request_hash: string | null;
  customer_session_id: string | null;
  /** The language the customer bought in (their SMS receipt's); null for sales before it was kept. */
  language: string | null;
  attempts: number;
  crashes: number;
  payment_state: PaymentState;
  /** 'wallet': a reseller's sale paid from the dealer's wallet; no payment is asked for. */
  payment_flow: PaymentFlow | 'wallet' | null;
  payment_adapter: string | null;
  delivery_state: DeliveryState;
  delivery_id: string | null;
  operator_adapter: string | null;
  /** Aggregators that definitely refused this sale, comma separated (routing/route-choice.ts). */
  routes_refused?: string | null;
  /** The route a top-up was sent through (the aggregator is operator_adapter): its operator id and product there. */
  route_operator_id?: string | null;
  route_product?: string | null;
  /** A payment paid back by hand (payment_state paid_back): who, when, how. */
  paid_back_by?: number | null;
  paid_back_at?: string | null;
  paid_back_note?: string | null;
  paid_back_reference?: string | null;
  /** What the vendors said (db/migrations/20261127F-vendor-money.ts): cents of the currency beside each, null where not said. */
  gateway_amount?: number | string | null;
  gateway_charges?: number | string | null;
  gateway_currency?: string | null;
  aggregator_cost?: number | string | null;
  aggregator_currency?: string | null;
  aggregator_discount?: number | string | null;
  aggregator_fee?: number | string | null;
  fx_rate?: string | null;
  delivered_amount?: number | string | null;
  delivered_currency?: string | null;
  unsure_since: string | null;
  next_attempt_at: string | null;
  review_reason: string | null;
  /** Why it went to review, as a code (contracts REVIEW_CODES); null before migration 20261128D. */
  review_code?: string | null;
  needs_review_at: string | null;
  reviewed_by: number | null;
  reviewed_at: string | null;
  review_outcome: 'delivered' | 'not_delivered' | null;
  /** While a vendor still has to tell (in review, or settled with its payment open): when to ask next. */
  next_check_at: string | null;
  check_leased_until: string | null;
  checks: number;
  last_check_note: string | null;
  processing_started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  refunded_at: string | null;
  created_at: string | null;
  updated_at: string | null;
}

/** A recharge with its dealer, payment method and reviewer, as rechargeQuery selects it. */
export interface RechargeListRow extends RechargeRow {
  dealer_name: string;
  dealer_code: string | null;
  payment_method_name: string | null;
  reviewer_name: string | null;
  paid_back_by_name?: string | null;
}

export interface RemoteCallRow {
  id: number;
  recharge_id: number | null;
  system: string;
  operation: string;
  method: string;
  url: string;
  request: string | null;
  response: string | null;
  http_status: number | null;
  outcome: 'ok' | 'refused' | 'unknown';
  error: string | null;
  duration_ms: number;
  created_at: string;
}
