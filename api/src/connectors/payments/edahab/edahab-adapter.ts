import crypto from 'node:crypto';
import { formatMinor } from '@app/contracts';
import { callJson, type CallFor, type CallOutcome, type FetchLike, type JsonAnswer, type RemoteTrail } from '../../remote-call.ts';
import type { PaymentAdapter, PaymentMoney } from '../payment-adapter.ts';
import { currencyCode, known, vendorCents } from '../../vendor-money.ts';
import { readEdahabAnswer, unknownEdahabText, type EdahabQuestion } from './edahab-answers.ts';

export interface EdahabConfig {
  /** The API base, e.g. https://edahab.net/api/api (the operation is appended: /IssueInvoice). */
  apiUrl: string;
  apiKey: string;
  /** Signs every request (the `hash` query); never sent, never in the trail. */
  apiSecret: string;
  /** The merchant's agent code. */
  agentCode: string;
  /** What eDahab charges in (default USD); a sale in another currency is declined before any call. */
  currency?: 'USD' | 'SLSH';
  /** How long a charge may wait for the payer's PIN (eDahab's call waits for it: allow about two minutes). */
  chargeTimeoutMs: number;
  /** Lookups. */
  timeoutMs: number;
}

/** What a person does when eDahab's answer to the invoice is lost: eDahab cannot be asked by our reference. */
export const EDAHAB_LOST_INVOICE = 'eDahab cannot be asked by our reference and its answer to the invoice was lost: a person checks the eDahab portal';

/** An answer that decides nothing and names no invoice: nothing to ask eDahab by. */
const NO_INVOICE = 'The answer names no invoice, and eDahab cannot be asked by our reference: a person checks the eDahab portal';

/**
 * What eDahab says it took: its documented answers carry no amount, so only an answer that does
 * (`Amount`, with `Currency` or else the currency charged in) fills it.
 */
export function edahabMoney(body: unknown, chargedIn: string): PaymentMoney {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const amount = vendorCents(b.Amount, 'down');
  return known({ amount, currency: amount !== null ? (currencyCode(b.Currency) ?? chargedIn) : null });
}

/** The hex SHA-256 of the exact body text followed by the secret: eDahab's `hash` query. */
export function edahabHash(rawBody: string, secret: string): string {
  return crypto
    .createHash('sha256')
    .update(rawBody + secret, 'utf8')
    .digest('hex');
}

/**
 * eDahab over HTTP (docs/integrations.md, "eDahab"): Somtel's mobile money, a direct API. Two
 * operations, each `POST {apiUrl}/{operation}?hash=<sha256(raw body + secret)>` with JSON:
 *
 * - charge(): `IssueInvoice {apiKey, edahabNumber, amount, agentCode, currency}`. The payer gets a
 *   prompt and approves with the PIN; the call waits for it. A purchase: there is no reserve.
 * - lookup(): `CheckInvoiceStatus {apiKey, invoiceId}`. eDahab knows nothing of our reference, so a
 *   payment is found by the invoice id it gave us (recorded from the charge's answer as the
 *   transactionId). An answer lost before that id was known cannot be asked about: a person looks
 *   in eDahab's portal; the charge is never sent again (eDahab would take the money twice).
 *
 * Answers are read by the answer table (edahab-answers.ts); an answer nobody classified is unknown
 * and carries its raw text. No answer, a reset or a 5xx is unknown too. The body is written once,
 * signed and sent as that same text (callJson's `rawBody`). The trail shows the body with `apiKey`
 * redacted and the URL without its `hash`; the secret is never sent at all.
 */
