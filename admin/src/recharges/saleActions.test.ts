import { describe, expect, it } from 'vitest';
import { saleActions } from './saleActions';

/** The console offers Retry and Refund only where the API accepts them (recharge-console.service.ts). */
const sale = (s: Partial<Parameters<typeof saleActions>[0]>) =>
  ({ status: 'failed', payment_state: 'none', delivery_state: 'none', payment_gateway: 'waafipay', ...s }) as Parameters<typeof saleActions>[0];

describe('saleActions', () => {
  it('offers neither on a failed "Profit Only" sale whose payment was declined or let go (nothing held, payment already asked)', () => {
    expect(saleActions(sale({ payment_state: 'declined' }), [])).toEqual({ retry: false, refund: false });
    expect(saleActions(sale({ payment_state: 'released', delivery_state: 'failed' }), [])).toEqual({ retry: false, refund: false });
  });

  it('offers Retry only for a failed sale that never reached the gateway or the operator and moved no money', () => {
    expect(saleActions(sale({}), []).retry).toBe(true);
    expect(saleActions(sale({ payment_state: 'absent' }), []).retry).toBe(true);
    expect(saleActions(sale({ delivery_state: 'failed' }), []).retry).toBe(false);
    expect(saleActions(sale({}), [{ kind: 'recharge_debit' }, { kind: 'recharge_refund' }]).retry).toBe(false);
    expect(saleActions(sale({ payment_gateway: 'manual' }), []).retry).toBe(false);
    expect(saleActions(sale({ status: 'refunded' }), []).retry).toBe(false);
  });

  it('offers Refund for a delivered sale, and for a failed or refunded one while money is held', () => {
    expect(saleActions(sale({ status: 'completed', payment_state: 'collected', delivery_state: 'delivered' }), []).refund).toBe(true);
    // The dealer's debit not back yet; the customer's payment still reserved or collected.
    expect(saleActions(sale({ payment_state: 'released' }), [{ kind: 'recharge_debit' }]).refund).toBe(true);
    expect(saleActions(sale({ payment_state: 'reserved' }), []).refund).toBe(true);
    expect(saleActions(sale({ status: 'refunded', payment_state: 'collected' }), [{ kind: 'recharge_debit' }, { kind: 'recharge_refund' }]).refund).toBe(true);
    // Everything back: nothing to refund.
    expect(saleActions(sale({ status: 'refunded', payment_state: 'released' }), [{ kind: 'recharge_debit' }, { kind: 'recharge_refund' }]).refund).toBe(false);
    expect(saleActions(sale({ status: 'needs_review', payment_state: 'reserved' }), []).refund).toBe(false);
  });
});
