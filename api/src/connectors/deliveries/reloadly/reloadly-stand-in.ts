import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { drawMillis, faultQueue, type Millis, type StandInAnswer, type StandInHandler, type StandInRequest } from '../../stand-ins/stand-in-server.ts';

/**
 * A local Reloadly: the OAuth token endpoint and the top-ups API (docs/integrations.md, "Reloadly"),
 * so the product's real Reloadly HTTP adapter can be exercised offline, and so `npm start` with no
 * configuration delivers (pretend) bundles. Reloadly serves auth and API on two hosts, hence two
 * handlers; combinedHandle serves both from one port. State lives in memory only.
 *
 * TEST NUMBERS: chosen by the last 4 digits of the recipient's number (e.g. 61555 + 9999)
 *
 *   ...9999  the operator rejects: HTTP 200, the transaction is FAILED at once.
 *   ...8888  delivered (SUCCESSFUL), but the answer to the send is lost: the connection is reset
 *            after processing (once per customIdentifier). A lookup by customIdentifier finds it
 *            SUCCESSFUL; sending it again is refused as DUPLICATE_CUSTOM_IDENTIFIER.
 *   ...7777  HTTP 503 {message:'Service Unavailable', errorCode:'SERVICE_UNAVAILABLE'} to the first
 *            send per customIdentifier, which is NOT processed; a retry goes through.
 *   ...6666  PROCESSING, then SUCCESSFUL: the first `processingPolls` status/report reads (default
 *            2) still say PROCESSING, the next one SUCCESSFUL.
 *   ...5555  PROCESSING, then REFUNDED the same way (the operator gave up and Reloadly refunded).
 *   ...4444  the send never arrives: connection reset before processing, every time (lookups find
 *            nothing).
 *   ...3333  PROCESSING for ever.
 *   other    SUCCESSFUL.
 *
 * Every send (POST /topups, /topups-async) takes latencyMs * (0.5..1.5), or a time drawn in a
 * range {min, max}, to process; /topups answers after it, /topups-async answers {transactionId} at
 * once and the status settles after it. Faults from injectFault() are checked before anything else
 * (they model the network): 'X-before' and '503' mean not processed, 'X-after' means processed and
 * only the answer lost.
 *
 * Field conditions for any number (`unavailableRate`, `lostAnswerRate`): that share of first sends
 * per customIdentifier answers 503 unprocessed, or is processed and its answer lost; a later send
 * under the same customIdentifier never is. `GET /_standin/books` (the stand-in's own, no token)
 * answers what happened to each customIdentifier: see books().
 *
 * CATALOGUE: `GET /operators/countries/SO?includeData=true&includeBundles=true` answers the operators
 * of RELOADLY_STAND_IN_OPERATORS in Reloadly's shape, each FIXED with the data bundles of
 * RELOADLY_STAND_IN_CATALOGUE (`fixedAmounts`, `fixedAmountsDescriptions` keyed "5.00"). The
 * amounts include every cost of the demo catalogue (api/src/demo/demo-catalogue.ts: its bundles
 * have no operator product code, so their cost is what is sent). withdrawAmount() / addAmount()
 * change an operator's list for a test; resetCatalogue() (and reset()) put it back.
 *
 * An amount that is not one of the operator's fixedAmounts is refused with
 * `INVALID_AMOUNT_FOR_OPERATOR` (HTTP 400, Reloadly's code) only where the stand-in is strict about
 * amounts: for every operator with the option `strictAmounts`, else only for an operator whose list
 * a control changed (until resetCatalogue()). Not strict by default because the product sends a
 * bundle's cost when its operator product code is not an amount, and sales everywhere (tests, the
 * embedded default) use arbitrary costs.
 *
 * Stand-in strictness beyond Reloadly's: customIdentifier is required (the product always sends
 * one, and it is what makes a lost answer recoverable).
 *
 * MONEY: a top-up carries the operator's `internationalDiscount` of the catalogue as `discount`
 * (dollars off the requested amount, whole cents rounded down, `discountCurrencyCode`), and once
 * SUCCESSFUL `deliveredAmount` and `balanceInfo {oldBalance, newBalance, currencyCode}`: the float
 * (GET /accounts/balance) goes down by the requested amount less the discount, and back up when a
 * delivered top-up is refunded. `transactionDate` is Reloadly's "yyyy-MM-dd HH:mm:ss" (UTC).
 *
 * REPORT (the daily close): `GET /topups/reports/transactions?startDate=&endDate=&page=&size=`
 * answers the top-ups whose transactionDate is in [startDate, endDate] (both "yyyy-MM-dd HH:mm:ss",
 * UTC, inclusive), newest first, a page at a time (`content`, `totalElements`, `totalPages`,
 * `last`, `number`; `page` from 1, `size` up to 200); with `customIdentifier` only that one.
 * Test controls for the vendor's books the product does not know about (in-thread stand-ins only,
 * like injectFault): plantTopUp() records a top-up the product never sent (its own or a foreign
 * customIdentifier, or none; any amount, delivered amount, status and date), and amendTopUp()
 * changes a recorded one afterwards (its status, e.g. SUCCESSFUL -> REFUNDED, its delivered amount
 * or its date).
 */

export const RELOADLY_STAND_IN_CREDENTIALS = { clientId: 'standin-client', clientSecret: 'standin-secret' } as const;

