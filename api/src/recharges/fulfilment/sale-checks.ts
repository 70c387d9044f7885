import type { PaymentState, RechargeStatus } from '@app/contracts';

/**
 * Which settled sales still wait on the gateway (docs/architecture.md, "Reconciliation"): a sale
 * settled while its payment's outcome was open (a decision in review taken while the gateway could
 * not answer, a refund by hand whose cancel went unanswered). The customer's reserve is held until
 * the reconciliation commits it (delivered) or lets it go (not delivered).
 */
const OPEN_WHEN_COMPLETED: readonly PaymentState[] = ['sent', 'reserved', 'committing'];
// Not delivered, so nothing may stay taken: a payment collected is given back too (a refund after a commit).
const OPEN_WHEN_FAILED: readonly PaymentState[] = ['sent', 'reserved', 'releasing', 'committing', 'collected'];

export function paymentAwaitsCheck(r: { status: RechargeStatus | string; payment_state: PaymentState | string }): boolean {
  const state = r.payment_state as PaymentState;
  if (r.status === 'completed') return OPEN_WHEN_COMPLETED.includes(state);
  if (r.status === 'failed' || r.status === 'refunded') return OPEN_WHEN_FAILED.includes(state);
  return false;
}
