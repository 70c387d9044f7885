import { callJson, type CallFor, type CallOutcome, type FetchLike, type JsonAnswer, type RemoteTrail } from '../../remote-call.ts';
import type { AggregatorProduct, DeliveryMoney, DeliveryRequest, DeliveryResult, OperatorAdapter, TopUpReport, VendorTopUp } from '../operator-adapter.ts';
import { currencyCode, known, rateText, vendorCents, vendorInstant } from '../../vendor-money.ts';
import { readReloadlyError, readReloadlyStatus, reloadlyUnknownText } from './reloadly-answers.ts';

export interface ReloadlyConfig {
  /** The full token URL (…/oauth/token). */
  authUrl: string;
  /** The top-ups API base, also the token's audience. */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

const ACCEPT = 'application/com.reloadly.topups-v1+json';

/** The amount to send, in dollars: the product code when it is the aggregator's fixed amount, else the cost. */
export function topUpAmount(productCode: string | null, cost: number): number {
  if (productCode && /^\d{1,6}(\.\d{1,2})?$/.test(productCode.trim())) return Number(productCode.trim());
  return cost / 100;
}

/**
 * What a Reloadly transaction says it cost and delivered: the cost is `requestedAmount` less its
 * `discount` (what Reloadly gave back) in the discount's currency (else the requested amount's);
 * without a discount, what left the float (`balanceInfo` old less new balance). Unreadable fields
 * are left out.
 */
export function reloadlyMoney(tx: any): DeliveryMoney {
  const requested = vendorCents(tx?.requestedAmount, 'nearest');
  const requestedCurrency = currencyCode(tx?.requestedAmountCurrencyCode);
  const discount = vendorCents(tx?.discount, 'down');
  const discountCurrency = currencyCode(tx?.discountCurrencyCode) ?? requestedCurrency;
  let cost: number | null = null;
  let costCurrency: string | null = null;
  if (requested !== null && discount !== null && discountCurrency === requestedCurrency && discount <= requested) {
    cost = requested - discount;
    costCurrency = requestedCurrency;
  } else {
    const before = vendorCents(tx?.balanceInfo?.oldBalance, 'nearest');
    const after = vendorCents(tx?.balanceInfo?.newBalance, 'nearest');
    if (before !== null && after !== null && before > after) {
      cost = before - after;
      costCurrency = currencyCode(tx?.balanceInfo?.currencyCode);
    }
  }
  const delivered = vendorCents(tx?.deliveredAmount, 'down');
  return known({
    cost: costCurrency ? cost : null,
    costCurrency: cost !== null ? costCurrency : null,
    discount: discount !== null && discountCurrency === costCurrency ? discount : null,
    fxRate: rateText(tx?.fx?.rate ?? tx?.fxRate),
    // Zero until delivered: only a positive amount says what reached the number.
    deliveredAmount: delivered ? delivered : null,
    deliveredCurrency: delivered ? currencyCode(tx?.deliveredAmountCurrencyCode) : null,
  });
}

/** A transaction by its status word (reloadly-answers.ts); another word, or no id where one is needed, is unknown. */
function fromTransaction(tx: any): DeliveryResult {
  const deliveryId = tx?.transactionId != null ? String(tx.transactionId) : null;
  const status = String(tx?.status ?? '').toUpperCase();
  const meaning = readReloadlyStatus(status);
  if (meaning === 'delivered' && deliveryId)
    return { status: 'delivered', deliveryId, operatorReference: String(tx.operatorTransactionId ?? deliveryId), ...reloadlyMoney(tx) };
  if (meaning === 'processing' && deliveryId) return { status: 'processing', deliveryId };
  if (meaning === 'failed')
    return {
      status: 'failed',
      deliveryId,
      reason: status === 'REFUNDED' ? 'The operator could not deliver; the aggregator refunded the top-up.' : 'The operator refused the top-up.',
    };
  return { status: 'unknown', error: `Unclassified answer: top-up ${deliveryId ?? '-'} status "${String(tx?.status ?? '')}"` };
}

/** Dollars (a number or a numeric string) as whole cents; null when it is not a positive amount. */
export function dollarsToCents(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return null;
  return Math.round(n * 100);
}

/**
 * What a fixed amount costs us: the amount less the aggregator's discount (a percentage). The
 * discount is what the aggregator gives back, counted in whole cents and rounded down, so the cost
 * is rounded up: a catalogue never shows a cost below what the aggregator takes.
 */
export function discountedCents(amountCents: number, discountPercent: unknown): number {
  const pct = typeof discountPercent === 'number' ? discountPercent : Number(discountPercent);
  if (!Number.isFinite(pct) || pct <= 0 || pct >= 100) return amountCents;
  // The epsilon keeps 0.1 + 0.2 style float noise from losing a whole cent.
  return amountCents - Math.floor((amountCents * pct) / 100 + 1e-9);
}

/**
 * Reloadly's catalogue (GET /operators/countries/SO) as products: one per fixed amount of each
 * operator (a RANGE operator, with no fixed amounts, has none). `malformed`: the answer is not a
 * list of operators with readable amounts (then nothing of it is used: a partial catalogue would
 * look like withdrawn products).
 */
function reloadlyProducts(body: unknown, operatorId?: string): { products: AggregatorProduct[] } | { malformed: string } {
  if (!Array.isArray(body)) return { malformed: 'HTTP 200 without a list of operators' };
  const products: AggregatorProduct[] = [];
  for (const [i, op] of body.entries()) {
    const id = op?.operatorId ?? op?.id;
    if (id === undefined || id === null || String(id).trim() === '') return { malformed: `HTTP 200 with operator #${i} without an id` };
    if (operatorId !== undefined && String(id) !== operatorId) continue;
    const fixed = op.fixedAmounts ?? [];
    if (!Array.isArray(fixed)) return { malformed: `HTTP 200 with operator ${String(id)}'s fixedAmounts not a list` };
    const descriptions: Record<string, unknown> =
      op.fixedAmountsDescriptions && typeof op.fixedAmountsDescriptions === 'object' ? op.fixedAmountsDescriptions : {};
    const operatorName = typeof op.name === 'string' ? op.name : String(id);
    const currency = String(op.senderCurrencyCode ?? op.destinationCurrencyCode ?? 'USD');
    for (const raw of fixed) {
      const amount = dollarsToCents(raw);
      if (amount === null) return { malformed: `HTTP 200 with operator ${String(id)}'s fixed amount ${JSON.stringify(raw)}` };
      const productId = (amount / 100).toFixed(2);
      const text = descriptions[productId] ?? descriptions[String(raw)] ?? descriptions[String(Number(raw))];
      const description = typeof text === 'string' && text.trim() !== '' ? text.trim() : null;
      products.push({
        productId,
        operatorId: String(id),
        operatorName,
        name: description ? `${operatorName} ${description}` : `${operatorName} ${productId} ${currency}`,
        description,
        amount,
        currency,
        wholesale: discountedCents(amount, op.internationalDiscount),
      });
    }
  }
  return { products };
}

/** The report's states (SUCCESSFUL, FAILED, REFUNDED, PROCESSING) as the daily close reads them. */
const REPORT_STATES: Readonly<Record<string, VendorTopUp['state']>> = { SUCCESSFUL: 'done', FAILED: 'failed', REFUNDED: 'refunded', PROCESSING: 'pending' };

/** Pages of the transactions report followed before a period is given up as too long (unknown). */
export const RELOADLY_MAX_REPORT_PAGES = 500;
/** Transactions asked for per page of the report. */
export const RELOADLY_REPORT_PAGE_SIZE = 200;

/** "yyyy-MM-dd HH:mm:ss" in UTC: the report's date parameters. */
export const reloadlyReportDate = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');

/** One transaction of the report as the daily close reads it; `malformed` when it cannot be read. */
export function reloadlyReportRecord(tx: any): VendorTopUp | { malformed: string } {
  const id = tx?.transactionId;
  if (id === undefined || id === null || String(id).trim() === '') return { malformed: 'a transaction without a transactionId' };
  const vendorId = String(id);
  const state = REPORT_STATES[String(tx.status ?? '').toUpperCase()];
  if (!state) return { malformed: `transaction ${vendorId} with status "${String(tx.status ?? '')}"` };
  const amount = vendorCents(tx.requestedAmount, 'nearest');
  const currency = currencyCode(tx.requestedAmountCurrencyCode);
  if (amount === null || !currency) return { malformed: `transaction ${vendorId} without a requestedAmount and its currency` };
  const at = vendorInstant(tx.transactionDate);
  if (!at) return { malformed: `transaction ${vendorId} without a readable transactionDate` };
  const money = reloadlyMoney(tx);
  const ours = typeof tx.customIdentifier === 'string' && tx.customIdentifier.trim() !== '' ? tx.customIdentifier : null;
  const phone = tx.recipientPhone == null ? null : String(typeof tx.recipientPhone === 'object' ? (tx.recipientPhone.number ?? '') : tx.recipientPhone) || null;
  return {
    vendorId,
    ourReference: ours,
    state,
    amount,
    currency,
    cost: money.cost ?? null,
    costCurrency: money.costCurrency ?? null,
    phone,
    at,
  };
}

/** A refusal of the report or of a status poll: it says nothing about the top-up. */
function unknownRead(answer: { status: number; body: unknown }, what: string): { status: 'unknown'; error: string } {
  const reading = readReloadlyError(answer.status, answer.body);
  return { status: 'unknown', error: `${reading.classified ? 'The aggregator refused the' : 'Unclassified answer to the'} ${what}: ${reading.raw}` };
}

/**
 * Reloadly over HTTP (docs/integrations.md, "Reloadly"): an OAuth client-credentials token, kept until
 * it expires and renewed once on a 401; the operator from the provider or detected from the
 * number; `customIdentifier` = the recharge's reference, so the aggregator refuses a duplicate.
 */
export function reloadlyAdapter(config: ReloadlyConfig, deps: { fetch?: FetchLike; trail: RemoteTrail; name?: string }): OperatorAdapter {
  const fetchImpl = deps.fetch ?? ((url, init) => fetch(url, init));
  const api = config.apiUrl.replace(/\/+$/, '');
  let token: { value: string; expiresAt: number } | null = null;
  let fetching: Promise<string | null> | null = null;
  /** Operators by number prefix: the auto-detect answer does not change from one sale to the next. */
  const detected = new Map<string, { operatorId: string; at: number }>();
  /** Why the last token request got no token, for the line a person reads. */
  let tokenTrouble = '';
  const noToken = () => `No access token from the aggregator${tokenTrouble ? ` (${tokenTrouble})` : ''}`;

  const newToken = (forWhom: CallFor): Promise<string | null> => {
    // Concurrent sales share one token request.
    fetching ??= (async () => {
      try {
        const answer = await callJson(fetchImpl, deps.trail, forWhom, {
          system: 'reloadly',
          operation: 'POST /oauth/token',
          method: 'POST',
          url: config.authUrl,
          body: { client_id: config.clientId, client_secret: config.clientSecret, grant_type: 'client_credentials', audience: api },
          timeoutMs: config.timeoutMs,
          classify: (status, body) => (status === 200 && body?.access_token ? 'ok' : 'refused'),
        });
        if (answer.kind !== 'answer' || answer.status !== 200 || !answer.body?.access_token) {
          tokenTrouble = answer.kind === 'lost' ? answer.error : readReloadlyError(answer.status, answer.body).raw;
          return null;
        }
        // Renewed a minute early, so a token never expires between our check and the call.
        token = { value: String(answer.body.access_token), expiresAt: Date.now() + Math.max(0, Number(answer.body.expires_in ?? 0) - 60) * 1000 };
        return token.value;
      } finally {
        fetching = null;
      }
    })();
    return fetching;
  };

  /** The trail's outcome: a 2xx ok; a refusal that decides nothing (a duplicate, an unclassified one) unknown. */
  const classify = (status: number, body: unknown): CallOutcome => {
    if (status >= 200 && status < 300) return 'ok';
    const { meaning } = readReloadlyError(status, body);
    return meaning === 'refused' || meaning === 'retry' ? 'refused' : 'unknown';
  };

  /**
   * A call with the token; a 401 gets one new token and one more try. `no_token`: the call was not
   * made (or, after a 401, not made again): nothing reached the aggregator.
   */
  const authorised = async (
    forWhom: CallFor,
    operation: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<JsonAnswer | { kind: 'no_token'; error: string }> => {
    for (let attempt = 0; ; attempt++) {
      const value = token && token.expiresAt > Date.now() ? token.value : await newToken(forWhom);
      if (!value) return { kind: 'no_token', error: noToken() };
      const answer = await callJson(fetchImpl, deps.trail, forWhom, {
        system: 'reloadly',
        operation,
        method,
        url: `${api}${path}`,
        headers: { authorization: `Bearer ${value}`, accept: ACCEPT },
        body,
        timeoutMs: config.timeoutMs,
        classify,
      });
      if (answer.kind === 'answer' && answer.status === 401 && attempt === 0) {
        if (token?.value === value) token = null;
        continue;
      }
      return answer;
    }
  };

  const operatorFor = async (request: DeliveryRequest, forWhom: CallFor): Promise<string | { failed: string } | { unknown: string }> => {
    if (request.externalOperatorId) return request.externalOperatorId;
    const prefix = request.phone.slice(0, 2);
    const cached = detected.get(prefix);
    if (cached && Date.now() - cached.at < 3_600_000) return cached.operatorId;
    const answer = await authorised(forWhom, 'GET /operators/auto-detect', 'GET', `/operators/auto-detect/phone/252${request.phone}/countries/SO`);
    if (answer.kind !== 'answer') return { unknown: answer.error };
    if (answer.status === 200 && (answer.body?.operatorId ?? answer.body?.id) != null) {
      const operatorId = String(answer.body.operatorId ?? answer.body.id);
      detected.set(prefix, { operatorId, at: Date.now() });
      return operatorId;
    }
    // Only a refusal the table knows (no operator for this number, a bad number) fails the delivery.
    if (answer.status === 200) return { unknown: 'Unclassified answer to the operator detection: HTTP 200 without an operatorId' };
    const reading = readReloadlyError(answer.status, answer.body);
    if (reading.meaning === 'refused') return { failed: `The aggregator found no operator for this number (${reading.raw}).` };
    return { unknown: `${reading.classified ? 'The operator detection was refused' : 'Unclassified answer to the operator detection'}: ${reading.raw}` };
  };

  const lookup = async (customIdentifier: string, forWhom: CallFor): Promise<DeliveryResult | { status: 'not_found' }> => {
    const answer = await authorised(
      forWhom,
      'GET /topups/reports/transactions',
      'GET',
      `/topups/reports/transactions?customIdentifier=${encodeURIComponent(customIdentifier)}&page=1&size=5`,
    );
    if (answer.kind !== 'answer') return { status: 'unknown', error: answer.error };
    if (answer.status !== 200) return unknownRead(answer, 'report');
    if (!Array.isArray(answer.body?.content)) return { status: 'unknown', error: 'Unclassified answer to the report: HTTP 200 without content' };
    const found = answer.body.content.find((tx: any) => tx?.customIdentifier === customIdentifier);
    return found ? fromTransaction(found) : { status: 'not_found' };
  };

  /**
   * The report for [from, to): Reloadly's dates are whole seconds and its end inclusive, so the
   * period asked for is widened to whole seconds and each record kept by its own date. Every page
   * is followed (`last` / `totalPages`, else a short page is the last); a record seen twice (the
   * report moved while paging) is kept once. Any page unreadable: the whole report is unknown, as
   * a partial one would read as top-ups that never happened.
   */
  const transactions = async (range: { from: Date; to: Date }, forWhom: CallFor): Promise<TopUpReport> => {
    const from = reloadlyReportDate(range.from);
    const to = reloadlyReportDate(new Date(Math.ceil(range.to.getTime() / 1000) * 1000));
    const byId = new Map<string, VendorTopUp>();
    for (let page = 1; page <= RELOADLY_MAX_REPORT_PAGES; page++) {
      const query = `startDate=${encodeURIComponent(from)}&endDate=${encodeURIComponent(to)}&page=${page}&size=${RELOADLY_REPORT_PAGE_SIZE}`;
      const answer = await authorised(forWhom, 'GET /topups/reports/transactions', 'GET', `/topups/reports/transactions?${query}`);
      if (answer.kind !== 'answer') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer, 'report');
      const content = answer.body?.content;
      if (!Array.isArray(content)) return { status: 'unknown', error: `Unclassified answer to the report: page ${page} without content` };
      for (const tx of content) {
        const record = reloadlyReportRecord(tx);
        if ('malformed' in record) return { status: 'unknown', error: `Unclassified answer to the report: ${record.malformed}` };
        const at = Date.parse(record.at);
        if (at >= range.from.getTime() && at < range.to.getTime()) byId.set(record.vendorId, record);
      }
      const totalPages = Number(answer.body?.totalPages);
      const last = answer.body?.last === true || (Number.isFinite(totalPages) ? page >= totalPages : content.length < RELOADLY_REPORT_PAGE_SIZE);
      if (last || content.length === 0) return { status: 'ok', records: [...byId.values()] };
    }
    return { status: 'unknown', error: `The report has more than ${RELOADLY_MAX_REPORT_PAGES} pages of ${RELOADLY_REPORT_PAGE_SIZE}: not read` };
  };

  return {
    name: deps.name ?? 'reloadly',
    system: 'reloadly',
    sendOperation: 'POST /topups',
    capabilities: { lookupByOwnReference: true, balance: true, productList: true, transactionReport: true },
    transactions,
    async balance(forWhom) {
      const answer = await authorised(forWhom, 'GET /accounts/balance', 'GET', '/accounts/balance');
      if (answer.kind !== 'answer') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer, 'balance request');
      const amount = Number(answer.body?.balance);
      const currency = String(answer.body?.currencyCode ?? '');
      if (!Number.isFinite(amount) || !/^[A-Z]{3}$/.test(currency))
        return { status: 'unknown', error: 'Unclassified answer to the balance request: no balance or currencyCode' };
      return { status: 'ok', amount: Math.floor(Math.round(amount * 1000) / 10), currency };
    },
    async products(forWhom, operatorId) {
      const answer = await authorised(forWhom, 'GET /operators/countries', 'GET', '/operators/countries/SO?includeData=true&includeBundles=true');
      if (answer.kind !== 'answer') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer, 'catalogue request');
      const read = reloadlyProducts(answer.body, operatorId);
      return 'malformed' in read
        ? { status: 'unknown', error: `Unclassified answer to the catalogue request: ${read.malformed}` }
        : { status: 'ok', products: read.products };
    },
    async send(request, forWhom) {
      const operatorId = await operatorFor(request, forWhom);
      // Nothing was sent yet: a failed detection is a failed delivery, an unknown one is retried.
      if (typeof operatorId === 'object')
        return 'failed' in operatorId ? { status: 'failed', deliveryId: null, reason: operatorId.failed } : { status: 'not_sent', error: operatorId.unknown };
      const ready = token && token.expiresAt > Date.now() ? token.value : await newToken(forWhom);
      if (!ready) return { status: 'not_sent', error: noToken() };
      const answer = await authorised(forWhom, 'POST /topups', 'POST', '/topups', {
        operatorId: Number.isSafeInteger(Number(operatorId)) ? Number(operatorId) : operatorId,
        amount: topUpAmount(request.productCode, request.cost),
        useLocalAmount: false,
        customIdentifier: request.customIdentifier,
        recipientPhone: { countryCode: 'SO', number: `252${request.phone}` },
      });
      // No token after a 401: the top-up was refused before anything was done, and not sent again.
      if (answer.kind === 'no_token') return { status: 'not_sent', error: answer.error };
      if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
      if (answer.status >= 200 && answer.status < 300) return fromTransaction(answer.body);
      // A refusal, by the answer table (reloadly-answers.ts).
      const reading = readReloadlyError(answer.status, answer.body);
      // Nothing delivered, and it will not be.
      if (reading.meaning === 'refused') return { status: 'failed', deliveryId: null, reason: `The aggregator refused the top-up: ${reading.raw}` };
      // Nothing done yet (a token, a rate limit, the same number again too soon): sent again later.
      if (reading.meaning === 'retry') return { status: 'not_sent', error: `The aggregator refused the top-up for now: ${reading.raw}` };
      // A duplicate (the aggregator already has this id) or an answer nobody classified: what became
      // of the top-up is what a lookup says.
      return { status: 'unknown', error: reloadlyUnknownText(reading) };
    },
    lookup,
    async poll(deliveryId, forWhom) {
      const answer = await authorised(forWhom, 'GET /topups/{id}/status', 'GET', `/topups/${encodeURIComponent(deliveryId)}/status`);
      if (answer.kind !== 'answer') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer, 'status poll');
      return fromTransaction({
        ...(answer.body?.transaction ?? {}),
        transactionId: answer.body?.transaction?.transactionId ?? deliveryId,
        status: answer.body?.status ?? answer.body?.transaction?.status,
      });
    },
  };
}
