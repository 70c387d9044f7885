import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { drawMillis, faultQueue, type Millis, type StandInAnswer, type StandInHandler, type StandInRequest } from '../../stand-ins/stand-in-server.ts';

/**
 * A local WaafiPay: speaks the gateway's `POST /asm` protocol (docs/integrations.md, "WaafiPay") so the
 * product's real WaafiPay HTTP adapter can be exercised offline, and so `npm start` with no
 * configuration takes (pretend) payments. State lives in memory only.
 *
 * TEST NUMBERS: chosen by the last 4 digits of the payer's accountNo (e.g. 25261555 + 0000)
 *
 *   ...0000  declined: responseCode 5206 / E10205 / RCS_USER_REJECTED, params.state 'DECLINED'
 *            (the payer cancelled the PIN prompt or has too little balance).
 *   ...0001  approved, but the answer to the charge request is lost: the connection is reset
 *            after processing (once per referenceId). HPP_GETTRANINFO then says Approved, and a
 *            second charge with the same referenceId is refused as a duplicate (E10316).
 *   ...0002  HTTP 503 {message:'Service Unavailable'} to the first charge request per
 *            referenceId, which is NOT processed; a retry with the same referenceId goes through.
 *   ...0003  the charge request never reaches the gateway: connection reset before processing,
 *            every time. HPP_GETTRANINFO says not found (E10309).
 *   ...0004  approved, but the answer to the first COMMIT/CANCEL/CANCELPURCHASE (and the first
 *            REFUNDPURCHASE) for that transaction is lost (processed, then the connection is reset).
 *   ...0005  approved, but every COMMIT/CANCEL/CANCELPURCHASE/REFUNDPURCHASE for that transaction gets HTTP 503,
 *            not processed (the caller must keep retrying, then escalate to a person).
 *   ...0006  approved, but every COMMIT/CANCEL/CANCELPURCHASE/REFUNDPURCHASE for that transaction is
 *            refused (E10320, invalid state) while HPP_GETTRANINFO keeps saying Approved: a gateway
 *            that will not let the money go, which only a person can settle.
 *   other    approved.
 *
 * A charge (API_PREAUTHORIZE / API_PURCHASE) is recorded as Pending at once, so a status query
 * during the PIN prompt sees Pending, then waits approvalMs * (0.5..1.5), or a time drawn in a
 * range {min, max} (the payer typing their PIN), before it is Approved or Declined. Faults from
 * injectFault() are checked before the test numbers. 'X-before' and '503' mean the request was not
 * processed; 'X-after' means it was processed and only the answer is lost.
 *
 * Field conditions for any payer (`unavailableRate`, `lostAnswerRate`, e.g. 0.01 and 0.02): that
 * share of first charge requests per referenceId answers 503 unprocessed, or is processed and its
 * answer lost (the connection reset after the PIN prompt); a later request for the reference never
 * is, so a sale can still end.
 *
 * `dialect: 'real'` answers as captured traffic of the real gateway shows where it differs from
 * this stand-in's own codes (WAAFIPAY_REAL_RESULTS): not found is 5213/E10206 RCS_TRAN_NOT_FOUND
 * with `params: []`, a cancel of a cancelled (or reversed) transaction 5202/E10207
 * RCS_TRAN_ALREADY_CANCELLED, a decline 5206/E10205 "Payment Failed (Haraaga xisaabtaadu kuguma
 * filna)" (Somali: the balance is not enough).
 *
 * MONEY: an approved charge and HPP_GETTRANINFO carry `txAmount` (what was taken, truncated to two
 * decimals) and `merchantCharges` (the gateway's fee: 1 % of it, rounded down to the cent, at least
 * 0.01), as the real gateway's purchase answers do.
 *
 * Every answer is HTTP 200 with the WaafiPay envelope, refusals included (as WaafiPay does);
 * only a 503 fault or a path other than /asm gets another status. `GET /_standin/books` (this
 * stand-in's own, never the gateway's) answers what happened to each reference: see books().
 */

export const WAAFIPAY_STAND_IN_CREDENTIALS = {
  merchantUid: 'M0910291',
  apiUserId: '1000416',
  apiKey: 'API-STANDIN-KEY',
  storeId: '1000201',
  hppKey: 'HPP-STANDIN-KEY',
} as const;

