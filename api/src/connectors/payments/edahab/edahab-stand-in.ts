import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { drawMillis, faultQueue, type Millis, type StandInAnswer, type StandInHandler, type StandInRequest } from '../../stand-ins/stand-in-server.ts';

/**
 * A local eDahab (Somtel's mobile money, docs/integrations.md, "eDahab"): speaks its two operations,
 * `POST /api/api/IssueInvoice` and `POST /api/api/CheckInvoiceStatus`, each signed with
 * `?hash=<hex SHA-256 of the raw body followed by the API secret>`, so the product's eDahab adapter
 * can be exercised offline and a payment method set to `edahab` takes (pretend) payments with no
 * configuration. State lives in memory only.
 *
 * TEST NUMBERS: chosen by the last 4 digits of the payer's `edahabNumber` (9 digits, without 252)
 *
 *   ...0000  the payer does not approve: after the prompt, `InvoiceStatus "Unpaid"`, StatusCode 0.
 *   ...0001  the payer's balance is not enough: after the prompt, StatusCode 5, the invoice Unpaid.
 *   ...0002  paid, but the answer is lost: the connection is reset after the invoice was paid, every
 *            time. CheckInvoiceStatus (by the invoice id, from the books) then says Paid.
 *   ...0003  HTTP 503 before processing, every time: no invoice, nothing taken.
 *   ...0004  Pending for ever: IssueInvoice answers `Pending` at once with its InvoiceId and the
 *            payer never answers; CheckInvoiceStatus says Pending, and a second invoice for the
 *            number answers 409 with this one.
 *   ...0005  Pending, then paid: IssueInvoice answers `Pending` at once with its InvoiceId; the
 *            payer approves after the prompt's time, and CheckInvoiceStatus then says Paid.
 *   ...0006  not an eDahab number: StatusCode 3 (validation), no invoice.
 *   other    paid after the prompt (`InvoiceStatus "Paid"`, StatusCode 0, a TransactionId).
 *
 * An invoice is Pending from the moment it is issued until the payer answers (the prompt:
 * approvalMs * (0.5..1.5), or a time drawn in a range {min, max}). While one is Pending, another
 * IssueInvoice for the same number answers HTTP 409 with the existing invoice, as eDahab may. eDahab
 * knows no reference of ours: the same number and amount sent again once the first invoice has
 * ended is a second invoice, and a second payment (the books show both), which is why the adapter
 * never sends a charge twice.
 *
 * Every refusal is HTTP 200 with the answer's `StatusCode` (1 API error, 2 invalid JSON, 3
 * validation, 4 bad credentials, 5 insufficient balance, 6 invoice not found): the vendors' notes
 * describe eDahab's refusals by StatusCode and name no HTTP status but the 409. A `hash` that is
 * missing or is not the SHA-256 of the body and the secret is StatusCode 4, like a wrong `apiKey` or
 * `agentCode`. The stand-in transport hands handlers the parsed body, so the hash is checked against
 * the body written again by JSON.stringify: the very text of any body written by JSON.stringify
 * (the adapter's), though not of one with other spacing.
 *
 * Faults from injectFault() strike first (the network): '503', 'reset-before' and 'hang-before' are
 * not processed; 'reset-after' and 'hang-after' are processed with the answer lost. Field
 * conditions (`unavailableRate`, `lostAnswerRate`) strike that share of IssueInvoice requests: eDahab
 * has no reference of ours, and the adapter never sends a sale's invoice twice, so every one is a
 * first request. `GET /_standin/books` (this stand-in's own path, never eDahab's) lists every
 * IssueInvoice request: its invoice, number, amount, status and times.
 */

export const EDAHAB_STAND_IN_CREDENTIALS = { apiKey: 'standin-edahab-key', apiSecret: 'standin-edahab-secret', agentCode: '700100' } as const;

/** eDahab's StatusCodes (a community list; the vendors' notes). */
export const EDAHAB_STATUS_CODES = {
  success: 0,
  apiError: 1,
  invalidJson: 2,
  validation: 3,
  badCredentials: 4,
  insufficientBalance: 5,
  invoiceNotFound: 6,
} as const;

