/**
 * WaafiPay's answers, and what each one means for the service it answers (issue 24, item 4).
 *
 * The gateway answers every request with HTTP 200 and an envelope `{responseCode, errorCode,
 * responseMsg, params}`; `responseCode "2001"` is success and anything else says why not. The same
 * refusal comes under different codes from one service to the next, so an answer is recognised by
 * its `responseMsg` (the symbolic name, or the "Payment Failed (...)" text), by its `errorCode` and
 * by a distinctive `responseCode`, and every way it is recognised must agree. An answer nobody
 * listed here (a new `RCS_...` name, codes that match nothing, or ways that disagree) is
 * **unknown**: it never completes or fails a sale; the worker asks again and a person sees the raw
 * answer in the review reason.
 *
 * Where each entry comes from:
 * - [docs] the vendors' protocol notes (INTEGRATIONS.md, "WaafiPay"): `2001`/`RCS_SUCCESS`,
 *   `RCS_TRAN_NOT_FOUND`, `RCS_TRAN_ALREADY_CANCELLED`, `RCS_TRAN_FAILED_AT_ISSUER_SYSTEM`,
 *   `RCS_USER_REJECTED`, `RCS_NO_ROUTE_FOUND`, insufficient balance and a wrong PIN as text in
 *   `responseMsg`, the duplicate-reference refusal.
 * - [traffic] captured traffic of the real gateway: `5213`/`E10206` `RCS_TRAN_NOT_FOUND` (to
 *   HPP_GETTRANINFO and API_CANCELPURCHASE, with `params: []`), `5202`/`E10207`
 *   `RCS_TRAN_ALREADY_CANCELLED`, `5206`/`E10205` `RCS_TRAN_FAILED_AT_ISSUER_SYSTEM`, and the texts
 *   "Payment Failed (Haraaga xisaabtaadu kuguma filna ...)" (Somali: the balance is not enough),
 *   "Payment Failed (Invalid PIN code)" and `Invalid_PIN`, as integrators' code handles them.
 * - [stand-in] the stand-in's own codes (stand-ins/waafipay-stand-in.ts, `WAAFIPAY_RESULTS`):
 *   `E10205` `RCS_USER_REJECTED`, `E10100`/`E10101`/`E10102` (service, credentials, parameters),
 *   `E10309` `RCS_TRANSACTION_NOT_FOUND`, `E10316` `RCS_DUPLICATE_REFERENCE_ID`, `E10320`
 *   `RCS_INVALID_TRANSACTION_STATE`. Its `responseCode 5310` is shared by all its refusals and
 *   identifies nothing. Check every code against WaafiPay's sandbox before going live.
 */

/** What an answer says, whatever service it answers. */
export type WaafiAnswerKind =
  | 'success'
  | 'userRejected'
  | 'failedAtIssuer'
  | 'insufficientBalance'
  | 'wrongPin'
  | 'noRoute'
  | 'notFound'
  | 'alreadyCancelled'
  | 'duplicateReference'
  | 'invalidState'
  | 'invalidCredentials'
  | 'unknownService'
  | 'invalidParams';

export interface WaafiAnswerEntry {
  kind: WaafiAnswerKind;
  /** `responseMsg` values, compared without case. */
  messages: readonly string[];
  errorCodes: readonly string[];
  /** Only codes that name one answer (not the stand-in's shared 5310). */
  responseCodes: readonly string[];
  /** Text in `responseMsg` or `params.description`. */
  text?: RegExp;
  source: string;
}

