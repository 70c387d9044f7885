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

/**
 * A commit or release the gateway refused outright while the payment stood (issue 28 item 4): the
 * sale's `last_check_note` keeps it, so neither the worker after a person's decision nor the
 * reconciliation sends that call again; the reconciliation only looks the payment up (a reserve
 * lapses) or, for money taken, leaves it to be paid back by hand.
 */
export type RefusedCall = 'commit' | 'release' | 'reversal' | 'refund';
const REFUSED_WORDS: Record<RefusedCall, string> = {
  commit: 'to take the reserve',
  release: 'to let the reserve go',
  reversal: 'the reversal',
  refund: 'the refund',
};
export const REFUSED_NOTE = 'The gateway refused';

/** The note recording a refusal: `The gateway refused to let the reserve go (E10320 ...)`. */
export function refusalNote(call: RefusedCall, said: string, then: string): string {
  return `${REFUSED_NOTE} ${REFUSED_WORDS[call]} (${said})${then ? `: ${then}` : ''}.`.slice(0, 500);
}

/** Whether the sale's note records a refusal of this call (any call without `call`). */
export function refusedBefore(note: string | null | undefined, call?: RefusedCall): boolean {
  if (!note?.startsWith(REFUSED_NOTE)) return false;
  return call ? note.startsWith(`${REFUSED_NOTE} ${REFUSED_WORDS[call]}`) : true;
}