/** `errorCode` values of the error body {timeStamp, message, path, errorCode}, with their HTTP status. */
export const RELOADLY_ERRORS = {
  INVALID_REQUEST: 400, // token request with missing fields
  UNSUPPORTED_GRANT_TYPE: 400,
  INVALID_CREDENTIALS: 401, // wrong client_id / client_secret
  INVALID_TOKEN: 401, // no bearer token, or one this stand-in never issued: get a token
  TOKEN_EXPIRED: 401, // get a new token and retry
  COULD_NOT_AUTO_DETECT_OPERATOR: 404,
  OPERATOR_NOT_FOUND: 404,
  INVALID_AMOUNT: 400,
  INVALID_AMOUNT_FOR_OPERATOR: 400, // not one of a FIXED operator's fixedAmounts (only when strict about amounts, see above)
  COUNTRY_NOT_SUPPORTED: 404, // the catalogue of a country other than SO
  INVALID_PHONE_NUMBER: 400,
  INVALID_CUSTOM_IDENTIFIER: 400,
  DUPLICATE_CUSTOM_IDENTIFIER: 400, // never delivered twice: look the first one up instead
  TRANSACTION_NOT_FOUND: 404,
  NOT_FOUND: 404, // no such endpoint
  SERVICE_UNAVAILABLE: 503, // outcome unknown for a send: look it up by customIdentifier
} as const;
export type ReloadlyErrorCode = keyof typeof RELOADLY_ERRORS;

/** Last 4 digits of the recipient's number that trigger each behaviour (see the comment above). */
export const RELOADLY_TEST_NUMBER_SUFFIXES = {
  operatorRejects: '9999',
  answerLost: '8888',
  unavailableOnce: '7777',
  processingThenSuccessful: '6666',
  processingThenRefunded: '5555',
  neverArrives: '4444',
  processingForever: '3333',
} as const;

/** The stand-in account's float before any top-up (GET /accounts/balance), in cents. */
export const RELOADLY_STAND_IN_FLOAT_CENTS = 1_000_000;

/** Somali operators with stable ids; prefixes are the first two digits of the 9-digit national number. */
export const RELOADLY_STAND_IN_OPERATORS = [
  { id: 1650, name: 'Hormuud', prefixes: ['61', '77'] },
  { id: 1651, name: 'Somtel', prefixes: ['62', '65', '66'] },
  { id: 1652, name: 'Telesom', prefixes: ['63'] },
  { id: 1653, name: 'Golis', prefixes: ['90'] },
  { id: 1654, name: 'Amtel', prefixes: ['71'] },
] as const;
type Operator = (typeof RELOADLY_STAND_IN_OPERATORS)[number];

/**
 * Each operator's data bundles (amount in USD, its description) and Reloadly's discount to us, in
 * percent. The four demo operators sell every amount of the demo catalogue (0.20 ... 25.00).
 */
const DEMO_BUNDLES: readonly (readonly [number, string])[] = [
  [0.2, '500 MB 1 day'],
  [0.4, '1 GB 1 day'],
  [0.5, '1.5 GB 1 day'],
  [0.7, '2 GB 1 day'],
  [1, '3 GB 3 days'],
  [1.5, '3 GB 7 days'],
  [2, '5 GB 7 days'],
  [3, '7 GB 7 days'],
  [5, '10 GB 30 days'],
  [10, '25 GB 30 days'],
  [25, 'Unlimited 30 days'],
];
export const RELOADLY_STAND_IN_CATALOGUE: Readonly<
  Record<number, { bundles: readonly (readonly [number, string])[]; commission: number; internationalDiscount: number }>
> = {
  1650: { bundles: DEMO_BUNDLES, commission: 4, internationalDiscount: 4 },
  1651: { bundles: DEMO_BUNDLES, commission: 3.5, internationalDiscount: 3.5 },
  1652: { bundles: DEMO_BUNDLES, commission: 3, internationalDiscount: 3 },
  1653: { bundles: DEMO_BUNDLES, commission: 3, internationalDiscount: 3 },
  1654: {
    bundles: [
      [0.5, '1 GB 1 day'],
      [1, '2 GB 3 days'],
      [2, '5 GB 7 days'],
      [5, '12 GB 30 days'],
    ],
    commission: 2.5,
    internationalDiscount: 2.5,
  },
};

/** "5.00": Reloadly's key of fixedAmountsDescriptions. */
const amountKey = (amount: number) => amount.toFixed(2);

export type ReloadlyFault = 'reset-before' | 'reset-after' | 'hang-before' | 'hang-after' | '503';
const STAND_IN_STATUSES = ['SUCCESSFUL', 'PROCESSING', 'FAILED', 'REFUNDED'] as const;
export type ReloadlyStatus = (typeof STAND_IN_STATUSES)[number];

/** A top-up exactly as the API shows it. */
export interface ReloadlyTopup {
  transactionId: number;
  status: ReloadlyStatus;
  operatorTransactionId: string | null;
  /** Null for a top-up sent without one (never by the product: plantTopUp()). */
  customIdentifier: string | null;
  /** International digits, e.g. '252615551234'. */
  recipientPhone: string;
  requestedAmount: number;
  requestedAmountCurrencyCode: 'USD';
  /** 0 until SUCCESSFUL. */
  deliveredAmount: number;
  deliveredAmountCurrencyCode: 'USD';
  operatorId: number;
  operatorName: string;
  /** Dollars Reloadly gave back off the requested amount (the operator's internationalDiscount). */
  discount: number;
  discountCurrencyCode: 'USD';
  /** "yyyy-MM-dd HH:mm:ss", UTC. */
  transactionDate: string;
  /** The float before and after this top-up took its cost; null until SUCCESSFUL. */
  balanceInfo: { oldBalance: number; newBalance: number; currencyCode: 'USD'; currencyName: 'US Dollar'; updatedAt: string } | null;
}

/** A top-up the product never sent, for a daily-close test (plantTopUp()). */
export interface PlantedTopUp {
  /** Our reference it carries (a sale's, or one we never made), or null/absent for none. */
  customIdentifier?: string | null;
  /** National 9 digits (default 615550000); its prefix picks the operator unless operatorId says. */
  phone?: string;
  operatorId?: number;
  /** USD. */
  requestedAmount: number;
  /** Default: the requested amount when SUCCESSFUL, else 0. */
  deliveredAmount?: number;
  /** Default SUCCESSFUL. */
  status?: ReloadlyStatus;
  /** Default now. */
  transactionDate?: Date;
}

