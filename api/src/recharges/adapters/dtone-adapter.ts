import { callJson, type CallFor, type CallOutcome, type FetchLike, type RemoteTrail } from './remote-call.ts';
import type { DeliveryResult, OperatorAdapter } from './operator-adapter.ts';
import { DTONE_CLASS_MEANINGS, readDtOneError } from './dtone-answers.ts';

export interface DtOneConfig {
  /** The API base with its version, e.g. https://dvs-api.dtone.com/v1. */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
}

/** The send's operation name in the trail (the resend limit counts those whose answer was lost). */
export const DTONE_SEND = 'POST /async/transactions';

/** What the adapter reads of a DVS transaction. */
interface DtOneTransactionBody {
  id?: unknown;
  external_id?: unknown;
  operator_reference?: unknown;
  status_message?: unknown;
  status?: { message?: unknown; class?: { id?: unknown; message?: unknown } };
}

/** A transaction by its status class (dtone-answers.ts); another class, or no id, is unknown. */
function fromTransaction(tx: DtOneTransactionBody | null | undefined): DeliveryResult {
  const deliveryId = tx?.id != null ? String(tx.id) : null;
  const cls = Number(tx?.status?.class?.id);
  const meaning = DTONE_CLASS_MEANINGS[cls] ?? 'unknown';
  if (meaning === 'delivered' && deliveryId) return { status: 'delivered', deliveryId, operatorReference: String(tx?.operator_reference ?? deliveryId) };
  if (meaning === 'processing' && deliveryId) return { status: 'processing', deliveryId };
  if (meaning === 'failed') {
    const word = String(tx?.status?.class?.message ?? tx?.status?.message ?? '');
    const detail = typeof tx?.status_message === 'string' ? `: ${tx.status_message}` : '';
    return { status: 'failed', deliveryId, reason: `DT One did not deliver the top-up (${word}${detail}).` };
  }
  return { status: 'unknown', error: `Unclassified answer: transaction ${deliveryId ?? '-'} status class ${String(tx?.status?.class?.id ?? '-')}` };
}

/**
 * DT One over HTTP (docs/integrations.md, "DT One"): HTTP Basic with the key and secret; the bundle's
 * operator product code is DT One's `product_id`; `external_id` = the recharge's reference, so DT
 * One refuses a duplicate and a lost answer is found by it. Async transactions with
 * `auto_confirm`: the send answers at once, the status settles later (polled by DT One's id).
 */
export function dtOneAdapter(config: DtOneConfig, deps: { fetch?: FetchLike; trail: RemoteTrail; name?: string }): OperatorAdapter {
  const fetchImpl = deps.fetch ?? ((url, init) => fetch(url, init));
  const api = config.apiUrl.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`).toString('base64')}`;
  const classify = (status: number, body: unknown): CallOutcome => {
    if (status >= 200 && status < 300) return 'ok';
    const { meaning } = readDtOneError(status, body);
    return meaning === 'refused' || meaning === 'retry' ? 'refused' : 'unknown';
  };
  const call = (forWhom: CallFor, operation: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
    callJson(fetchImpl, deps.trail, forWhom, {
      system: 'dtone',
      operation,
      method,
      url: `${api}${path}`,
      headers: { authorization },
      body,
      timeoutMs: config.timeoutMs,
      classify,
    });
  const unknownRead = (status: number, body: unknown, what: string): { status: 'unknown'; error: string } => {
    const reading = readDtOneError(status, body);
    return { status: 'unknown', error: `${reading.classified ? 'DT One refused the' : 'Unclassified answer to the'} ${what}: ${reading.raw}` };
  };

  return {
    name: deps.name ?? 'dtone',
    system: 'dtone',
    sendOperation: DTONE_SEND,
    async send(request, forWhom) {
      const productId = Number(request.productCode);
      // A bundle without a DT One product cannot be sent: nothing reached DT One.
      if (!request.productCode || !Number.isSafeInteger(productId))
        return { status: 'failed', deliveryId: null, reason: `The bundle has no DT One product id (operator product code "${request.productCode ?? ''}").` };
      const answer = await call(forWhom, DTONE_SEND, 'POST', '/async/transactions', {
        external_id: request.customIdentifier,
        product_id: productId,
        auto_confirm: true,
        credit_party_identifier: { mobile_number: `+252${request.phone}` },
      });
      if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
      if (answer.status >= 200 && answer.status < 300) return fromTransaction(answer.body);
      const reading = readDtOneError(answer.status, answer.body);
      if (reading.meaning === 'refused') return { status: 'failed', deliveryId: null, reason: `DT One refused the top-up: ${reading.raw}` };
      if (reading.meaning === 'retry') return { status: 'not_sent', error: `DT One refused the top-up for now: ${reading.raw}` };
      if (reading.meaning === 'has_it') return { status: 'unknown', error: `DT One already has this reference: ${reading.raw}` };
      return { status: 'unknown', error: `Unclassified answer to the top-up: ${reading.raw}` };
    },
    async lookup(customIdentifier, forWhom) {
      const answer = await call(forWhom, 'GET /transactions?external_id', 'GET', `/transactions?external_id=${encodeURIComponent(customIdentifier)}`);
      if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
      if (answer.status === 404 && readDtOneError(404, answer.body).code === 1008004) return { status: 'not_found' };
      if (answer.status !== 200) return unknownRead(answer.status, answer.body, 'lookup');
      const list: DtOneTransactionBody[] = Array.isArray(answer.body) ? answer.body : [];
      const found = list.find((tx) => tx?.external_id === customIdentifier);
      return found ? fromTransaction(found) : { status: 'not_found' };
    },
    async poll(deliveryId, forWhom) {
      const answer = await call(forWhom, 'GET /transactions/{id}', 'GET', `/transactions/${encodeURIComponent(deliveryId)}`);
      if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer.status, answer.body, 'status poll');
      return fromTransaction(answer.body);
    },
  };
}
