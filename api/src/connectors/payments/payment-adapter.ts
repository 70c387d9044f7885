import type { CallFor } from '../remote-call.ts';

/**
 * Collecting the customer's payment (docs/architecture.md, "Recharges"). The worker speaks to it
 * in these words only; each gateway's connector implements them (waafipay/, edahab/; registry.ts).
 *
 * - charge(): `preauthorize` reserves the amount while the payer approves the PIN prompt (then
 *   commit() takes it once the bundle is delivered, release() lets it go otherwise); `purchase`
 *   takes it at once (release() reverses it).
 * - lookup(): what became of a payment, by our own reference (or the gateway's own id where it
 *   cannot be asked by ours): the only thing to do after an unknown outcome. A charge is never sent
 *   twice for one reference.
 */
export type PaymentFlow = 'preauthorize' | 'purchase';

export interface PaymentRequest {
  referenceId: string;
  /** National number, 9 digits. */
  payerPhone: string;
  /** Cents. */
  amount: number;
  currency: string;
  description: string;
}

/** `raw`: the gateway's answer in one line (codes and message), for the trail and the review reason. */
/**
 * What the gateway said it took, where its answer says it (left out when missing or unreadable:
 * it never fails a sale): `amount` taken (WaafiPay's `txAmount`, truncated to cents), `charges`
 * its fee on it (`merchantCharges`), both cents of `currency`.
 */
export interface PaymentMoney {
  amount?: number;
  charges?: number;
  currency?: string;
}

export type ChargeResult =
  | ({ status: 'approved'; transactionId: string } & PaymentMoney)
  | { status: 'declined'; code: string; message: string; raw?: string }
  /** `transactionId`: the gateway's id for a payment it has but has not decided (eDahab's invoice), kept for the lookup. */
  | { status: 'unknown'; error: string; transactionId?: string };
/** Where the gateway says a payment stands. */
/** `refunded`: taken, then given back by a refund (a cancelled or reversed payment is `cancelled` / `reversed`). */
export type RemotePaymentState = 'pending' | 'approved' | 'committed' | 'cancelled' | 'reversed' | 'refunded' | 'declined';
export type LookupResult =
  | ({ status: 'found'; state: RemotePaymentState; transactionId: string | null } & PaymentMoney)
  | { status: 'not_found' }
  | { status: 'unknown'; error: string };
export type ActionResult = { status: 'done' } | { status: 'refused'; code: string; message: string; raw?: string } | { status: 'unknown'; error: string };

export interface ReleaseRequest {
  referenceId: string;
  transactionId: string;
  flow: PaymentFlow;
  /** The reserve was committed (the money taken): only a refund gives it back. */
  captured?: boolean;
  /** Cents: what a refund gives back (the payment's amount). */
  amount?: number;
}

/**
 * What a gateway can do, as data: the storefront and the console read it (GET /api/v1/connectors),
 * and the steps follow it (a gateway without refunds leaves the money to be paid back by hand).
 */
export interface PaymentCapabilities {
  /** The payer approves a prompt on the handset (else: an in-person or manual transfer). */
  promptsPayer: boolean;
  /** A payment already taken can be given back through the gateway. */
  refundAfterCapture: boolean;
  /** A payment can be found by our own reference (else only by the gateway's id, when we have it). */
  lookupByOwnReference: boolean;
  /** A reserve now, taken later (pre-authorisation). */
  preauthorize: boolean;
}

export interface PaymentAdapter {
  readonly name: string;
  /** The remote system its calls go to (the `system` of its remote-call trail). */
  readonly system: string;
  readonly flow: PaymentFlow;
  readonly capabilities: PaymentCapabilities;
  charge(request: PaymentRequest, forWhom: CallFor): Promise<ChargeResult>;
  /** `known.transactionId`: the gateway's own id for the payment, where one was recorded (a gateway that cannot be asked by our reference needs it). */
  lookup(referenceId: string, forWhom: CallFor, known?: { transactionId?: string | null }): Promise<LookupResult>;
  /** Takes a reserved amount (pre-authorisation only). */
  commit(p: { referenceId: string; transactionId: string }, forWhom: CallFor): Promise<ActionResult>;
  /**
   * Gives the customer's money back, by where the payment stands: lets a reserve go, reverses a
   * purchase, or (`captured`: a reserve already committed) refunds the captured `amount` (cents).
   */
  release(p: ReleaseRequest, forWhom: CallFor): Promise<ActionResult>;
}