/** A change to a recorded top-up (amendTopUp()). */
export interface TopUpAmendment {
  status?: ReloadlyStatus;
  deliveredAmount?: number;
  transactionDate?: Date;
}

/** What became of one customIdentifier, for a benchmark's books (GET /_standin/books). */
export interface ReloadlyBookEntry {
  customIdentifier: string;
  transactionId: number | null;
  /** 'NOT_PROCESSED': sends came, none was processed (a 503, a reset before processing). */
  status: ReloadlyStatus | 'NOT_PROCESSED';
  recipientPhone: string | null;
  requestedAmount: number | null;
  deliveredAmount: number | null;
  sends: number;
  /** ms epoch: the top-up was taken in (NOT_PROCESSED: the first send arrived). */
  requestedAt: number;
  /** ms epoch: the top-up reached its final status (delivered, failed, refunded); null while PROCESSING. */
  endedAt: number | null;
  /** ms epoch: delivered (SUCCESSFUL); else null. */
  deliveredAt: number | null;
  /** The field-condition fault the first send got: 503 unprocessed, or processed with its answer lost. */
  fault: 'unavailable' | 'lost' | null;
}

export interface ReloadlyBooks {
  system: 'reloadly';
  at: number;
  entries: ReloadlyBookEntry[];
}

export interface ReloadlyStandIn {
  authHandle: StandInHandler;
  apiHandle: StandInHandler;
  /** `/oauth/token` to authHandle, everything else to apiHandle: one port serving both hosts. */
  combinedHandle: StandInHandler;
  /** Snapshots, oldest first (inspecting does not count as a status poll). */
  transactions(): ReloadlyTopup[];
  byCustomIdentifier(id: string): ReloadlyTopup | undefined;
  /** How many sends carried this customIdentifier (faulted and duplicate ones included). */
  sends(customIdentifier: string): number;
  /** Every customIdentifier sends came for, oldest first; `since` (ms epoch) keeps those requested from then on. */
  books(since?: number): ReloadlyBooks;
  /** Every token issued so far answers TOKEN_EXPIRED from now on. */
  expireTokens(): void;
  /** The next request whose path (exact, e.g. '/topups') and/or customIdentifier matches gets this fault; `times` defaults to 1. */
  injectFault(match: { path?: string; customIdentifier?: string }, fault: ReloadlyFault, times?: number): void;
  /** Drops the injected faults that are still waiting (the network heals); transactions stay. */
  clearFaults(): void;
  /** The catalogue as GET /operators/countries/SO answers it now. */
  catalogue(): ReloadlyCatalogueOperator[];
  /** Takes `amount` (USD, e.g. 5 or 0.5) out of the operator's fixedAmounts; false when it was not there. The operator becomes strict about amounts. */
  withdrawAmount(operatorId: number, amount: number): boolean;
  /** Adds (or re-describes) a fixed amount of the operator; throws for an operator the stand-in does not have. The operator becomes strict about amounts. */
  addAmount(operatorId: number, amount: number, description: string): void;
  /** Every operator's amounts as they were at the start; only `strictAmounts` stays strict. */
  resetCatalogue(): void;
  /** Test control: records a top-up the product never sent (see REPORT above); returns it as the API shows it. */
  plantTopUp(topup: PlantedTopUp): ReloadlyTopup;
  /** Test control: changes a recorded top-up, by its transactionId or customIdentifier (see REPORT above); throws for one it does not have. */
  amendTopUp(which: number | string, change: TopUpAmendment): ReloadlyTopup;
  /** Forgets transactions, tokens, faults and per-identifier test-number history; resets the catalogue. */
  reset(): void;
}

/** Reloadly's date format, "yyyy-MM-dd HH:mm:ss", in UTC. */
export const reloadlyDate = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');
/** A "yyyy-MM-dd HH:mm:ss" (UTC) parameter as ms epoch; NaN when it is not one. */
const parseReloadlyDate = (text: string) => (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text) ? Date.parse(`${text.replace(' ', 'T')}Z`) : NaN);
/** Whole cents of a dollar amount. */
const centsOf = (dollars: number) => Math.round(dollars * 100);

/** One operator of the catalogue, in Reloadly's shape (the fields the stand-in fills). */
export interface ReloadlyCatalogueOperator {
  id: number;
  operatorId: number;
  name: string;
  bundle: boolean;
  data: boolean;
  pin: boolean;
  supportsLocalAmounts: boolean;
  denominationType: 'FIXED';
  senderCurrencyCode: 'USD';
  destinationCurrencyCode: 'USD';
  commission: number;
  internationalDiscount: number;
  localDiscount: number;
  mostPopularAmount: number | null;
  minAmount: null;
  maxAmount: null;
  fx: { rate: number; currencyCode: 'USD' };
  fixedAmounts: number[];
  fixedAmountsDescriptions: Record<string, string>;
  localFixedAmounts: number[];
  localFixedAmountsDescriptions: Record<string, string>;
  promotions: unknown[];
  country: { isoName: 'SO'; name: 'Somalia' };
}

/** How a top-up ends once its latency has passed. */
interface Plan {
  outcome: 'SUCCESSFUL' | 'FAILED' | 'REFUNDED' | 'never';
  /** The outcome shows only after `processingPolls` reads that said PROCESSING. */
  afterPolls: boolean;
}

interface TopupRecord {
  topup: ReloadlyTopup;
  plan: Plan;
  readyAt: number;
  pollsSeen: number;
  /** ms epoch: taken in; and when it reached its final status. */
  requestedAt: number;
  endedAt: number | null;
}

/** Transactions, tokens and per-identifier bookkeeping kept before the oldest are forgotten. */
const MAX_KEPT = 100_000;

type Body = Record<string, unknown>;
function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** National 9-digit number from national or international forms (+252, 00252, 252, leading 0). */
export function somaliNationalNumber(raw: string): string | undefined {
  let digits = raw.trim().replace(/[\s-]/g, '').replace(/^\+/, '');
  if (/^00252\d{9}$/.test(digits)) digits = digits.slice(5);
  else if (/^252\d{9}$/.test(digits)) digits = digits.slice(3);
  else if (/^0\d{9}$/.test(digits)) digits = digits.slice(1);
  return /^\d{9}$/.test(digits) ? digits : undefined;
}