export const WAAFIPAY_ANSWERS: readonly WaafiAnswerEntry[] = [
  { kind: 'success', messages: ['RCS_SUCCESS'], errorCodes: [], responseCodes: ['2001'], source: 'docs, stand-in' },
  // The payer said no at the prompt (or let it lapse).
  { kind: 'userRejected', messages: ['RCS_USER_REJECTED'], errorCodes: ['E10205'], responseCodes: ['5206'], source: 'docs, stand-in' },
  // The payer's wallet (the issuer) refused: no balance, a wrong PIN, a locked wallet ...
  {
    kind: 'failedAtIssuer',
    messages: ['RCS_TRAN_FAILED_AT_ISSUER_SYSTEM'],
    errorCodes: ['E10205'],
    responseCodes: ['5206'],
    source: 'docs, traffic',
  },
  {
    kind: 'insufficientBalance',
    messages: [],
    errorCodes: [],
    responseCodes: [],
    text: /haraaga xisaabtaadu kuguma filna|insufficient (account )?balance|not enough balance/i,
    source: 'docs, traffic (Somali and English text)',
  },
  {
    kind: 'wrongPin',
    messages: ['Invalid_PIN'],
    errorCodes: [],
    responseCodes: [],
    text: /\b(invalid|wrong|incorrect)[ _-]?pin\b|\bpin\b[^)]*\b(invalid|wrong|incorrect|khalad|qalad|khaldan|qaldan)\b/i,
    source: 'docs, traffic (English text; the Somali words for wrong next to PIN)',
  },
  // No wallet answers for the payer's number.
  { kind: 'noRoute', messages: ['RCS_NO_ROUTE_FOUND'], errorCodes: [], responseCodes: [], source: 'docs' },
  {
    kind: 'notFound',
    messages: ['RCS_TRAN_NOT_FOUND', 'RCS_TRANSACTION_NOT_FOUND'],
    errorCodes: ['E10206', 'E10309'],
    responseCodes: ['5213'],
    source: 'docs, traffic (5213/E10206), stand-in (E10309)',
  },
  {
    kind: 'alreadyCancelled',
    messages: ['RCS_TRAN_ALREADY_CANCELLED'],
    errorCodes: ['E10207'],
    responseCodes: ['5202'],
    source: 'docs, traffic (5202/E10207)',
  },
  {
    kind: 'duplicateReference',
    messages: ['RCS_DUPLICATE_REFERENCE_ID'],
    errorCodes: ['E10316'],
    responseCodes: [],
    text: /duplicate|already (been )?used/i,
    source: 'docs (the gateway refuses a used referenceId), stand-in (E10316)',
  },
  { kind: 'invalidState', messages: ['RCS_INVALID_TRANSACTION_STATE'], errorCodes: ['E10320'], responseCodes: [], source: 'stand-in' },
  { kind: 'invalidCredentials', messages: ['RCS_INVALID_CREDENTIALS'], errorCodes: ['E10101'], responseCodes: [], source: 'stand-in' },
  { kind: 'unknownService', messages: ['RCS_UNKNOWN_SERVICE'], errorCodes: ['E10100'], responseCodes: [], source: 'stand-in' },
  { kind: 'invalidParams', messages: ['RCS_INVALID_PARAMS'], errorCodes: ['E10102'], responseCodes: [], source: 'stand-in' },
];

/** The five questions the adapter asks (`refund`: HPP_REFUNDPURCHASE, money back after a capture). */
export type WaafiService = 'charge' | 'lookup' | 'commit' | 'cancel' | 'refund';

/**
 * - `success`: done (a charge approved, a lookup with a status, a commit or cancel made).
 * - `refused`: definitely not done, and nothing taken (for a charge: declined).
 * - `not_found`: the gateway has no such payment: nothing was ever done (lookups only).
 * - `already_done`: what was asked had already happened (a cancel of a cancelled reserve).
 * - `has_it`: the gateway already has a payment under this reference: ask by lookup.
 * - `unknown`: the answer tells nothing certain about the money.
 */
export type WaafiMeaning = 'success' | 'refused' | 'not_found' | 'already_done' | 'has_it' | 'unknown';

/**
 * What each kind means, per service. A charge refused before it was processed (credentials,
 * service, parameters) cannot have taken anything, so it is refused; a lookup refused the same way
 * says nothing about the payment, so it is unknown, never "not found".
 */
export const WAAFIPAY_MEANINGS: Readonly<Record<WaafiAnswerKind, Readonly<Record<WaafiService, WaafiMeaning>>>> = {
  success: { charge: 'success', lookup: 'success', commit: 'success', cancel: 'success', refund: 'success' },
  userRejected: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
  failedAtIssuer: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
  insufficientBalance: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'unknown', refund: 'refused' },
  wrongPin: { charge: 'refused', lookup: 'unknown', commit: 'unknown', cancel: 'unknown', refund: 'unknown' },
  noRoute: { charge: 'refused', lookup: 'unknown', commit: 'unknown', cancel: 'unknown', refund: 'unknown' },
  // A charge answered "not found" makes no sense: ask. A commit or cancel of a transaction the
  // gateway does not find did nothing (the captured traffic shows it for a cancel it does not allow).
  notFound: { charge: 'unknown', lookup: 'not_found', commit: 'refused', cancel: 'refused', refund: 'refused' },
  // A charge answered "already cancelled" means the gateway has this reference: ask.
  alreadyCancelled: { charge: 'has_it', lookup: 'unknown', commit: 'refused', cancel: 'already_done', refund: 'refused' },
  duplicateReference: { charge: 'has_it', lookup: 'unknown', commit: 'unknown', cancel: 'unknown', refund: 'unknown' },
  invalidState: { charge: 'unknown', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
  invalidCredentials: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
  unknownService: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
  invalidParams: { charge: 'refused', lookup: 'unknown', commit: 'refused', cancel: 'refused', refund: 'refused' },
};

