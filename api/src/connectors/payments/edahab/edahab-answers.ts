/**
 * eDahab's answers (Somtel's mobile money, a direct API), and what each one means for the question
 * it answers: the charge (`IssueInvoice`, which waits for the payer's PIN) or the lookup
 * (`CheckInvoiceStatus`, by eDahab's invoice id).
 *
 * Every answer is `{InvoiceStatus, TransactionId, InvoiceId, StatusCode, RequestId,
 * StatusDescription, ValidationErrors}`. `StatusCode` says whether the request itself went through
 * (0) or why not; `InvoiceStatus` says where the invoice stands; only `Paid` means the money was
 * taken. An open unpaid invoice for the same number may answer HTTP 409 with that existing invoice.
 *
 * An answer nobody listed here (another StatusCode, another InvoiceStatus, StatusCode 0 without an
 * InvoiceStatus, a body without a StatusCode, parts that contradict each other) is **unknown**: it
 * never completes or fails a sale; the worker asks again by the invoice id, and a person sees the
 * raw answer in the review reason.
 *
 * Where each entry comes from: [docs] the vendors' protocol notes (INTEGRATIONS.md, "eDahab": the
 * four invoice statuses, the StatusCodes 0-6 as a community list, the 409); [integrators]
 * integrators' published code, which treats `StatusCode 0` with `InvoiceStatus "Paid"` as the only
 * success and shows `Pending` with `TransactionId: null` to CheckInvoiceStatus while the payer has
 * not answered; [stand-in] the stand-in (stand-ins/edahab-stand-in.ts). Check every code against
 * eDahab's own test account before going live.
 */

/** The two questions the adapter asks. */
export type EdahabQuestion = 'charge' | 'lookup';

/**
 * - `paid`: the money was taken (a charge approved, a lookup found it approved).
 * - `declined`: definitely not taken, and nothing will be under this request (for a charge:
 *   declined; for a lookup: the invoice ended unpaid).
 * - `pending`: the invoice is there and the payer has not answered yet (a charge: unknown, asked
 *   again by the invoice id; a lookup: found, pending).
 * - `unknown`: the answer tells nothing certain about the money.
 */
export type EdahabMeaning = 'paid' | 'declined' | 'pending' | 'unknown';

export interface EdahabStatusCodeEntry {
  /** The code a declined charge carries (sale-steps writes "Payment declined (code): message"). */
  name: string;
  what: string;
  charge: EdahabMeaning;
  lookup: EdahabMeaning;
  /** Why it means that: an answer's meaning must be argued, never assumed. */
  why: string;
  source: string;
}

/**
 * `StatusCode`, for every code except 0 (0: the request went through; the InvoiceStatus decides, see
 * EDAHAB_INVOICE_STATUSES). A lookup is refused the same ways (credentials, JSON, validation), and
 * such a refusal of the question says nothing about the payment: unknown, never "declined".
 */
export const EDAHAB_STATUS_CODES: Readonly<Record<number, EdahabStatusCodeEntry>> = {
  1: {
    name: 'api_error',
    what: 'API error',
    charge: 'declined',
    lookup: 'unknown',
    why:
      'A charge refused with an API error created no invoice, so nothing can be paid. Only without an InvoiceId: with one, an invoice exists and ' +
      'its fate is asked by it (readEdahabAnswer makes that unknown). A lookup refused says nothing about the payment.',
    source: 'docs',
  },
  2: {
    name: 'invalid_json',
    what: 'invalid JSON',
    charge: 'declined',
    lookup: 'unknown',
    why: 'The request was not read at all: no invoice, no prompt, nothing taken. A lookup refused says nothing about the payment.',
    source: 'docs',
  },
  3: {
    name: 'validation',
    what: 'validation failed (e.g. not an eDahab number)',
    charge: 'declined',
    lookup: 'unknown',
    why: 'Refused before any invoice or prompt (a bad number, a bad amount): nothing taken. A lookup refused says nothing about the payment.',
    source: 'docs, stand-in',
  },
  4: {
    name: 'bad_credentials',
    what: 'bad credentials (the API key, the agent code or the hash)',
    charge: 'declined',
    lookup: 'unknown',
    why: "Refused before any invoice or prompt: nothing taken (the shop's configuration is wrong). A lookup refused says nothing about the payment.",
    source: 'docs, stand-in',
  },
  5: {
    name: 'insufficient_balance',
    what: "the payer's balance is not enough",
    charge: 'declined',
    lookup: 'unknown',
    why:
      'The wallet could not pay: nothing taken. To a lookup (which names an invoice, not a payer) it is an answer nobody documented: unknown, ' +
      'never read as a decline of that invoice.',
    source: 'docs, stand-in',
  },
  6: {
    name: 'invoice_not_found',
    what: 'invoice not found',
    charge: 'unknown',
    lookup: 'unknown',
    why:
      'A charge names no invoice: the answer makes no sense, ask. A lookup names an invoice id eDahab itself gave us, so "not found" ' +
      'contradicts its own answer: never read as "never made" (which would end the sale with the money perhaps taken); a person looks.',
    source: 'docs, stand-in',
  },
};