export function edahabAdapter(config: EdahabConfig, deps: { fetch?: FetchLike; trail: RemoteTrail; name?: string }): PaymentAdapter {
  const fetchImpl = deps.fetch ?? ((url, init) => fetch(url, init));
  const api = config.apiUrl.replace(/\/+$/, '');
  const currency = config.currency ?? 'USD';
  /** The trail's outcome: paid (or an answered lookup) ok, a declined charge refused, anything else unknown. */
  const classifyFor =
    (question: EdahabQuestion) =>
    (status: number, body: unknown): CallOutcome => {
      const { meaning } = readEdahabAnswer(question, status, body);
      if (meaning === 'paid') return 'ok';
      if (question === 'lookup') return meaning === 'declined' || meaning === 'pending' ? 'ok' : 'unknown';
      return meaning === 'declined' ? 'refused' : 'unknown';
    };
  const send = (
    forWhom: CallFor,
    operation: 'IssueInvoice' | 'CheckInvoiceStatus',
    fields: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<JsonAnswer> => {
    // Written once: the text hashed is the text sent.
    const rawBody = JSON.stringify(fields);
    return callJson(fetchImpl, deps.trail, forWhom, {
      system: 'edahab',
      operation,
      method: 'POST',
      url: `${api}/${operation}?hash=${edahabHash(rawBody, config.apiSecret)}`,
      rawBody,
      timeoutMs,
      // The payer reads the prompt: a charge with no answer yet is not a gateway that is down.
      waitsOnPerson: operation === 'IssueInvoice',
      classify: classifyFor(operation === 'IssueInvoice' ? 'charge' : 'lookup'),
    });
  };

  return {
    name: deps.name ?? 'edahab',
    system: 'edahab',
    // eDahab has no pre-authorisation: the invoice is paid at once.
    flow: 'purchase',
    capabilities: { promptsPayer: true, refundAfterCapture: false, lookupByOwnReference: false, preauthorize: false },
    async charge(request, forWhom) {
      if (request.currency !== currency)
        return {
          status: 'declined',
          code: 'currency',
          message: `eDahab is set to charge in ${currency}, and this payment is in ${request.currency}: nothing was sent.`,
        };
      const answer = await send(
        forWhom,
        'IssueInvoice',
        {
          apiKey: config.apiKey,
          // The national number, without 252.
          edahabNumber: request.payerPhone,
          // Dollars with two decimals, never rounded up (the cents are truncated), as a JSON number.
          amount: Number(formatMinor(Math.trunc(request.amount))),
          agentCode: config.agentCode,
          currency,
        },
        config.chargeTimeoutMs,
      );
      // No answer: eDahab may have the invoice, and nothing tells its id.
      if (answer.kind === 'lost') return { status: 'unknown', error: `${answer.error}: ${EDAHAB_LOST_INVOICE}` };
      const reading = readEdahabAnswer('charge', answer.status, answer.body);
      if (reading.meaning === 'paid') {
        // The invoice id is what a lookup asks by; eDahab's own TransactionId stays in the trail.
        return reading.invoiceId
          ? { status: 'approved', transactionId: reading.invoiceId, ...edahabMoney(answer.body, currency) }
          : { status: 'unknown', error: `Paid without an InvoiceId: ${reading.raw}. ${NO_INVOICE}` };
      }
      // Declined by the payer or the wallet, or refused before any invoice: nothing taken.
      if (reading.meaning === 'declined') return { status: 'declined', code: reading.code, message: reading.message, raw: reading.raw };
      // Pending, or undecided: asked again by the invoice id when the answer names one.
      const error = unknownEdahabText(reading, 'charge');
      return reading.invoiceId ? { status: 'unknown', error, transactionId: reading.invoiceId } : { status: 'unknown', error: `${error}. ${NO_INVOICE}` };
    },
    async lookup(_referenceId, forWhom, known) {
      const invoiceId = known?.transactionId ? String(known.transactionId) : '';
      if (!invoiceId) return { status: 'unknown', error: EDAHAB_LOST_INVOICE };
      const answer = await send(
        forWhom,
        'CheckInvoiceStatus',
        // eDahab's invoice ids are numbers: sent as one when it is one.
        { apiKey: config.apiKey, invoiceId: /^\d{1,15}$/.test(invoiceId) ? Number(invoiceId) : invoiceId },
        config.timeoutMs,
      );
      if (answer.kind === 'lost') return { status: 'unknown', error: `${answer.error} (eDahab invoice ${invoiceId})` };
      const reading = readEdahabAnswer('lookup', answer.status, answer.body);
      // An answer about another invoice than the one asked about decides nothing about this one.
      if (reading.invoiceId && reading.invoiceId !== invoiceId)
        return { status: 'unknown', error: `eDahab answered about invoice ${reading.invoiceId} when asked about ${invoiceId}: ${reading.raw}` };
      // The invoice we asked about (the answer may say 0 or nothing while pending).
      if (reading.meaning === 'paid') return { status: 'found', state: 'approved', transactionId: invoiceId, ...edahabMoney(answer.body, currency) };
      if (reading.meaning === 'declined') return { status: 'found', state: 'declined', transactionId: invoiceId };
      if (reading.meaning === 'pending') return { status: 'found', state: 'pending', transactionId: invoiceId };
      return { status: 'unknown', error: `${unknownEdahabText(reading, 'lookup')} (eDahab invoice ${invoiceId})` };
    },
    // A purchase: the money was taken with the invoice, nothing to commit.
    async commit() {
      return { status: 'done' };
    },
    // eDahab documents no refund and no reversal: the caller records a refund to pay out by hand.
    async release() {
      return { status: 'refused', code: 'no_refund', message: 'eDahab has no refund: the money is paid back by hand' };
    },
  };
}