/** The answer codes, for the adapter's author: anything but responseCode '2001' is a refusal. */
export const WAAFIPAY_RESULTS = {
  success: { responseCode: '2001', errorCode: '0', responseMsg: 'RCS_SUCCESS' },
  /** The payer declined or could not pay: a final "no". */
  userRejected: { responseCode: '5206', errorCode: 'E10205', responseMsg: 'RCS_USER_REJECTED' },
  unknownService: { responseCode: '5310', errorCode: 'E10100', responseMsg: 'RCS_UNKNOWN_SERVICE' },
  invalidCredentials: { responseCode: '5310', errorCode: 'E10101', responseMsg: 'RCS_INVALID_CREDENTIALS' },
  /** params.description names the field. */
  invalidParams: { responseCode: '5310', errorCode: 'E10102', responseMsg: 'RCS_INVALID_PARAMS' },
  /** Unknown referenceId (HPP_GETTRANINFO) or transactionId/referenceId pair (commit, cancel). */
  transactionNotFound: { responseCode: '5310', errorCode: 'E10309', responseMsg: 'RCS_TRANSACTION_NOT_FOUND' },
  /** A new charge with a referenceId already used: the first transaction is not charged again. */
  duplicateReference: { responseCode: '5310', errorCode: 'E10316', responseMsg: 'RCS_DUPLICATE_REFERENCE_ID' },
  /** Commit/cancel/reversal not allowed in the transaction's current state (or on its kind). */
  invalidState: { responseCode: '5310', errorCode: 'E10320', responseMsg: 'RCS_INVALID_TRANSACTION_STATE' },
} as const;

/** The real gateway's answers where they differ from the stand-in's own (`dialect: 'real'`; captured traffic). */
export const WAAFIPAY_REAL_RESULTS = {
  transactionNotFound: { responseCode: '5213', errorCode: 'E10206', responseMsg: 'RCS_TRAN_NOT_FOUND' },
  alreadyCancelled: { responseCode: '5202', errorCode: 'E10207', responseMsg: 'RCS_TRAN_ALREADY_CANCELLED' },
  insufficientBalance: { responseCode: '5206', errorCode: 'E10205', responseMsg: 'Payment Failed (Haraaga xisaabtaadu kuguma filna)' },
} as const;

/** Last 4 digits of the payer's accountNo that trigger each behaviour (see the comment above). */
export const WAAFIPAY_TEST_ACCOUNT_SUFFIXES = {
  declined: '0000',
  chargeAnswerLost: '0001',
  charge503Once: '0002',
  chargeNeverArrives: '0003',
  settleAnswerLostOnce: '0004',
  settleAlways503: '0005',
  settleAlwaysRefused: '0006',
} as const;

export type WaafiFault = 'reset-before' | 'reset-after' | 'hang-before' | 'hang-after' | '503';

export interface WaafiTransaction {
  referenceId: string;
  transactionId: string;
  kind: 'preauthorize' | 'purchase';
  state: 'Pending' | 'Approved' | 'Committed' | 'Cancelled' | 'Reversed' | 'Refunded' | 'Declined';
  /** Two decimals, e.g. '5.00'. */
  amount: string;
  currency: string;
  accountNo: string;
  /** How many charge requests carried this referenceId (faulted and duplicate ones included). */
  requests: number;
  createdAt: string;
  /** ms epoch: the charge was taken in and the PIN prompt went out. */
  requestedAt: number;
  /** ms epoch: the payer answered the prompt (approved or declined); null while Pending. */
  answeredAt: number | null;
  /** ms epoch: the last commit, cancel, reversal or refund. */
  settledAt: number | null;
}

/** What became of one reference, for a benchmark's books (GET /_standin/books). */
export interface WaafiBookEntry {
  referenceId: string;
  transactionId: string | null;
  kind: WaafiTransaction['kind'] | null;
  /** 'NotProcessed': charge requests came, none was processed (a 503, a reset before processing). */
  state: WaafiTransaction['state'] | 'NotProcessed';
  amount: string | null;
  currency: string | null;
  accountNo: string | null;
  requests: number;
  /** ms epoch: the PIN prompt went out (NotProcessed: the first request arrived). */
  requestedAt: number;
  answeredAt: number | null;
  settledAt: number | null;
  /** The field-condition fault the first charge got: 503 unprocessed, or processed with its answer lost. */
  fault: 'unavailable' | 'lost' | null;
}

