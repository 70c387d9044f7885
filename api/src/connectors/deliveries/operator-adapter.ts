import type { CallFor } from '../remote-call.ts';

/**
 * Delivering the bundle to the customer's number (docs/architecture.md, "Recharges"). Each
 * aggregator's connector implements it (reloadly/, dtone/; registry.ts); which one a sale uses is its
 * operator's route (routing/route-choice.ts).
 *
 * - send(): one top-up under our own unique id (the recharge's reference); never sent twice.
 * - lookup(): what became of a send whose answer was lost, by that id.
 * - poll(): the status of a top-up the aggregator is still processing.
 */
export interface DeliveryRequest {
  /** Our unique id for the top-up (the recharge's public reference). */
  customIdentifier: string;
  /** National number, 9 digits. */
  phone: string;
  /** The provider's operator id at the aggregator, or null to detect it from the number. */
  externalOperatorId: string | null;
  /** The bundle's operator product code (a fixed amount at the aggregator when numeric). */
  productCode: string | null;
  /** The bundle's cost in cents: the amount sent when the product code is not an amount. */
  cost: number;
}

/**
 * What the aggregator said a delivered top-up cost and delivered, where its answer says it (each
 * field left out when missing or unreadable: it never fails a sale). Cents of the currency beside it.
 */
export interface DeliveryMoney {
  /** What the aggregator took from our float for it. */
  cost?: number;
  costCurrency?: string;
  /** What the aggregator gave back off the face amount (Reloadly's `discount`), cents of costCurrency. */
  discount?: number;
  /** The aggregator's fee on top (DT One's `prices.wholesale.fee`), cents of costCurrency. */
  fee?: number;
  /** The exchange rate it applied, as the vendor wrote it. */
  fxRate?: string;
  /** What reached the customer's number, in the operator's currency. */
  deliveredAmount?: number;
  deliveredCurrency?: string;
}

export type DeliveryResult =
  | ({ status: 'delivered'; deliveryId: string; operatorReference: string } & DeliveryMoney)
  | { status: 'processing'; deliveryId: string }
  | { status: 'failed'; deliveryId: string | null; reason: string }
  | { status: 'unknown'; error: string };

/** One product an aggregator sells for an operator (its catalogue, adapters' products()). */
export interface AggregatorProduct {
  /** The aggregator's product id; for Reloadly the fixed amount itself, two decimals ("5.00"). */
  productId: string;
  /** The aggregator's operator id. */
  operatorId: string;
  operatorName: string;
  name: string;
  description: string | null;
  /** The face value sent for it, in cents of `currency`. */
  amount: number;
  currency: string;
  /** What it costs us at the aggregator (cents), where the aggregator says (DT One's wholesale + fee, Reloadly's amount less its discount). */
  wholesale: number | null;
}

export type ProductsResult = { status: 'ok'; products: AggregatorProduct[] } | { status: 'unknown'; error: string };

/** The float left at the aggregator (when it runs out, every top-up fails): cents of `currency`. */
export type BalanceResult = { status: 'ok'; amount: number; currency: string } | { status: 'unknown'; error: string };

/** What an aggregator can do, as data the console reads (GET /api/v1/connectors). */
export interface OperatorCapabilities {
  /** A lost answer is settled by asking for the top-up by our own reference. */
  lookupByOwnReference: boolean;
  /** The float left at the aggregator can be asked for. */
  balance: boolean;
  /** Its catalogue can be pulled (products()). */
  productList: boolean;
  /** Its records for a period can be pulled (transactions()): the daily close compares them with the sales. */
  transactionReport: boolean;
}

/** One top-up as the aggregator's own records tell it (its report for a period), for the daily close. */
export interface VendorTopUp {
  /** The aggregator's id for it. */
  vendorId: string;
  /** Our reference (customIdentifier / external_id) when it carries one; null for one we never sent. */
  ourReference: string | null;
  /** 'done' (delivered), 'failed' (refused/declined/cancelled), 'refunded' (delivered then reversed/refunded), 'pending' (still processing). */
  state: 'done' | 'failed' | 'refunded' | 'pending';
  /** The face amount sent, cents of `currency`. */
  amount: number;
  currency: string;
  /** What it cost us (cents of `costCurrency`), when the aggregator says. */
  cost: number | null;
  costCurrency: string | null;
  phone: string | null;
  /** When the aggregator recorded it (ISO 8601, UTC). */
  at: string;
}

export type TopUpReport = { status: 'ok'; records: VendorTopUp[] } | { status: 'unknown'; error: string };

export interface OperatorAdapter {
  readonly name: string;
  readonly capabilities: OperatorCapabilities;
  /** The aggregator's Somali catalogue (every operator, or one): what a route may sell, for the sync (routing/aggregator-catalogue.ts). */
  products(forWhom: CallFor, operatorId?: string): Promise<ProductsResult>;
  /** The float left at the aggregator. */
  balance(forWhom: CallFor): Promise<BalanceResult>;
  /** The remote system its calls go to (the `system` of its remote-call trail). */
  readonly system: string;
  /** The trail's operation of a send (the resend limit counts those whose answer was lost). */
  readonly sendOperation: string;
  /** `not_sent`: the top-up itself was never sent (no token, the operator not detected yet): safe to send later. */
  send(request: DeliveryRequest, forWhom: CallFor): Promise<DeliveryResult | { status: 'not_sent'; error: string }>;
  lookup(customIdentifier: string, forWhom: CallFor): Promise<DeliveryResult | { status: 'not_found' }>;
  poll(deliveryId: string, forWhom: CallFor): Promise<DeliveryResult>;
  /** Every top-up the aggregator recorded in [from, to) (UTC instants), all pages. */
  transactions(range: { from: Date; to: Date }, forWhom: CallFor): Promise<TopUpReport>;
}
