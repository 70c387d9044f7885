import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatMinor } from '@app/contracts';

/**
 * Collecting the customer's payment (docs/data-model.md, Recharges). The interface is what the
 * worker needs and nothing more; a real gateway implements it and is chosen by PAYMENT_ADAPTER.
 *
 * - purchase() asks the payer to approve (a USSD PIN prompt on their phone) and resolves when they
 *   do or do not. The same referenceId twice must never charge twice: a gateway answers the first
 *   outcome again (WaafiPay refuses duplicates by referenceId).
 * - refund() gives a collected payment back (when the operator could not deliver).
 */
export interface PaymentRequest {
  referenceId: string;
  /** National number, 9 digits. */
  payerPhone: string;
  /** Cents. */
  amount: number;
  currency: string;
  description: string;
}
export type PaymentResult = { status: 'approved'; transactionId: string } | { status: 'declined'; code: string; message: string };

export interface PaymentAdapter {
  readonly name: string;
  purchase(request: PaymentRequest): Promise<PaymentResult>;
  refund(transactionId: string, amount: number, currency: string): Promise<{ status: 'refunded' } | { status: 'failed'; message: string }>;
}

/** The request body of WaafiPay's API_PURCHASE (public documentation), which the sandbox receives. */
export function waafiPurchaseBody(request: PaymentRequest, merchant: { merchantUid: string; apiUserId: string; apiKey: string }) {
  return {
    schemaVersion: '1.0',
    requestId: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    channelName: 'WEB',
    serviceName: 'API_PURCHASE',
    serviceParams: {
      ...merchant,
      paymentMethod: 'MWALLET_ACCOUNT',
      payerInfo: { accountNo: `252${request.payerPhone}` },
      transactionInfo: {
        referenceId: request.referenceId,
        invoiceId: request.referenceId,
        // USD with two decimals, truncated (never rounded up).
        amount: formatMinor(Math.trunc(request.amount)),
        currency: request.currency,
        description: request.description.slice(0, 100),
      },
    },
  };
}

/**
 * The sandbox gateway: answers like WaafiPay (responseCode 2001 approved, 5206 rejected), after
 * the seconds a payer takes to approve the prompt. Test numbers (README, "Sandbox test numbers"):
 * a payer number ending in 0000 declines. Outcomes and transaction ids are derived from the
 * referenceId, so a repeated referenceId (a retry after a crash) gets the first answer again and
 * is never charged twice.
 */
export function sandboxPaymentAdapter(opts: { approvalMs?: number } = {}): PaymentAdapter {
  const approvalMs = opts.approvalMs ?? Number(process.env.PAYMENT_SANDBOX_APPROVAL_MS ?? 1500);
  const gateway = async (body: ReturnType<typeof waafiPurchaseBody>) => {
    await sleep(approvalMs * (0.5 + Math.random()));
    const { payerInfo, transactionInfo } = body.serviceParams;
    const transactionId = `SBX${crypto.createHash('sha256').update(transactionInfo.referenceId).digest('hex').slice(0, 12).toUpperCase()}`;
    if (payerInfo.accountNo.endsWith('0000')) {
      return { responseCode: '5206', errorCode: 'E10205', responseMsg: 'RCS_USER_REJECTED', params: { state: 'DECLINED', referenceId: transactionInfo.referenceId, description: 'Payment declined: the payer cancelled or has too little balance' } };
    }
    return { responseCode: '2001', errorCode: '0', responseMsg: 'RCS_SUCCESS', params: { state: 'APPROVED', transactionId, referenceId: transactionInfo.referenceId, txAmount: transactionInfo.amount } };
  };
  return {
    name: 'sandbox',
    async purchase(request) {
      const answer = await gateway(waafiPurchaseBody(request, { merchantUid: 'M0910291', apiUserId: '1000416', apiKey: 'API-sandbox' }));
      if (answer.responseCode === '2001') return { status: 'approved', transactionId: String(answer.params.transactionId) };
      return { status: 'declined', code: answer.responseCode, message: String(answer.params.description ?? answer.responseMsg) };
    },
    async refund() {
      await sleep(Math.min(200, approvalMs));
      return { status: 'refunded' };
    },
  };
}

/** The payment adapter named by PAYMENT_ADAPTER (default and only one built in: sandbox). */
export function paymentAdapterFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentAdapter {
  const name = env.PAYMENT_ADAPTER ?? 'sandbox';
  if (name === 'sandbox') return sandboxPaymentAdapter();
  throw new Error(`Unknown PAYMENT_ADAPTER "${name}": add its adapter in api/src/recharges/adapters/`);
}
