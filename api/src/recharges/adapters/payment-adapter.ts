import crypto from 'node:crypto';
import { formatMinor } from '@app/contracts';
import { callJson, type CallFor, type FetchLike, type JsonAnswer, type RemoteTrail } from './remote-call.ts';

/**
 * Collecting the customer's payment (docs/architecture.md, "Recharges"). The worker speaks to it
 * in these words only; WaafiPay (below) is the one gateway built in.
 *
 * - charge(): `preauthorize` reserves the amount while the payer approves the PIN prompt (then
 *   commit() takes it once the bundle is delivered, release() lets it go otherwise); `purchase`
 *   takes it at once (release() reverses it).
 * - lookup(): what became of a payment, by our own reference: the only thing to do after an
 *   unknown outcome. A charge is never sent twice for one reference.
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

export type ChargeResult =
  { status: 'approved'; transactionId: string } | { status: 'declined'; code: string; message: string } | { status: 'unknown'; error: string };
/** Where the gateway says a payment stands. */
export type RemotePaymentState = 'pending' | 'approved' | 'committed' | 'cancelled' | 'reversed' | 'declined';
export type LookupResult =
  { status: 'found'; state: RemotePaymentState; transactionId: string | null } | { status: 'not_found' } | { status: 'unknown'; error: string };
export type ActionResult = { status: 'done' } | { status: 'refused'; code: string; message: string } | { status: 'unknown'; error: string };

export interface PaymentAdapter {
  readonly name: string;
  readonly flow: PaymentFlow;
  charge(request: PaymentRequest, forWhom: CallFor): Promise<ChargeResult>;
  lookup(referenceId: string, forWhom: CallFor): Promise<LookupResult>;
  /** Takes a reserved amount (pre-authorisation only). */
  commit(p: { referenceId: string; transactionId: string }, forWhom: CallFor): Promise<ActionResult>;
  /** Lets a reserve go, or reverses a purchase, by the flow the payment took. */
  release(p: { referenceId: string; transactionId: string; flow: PaymentFlow }, forWhom: CallFor): Promise<ActionResult>;
}

export interface WaafiPayConfig {
  /** The full URL of the /asm endpoint. */
  url: string;
  merchantUid: string;
  apiUserId: string;
  apiKey: string;
  storeId: string;
  hppKey: string;
  flow: PaymentFlow;
  /** How long a charge may wait for the payer's PIN. */
  chargeTimeoutMs: number;
  /** Commit, cancel and lookups. */
  timeoutMs: number;
}

const SUCCESS = '2001';
/** The gateway's refusal of a second charge with a used referenceId (the stand-in's code; WaafiPay's docs list the duplicate check). */
const DUPLICATE = 'E10316';
const NOT_FOUND = 'E10309';

/** HPP_GETTRANINFO's status words, as the gateway's merchant portal shows them. */
function stateOf(raw: unknown): RemotePaymentState | null {
  const s = String(raw ?? '').toLowerCase();
  if (s.startsWith('pend') || s === 'initiated' || s === 'waiting') return 'pending';
  if (s === 'approved' || s === 'success' || s === 'successful' || s === 'authorized' || s === 'preauthorized') return 'approved';
  if (s === 'committed' || s === 'captured' || s === 'completed') return 'committed';
  if (s === 'cancelled' || s === 'canceled' || s === 'voided' || s === 'expired') return 'cancelled';
  if (s === 'reversed' || s === 'refunded') return 'reversed';
  if (s === 'declined' || s === 'failed' || s === 'rejected') return 'declined';
  return null;
}

/**
 * WaafiPay over HTTP (docs/integrations.md, "WaafiPay"): one POST per service to the /asm endpoint. An
 * answer with responseCode 2001 is success, any other code a refusal; no answer, a reset or a 5xx
 * is unknown. The request carries the merchant's credentials; the trail never shows them.
 */