export function waafiServiceOf(serviceName: string): WaafiService {
  if (serviceName === 'HPP_GETTRANINFO') return 'lookup';
  if (serviceName === 'API_PREAUTHORIZE_COMMIT') return 'commit';
  if (serviceName === 'API_PREAUTHORIZE_CANCEL' || serviceName === 'API_CANCELPURCHASE') return 'cancel';
  if (serviceName === 'HPP_REFUNDPURCHASE') return 'refund';
  return 'charge';
}

export interface WaafiAnswerReading {
  meaning: WaafiMeaning;
  /** The kinds the answer was recognised as (empty: nobody classified it). */
  kinds: WaafiAnswerKind[];
  /** Why an `unknown` is unknown: nobody classified it, or the ways it was recognised disagree. */
  why: 'classified' | 'unclassified' | 'conflicting';
  /** `errorCode`, else `responseCode`. */
  code: string;
  /** `params.description`, else `responseMsg`. */
  message: string;
  /** The answer in one line: `5213/E10206 RCS_TRAN_NOT_FOUND: description`. */
  raw: string;
}

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '');
const SYMBOLIC = /^RCS_[A-Z0-9_]+$/i;

/** Reads one envelope (responseCode present) as an answer to `service`. */
export function readWaafiAnswer(service: WaafiService, body: Record<string, unknown>): WaafiAnswerReading {
  const responseCode = text(body.responseCode);
  const errorCode = text(body.errorCode);
  const responseMsg = text(body.responseMsg);
  const params = body.params && typeof body.params === 'object' && !Array.isArray(body.params) ? (body.params as Record<string, unknown>) : {};
  const description = text(params.description);
  const code = errorCode && errorCode !== '0' ? errorCode : responseCode;
  const raw = `${responseCode || '-'}/${errorCode || '-'} ${responseMsg || '-'}${description && description !== responseMsg ? `: ${description}` : ''}`;
  const reading = (meaning: WaafiMeaning, kinds: WaafiAnswerKind[], why: WaafiAnswerReading['why']): WaafiAnswerReading => ({
    meaning,
    kinds,
    why,
    code,
    message: description || responseMsg || 'Refused',
    raw,
  });

  // 2001 is success whatever else the answer says (the one rule the gateway documents).
  if (responseCode === '2001') return reading(WAAFIPAY_MEANINGS.success[service], ['success'], 'classified');

  const kinds = new Set<WaafiAnswerKind>();
  let unknownName = SYMBOLIC.test(responseMsg);
  for (const entry of WAAFIPAY_ANSWERS) {
    if (entry.kind === 'success') continue;
    const byMessage = entry.messages.some((m) => m.toLowerCase() === responseMsg.toLowerCase());
    if (byMessage) unknownName = false;
    if (
      byMessage ||
      (errorCode && entry.errorCodes.includes(errorCode)) ||
      (responseCode && entry.responseCodes.includes(responseCode)) ||
      (entry.text && (entry.text.test(responseMsg) || entry.text.test(description)))
    )
      kinds.add(entry.kind);
  }
  const found = [...kinds];
  // A symbolic name nobody listed is a new answer, whatever its codes: unknown.
  if (unknownName || found.length === 0) return reading('unknown', found, 'unclassified');
  const meanings = new Set(found.map((kind) => WAAFIPAY_MEANINGS[kind][service]));
  if (meanings.size > 1) return reading('unknown', found, 'conflicting');
  return reading([...meanings][0], found, 'classified');
}

/** The line a person reads for an answer that decides nothing. */
export function unknownAnswerText(reading: WaafiAnswerReading, service: WaafiService): string {
  if (reading.why === 'unclassified') return `Unclassified answer ${reading.raw}`;
  if (reading.why === 'conflicting') return `Conflicting answer ${reading.raw} (read as ${reading.kinds.join(', ')})`;
  if (reading.meaning === 'has_it') return `The gateway already has this reference: ${reading.raw}`;
  return `The answer ${reading.raw} says nothing certain about the payment (${service})`;
}