export interface EdahabInvoiceStatusEntry {
  charge: EdahabMeaning;
  lookup: EdahabMeaning;
  why: string;
  source: string;
}

/** `InvoiceStatus` with `StatusCode 0`. Compared without case. */
export const EDAHAB_INVOICE_STATUSES: Readonly<Record<string, EdahabInvoiceStatusEntry>> = {
  paid: {
    charge: 'paid',
    lookup: 'paid',
    why: 'The only status that means the money was taken (a purchase: taken at once).',
    source: 'docs, integrators, stand-in',
  },
  unpaid: {
    charge: 'declined',
    lookup: 'declined',
    why:
      'IssueInvoice answers once the prompt has ended: Unpaid then means the payer did not approve (declined, or let it lapse), and nothing ' +
      'was taken. A lookup answered Unpaid is an invoice whose prompt ended the same way (one still waiting says Pending).',
    source: 'docs, stand-in',
  },
  pending: {
    charge: 'pending',
    lookup: 'pending',
    why: 'The invoice is there and the payer has not answered yet: still waiting, nothing decided. Asked again by the invoice id.',
    source: 'docs, integrators, stand-in',
  },
  invalid: {
    charge: 'unknown',
    lookup: 'unknown',
    why: 'Listed by the docs with no meaning given (voided? never valid?): nobody can say whether money moved, so a person looks.',
    source: 'docs',
  },
};

/** The HTTP status of the documented conflict: an open unpaid invoice for the same number. */
export const EDAHAB_OPEN_INVOICE_STATUS = 409;

export interface EdahabAnswerReading {
  meaning: EdahabMeaning;
  /** Why an `unknown` is unknown: nobody classified it, or its parts disagree. */
  why: 'classified' | 'unclassified' | 'conflicting';
  /** For a decline: the StatusCode's name, `unpaid` or `open_invoice`. */
  code: string;
  /** StatusDescription and the validation errors, for a person. */
  message: string;
  /** The invoice the answer names (InvoiceId), null when none (or 0, which names none). */
  invoiceId: string | null;
  /** eDahab's own TransactionId, when the answer carries one. */
  transactionId: string | null;
  /** The answer in one line: `HTTP 200 StatusCode 5 Unpaid invoice 123: Insufficient balance`. */
  raw: string;
}

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '');

/** `ValidationErrors` is a list of `{Property?, ErrorMessage}` (or null). */
function validationText(value: unknown): string {
  if (!Array.isArray(value)) return text(value);
  return value
    .map((e) =>
      e && typeof e === 'object' ? [text((e as Record<string, unknown>).Property), text((e as Record<string, unknown>).ErrorMessage)] : ['', text(e)],
    )
    .map(([property, message]) => (property ? `${property}: ${message}` : message))
    .filter(Boolean)
    .join('; ');
}

/** An eDahab answer: an object with a StatusCode (a 4xx page from a proxy is not one). */
export function isEdahabAnswer(body: unknown): body is Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const code = (body as { StatusCode?: unknown }).StatusCode;
  return (typeof code === 'number' && Number.isInteger(code)) || (typeof code === 'string' && /^\d+$/.test(code.trim()));
}