function operatorOf(national: string): Operator | undefined {
  return RELOADLY_STAND_IN_OPERATORS.find((op) => (op.prefixes as readonly string[]).includes(national.slice(0, 2)));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export interface ReloadlyStandInOptions {
  clientId?: string;
  clientSecret?: string;
  tokenTtlSeconds?: number;
  /** The operator's delivery: n -> n * (0.5..1.5), or {min, max} drawn uniformly. Default 800. */
  latencyMs?: Millis;
  processingPolls?: number;
  /** Share (0..1) of first sends per customIdentifier processed with the answer lost. */
  lostAnswerRate?: number;
  /** Share (0..1) of first sends per customIdentifier answered 503, not processed. */
  unavailableRate?: number;
  /** Math.random unless a test fixes it. */
  random?: () => number;
  /** Refuse every amount that is not one of the operator's fixedAmounts (INVALID_AMOUNT_FOR_OPERATOR). Default false: see above. */
  strictAmounts?: boolean;
}

export function createReloadlyStandIn(opts: ReloadlyStandInOptions = {}): ReloadlyStandIn {
  const clientId = opts.clientId ?? RELOADLY_STAND_IN_CREDENTIALS.clientId;
  const clientSecret = opts.clientSecret ?? RELOADLY_STAND_IN_CREDENTIALS.clientSecret;
  const tokenTtlSeconds = opts.tokenTtlSeconds ?? 3600;
  const latencyMs: Millis = opts.latencyMs ?? 800;
  const processingPolls = Math.max(0, opts.processingPolls ?? 2);
  const { lostAnswerRate = 0, unavailableRate = 0, random = Math.random } = opts;

  /** token -> expiry (epoch ms). Kept after expiry so a stale token says TOKEN_EXPIRED, not INVALID_TOKEN. */
  const tokens = new Map<string, number>();
  const records = new Map<number, TopupRecord>();
  const byIdentifier = new Map<string, TopupRecord>();
  const sendCounts = new Map<string, { count: number; firstAt: number; fault: ReloadlyBookEntry['fault'] }>();
  const spent = new Set<string>();
  /** Cents the float gave for delivered top-ups (refunded ones given back): GET /accounts/balance and balanceInfo. */
  let floatSpentCents = 0;
  const faults = faultQueue<{ path: string; customIdentifier: string | undefined }, ReloadlyFault>();
  // Ids start from the clock, so a restarted stand-in (the embedded default) never reuses one.
  let nextId = Date.now();

  /** operatorId -> amount key ("5.00") -> description; operators a control changed are strict about amounts. */
  const amounts = new Map<number, Map<string, string>>();
  const changed = new Set<number>();
  function resetCatalogue(): void {
    amounts.clear();
    changed.clear();
    for (const op of RELOADLY_STAND_IN_OPERATORS) {
      amounts.set(op.id, new Map(RELOADLY_STAND_IN_CATALOGUE[op.id].bundles.map(([amount, text]) => [amountKey(amount), text])));
    }
  }
  resetCatalogue();

  function catalogueOperator(op: Operator): ReloadlyCatalogueOperator {
    const listed = [...(amounts.get(op.id) ?? new Map<string, string>())].sort(([a], [b]) => Number(a) - Number(b));
    const fixedAmounts = listed.map(([key]) => Number(key));
    const descriptions = Object.fromEntries(listed);
    const { commission, internationalDiscount } = RELOADLY_STAND_IN_CATALOGUE[op.id];
    return {
      id: op.id,
      operatorId: op.id,
      name: op.name,
      bundle: false,
      data: true,
      pin: false,
      supportsLocalAmounts: false,
      denominationType: 'FIXED',
      senderCurrencyCode: 'USD',
      destinationCurrencyCode: 'USD',
      commission,
      internationalDiscount,
      localDiscount: 0,
      mostPopularAmount: fixedAmounts.includes(1) ? 1 : (fixedAmounts[0] ?? null),
      minAmount: null,
      maxAmount: null,
      fx: { rate: 1, currencyCode: 'USD' },
      fixedAmounts,
      fixedAmountsDescriptions: descriptions,
      localFixedAmounts: [...fixedAmounts],
      localFixedAmountsDescriptions: { ...descriptions },
      promotions: [],
      country: { isoName: 'SO', name: 'Somalia' },
    };
  }

  /** Null: the amount is fine; else why it is refused (INVALID_AMOUNT_FOR_OPERATOR). */
  function amountRefusal(operator: Operator, amount: number): string | null {
    if (!opts.strictAmounts && !changed.has(operator.id)) return null;
    const listed = amounts.get(operator.id);
    const key = amountKey(amount);
    if (listed?.has(key) && Math.abs(Number(key) - amount) < 1e-9) return null;
    return `${amount} is not a fixed amount of ${operator.name} (${[...(listed?.keys() ?? [])].join(', ') || 'none'})`;
  }

  const ok = (body: unknown): StandInAnswer => ({ kind: 'answer', status: 200, body });
  const fail = (req: StandInRequest, errorCode: ReloadlyErrorCode, message: string): StandInAnswer => ({
    kind: 'answer',
    status: RELOADLY_ERRORS[errorCode],
    body: { timeStamp: new Date().toISOString(), message, path: req.path, errorCode },
  });
  const unavailable = (req: StandInRequest) => fail(req, 'SERVICE_UNAVAILABLE', 'Service Unavailable');

  function identifierOf(req: StandInRequest): string | undefined {
    const id = isObject(req.body) ? req.body.customIdentifier : req.query.get('customIdentifier');
    return typeof id === 'string' ? id : undefined;
  }

  const takeFault = (req: StandInRequest) => faults.take({ path: req.path, customIdentifier: identifierOf(req) });

  /** Applies a fault (injected, or a field condition) around the processing step: before it, instead of it, or to its answer. */
  async function withFault(fault: ReloadlyFault | undefined, req: StandInRequest, process: () => Promise<StandInAnswer>): Promise<StandInAnswer> {
    if (fault === '503') return unavailable(req);
    if (fault === 'reset-before') return { kind: 'reset' };
    if (fault === 'hang-before') return { kind: 'hang' };
    const answer = await process();
    if (fault === 'reset-after') return { kind: 'reset' };
    if (fault === 'hang-after') return { kind: 'hang' };
    return answer;
  }

  /** True the first time a key is seen: the "once per customIdentifier" test numbers. */
  function once(key: string): boolean {
    if (spent.has(key)) return false;
    spent.add(key);
    forgetOldest();
    return true;
  }

  /**
   * The embedded default runs for months: memory stays bounded by forgetting the oldest entries
   * (an identifier that old is never retried or looked up again).
   */
  function forgetOldest(): void {
    for (const [id, record] of records) {
      if (records.size <= MAX_KEPT) break;
      records.delete(id);
      if (record.topup.customIdentifier !== null) byIdentifier.delete(record.topup.customIdentifier);
    }
    for (const collection of [tokens, sendCounts, spent]) {
      for (const key of collection.keys()) {
        if (collection.size <= MAX_KEPT) break;
        collection.delete(key);
      }
    }
  }

  // ---- auth host ------------------------------------------------------------------------------

  async function authHandle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method !== 'POST' || req.path !== '/oauth/token') return fail(req, 'NOT_FOUND', 'Not Found');
    return withFault(takeFault(req), req, async () => {
      const body = isObject(req.body) ? req.body : {};
      for (const field of ['client_id', 'client_secret', 'grant_type', 'audience']) {
        if (typeof body[field] !== 'string' || body[field] === '') return fail(req, 'INVALID_REQUEST', `${field} is required`);
      }
      if (body.grant_type !== 'client_credentials') return fail(req, 'UNSUPPORTED_GRANT_TYPE', "grant_type must be 'client_credentials'");
      if (body.client_id !== clientId || body.client_secret !== clientSecret) return fail(req, 'INVALID_CREDENTIALS', 'Access Denied');
      const token = crypto.randomBytes(32).toString('base64url');
      tokens.set(token, Date.now() + tokenTtlSeconds * 1000);
      forgetOldest();
      return ok({ access_token: token, token_type: 'Bearer', expires_in: tokenTtlSeconds, scope: 'developer' });
    });
  }

  // ---- API host -------------------------------------------------------------------------------

  function checkToken(req: StandInRequest): StandInAnswer | undefined {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = token === undefined ? undefined : tokens.get(token);
    if (expiresAt === undefined) return fail(req, 'INVALID_TOKEN', 'Full authentication is required: a valid Bearer token');
    if (Date.now() >= expiresAt) return fail(req, 'TOKEN_EXPIRED', 'The access token has expired');
    return undefined;
  }

  /**
   * Settles a top-up whose time has come. `isPoll` is true for status and report reads, the only
   * reads that move a "PROCESSING, then ..." number along.
   */
  function observe(record: TopupRecord, isPoll: boolean): ReloadlyTopup {
    const { topup, plan } = record;
    if (topup.status === 'PROCESSING' && Date.now() >= record.readyAt && plan.outcome !== 'never') {
      const due = !plan.afterPolls || (isPoll && record.pollsSeen++ >= processingPolls);
      if (due) {
        topup.status = plan.outcome;
        // Ended when its time came, or (after polls) when a poll found it ended.
        record.endedAt = plan.afterPolls ? Date.now() : Math.min(record.readyAt, Date.now());
        if (plan.outcome === 'SUCCESSFUL') {
          topup.operatorTransactionId = `OP${topup.transactionId}`;
          topup.deliveredAmount = topup.requestedAmount;
          takeFromFloat(topup);
        }
      }
    }
    return { ...topup };
  }

  /** What a top-up costs the float: the requested amount less the discount, in cents. */
  const costCents = (topup: ReloadlyTopup) => centsOf(topup.requestedAmount) - centsOf(topup.discount);
  const floatDollars = () => (RELOADLY_STAND_IN_FLOAT_CENTS - floatSpentCents) / 100;

  /** A delivered top-up takes its cost from the float, written on it as Reloadly's balanceInfo. */
  function takeFromFloat(topup: ReloadlyTopup): void {
    const oldBalance = floatDollars();
    floatSpentCents += costCents(topup);
    topup.balanceInfo = { oldBalance, newBalance: floatDollars(), currencyCode: 'USD', currencyName: 'US Dollar', updatedAt: new Date().toISOString() };
  }

  /** The operator's discount on an amount, in dollars: whole cents rounded down (as the adapter's catalogue counts it). */
  function discountOn(operatorId: number, amount: number): number {
    const pct = RELOADLY_STAND_IN_CATALOGUE[operatorId]?.internationalDiscount ?? 0;
    return Math.floor((centsOf(amount) * pct) / 100 + 1e-9) / 100;
  }

  function planFor(suffix: string): Plan {
    const S = RELOADLY_TEST_NUMBER_SUFFIXES;
    if (suffix === S.operatorRejects) return { outcome: 'FAILED', afterPolls: false };
    if (suffix === S.processingThenSuccessful) return { outcome: 'SUCCESSFUL', afterPolls: true };
    if (suffix === S.processingThenRefunded) return { outcome: 'REFUNDED', afterPolls: true };
    if (suffix === S.processingForever) return { outcome: 'never', afterPolls: false };
    return { outcome: 'SUCCESSFUL', afterPolls: false };
  }

  function autoDetect(req: StandInRequest, phone: string, country: string): StandInAnswer {
    if (country.toUpperCase() !== 'SO') return fail(req, 'COULD_NOT_AUTO_DETECT_OPERATOR', `No operator found for ${phone} in ${country}`);
    const national = somaliNationalNumber(phone);
    if (national === undefined) return fail(req, 'INVALID_PHONE_NUMBER', `${phone} is not a valid Somali number`);
    const operator = operatorOf(national);
    if (!operator) return fail(req, 'COULD_NOT_AUTO_DETECT_OPERATOR', `No operator found for ${phone} in SO`);
    return ok({
      operatorId: operator.id,
      id: operator.id,
      name: operator.name,
      bundle: false,
      data: true,
      denominationType: 'RANGE',
      senderCurrencyCode: 'USD',
      destinationCurrencyCode: 'USD',
      minAmount: 0.2,
      maxAmount: 500,
      fixedAmounts: [],
      country: { isoName: 'SO', name: 'Somalia' },
    });
  }

  function countryCatalogue(req: StandInRequest, iso: string): StandInAnswer {
    // includeData / includeBundles are accepted: every stand-in operator is a data operator, listed either way.
    if (iso.toUpperCase() !== 'SO') return fail(req, 'COUNTRY_NOT_SUPPORTED', `Country ${iso} is not supported`);
    return ok(RELOADLY_STAND_IN_OPERATORS.map(catalogueOperator));
  }

  async function send(req: StandInRequest, async: boolean): Promise<StandInAnswer> {
    const body = isObject(req.body) ? req.body : {};
    const operatorId = typeof body.operatorId === 'string' && /^\d+$/.test(body.operatorId) ? Number(body.operatorId) : body.operatorId;
    const operator = RELOADLY_STAND_IN_OPERATORS.find((op) => op.id === operatorId);
    if (!operator) return fail(req, 'OPERATOR_NOT_FOUND', `Operator ${String(body.operatorId)} not found`);
    const amount = typeof body.amount === 'string' && /^\d+(\.\d+)?$/.test(body.amount.trim()) ? Number(body.amount) : body.amount;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) return fail(req, 'INVALID_AMOUNT', 'amount must be a positive number');
    if (body.useLocalAmount !== undefined && typeof body.useLocalAmount !== 'boolean')
      return fail(req, 'INVALID_AMOUNT', 'useLocalAmount must be true or false');
    const notListed = amountRefusal(operator, amount);
    if (notListed) return fail(req, 'INVALID_AMOUNT_FOR_OPERATOR', notListed);
    const recipient = isObject(body.recipientPhone) ? body.recipientPhone : {};
    const national =
      recipient.countryCode === 'SO' && (typeof recipient.number === 'string' || typeof recipient.number === 'number')
        ? somaliNationalNumber(String(recipient.number))
        : undefined;
    if (national === undefined) return fail(req, 'INVALID_PHONE_NUMBER', "recipientPhone must be {countryCode:'SO', number} with a Somali number");
    if (!(operator.prefixes as readonly string[]).includes(national.slice(0, 2))) {
      return fail(req, 'INVALID_PHONE_NUMBER', `${national} is not a ${operator.name} number`);
    }
    const { customIdentifier } = body;
    if (typeof customIdentifier !== 'string' || customIdentifier.trim() === '' || customIdentifier.length > 150) {
      return fail(req, 'INVALID_CUSTOM_IDENTIFIER', 'customIdentifier is required (1-150 characters)');
    }

    const suffix = national.slice(-4);
    if (suffix === RELOADLY_TEST_NUMBER_SUFFIXES.neverArrives) return { kind: 'reset' };
    if (suffix === RELOADLY_TEST_NUMBER_SUFFIXES.unavailableOnce && once(`503:${customIdentifier}`)) return unavailable(req);
    // The identifier is the merchant's guarantee against delivering twice: the first top-up stands.
    if (byIdentifier.has(customIdentifier)) return fail(req, 'DUPLICATE_CUSTOM_IDENTIFIER', `customIdentifier ${customIdentifier} was already used`);

    const delay = drawMillis(latencyMs, random);
    const record: TopupRecord = {
      topup: {
        transactionId: nextId++,
        status: 'PROCESSING',
        operatorTransactionId: null,
        customIdentifier,
        recipientPhone: `252${national}`,
        requestedAmount: amount,
        requestedAmountCurrencyCode: 'USD',
        deliveredAmount: 0,
        deliveredAmountCurrencyCode: 'USD',
        operatorId: operator.id,
        operatorName: operator.name,
        discount: discountOn(operator.id, amount),
        discountCurrencyCode: 'USD',
        transactionDate: reloadlyDate(new Date()),
        balanceInfo: null,
      },
      plan: planFor(suffix),
      readyAt: Date.now() + delay,
      pollsSeen: 0,
      requestedAt: Date.now(),
      endedAt: null,
    };
    // Recorded at once: a lookup while the operator works sees PROCESSING, a resend is a duplicate.
    records.set(record.topup.transactionId, record);
    byIdentifier.set(customIdentifier, record);
    forgetOldest();

    let answer: StandInAnswer;
    if (async) {
      answer = ok({ transactionId: record.topup.transactionId });
    } else {
      if (delay > 0) await sleep(delay);
      // Timers and Date.now() use different clocks; the wait is over whatever the clock says.
      record.readyAt = Math.min(record.readyAt, Date.now());
      answer = ok(observe(record, false));
    }
    if (suffix === RELOADLY_TEST_NUMBER_SUFFIXES.answerLost && once(`lost:${customIdentifier}`)) return { kind: 'reset' };
    return answer;
  }

  function status(req: StandInRequest, id: string): StandInAnswer {
    const record = /^\d+$/.test(id) ? records.get(Number(id)) : undefined;
    if (!record) return fail(req, 'TRANSACTION_NOT_FOUND', `Transaction ${id} not found`);
    const transaction = observe(record, true);
    return ok({ code: null, message: null, status: transaction.status, transaction });
  }

  function report(req: StandInRequest): StandInAnswer {
    const wanted = req.query.get('customIdentifier');
    const start = req.query.get('startDate');
    const end = req.query.get('endDate');
    const from = start === null ? -Infinity : parseReloadlyDate(start);
    const to = end === null ? Infinity : parseReloadlyDate(end);
    if (Number.isNaN(from) || Number.isNaN(to)) return fail(req, 'INVALID_REQUEST', 'startDate and endDate must be yyyy-MM-dd HH:mm:ss');
    let matching = wanted !== null ? [byIdentifier.get(wanted)].filter((r) => r !== undefined) : [...records.values()].reverse();
    if (start !== null || end !== null) {
      // The period's top-ups by their own date (planted ones may be dated before later sends), newest first.
      const dated = (r: TopupRecord) => parseReloadlyDate(r.topup.transactionDate);
      matching = matching
        .filter((r) => dated(r) >= from && dated(r) <= to)
        .sort((a, b) => dated(b) - dated(a) || b.topup.transactionId - a.topup.transactionId);
    }
    const page = clampInt(req.query.get('page'), 1, 1, 1_000_000);
    const size = clampInt(req.query.get('size'), 20, 1, 200);
    const content = matching.slice((page - 1) * size, page * size).map((record) => observe(record, true));
    const totalPages = Math.ceil(matching.length / size);
    return ok({ content, totalElements: matching.length, totalPages, size, number: page, last: page >= totalPages });
  }

  function plantTopUp(planted: PlantedTopUp): ReloadlyTopup {
    const national = planted.phone ?? '615550000';
    const operator = RELOADLY_STAND_IN_OPERATORS.find((op) => op.id === planted.operatorId) ?? operatorOf(national);
    if (!operator) throw new Error(`The Reloadly stand-in has no operator for ${national}`);
    const status = planted.status ?? 'SUCCESSFUL';
    const ours = planted.customIdentifier ?? null;
    if (ours !== null && byIdentifier.has(ours)) throw new Error(`customIdentifier ${ours} is already in the books`);
    const topup: ReloadlyTopup = {
      transactionId: nextId++,
      status,
      operatorTransactionId: status === 'SUCCESSFUL' || status === 'REFUNDED' ? `OP${nextId - 1}` : null,
      customIdentifier: ours,
      recipientPhone: `252${national}`,
      requestedAmount: planted.requestedAmount,
      requestedAmountCurrencyCode: 'USD',
      deliveredAmount: planted.deliveredAmount ?? (status === 'SUCCESSFUL' ? planted.requestedAmount : 0),
      deliveredAmountCurrencyCode: 'USD',
      operatorId: operator.id,
      operatorName: operator.name,
      discount: discountOn(operator.id, planted.requestedAmount),
      discountCurrencyCode: 'USD',
      transactionDate: reloadlyDate(planted.transactionDate ?? new Date()),
      balanceInfo: null,
    };
    if (status === 'SUCCESSFUL') takeFromFloat(topup);
    const at = planted.transactionDate?.getTime() ?? Date.now();
    const record: TopupRecord = {
      topup,
      plan: { outcome: status === 'PROCESSING' ? 'never' : status, afterPolls: false },
      readyAt: at,
      pollsSeen: 0,
      requestedAt: at,
      endedAt: status === 'PROCESSING' ? null : at,
    };
    records.set(topup.transactionId, record);
    if (ours !== null) byIdentifier.set(ours, record);
    forgetOldest();
    return { ...topup };
  }

  function controlTopUps(req: StandInRequest): StandInAnswer {
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const date = typeof body.transactionDate === 'string' ? new Date(body.transactionDate) : undefined;
    const status = STAND_IN_STATUSES.find((st) => st === body.status);
    const amount = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
    if (date && Number.isNaN(date.getTime())) return { kind: 'answer', status: 400, body: { message: 'transactionDate is not a date' } };
    try {
      const which = decodeSegment(req.path.slice('/_standin/topups'.length + 1));
      if (!which) {
        const requestedAmount = amount(body.requestedAmount);
        if (requestedAmount === undefined) return { kind: 'answer', status: 400, body: { message: 'requestedAmount (USD) is required' } };
        return ok(
          plantTopUp({
            customIdentifier: typeof body.customIdentifier === 'string' ? body.customIdentifier : null,
            phone: typeof body.phone === 'string' ? body.phone : undefined,
            requestedAmount,
            deliveredAmount: amount(body.deliveredAmount),
            status,
            transactionDate: date,
          }),
        );
      }
      return ok(amendTopUp(/^\d+$/.test(which) ? Number(which) : which, { status, deliveredAmount: amount(body.deliveredAmount), transactionDate: date }));
    } catch (err) {
      return { kind: 'answer', status: 400, body: { message: err instanceof Error ? err.message : String(err) } };
    }
  }

  function amendTopUp(which: number | string, change: TopUpAmendment): ReloadlyTopup {
    const record = typeof which === 'number' ? records.get(which) : byIdentifier.get(which);
    if (!record) throw new Error(`The Reloadly stand-in has no top-up ${which}`);
    // Settled first as it would be now, so the change is made to the top-up a report shows.
    const before = observe(record, false).status;
    const { topup } = record;
    if (change.status && change.status !== before) {
      // A delivered top-up undone gives its cost back to the float; one delivered now takes it.
      if (before === 'SUCCESSFUL') floatSpentCents -= costCents(topup);
      if (change.status === 'SUCCESSFUL') {
        // Delivered now: as the operator would have, unless the change says what reached the number.
        topup.deliveredAmount = topup.deliveredAmount || topup.requestedAmount;
        topup.operatorTransactionId ??= `OP${topup.transactionId}`;
        takeFromFloat(topup);
      }
      topup.status = change.status;
      record.plan = { outcome: change.status === 'PROCESSING' ? 'never' : change.status, afterPolls: false };
      record.endedAt = change.status === 'PROCESSING' ? null : Date.now();
    }
    if (change.deliveredAmount !== undefined) topup.deliveredAmount = change.deliveredAmount;
    if (change.transactionDate) topup.transactionDate = reloadlyDate(change.transactionDate);
    return { ...topup };
  }

  function books(since = 0): ReloadlyBooks {
    const entries: ReloadlyBookEntry[] = [];
    for (const [customIdentifier, sent] of sendCounts) {
      const record = byIdentifier.get(customIdentifier);
      const requestedAt = record?.requestedAt ?? sent.firstAt;
      if (requestedAt < since) continue;
      const topup = record && observe(record, false);
      entries.push({
        customIdentifier,
        transactionId: topup?.transactionId ?? null,
        status: topup?.status ?? 'NOT_PROCESSED',
        recipientPhone: topup?.recipientPhone ?? null,
        requestedAmount: topup?.requestedAmount ?? null,
        deliveredAmount: topup?.deliveredAmount ?? null,
        sends: sent.count,
        requestedAt,
        endedAt: record?.endedAt ?? null,
        deliveredAt: topup?.status === 'SUCCESSFUL' ? (record?.endedAt ?? null) : null,
        fault: sent.fault,
      });
    }
    return { system: 'reloadly', at: Date.now(), entries: entries.sort((a, b) => a.requestedAt - b.requestedAt) };
  }

  /** The field conditions (unavailableRate, lostAnswerRate), drawn once for a customIdentifier's first send. */
  function fieldFault(): { fault: ReloadlyFault; book: ReloadlyBookEntry['fault'] } | undefined {
    if (unavailableRate <= 0 && lostAnswerRate <= 0) return undefined;
    const r = random();
    if (r < unavailableRate) return { fault: '503', book: 'unavailable' };
    if (r < unavailableRate + lostAnswerRate) return { fault: 'reset-after', book: 'lost' };
    return undefined;
  }

  async function apiHandle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method === 'GET' && req.path === '/_standin/books') {
      const since = Number(req.query.get('since') ?? 0);
      return ok(books(Number.isFinite(since) ? since : 0));
    }
    // The same controls over HTTP, so a person trying the daily close against a running stand-in
    // (npm run stand-ins, or the server's embedded one on STAND_IN_RELOADLY_PORT) can plant and
    // amend records: POST /_standin/topups {customIdentifier?, phone?, requestedAmount, status?,
    // transactionDate?}, POST /_standin/topups/{transactionId or customIdentifier} {status?, ...}.
    if (req.method === 'POST' && req.path.startsWith('/_standin/topups')) return controlTopUps(req);
    const injected = takeFault(req);
    let field: ReturnType<typeof fieldFault>;
    if (req.method === 'POST' && (req.path === '/topups' || req.path === '/topups-async')) {
      const id = identifierOf(req);
      if (id !== undefined) {
        // Deleted first so a busy identifier moves to the young end and is the last one forgotten.
        const seen = sendCounts.get(id);
        // Field conditions strike an identifier's first send only, so a sale can still end.
        if (!seen && !injected) field = fieldFault();
        sendCounts.delete(id);
        sendCounts.set(id, { count: (seen?.count ?? 0) + 1, firstAt: seen?.firstAt ?? Date.now(), fault: seen ? seen.fault : (field?.book ?? null) });
        forgetOldest();
      }
    }
    return withFault(injected ?? field?.fault, req, async () => {
      const refused = checkToken(req);
      if (refused) return refused;
      const parts = req.path.split('/').slice(1).map(decodeSegment);
      if (req.method === 'GET') {
        if (parts.length === 6 && parts[0] === 'operators' && parts[1] === 'auto-detect' && parts[2] === 'phone' && parts[4] === 'countries') {
          return autoDetect(req, parts[3], parts[5]);
        }
        if (parts.length === 3 && parts[0] === 'operators' && parts[1] === 'countries') return countryCatalogue(req, parts[2]);
        if (parts.length === 3 && parts[0] === 'topups' && parts[2] === 'status') return status(req, parts[1]);
        if (req.path === '/topups/reports/transactions') return report(req);
        // The float: what the stand-in started with less what its deliveries cost.
        if (req.path === '/accounts/balance') {
          return ok({
            balance: floatDollars(),
            currencyCode: 'USD',
            currencyName: 'US Dollar',
            updatedAt: new Date().toISOString(),
          });
        }
      }
      if (req.method === 'POST' && req.path === '/topups') return send(req, false);
      if (req.method === 'POST' && req.path === '/topups-async') return send(req, true);
      return fail(req, 'NOT_FOUND', 'Not Found');
    });
  }

  return {
    authHandle,
    apiHandle,
    combinedHandle: (req) => (req.path === '/oauth/token' ? authHandle(req) : apiHandle(req)),
    transactions: () => [...records.values()].map((record) => observe(record, false)),
    byCustomIdentifier: (id) => {
      const record = byIdentifier.get(id);
      return record && observe(record, false);
    },
    sends: (customIdentifier) => sendCounts.get(customIdentifier)?.count ?? 0,
    books,
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    injectFault: (match, fault, times = 1) => faults.add(match, fault, times),
    clearFaults: () => faults.clear(),
    catalogue: () => RELOADLY_STAND_IN_OPERATORS.map(catalogueOperator),
    withdrawAmount: (operatorId, amount) => {
      const listed = amounts.get(operatorId);
      if (!listed) return false;
      changed.add(operatorId);
      return listed.delete(amountKey(amount));
    },
    addAmount: (operatorId, amount, description) => {
      const listed = amounts.get(operatorId);
      if (!listed) throw new Error(`The Reloadly stand-in has no operator ${operatorId}`);
      if (!Number.isFinite(amount) || amount <= 0) throw new Error(`Not an amount: ${amount}`);
      changed.add(operatorId);
      listed.set(amountKey(amount), description);
    },
    resetCatalogue,
    plantTopUp,
    amendTopUp,
    reset: () => {
      resetCatalogue();
      floatSpentCents = 0;
      tokens.clear();
      records.clear();
      byIdentifier.clear();
      sendCounts.clear();
      spent.clear();
      faults.clear();
    },
  };
}

function clampInt(raw: string | null, fallback: number, min: number, max: number): number {
  const value = raw === null ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}