export interface WaafiBooks {
  system: 'waafipay';
  /** ms epoch, when the books were read. */
  at: number;
  entries: WaafiBookEntry[];
}

export interface WaafiPayStandIn {
  handle: StandInHandler;
  /** Snapshots, oldest first. */
  transactions(): WaafiTransaction[];
  byReference(ref: string): WaafiTransaction | undefined;
  /** Every reference charge requests came for, oldest first; `since` (ms epoch) keeps those requested from then on. */
  books(since?: number): WaafiBooks;
  /** The next request whose serviceName (and/or referenceId) matches gets this fault; `times` defaults to 1. */
  injectFault(match: { serviceName?: string; referenceId?: string }, fault: WaafiFault, times?: number): void;
  /** Forgets transactions, faults and per-reference test-number history. */
  /** Drops the injected faults that are still waiting (the network heals); transactions stay. */
  clearFaults(): void;
  reset(): void;
}

const CHARGES = new Set(['API_PREAUTHORIZE', 'API_PURCHASE']);
const SETTLEMENTS = new Set(['API_PREAUTHORIZE_COMMIT', 'API_PREAUTHORIZE_CANCEL', 'API_CANCELPURCHASE']);
const SERVICES = new Set([...CHARGES, ...SETTLEMENTS, 'HPP_GETTRANINFO', 'HPP_REFUNDPURCHASE']);
const REFERENCE_ID = /^[A-Za-z0-9._-]{1,50}$/;
/** Transactions (and per-reference bookkeeping) kept in memory before the oldest are forgotten. */
const MAX_KEPT = 100_000;
type Result = (typeof WAAFIPAY_RESULTS)[keyof typeof WAAFIPAY_RESULTS];
type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * '12.345' / 12.345 -> '12.34'. Truncated, never rounded (the documented rule), and done on the
 * decimal text because binary floats would turn 0.29 into 0.28. Undefined when not a valid amount.
 */
export function truncateAmount(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0 || value >= 1e12) return undefined;
    text = String(value);
    if (text.includes('e')) return undefined; // below 1e-6: rounds down to nothing anyway
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = /^(\d{1,12})(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const whole = String(Number(match[1]));
  const cents = (match[2] ?? '').slice(0, 2).padEnd(2, '0');
  if (whole === '0' && cents === '00') return undefined;
  return `${whole}.${cents}`;
}

/** The stand-in gateway's fee on an amount ("5.00"): 1 %, rounded down to the cent, at least a cent ("0.05"). */
export function merchantCharges(amount: string): string {
  const cents = Math.round(Number(amount) * 100);
  return (Math.max(1, Math.floor(cents / 100)) / 100).toFixed(2);
}

export interface WaafiPayStandInOptions {
  /** The PIN prompt: n -> n * (0.5..1.5), or {min, max} drawn uniformly. Default 1500. */
  approvalMs?: Millis;
  /** 'real': the real gateway's answers where they differ (WAAFIPAY_REAL_RESULTS). Default 'standin'. */
  dialect?: 'standin' | 'real';
  /** Share (0..1) of first charge requests per reference processed with the answer lost. */
  lostAnswerRate?: number;
  /** Share (0..1) of first charge requests per reference answered 503, not processed. */
  unavailableRate?: number;
  /** Math.random unless a test fixes it. */
  random?: () => number;
  merchantUid?: string;
  apiUserId?: string;
  apiKey?: string;
  storeId?: string;
  hppKey?: string;
}

