import type { RechargeResponse, WalletTransactionResponse } from '@app/contracts';

/**
 * Which manual actions the API would accept for a sale, by the same rules
 * (api/src/recharges/recharge-console.service.ts), so the console never offers one that can only fail:
 * - Retry: a failed sale whose payment was never asked for (none, or absent at the gateway), never
 *   sent for delivery, with no ledger row, and not paid in person;
 * - Refund: a delivered sale (a complaint), or a failed or refunded one with money still held: the
 *   dealer's debit not yet credited back, or the customer's payment still reserved or collected.
 *   A failed "Profit Only" sale whose payment was declined or let go holds nothing: no Refund.
 */
export function saleActions(
  sale: Pick<RechargeResponse, 'status' | 'payment_state' | 'delivery_state' | 'payment_gateway'>,
  transactions: Pick<WalletTransactionResponse, 'kind'>[],
): { retry: boolean; refund: boolean } {
  const has = (kind: string) => transactions.some((t) => t.kind === kind);
  const retry =
    sale.status === 'failed' &&
    ['none', 'absent'].includes(sale.payment_state) &&
    sale.delivery_state === 'none' &&
    transactions.length === 0 &&
    sale.payment_gateway !== 'manual';
  const debitHeld = has('recharge_debit') && !has('recharge_refund');
  const paymentHeld = ['reserved', 'collected'].includes(sale.payment_state);
  const refund = sale.status === 'completed' || ((sale.status === 'failed' || sale.status === 'refunded') && (debitHeld || paymentHeld));
  return { retry, refund };
}