export function waafiPayAdapter(config: WaafiPayConfig, deps: { fetch?: FetchLike; trail: RemoteTrail; name?: string }): PaymentAdapter {
  const fetchImpl = deps.fetch ?? ((url, init) => fetch(url, init));
  const classify = (_status: number, body: any) => (body?.responseCode === SUCCESS ? 'ok' : 'refused') as 'ok' | 'refused';
  const send = (forWhom: CallFor, serviceName: string, serviceParams: Record<string, unknown>, timeoutMs: number): Promise<JsonAnswer> =>
    callJson(fetchImpl, deps.trail, forWhom, {
      system: 'waafipay',
      operation: serviceName,
      method: 'POST',
      url: config.url,
      body: { schemaVersion: '1.0', requestId: crypto.randomUUID(), timestamp: new Date().toISOString(), channelName: 'WEB', serviceName, serviceParams },
      timeoutMs,
      classify,
    });
  const merchant = () => ({ merchantUid: config.merchantUid, apiUserId: config.apiUserId, apiKey: config.apiKey });
  /** A 4xx without the protocol's envelope is not a decision of the gateway: unknown. */
  const envelope = (a: JsonAnswer) => (a.kind === 'answer' && a.body && typeof a.body.responseCode === 'string' ? a.body : null);
  const refusal = (body: any) => ({
    code: String(body.errorCode && body.errorCode !== '0' ? body.errorCode : body.responseCode),
    message: String(body.params?.description ?? body.responseMsg ?? 'Refused'),
  });

  const action = async (forWhom: CallFor, serviceName: string, params: Record<string, unknown>): Promise<ActionResult> => {
    const answer = await send(forWhom, serviceName, { ...merchant(), ...params }, config.timeoutMs);
    const body = envelope(answer);
    if (!body) return { status: 'unknown', error: answer.kind === 'lost' ? answer.error : `HTTP ${answer.status} without an answer` };
    if (body.responseCode === SUCCESS) return { status: 'done' };
    return { status: 'refused', ...refusal(body) };
  };

  return {
    name: deps.name ?? 'waafipay',
    flow: config.flow,
    async charge(request, forWhom) {
      const serviceName = config.flow === 'preauthorize' ? 'API_PREAUTHORIZE' : 'API_PURCHASE';
      const answer = await send(
        forWhom,
        serviceName,
        {
          ...merchant(),
          paymentMethod: 'MWALLET_ACCOUNT',
          payerInfo: { accountNo: `252${request.payerPhone}` },
          transactionInfo: {
            referenceId: request.referenceId,
            invoiceId: request.referenceId,
            // Two decimals, never rounded up (the gateway truncates too).
            amount: formatMinor(Math.trunc(request.amount)),
            currency: request.currency,
            description: request.description.slice(0, 100),
          },
        },
        config.chargeTimeoutMs,
      );
      const body = envelope(answer);
      if (!body) return { status: 'unknown', error: answer.kind === 'lost' ? answer.error : `HTTP ${answer.status} without an answer` };
      if (body.responseCode === SUCCESS && body.params?.transactionId) return { status: 'approved', transactionId: String(body.params.transactionId) };
      // A duplicate means the gateway already has this payment: its outcome is what a lookup says.
      if (body.errorCode === DUPLICATE) return { status: 'unknown', error: 'The gateway already has this reference' };
      return { status: 'declined', ...refusal(body) };
    },
    async lookup(referenceId, forWhom) {
      const answer = await send(
        forWhom,
        'HPP_GETTRANINFO',
        { merchantUid: config.merchantUid, storeId: config.storeId, hppKey: config.hppKey, referenceId },
        config.timeoutMs,
      );
      const body = envelope(answer);
      if (!body) return { status: 'unknown', error: answer.kind === 'lost' ? answer.error : `HTTP ${answer.status} without an answer` };
      if (body.responseCode !== SUCCESS)
        return body.errorCode === NOT_FOUND
          ? { status: 'not_found' }
          : { status: 'unknown', error: `${body.errorCode ?? body.responseCode}: ${body.responseMsg ?? ''}` };
      const state = stateOf(body.params?.status ?? body.params?.tranStatusDesc);
      if (!state) return { status: 'unknown', error: `Unrecognised status "${body.params?.status ?? body.params?.tranStatusDesc}"` };
      return { status: 'found', state, transactionId: body.params?.transactionId ? String(body.params.transactionId) : null };
    },
    commit(p, forWhom) {
      return action(forWhom, 'API_PREAUTHORIZE_COMMIT', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle delivered' });
    },
    release(p, forWhom) {
      return p.flow === 'preauthorize'
        ? action(forWhom, 'API_PREAUTHORIZE_CANCEL', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle not delivered' })
        : action(forWhom, 'API_CANCELPURCHASE', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle not delivered' });
    },
  };
}