/**
 * Reads one answer (`httpStatus` below 500: callJson turns 5xx and no answer into `lost`) as an
 * answer to `question`. The rules, in order:
 *
 * 1. HTTP 409 to a charge with an invoice in it: eDahab kept the existing open invoice of this
 *    number and made none for this request, so nothing of this sale can be taken: declined
 *    (`open_invoice`), whatever the existing invoice says (it is another sale's, and must never be
 *    taken for this one's). To a lookup, or without an invoice in it: unknown.
 * 2. No StatusCode (not eDahab's answer): unknown.
 * 3. `InvoiceStatus "Paid"` with a StatusCode other than 0, or with an HTTP status that is not
 *    2xx: conflicting, unknown (a decline is never believed from an answer that also says paid).
 * 4. StatusCode 0: the InvoiceStatus decides (EDAHAB_INVOICE_STATUSES); none, or one not listed:
 *    unknown. Read only with an HTTP 2xx (StatusCode 0 on a 4xx contradicts itself: unknown).
 * 5. Another StatusCode: EDAHAB_STATUS_CODES, whatever the 4xx status it came with (eDahab may
 *    send a refusal as a 200 or as a 4xx); one not listed: unknown. An API error (1) to a charge that
 *    names an invoice is unknown: the invoice exists, and its fate is asked by it.
 */
export function readEdahabAnswer(question: EdahabQuestion, httpStatus: number, body: unknown): EdahabAnswerReading {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const statusCode = text(b.StatusCode);
  const invoiceStatus = text(b.InvoiceStatus);
  const rawInvoiceId = text(b.InvoiceId);
  const invoiceId = rawInvoiceId && rawInvoiceId !== '0' ? rawInvoiceId : null;
  const transactionId = text(b.TransactionId) || null;
  const description = text(b.StatusDescription);
  const validation = validationText(b.ValidationErrors);
  const message = [description, validation].filter(Boolean).join(': ') || 'Refused';
  const raw =
    `HTTP ${httpStatus} StatusCode ${statusCode || '-'} ${invoiceStatus || '-'} invoice ${invoiceId ?? '-'}` +
    `${transactionId ? ` transaction ${transactionId}` : ''}${description || validation ? `: ${message}` : ''}`;
  const reading = (meaning: EdahabMeaning, why: EdahabAnswerReading['why'], code = statusCode || String(httpStatus)): EdahabAnswerReading => ({
    meaning,
    why,
    code,
    message,
    invoiceId,
    transactionId,
    raw,
  });

  // 1. The documented conflict: an open unpaid invoice of the same number, answered with it.
  if (httpStatus === EDAHAB_OPEN_INVOICE_STATUS) {
    if (question === 'charge' && invoiceId)
      return {
        ...reading('declined', 'classified', 'open_invoice'),
        message: `An unpaid eDahab invoice (${invoiceId}) is already open for this number: ${message}`,
      };
    return reading('unknown', 'unclassified');
  }
  // 2. Not eDahab's answer.
  if (!isEdahabAnswer(body)) return reading('unknown', 'unclassified');
  const ok = httpStatus >= 200 && httpStatus < 300;
  const status = EDAHAB_INVOICE_STATUSES[invoiceStatus.toLowerCase()];
  // 3. Never a decline (or anything else) from an answer that also says paid.
  if (invoiceStatus.toLowerCase() === 'paid' && (statusCode !== '0' || !ok)) return reading('unknown', 'conflicting');
  // 4. The request went through: the invoice's status decides.
  if (statusCode === '0') {
    if (!ok || !status) return reading('unknown', ok ? 'unclassified' : 'conflicting');
    const meaning = status[question];
    return reading(meaning, 'classified', meaning === 'declined' ? invoiceStatus.toLowerCase() : statusCode);
  }
  // 5. Refused, by StatusCode.
  const entry = EDAHAB_STATUS_CODES[Number(statusCode)];
  if (!entry) return reading('unknown', 'unclassified');
  if (entry.name === 'api_error' && question === 'charge' && invoiceId) return reading('unknown', 'conflicting');
  return reading(entry[question], 'classified', entry[question] === 'declined' ? entry.name : statusCode);
}

/** The line a person reads for an answer that decides nothing (or is still waiting). */
export function unknownEdahabText(reading: EdahabAnswerReading, question: EdahabQuestion): string {
  if (reading.why === 'unclassified') return `Unclassified eDahab answer ${reading.raw}`;
  if (reading.why === 'conflicting') return `Conflicting eDahab answer ${reading.raw}`;
  if (reading.meaning === 'pending') return `The payer has not answered eDahab's prompt yet: ${reading.raw}`;
  return `The eDahab answer ${reading.raw} says nothing certain about the payment (${question})`;
}
