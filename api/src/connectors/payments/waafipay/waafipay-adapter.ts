import crypto from 'node:crypto';
import { formatMinor } from '@app/contracts';
import { callJson, type CallFor, type CallOutcome, type FetchLike, type JsonAnswer, type RemoteTrail } from '../../remote-call.ts';
import type { ActionResult, PaymentAdapter, PaymentFlow, PaymentMoney, RemotePaymentState } from '../payment-adapter.ts';
import { currencyCode, known, vendorCents } from '../../vendor-money.ts';
import { readWaafiAnswer, unknownAnswerText, waafiServiceOf } from './waafipay-answers.ts';

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

/** The protocol's envelope: a 4xx page from a proxy is not one. */
function isEnvelope(body: unknown): body is Record<string, unknown> {
  const code = (body as { responseCode?: unknown } | null)?.responseCode;
  return !!body && typeof body === 'object' && (typeof code === 'string' || typeof code === 'number') && String(code).trim() !== '';
}

/** HPP_GETTRANINFO's status words, as the gateway's merchant portal shows them. */
function stateOf(raw: unknown): RemotePaymentState | null {
  const s = String(raw ?? '').toLowerCase();
  if (s.startsWith('pend') || s === 'initiated' || s === 'waiting') return 'pending';
  if (s === 'approved' || s === 'success' || s === 'successful' || s === 'authorized' || s === 'preauthorized') return 'approved';
  if (s === 'committed' || s === 'captured' || s === 'completed') return 'committed';
  if (s === 'cancelled' || s === 'canceled' || s === 'voided' || s === 'expired') return 'cancelled';
  if (s === 'reversed') return 'reversed';
  if (s === 'refunded') return 'refunded';
  if (s === 'declined' || s === 'failed' || s === 'rejected') return 'declined';
  return null;
}

/**
 * What the gateway says it took: `txAmount` (truncated to cents, as the gateway counts it) and
 * `merchantCharges` (its fee), in the answer's currency or else the one charged in.
 */
export function waafiMoney(params: unknown, chargedIn?: string): PaymentMoney {
  const p = (params && typeof params === 'object' && !Array.isArray(params) ? params : {}) as Record<string, unknown>;
  const amount = vendorCents(p.txAmount, 'down');
  const charges = vendorCents(p.merchantCharges, 'nearest');
  return known({ amount, charges, currency: amount !== null || charges !== null ? (currencyCode(p.currency) ?? chargedIn ?? null) : null });
}

/**
 * WaafiPay over HTTP (docs/integrations.md, "WaafiPay"): one POST per service to the /asm endpoint.
 * Each answer is read by the answer table (waafipay-answers.ts): done, refused, not found, or
 * unknown, by service; an answer nobody classified is unknown and carries its raw text. No answer,
 * a reset or a 5xx is unknown too. The request carries the merchant's credentials; the trail never
 * shows them.
 */