export function createWaafiPayStandIn(opts: WaafiPayStandInOptions = {}): WaafiPayStandIn {
  const { approvalMs: givenApprovalMs, dialect = 'standin', lostAnswerRate = 0, unavailableRate = 0, random = Math.random, ...givenCredentials } = opts;
  const approvalMs: Millis = givenApprovalMs ?? 1500;
  const credentials = { ...WAAFIPAY_STAND_IN_CREDENTIALS, ...definedOnly(givenCredentials) };
  const real = dialect === 'real';

  const byRef = new Map<string, WaafiTransaction>();
  const byTransactionId = new Map<string, WaafiTransaction>();
  /** Charge requests per referenceId, counted even when no transaction came of them. */
  const requestCounts = new Map<string, { count: number; firstAt: number; fault: WaafiBookEntry['fault'] }>();
  /** "Once per referenceId/transaction" test-number faults already spent. */
  const spent = new Set<string>();
  const faults = faultQueue<{ serviceName: unknown; referenceId: string | undefined }, WaafiFault>();
  // Ids start from the clock, so a restarted stand-in (the embedded default) never reuses one.
  let nextId = Date.now();

  function envelope(result: Result | (typeof WAAFIPAY_REAL_RESULTS)[keyof typeof WAAFIPAY_REAL_RESULTS], params: Params | []): StandInAnswer {
    return {
      kind: 'answer',
      status: 200,
      body: { schemaVersion: '1.0', timestamp: new Date().toISOString(), responseId: crypto.randomUUID(), ...result, params },
    };
  }
  const invalid = (description: string) => envelope(WAAFIPAY_RESULTS.invalidParams, { description });
  const unavailable: StandInAnswer = { kind: 'answer', status: 503, body: { message: 'Service Unavailable' } };
  /** Not found, as this stand-in says it or (`dialect: 'real'`) as the real gateway does, with `params: []`. */
  const notFound = (params: Params) =>
    real ? envelope(WAAFIPAY_REAL_RESULTS.transactionNotFound, []) : envelope(WAAFIPAY_RESULTS.transactionNotFound, params);

  const takeFault = (serviceName: unknown, referenceId: string | undefined) => faults.take({ serviceName, referenceId });

  /** Applies a fault around the processing step: before it, instead of it, or to its answer. */
  async function withFault(fault: WaafiFault | undefined, process: () => Promise<StandInAnswer>): Promise<StandInAnswer> {
    if (fault === '503') return unavailable;
    if (fault === 'reset-before') return { kind: 'reset' };
    if (fault === 'hang-before') return { kind: 'hang' };
    const answer = await process();
    if (fault === 'reset-after') return { kind: 'reset' };
    if (fault === 'hang-after') return { kind: 'hang' };
    return answer;
  }

  function checkCredentials(params: Params, names: readonly (keyof typeof credentials)[]): StandInAnswer | undefined {
    for (const name of names) if (!nonEmptyString(params[name])) return invalid(`serviceParams.${name} is required`);
    for (const name of names)
      if (params[name] !== credentials[name]) return envelope(WAAFIPAY_RESULTS.invalidCredentials, { description: 'Invalid merchant credentials' });
    return undefined;
  }

  async function charge(serviceName: string, params: Params): Promise<StandInAnswer> {
    if (params.paymentMethod !== 'MWALLET_ACCOUNT') return invalid("serviceParams.paymentMethod must be 'MWALLET_ACCOUNT'");
    const accountNo = isObject(params.payerInfo) ? params.payerInfo.accountNo : undefined;
    // International digits without '+': a 9-digit national number here is a caller bug worth catching.
    if (typeof accountNo !== 'string' || !/^[1-9]\d{9,14}$/.test(accountNo)) {
      return invalid('serviceParams.payerInfo.accountNo must be the international number in digits, without +');
    }
    const info = params.transactionInfo;
    if (!isObject(info)) return invalid('serviceParams.transactionInfo is required');
    const referenceId = info.referenceId;
    if (typeof referenceId !== 'string' || !REFERENCE_ID.test(referenceId)) {
      return invalid('transactionInfo.referenceId must be 1-50 characters of letters, digits, . _ -');
    }
    if (!nonEmptyString(info.invoiceId) && typeof info.invoiceId !== 'number') return invalid('transactionInfo.invoiceId is required');
    const amount = truncateAmount(info.amount);
    if (amount === undefined) return invalid('transactionInfo.amount must be a positive amount');
    if (typeof info.currency !== 'string' || !/^[A-Z]{3}$/.test(info.currency)) return invalid('transactionInfo.currency must be an ISO 4217 code');
    if (info.description !== undefined && typeof info.description !== 'string') return invalid('transactionInfo.description must be text');

    const suffix = accountNo.slice(-4);
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.chargeNeverArrives) return { kind: 'reset' };
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.charge503Once && once(`503:${referenceId}`)) return unavailable;

    const existing = byRef.get(referenceId);
    if (existing) {
      // Duplicate protection is the point of referenceId: the first transaction stays as it was.
      return envelope(WAAFIPAY_RESULTS.duplicateReference, { referenceId, description: 'This referenceId was already used' });
    }

    const transaction: WaafiTransaction = {
      referenceId,
      transactionId: String(nextId++),
      kind: serviceName === 'API_PREAUTHORIZE' ? 'preauthorize' : 'purchase',
      state: 'Pending',
      amount,
      currency: info.currency,
      accountNo,
      requests: 0,
      createdAt: new Date().toISOString(),
      requestedAt: Date.now(),
      answeredAt: null,
      settledAt: null,
    };
    byRef.set(referenceId, transaction);
    byTransactionId.set(transaction.transactionId, transaction);
    forgetOldest();

    // The payer reads the USSD prompt and types the PIN.
    const wait = drawMillis(approvalMs, random);
    if (wait > 0) await sleep(wait);
    transaction.answeredAt = Date.now();

    let answer: StandInAnswer;
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.declined) {
      transaction.state = 'Declined';
      answer = real
        ? envelope(WAAFIPAY_REAL_RESULTS.insufficientBalance, { state: 'DECLINED', referenceId })
        : envelope(WAAFIPAY_RESULTS.userRejected, {
            state: 'DECLINED',
            referenceId,
            description: 'Payment declined: the payer cancelled or has too little balance',
          });
    } else {
      transaction.state = 'Approved';
      answer = envelope(WAAFIPAY_RESULTS.success, {
        state: 'APPROVED',
        transactionId: transaction.transactionId,
        referenceId,
        txAmount: amount,
        merchantCharges: merchantCharges(amount),
        issuerTransactionId: `ISS${transaction.transactionId}`,
        accountNo,
      });
    }
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.chargeAnswerLost && once(`lost:${referenceId}`)) return { kind: 'reset' };
    return answer;
  }

  /** The transaction a settlement or a refund names, or the refusal of its parameters. */
  function namedTransaction(params: Params): WaafiTransaction | StandInAnswer {
    const { transactionId, referenceId } = params;
    if (!nonEmptyString(transactionId) && typeof transactionId !== 'number') return invalid('serviceParams.transactionId is required');
    if (referenceId !== undefined && typeof referenceId !== 'string') return invalid('serviceParams.referenceId must be text');
    if (params.description !== undefined && typeof params.description !== 'string') return invalid('serviceParams.description must be text');
    // Found by transactionId; a referenceId, when given, must be that transaction's own.
    const found = byTransactionId.get(String(transactionId));
    const transaction = found && (referenceId === undefined || found.referenceId === referenceId) ? found : undefined;
    return transaction ?? notFound({ transactionId: String(transactionId), description: 'No such transaction' });
  }
  const isTransaction = (value: WaafiTransaction | StandInAnswer): value is WaafiTransaction => 'accountNo' in value;

  async function settle(serviceName: string, params: Params): Promise<StandInAnswer> {
    const transaction = namedTransaction(params);
    if (!isTransaction(transaction)) return transaction;

    const suffix = transaction.accountNo.slice(-4);
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAlways503) return unavailable;
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAlwaysRefused && transaction.state === 'Approved')
      return envelope(WAAFIPAY_RESULTS.invalidState, {
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
        state: transaction.state,
        description: `${serviceName} refused by the gateway`,
      });

    const [from, to, kind] =
      serviceName === 'API_PREAUTHORIZE_COMMIT'
        ? (['Approved', 'Committed', 'preauthorize'] as const)
        : serviceName === 'API_PREAUTHORIZE_CANCEL'
          ? (['Approved', 'Cancelled', 'preauthorize'] as const)
          : (['Approved', 'Reversed', 'purchase'] as const);
    let answer: StandInAnswer;
    if (real && kind === transaction.kind && to !== 'Committed' && transaction.state === to) {
      // The real gateway refuses a second cancel (or reversal) as already cancelled.
      answer = envelope(WAAFIPAY_REAL_RESULTS.alreadyCancelled, {});
    } else if (transaction.kind === kind && (transaction.state === from || transaction.state === to)) {
      // Repeating a settlement that already happened succeeds again: the caller may have lost the answer.
      if (transaction.state === from) transaction.settledAt = Date.now();
      transaction.state = to;
      answer = envelope(WAAFIPAY_RESULTS.success, {
        state: to.toUpperCase(),
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
      });
    } else {
      answer = envelope(WAAFIPAY_RESULTS.invalidState, {
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
        state: transaction.state,
        description: `${serviceName} is not allowed on a ${transaction.state} ${transaction.kind}`,
      });
    }
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAnswerLostOnce && once(`settle:${transaction.transactionId}`)) return { kind: 'reset' };
    return answer;
  }

  /**
   * HPP_REFUNDPURCHASE: money back after a capture (a committed reserve or a purchase), the whole
   * amount. A refund repeated after it was made succeeds again (the caller may have lost the answer);
   * one of a transaction that took nothing (pending, declined, cancelled, reversed) is refused.
   */
  function refund(params: Params): StandInAnswer {
    const { amount } = params;
    if (!nonEmptyString(amount) && typeof amount !== 'number') return invalid('serviceParams.amount is required');
    const transaction = namedTransaction(params);
    if (!isTransaction(transaction)) return transaction;
    const suffix = transaction.accountNo.slice(-4);
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAlways503) return unavailable;
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAlwaysRefused)
      return envelope(WAAFIPAY_RESULTS.invalidState, {
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
        state: transaction.state,
      });
    if (Number(amount).toFixed(2) !== Number(transaction.amount).toFixed(2))
      return invalid(`serviceParams.amount must be the transaction's amount (${transaction.amount})`);
    const captured = transaction.kind === 'preauthorize' ? transaction.state === 'Committed' : transaction.state === 'Approved';
    let answer: StandInAnswer;
    if (captured || transaction.state === 'Refunded') {
      if (captured) transaction.settledAt = Date.now();
      transaction.state = 'Refunded';
      answer = envelope(WAAFIPAY_RESULTS.success, {
        state: 'REFUNDED',
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
        txAmount: transaction.amount,
      });
    } else {
      answer = envelope(WAAFIPAY_RESULTS.invalidState, {
        transactionId: transaction.transactionId,
        referenceId: transaction.referenceId,
        state: transaction.state,
        description: `HPP_REFUNDPURCHASE is not allowed on a ${transaction.state} ${transaction.kind}`,
      });
    }
    if (suffix === WAAFIPAY_TEST_ACCOUNT_SUFFIXES.settleAnswerLostOnce && once(`refund:${transaction.transactionId}`)) return { kind: 'reset' };
    return answer;
  }

  function tranInfo(params: Params): StandInAnswer {
    const { referenceId } = params;
    if (!nonEmptyString(referenceId)) return invalid('serviceParams.referenceId is required');
    const transaction = byRef.get(referenceId);
    if (!transaction) return notFound({ referenceId, description: 'No transaction with this referenceId' });
    return envelope(WAAFIPAY_RESULTS.success, {
      referenceId,
      transactionId: transaction.transactionId,
      status: transaction.state,
      tranStatusDesc: transaction.state,
      txAmount: transaction.amount,
      merchantCharges: merchantCharges(transaction.amount),
      currency: transaction.currency,
      tranDate: transaction.createdAt,
    });
  }

  /**
   * The embedded default runs for months: memory stays bounded by forgetting the oldest entries
   * (a reference that old is never retried or queried again).
   */
  function forgetOldest(): void {
    for (const [ref, transaction] of byRef) {
      if (byRef.size <= MAX_KEPT) break;
      byRef.delete(ref);
      byTransactionId.delete(transaction.transactionId);
    }
    for (const ref of requestCounts.keys()) {
      if (requestCounts.size <= MAX_KEPT) break;
      requestCounts.delete(ref);
    }
    for (const key of spent) {
      if (spent.size <= MAX_KEPT) break;
      spent.delete(key);
    }
  }

  /** True the first time a key is seen: the "once per reference" test numbers. */
  function once(key: string): boolean {
    if (spent.has(key)) return false;
    spent.add(key);
    forgetOldest();
    return true;
  }

  function referenceOf(serviceName: unknown, params: Params): string | undefined {
    const ref = CHARGES.has(serviceName as string) && isObject(params.transactionInfo) ? params.transactionInfo.referenceId : params.referenceId;
    return typeof ref === 'string' ? ref : undefined;
  }

  function snapshot(transaction: WaafiTransaction): WaafiTransaction {
    return { ...transaction, requests: requestCounts.get(transaction.referenceId)?.count ?? 0 };
  }

  function books(since = 0): WaafiBooks {
    const entries: WaafiBookEntry[] = [];
    for (const [referenceId, requests] of requestCounts) {
      const t = byRef.get(referenceId);
      const requestedAt = t?.requestedAt ?? requests.firstAt;
      if (requestedAt < since) continue;
      entries.push({
        referenceId,
        transactionId: t?.transactionId ?? null,
        kind: t?.kind ?? null,
        state: t?.state ?? 'NotProcessed',
        amount: t?.amount ?? null,
        currency: t?.currency ?? null,
        accountNo: t?.accountNo ?? null,
        requests: requests.count,
        requestedAt,
        answeredAt: t?.answeredAt ?? null,
        settledAt: t?.settledAt ?? null,
        fault: requests.fault,
      });
    }
    return { system: 'waafipay', at: Date.now(), entries: entries.sort((a, b) => a.requestedAt - b.requestedAt) };
  }

  /** The field conditions (unavailableRate, lostAnswerRate), drawn once for a reference's first charge request. */
  function fieldFault(): { fault: WaafiFault; book: WaafiBookEntry['fault'] } | undefined {
    if (unavailableRate <= 0 && lostAnswerRate <= 0) return undefined;
    const r = random();
    if (r < unavailableRate) return { fault: '503', book: 'unavailable' };
    if (r < unavailableRate + lostAnswerRate) return { fault: 'reset-after', book: 'lost' };
    return undefined;
  }

  async function handle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method === 'GET' && req.path === '/_standin/books') {
      const since = Number(req.query.get('since') ?? 0);
      return { kind: 'answer', status: 200, body: books(Number.isFinite(since) ? since : 0) };
    }
    if (req.method !== 'POST' || req.path !== '/asm') return { kind: 'answer', status: 404, body: { message: 'Not Found' } };
    const body = isObject(req.body) ? req.body : {};
    const params = isObject(body.serviceParams) ? body.serviceParams : {};
    const { serviceName } = body;
    const referenceId = referenceOf(serviceName, params);
    const injected = takeFault(serviceName, referenceId);
    let field: ReturnType<typeof fieldFault>;
    if (referenceId !== undefined && CHARGES.has(serviceName as string)) {
      // Deleted first so a busy reference moves to the young end and is the last one forgotten.
      const seen = requestCounts.get(referenceId);
      // Field conditions strike a reference's first charge request only, so a sale can still end.
      if (!seen && !injected) field = fieldFault();
      requestCounts.delete(referenceId);
      requestCounts.set(referenceId, { count: (seen?.count ?? 0) + 1, firstAt: seen?.firstAt ?? Date.now(), fault: seen ? seen.fault : (field?.book ?? null) });
      forgetOldest();
    }

    // Injected faults model the network, so they strike before the gateway looks at anything.
    return withFault(injected ?? field?.fault, async () => {
      if (!isObject(req.body)) return invalid('The body must be a JSON object');
      if (body.schemaVersion !== '1.0') return invalid("schemaVersion must be '1.0'");
      if (!nonEmptyString(body.requestId)) return invalid('requestId is required');
      if (body.channelName !== 'WEB') return invalid("channelName must be 'WEB'");
      if (typeof serviceName !== 'string' || !SERVICES.has(serviceName)) {
        return envelope(WAAFIPAY_RESULTS.unknownService, { description: `Unknown serviceName ${String(serviceName)}` });
      }
      if (!isObject(body.serviceParams)) return invalid('serviceParams is required');

      if (serviceName === 'HPP_GETTRANINFO') return checkCredentials(params, ['merchantUid', 'storeId', 'hppKey']) ?? tranInfo(params);
      if (serviceName === 'HPP_REFUNDPURCHASE') return checkCredentials(params, ['merchantUid', 'storeId', 'hppKey']) ?? refund(params);
      const refused = checkCredentials(params, ['merchantUid', 'apiUserId', 'apiKey']);
      if (refused) return refused;
      return CHARGES.has(serviceName) ? charge(serviceName, params) : settle(serviceName, params);
    });
  }

  return {
    handle,
    transactions: () => [...byRef.values()].map(snapshot),
    byReference: (ref) => {
      const transaction = byRef.get(ref);
      return transaction && snapshot(transaction);
    },
    books,
    injectFault: (match, fault, times = 1) => faults.add(match, fault, times),
    clearFaults: () => faults.clear(),
    reset: () => {
      byRef.clear();
      byTransactionId.clear();
      requestCounts.clear();
      spent.clear();
      faults.clear();
    },
  };
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