/** Last 4 digits of the payer's number that trigger each behaviour (see the comment above). */
export const EDAHAB_TEST_NUMBER_SUFFIXES = {
  unpaid: '0000',
  insufficientBalance: '0001',
  answerLost: '0002',
  unavailable: '0003',
  pendingForever: '0004',
  pendingThenPaid: '0005',
  invalidNumber: '0006',
} as const;

export type EdahabFault = 'reset-before' | 'reset-after' | 'hang-before' | 'hang-after' | '503';
export type EdahabInvoiceStatus = 'Pending' | 'Paid' | 'Unpaid';

export interface EdahabInvoice {
  invoiceId: number;
  edahabNumber: string;
  amount: number;
  currency: 'USD' | 'SLSH';
  status: EdahabInvoiceStatus;
  /** eDahab's TransactionId, once paid. */
  transactionId: string | null;
  /** ms epoch: issued (the prompt went out). */
  requestedAt: number;
  /** ms epoch: the payer answered (paid or not); null while Pending. */
  answeredAt: number | null;
  /** ms epoch: paid; null unless Paid. */
  paidAt: number | null;
}

/** One IssueInvoice request, for a benchmark's books (GET /_standin/books). */
export interface EdahabBookEntry {
  /** null: the request was not processed (a 503, a reset before processing). */
  invoiceId: number | null;
  edahabNumber: string | null;
  amount: number | null;
  currency: string | null;
  status: EdahabInvoiceStatus | 'NotProcessed';
  requestedAt: number;
  answeredAt: number | null;
  paidAt: number | null;
  /** The field-condition fault the request got: 503 unprocessed, or processed with its answer lost. */
  fault: 'unavailable' | 'lost' | null;
}

export interface EdahabBooks {
  system: 'edahab';
  /** ms epoch, when the books were read. */
  at: number;
  entries: EdahabBookEntry[];
}

export interface EdahabStandIn {
  handle: StandInHandler;
  /** Snapshots, oldest first. */
  invoices(): EdahabInvoice[];
  byInvoiceId(invoiceId: number | string): EdahabInvoice | undefined;
  /** The invoices issued to a number, oldest first. */
  byNumber(edahabNumber: string): EdahabInvoice[];
  /** Every IssueInvoice request, oldest first; `since` (ms epoch) keeps those requested from then on. */
  books(since?: number): EdahabBooks;
  /** The next request whose operation (and/or number, invoice id) matches gets this fault; `times` defaults to 1. */
  injectFault(
    match: { operation?: 'IssueInvoice' | 'CheckInvoiceStatus'; edahabNumber?: string; invoiceId?: string },
    fault: EdahabFault,
    times?: number,
  ): void;
  /** Drops the injected faults that are still waiting (the network heals); invoices stay. */
  clearFaults(): void;
  /** Forgets invoices, books and faults. */
  reset(): void;
}

export interface EdahabStandInOptions {
  /** The PIN prompt: n -> n * (0.5..1.5), or {min, max} drawn uniformly. Default 1500. */
  approvalMs?: Millis;
  /** Share (0..1) of IssueInvoice requests processed with the answer lost. */
  lostAnswerRate?: number;
  /** Share (0..1) of IssueInvoice requests answered 503, not processed. */
  unavailableRate?: number;
  /** Math.random unless a test fixes it. */
  random?: () => number;
  apiKey?: string;
  apiSecret?: string;
  agentCode?: string;
}