export function waafiPayAdapter(config: WaafiPayConfig, deps: { fetch?: FetchLike; trail: RemoteTrail; name?: string }): PaymentAdapter {
  const fetchImpl = deps.fetch ?? ((url, init) => fetch(url, init));
  /** The trail's outcome: success ok, an answer that decides nothing unknown, any other refused. */
  const classifyFor =
    (serviceName: string) =>
    (_status: number, body: unknown): CallOutcome => {
      if (!isEnvelope(body)) return 'unknown';
      const { meaning } = readWaafiAnswer(waafiServiceOf(serviceName), body);
      return meaning === 'success' || meaning === 'already_done' ? 'ok' : meaning === 'unknown' || meaning === 'has_it' ? 'unknown' : 'refused';
    };
  const send = (forWhom: CallFor, serviceName: string, serviceParams: Record<string, unknown>, timeoutMs: number, waitsOnPerson = false): Promise<JsonAnswer> =>
    callJson(fetchImpl, deps.trail, forWhom, {
      system: 'waafipay',
      operation: serviceName,
      method: 'POST',
      url: config.url,
      body: { schemaVersion: '1.0', requestId: crypto.randomUUID(), timestamp: new Date().toISOString(), channelName: 'WEB', serviceName, serviceParams },
      timeoutMs,
      waitsOnPerson,
      classify: classifyFor(serviceName),
    });
  const merchant = () => ({ merchantUid: config.merchantUid, apiUserId: config.apiUserId, apiKey: config.apiKey });
  /** A 4xx without the protocol's envelope is not a decision of the gateway: unknown. */
  const envelope = (a: JsonAnswer) => (a.kind === 'answer' && isEnvelope(a.body) ? (a.body as Record<string, unknown>) : null);
  const noAnswer = (a: JsonAnswer) => (a.kind === 'lost' ? a.error : `HTTP ${a.status} without an answer`);

  /** An action signed with the API credentials, or `signedWith` (the HPP ones for an HPP_ service). */
  const action = async (
    forWhom: CallFor,
    serviceName: string,
    params: Record<string, unknown>,
    signedWith: Record<string, string> = merchant(),
  ): Promise<ActionResult> => {
    const answer = await send(forWhom, serviceName, { ...signedWith, ...params }, config.timeoutMs);
    const body = envelope(answer);
    if (!body) return { status: 'unknown', error: noAnswer(answer) };
    const service = waafiServiceOf(serviceName);
    const reading = readWaafiAnswer(service, body);
    // Done, or already done (a cancel of a reserve already cancelled).
    if (reading.meaning === 'success' || reading.meaning === 'already_done') return { status: 'done' };
    if (reading.meaning === 'refused') return { status: 'refused', code: reading.code, message: reading.message, raw: reading.raw };
    return { status: 'unknown', error: unknownAnswerText(reading, service) };
  };

  return {
    name: deps.name ?? 'waafipay',
    system: 'waafipay',
    flow: config.flow,
    capabilities: { promptsPayer: true, refundAfterCapture: true, lookupByOwnReference: true, preauthorize: config.flow === 'preauthorize' },
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
        // The payer reads the prompt: a charge with no answer yet is not a gateway that is down.
        true,
      );
      const body = envelope(answer);
      if (!body) return { status: 'unknown', error: noAnswer(answer) };
      const reading = readWaafiAnswer('charge', body);
      const params = (body.params ?? {}) as { transactionId?: unknown };
      if (reading.meaning === 'success')
        return params.transactionId
          ? { status: 'approved', transactionId: String(params.transactionId), ...waafiMoney(params, request.currency) }
          : { status: 'unknown', error: `Success without a transactionId: ${reading.raw}` };
      // Declined by the payer or the wallet, or refused before it was processed: nothing taken.
      if (reading.meaning === 'refused') return { status: 'declined', code: reading.code, message: reading.message, raw: reading.raw };
      // A duplicate means the gateway already has this payment: its outcome is what a lookup says.
      // Anything else decides nothing: asked by lookup too.
      return { status: 'unknown', error: unknownAnswerText(reading, 'charge') };
    },
    async lookup(referenceId, forWhom) {
      const answer = await send(
        forWhom,
        'HPP_GETTRANINFO',
        { merchantUid: config.merchantUid, storeId: config.storeId, hppKey: config.hppKey, referenceId },
        config.timeoutMs,
      );
      const body = envelope(answer);
      if (!body) return { status: 'unknown', error: noAnswer(answer) };
      const reading = readWaafiAnswer('lookup', body);
      if (reading.meaning === 'not_found') return { status: 'not_found' };
      // Refusals of the question itself (credentials, parameters) say nothing about the payment.
      if (reading.meaning !== 'success') return { status: 'unknown', error: unknownAnswerText(reading, 'lookup') };
      const params = (body.params ?? {}) as { status?: unknown; tranStatusDesc?: unknown; transactionId?: unknown };
      const word = params.status ?? params.tranStatusDesc;
      const state = stateOf(word);
      if (!state) return { status: 'unknown', error: `Unclassified status "${String(word)}" in ${reading.raw}` };
      return { status: 'found', state, transactionId: params.transactionId ? String(params.transactionId) : null, ...waafiMoney(params) };
    },
    commit(p, forWhom) {
      return action(forWhom, 'API_PREAUTHORIZE_COMMIT', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle delivered' });
    },
    release(p, forWhom) {
      if (p.flow === 'preauthorize' && p.captured) {
        // A committed reserve cannot be cancelled any more: HPP_REFUNDPURCHASE gives the money back.
        if (p.amount === undefined) return Promise.resolve({ status: 'unknown', error: 'A refund needs the amount to give back.' });
        const hpp = { merchantUid: config.merchantUid, storeId: config.storeId, hppKey: config.hppKey };
        return action(
          forWhom,
          'HPP_REFUNDPURCHASE',
          { transactionId: p.transactionId, referenceId: p.referenceId, amount: formatMinor(Math.trunc(p.amount)), description: 'Refund' },
          hpp,
        );
      }
      return p.flow === 'preauthorize'
        ? action(forWhom, 'API_PREAUTHORIZE_CANCEL', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle not delivered' })
        : action(forWhom, 'API_CANCELPURCHASE', { referenceId: p.referenceId, transactionId: p.transactionId, description: 'Bundle not delivered' });
    },
  };
}