/** Invoices and book entries kept in memory before the oldest are forgotten. */
const MAX_KEPT = 100_000;
const OPERATIONS = { issueinvoice: 'IssueInvoice', checkinvoicestatus: 'CheckInvoiceStatus' } as const;
type Operation = (typeof OPERATIONS)[keyof typeof OPERATIONS];
type Body = Record<string, unknown>;

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createEdahabStandIn(opts: EdahabStandInOptions = {}): EdahabStandIn {
  const approvalMs: Millis = opts.approvalMs ?? 1500;
  const random = opts.random ?? Math.random;
  const lostAnswerRate = opts.lostAnswerRate ?? 0;
  const unavailableRate = opts.unavailableRate ?? 0;
  const credentials = {
    apiKey: opts.apiKey ?? EDAHAB_STAND_IN_CREDENTIALS.apiKey,
    apiSecret: opts.apiSecret ?? EDAHAB_STAND_IN_CREDENTIALS.apiSecret,
    agentCode: opts.agentCode ?? EDAHAB_STAND_IN_CREDENTIALS.agentCode,
  };

  const byId = new Map<number, EdahabInvoice>();
  /** The Pending invoice of each number (eDahab keeps one open invoice per number). */
  const openByNumber = new Map<string, EdahabInvoice>();
  /** Every IssueInvoice request, oldest first (its invoice, when it got one). */
  let requests: { entry: EdahabBookEntry; invoice: EdahabInvoice | null }[] = [];
  const faults = faultQueue<{ operation: Operation | undefined; edahabNumber: string | undefined; invoiceId: string | undefined }, EdahabFault>();
  // Ids start from the clock, so a restarted stand-in (the embedded default) never reuses one.
  let nextInvoiceId = Date.now();
  let nextRequestId = 1;

  const answer = (status: number, body: unknown): StandInAnswer => ({ kind: 'answer', status, body });
  /** eDahab's answer, all seven fields always there. */
  const envelope = (fields: {
    StatusCode: number;
    StatusDescription: string;
    InvoiceStatus?: EdahabInvoiceStatus | null;
    InvoiceId?: number;
    TransactionId?: string | null;
    ValidationErrors?: { Property: string; ErrorMessage: string }[] | null;
  }): Body => ({
    InvoiceStatus: fields.InvoiceStatus ?? null,
    TransactionId: fields.TransactionId ?? null,
    InvoiceId: fields.InvoiceId ?? 0,
    StatusCode: fields.StatusCode,
    RequestId: nextRequestId++,
    StatusDescription: fields.StatusDescription,
    ValidationErrors: fields.ValidationErrors ?? null,
  });
  const refused = (code: number, description: string, property?: string): StandInAnswer =>
    answer(
      200,
      envelope({ StatusCode: code, StatusDescription: description, ValidationErrors: property ? [{ Property: property, ErrorMessage: description }] : null }),
    );
  const invalid = (property: string, message: string) => refused(EDAHAB_STATUS_CODES.validation, message, property);
  const unavailable: StandInAnswer = { kind: 'answer', status: 503, body: { Message: 'Service Unavailable' } };
  const ofInvoice = (invoice: EdahabInvoice, extra: { StatusCode?: number; StatusDescription?: string } = {}): Body =>
    envelope({
      StatusCode: extra.StatusCode ?? EDAHAB_STATUS_CODES.success,
      StatusDescription: extra.StatusDescription ?? 'Success',
      InvoiceStatus: invoice.status,
      InvoiceId: invoice.invoiceId,
      TransactionId: invoice.transactionId,
    });

  /** Applies a fault around the processing step: before it, instead of it, or to its answer. */
  async function withFault(fault: EdahabFault | undefined, process: () => Promise<StandInAnswer>): Promise<StandInAnswer> {
    if (fault === '503') return unavailable;
    if (fault === 'reset-before') return { kind: 'reset' };
    if (fault === 'hang-before') return { kind: 'hang' };
    const result = await process();
    if (fault === 'reset-after') return { kind: 'reset' };
    if (fault === 'hang-after') return { kind: 'hang' };
    return result;
  }

  function pay(invoice: EdahabInvoice): void {
    if (invoice.status !== 'Pending') return;
    invoice.status = 'Paid';
    invoice.answeredAt = invoice.paidAt = Date.now();
    invoice.transactionId = `MP${invoice.invoiceId}`;
    close(invoice);
  }
  function close(invoice: EdahabInvoice): void {
    if (openByNumber.get(invoice.edahabNumber) === invoice) openByNumber.delete(invoice.edahabNumber);
  }

  async function issueInvoice(body: Body, book: { entry: EdahabBookEntry; invoice: EdahabInvoice | null }): Promise<StandInAnswer> {
    if (body.agentCode !== credentials.agentCode) return refused(EDAHAB_STATUS_CODES.badCredentials, 'Invalid agent code');
    const { edahabNumber, amount } = body;
    if (typeof edahabNumber !== 'string' || !/^[1-9]\d{8}$/.test(edahabNumber))
      return invalid('edahabNumber', 'edahabNumber must be the 9-digit local number, without 252');
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0 || amount >= 1e9 || Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6)
      return invalid('amount', 'amount must be a positive number with at most two decimals');
    const currency = body.currency ?? 'USD';
    if (currency !== 'USD' && currency !== 'SLSH') return invalid('currency', 'currency must be USD or SLSH');

    const suffix = edahabNumber.slice(-4);
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.invalidNumber) return invalid('edahabNumber', 'The number is not an eDahab account');
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.unavailable) return unavailable;

    // One open invoice per number: the existing one comes back with a 409.
    const open = openByNumber.get(edahabNumber);
    if (open)
      return answer(409, ofInvoice(open, { StatusCode: EDAHAB_STATUS_CODES.apiError, StatusDescription: 'An unpaid invoice is already open for this number' }));

    const invoice: EdahabInvoice = {
      invoiceId: nextInvoiceId++,
      edahabNumber,
      amount,
      currency,
      status: 'Pending',
      transactionId: null,
      requestedAt: Date.now(),
      answeredAt: null,
      paidAt: null,
    };
    byId.set(invoice.invoiceId, invoice);
    openByNumber.set(edahabNumber, invoice);
    book.invoice = invoice;
    book.entry.invoiceId = invoice.invoiceId;
    forgetOldest();

    // Pending at once: for ever, or paid after the prompt while the caller asks by the invoice id.
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.pendingForever) return answer(200, ofInvoice(invoice));
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.pendingThenPaid) {
      setTimeout(() => pay(invoice), drawMillis(approvalMs, random)).unref?.();
      return answer(200, ofInvoice(invoice));
    }

    // The payer reads the prompt and types the PIN (or does not).
    const wait = drawMillis(approvalMs, random);
    if (wait > 0) await sleep(wait);
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.unpaid || suffix === EDAHAB_TEST_NUMBER_SUFFIXES.insufficientBalance) {
      invoice.status = 'Unpaid';
      invoice.answeredAt = Date.now();
      close(invoice);
      return answer(
        200,
        suffix === EDAHAB_TEST_NUMBER_SUFFIXES.unpaid
          ? ofInvoice(invoice, { StatusDescription: 'The payer did not approve the payment' })
          : ofInvoice(invoice, { StatusCode: EDAHAB_STATUS_CODES.insufficientBalance, StatusDescription: 'Insufficient balance' }),
      );
    }
    pay(invoice);
    if (suffix === EDAHAB_TEST_NUMBER_SUFFIXES.answerLost) return { kind: 'reset' };
    return answer(200, ofInvoice(invoice));
  }

  function checkInvoiceStatus(body: Body): StandInAnswer {
    const { invoiceId } = body;
    const id = typeof invoiceId === 'number' ? invoiceId : typeof invoiceId === 'string' && /^\d{1,15}$/.test(invoiceId) ? Number(invoiceId) : NaN;
    if (!Number.isSafeInteger(id) || id <= 0) return invalid('invoiceId', 'invoiceId must be the invoice number');
    const invoice = byId.get(id);
    if (!invoice) return refused(EDAHAB_STATUS_CODES.invoiceNotFound, 'Invoice not found');
    return answer(200, ofInvoice(invoice));
  }

  /** The embedded default runs for months: memory stays bounded by forgetting the oldest entries. */
  function forgetOldest(): void {
    for (const [id, invoice] of byId) {
      if (byId.size <= MAX_KEPT) break;
      byId.delete(id);
      close(invoice);
    }
    // Trimmed in batches: the list is copied once per thousand requests, not on every one.
    if (requests.length > MAX_KEPT + 1000) requests = requests.slice(-MAX_KEPT);
  }

  /** The field conditions (unavailableRate, lostAnswerRate), drawn for each IssueInvoice request. */
  function fieldFault(): { fault: EdahabFault; book: EdahabBookEntry['fault'] } | undefined {
    if (unavailableRate <= 0 && lostAnswerRate <= 0) return undefined;
    const r = random();
    if (r < unavailableRate) return { fault: '503', book: 'unavailable' };
    if (r < unavailableRate + lostAnswerRate) return { fault: 'reset-after', book: 'lost' };
    return undefined;
  }

  function books(since = 0): EdahabBooks {
    const entries: EdahabBookEntry[] = [];
    for (const { entry, invoice } of requests) {
      if (entry.requestedAt < since) continue;
      entries.push({
        ...entry,
        status: invoice?.status ?? 'NotProcessed',
        answeredAt: invoice?.answeredAt ?? null,
        paidAt: invoice?.paidAt ?? null,
      });
    }
    return { system: 'edahab', at: Date.now(), entries };
  }

  async function handle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method === 'GET' && req.path === '/_standin/books') {
      const since = Number(req.query.get('since') ?? 0);
      return answer(200, books(Number.isFinite(since) ? since : 0));
    }
    const route = /^\/api\/api\/([A-Za-z]+)$/.exec(req.path);
    const operation = route ? OPERATIONS[route[1].toLowerCase() as keyof typeof OPERATIONS] : undefined;
    if (req.method !== 'POST' || !operation) return answer(404, { Message: 'No HTTP resource was found that matches the request URI.' });
    const body = isObject(req.body) ? req.body : {};
    const edahabNumber = typeof body.edahabNumber === 'string' ? body.edahabNumber : undefined;
    const invoiceId = body.invoiceId !== undefined ? String(body.invoiceId) : undefined;
    const injected = faults.take({ operation, edahabNumber, invoiceId });

    let book: { entry: EdahabBookEntry; invoice: EdahabInvoice | null } | undefined;
    let field: ReturnType<typeof fieldFault>;
    if (operation === 'IssueInvoice') {
      if (!injected) field = fieldFault();
      book = {
        entry: {
          invoiceId: null,
          edahabNumber: edahabNumber ?? null,
          amount: typeof body.amount === 'number' ? body.amount : null,
          currency: typeof body.currency === 'string' ? body.currency : null,
          status: 'NotProcessed',
          requestedAt: Date.now(),
          answeredAt: null,
          paidAt: null,
          fault: field?.book ?? null,
        },
        invoice: null,
      };
      requests.push(book);
      forgetOldest();
    }

    // Injected faults model the network, so they strike before eDahab looks at anything.
    return withFault(injected ?? field?.fault, async () => {
      if (!isObject(req.body)) return refused(EDAHAB_STATUS_CODES.invalidJson, 'The request body must be a JSON object');
      const hash = (req.query.get('hash') ?? '').toLowerCase();
      const expected = crypto
        .createHash('sha256')
        .update(`${JSON.stringify(req.body)}${credentials.apiSecret}`, 'utf8')
        .digest('hex');
      if (hash !== expected) return refused(EDAHAB_STATUS_CODES.badCredentials, 'Invalid hash');
      if (body.apiKey !== credentials.apiKey) return refused(EDAHAB_STATUS_CODES.badCredentials, 'Invalid API key');
      return operation === 'IssueInvoice' ? issueInvoice(body, book!) : checkInvoiceStatus(body);
    });
  }

  const snapshot = (invoice: EdahabInvoice): EdahabInvoice => ({ ...invoice });
  return {
    handle,
    invoices: () => [...byId.values()].map(snapshot),
    byInvoiceId: (id) => {
      const invoice = byId.get(Number(id));
      return invoice && snapshot(invoice);
    },
    byNumber: (edahabNumber) => [...byId.values()].filter((i) => i.edahabNumber === edahabNumber).map(snapshot),
    books,
    injectFault: (match, fault, times = 1) => faults.add(match, fault, times),
    clearFaults: () => faults.clear(),
    reset: () => {
      byId.clear();
      openByNumber.clear();
      requests = [];
      faults.clear();
    },
  };
}
