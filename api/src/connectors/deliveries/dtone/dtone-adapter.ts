import { callJson, type CallFor, type CallOutcome, type FetchLike, type RemoteTrail } from '../../remote-call.ts';
import type { AggregatorProduct, DeliveryMoney, DeliveryResult, OperatorAdapter, TopUpReport, VendorTopUp } from '../operator-adapter.ts';
import { currencyCode, known, vendorCents, vendorInstant } from '../../vendor-money.ts';
import { DTONE_CLASS_MEANINGS, readDtOneError } from './dtone-answers.ts';

export interface DtOneConfig {
  /** The API base with its version, e.g. https://dvs-api.dtone.com/v1. */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
  /** Products asked for per page of GET /products (DT One allows up to 100). Default 100. */
  productsPerPage?: number;
}

/** Pages of GET /products followed before the catalogue is given up as too long (unknown). */
export const DTONE_MAX_PRODUCT_PAGES = 50;

/** The send's operation name in the trail (the resend limit counts those whose answer was lost). */
export const DTONE_SEND = 'POST /async/transactions';

/** What the adapter reads of a DVS transaction. */
interface DtOneTransactionBody {
  id?: unknown;
  external_id?: unknown;
  operator_reference?: unknown;
  status_message?: unknown;
  status?: { message?: unknown; class?: { id?: unknown; message?: unknown } };
  creation_date?: unknown;
  credit_party_identifier?: { mobile_number?: unknown };
  prices?: { wholesale?: unknown; retail?: unknown };
  benefits?: unknown;
  destination?: unknown;
}

/** The status classes as the daily close reads them: 7 COMPLETED done, 8 REVERSED refunded, 3/4/9 failed, else pending. */
const REPORT_STATES: Readonly<Record<number, VendorTopUp['state']>> = { 7: 'done', 8: 'refunded', 3: 'failed', 4: 'failed', 9: 'failed' };

/** Pages of GET /transactions followed before a period is given up as too long (unknown). */
export const DTONE_MAX_REPORT_PAGES = 500;
/** Transactions asked for per page (DT One allows up to 100). */
export const DTONE_REPORT_PAGE_SIZE = 100;

/** `{amount, unit, unit_type}` in a currency: cents and its code; null otherwise. */
function currencyAmount(m: unknown): { cents: number; currency: string } | null {
  const v = (m && typeof m === 'object' ? m : {}) as { amount?: unknown; unit?: unknown; unit_type?: unknown };
  if (v.unit_type !== undefined && v.unit_type !== 'CURRENCY') return null;
  // A benefit's amount is an object of totals; a price's a number.
  const raw =
    v.amount && typeof v.amount === 'object'
      ? ((v.amount as Record<string, unknown>).total_excluding_tax ?? (v.amount as Record<string, unknown>).base)
      : v.amount;
  const cents = vendorCents(raw, 'down');
  const currency = currencyCode(v.unit);
  return cents !== null && currency ? { cents, currency } : null;
}

/**
 * What a DVS transaction says it cost and delivered: the cost is `prices.wholesale` amount + fee
 * (up to whole cents: never below what DT One takes), the fee on its own; delivered, the first
 * benefit in a currency, else the destination amount. Unreadable fields are left out.
 */
export function dtOneMoney(tx: DtOneTransactionBody | null | undefined): DeliveryMoney {
  const w = (tx?.prices?.wholesale && typeof tx.prices.wholesale === 'object' ? tx.prices.wholesale : {}) as DtOneMoney;
  const unit = currencyCode(w.unit);
  const amountOk = typeof w.amount === 'number' && Number.isFinite(w.amount) && w.amount >= 0 && (w.unit_type === undefined || w.unit_type === 'CURRENCY');
  const fee = w.fee === undefined || w.fee === null ? 0 : typeof w.fee === 'number' && Number.isFinite(w.fee) && w.fee >= 0 ? w.fee : null;
  const cost = amountOk && unit && fee !== null ? upToCents((w.amount as number) + fee) : null;
  const benefits = Array.isArray(tx?.benefits) ? tx.benefits : [];
  const delivered = benefits.map(currencyAmount).find((b) => b !== null) ?? currencyAmount(tx?.destination);
  return known({
    cost,
    costCurrency: cost !== null ? unit : null,
    fee: cost !== null && fee !== null ? upToCents(fee) : null,
    deliveredAmount: delivered?.cents ?? null,
    deliveredCurrency: delivered?.currency ?? null,
  });
}

/** One transaction of GET /transactions as the daily close reads it; `malformed` when it cannot be read. */
export function dtOneReportRecord(tx: DtOneTransactionBody | null | undefined): VendorTopUp | { malformed: string } {
  const id = tx?.id;
  if (typeof id !== 'number' && (typeof id !== 'string' || id.trim() === '')) return { malformed: 'a transaction without an id' };
  const vendorId = String(id);
  const cls = Number(tx?.status?.class?.id);
  if (!Number.isInteger(cls)) return { malformed: `transaction ${vendorId} without a status class` };
  const at = vendorInstant(tx?.creation_date);
  if (!at) return { malformed: `transaction ${vendorId} without a readable creation_date` };
  const money = dtOneMoney(tx);
  // The face amount: what the customer got in money, else the retail price, else what we paid.
  const retail = currencyAmount(tx?.prices?.retail);
  const face =
    money.deliveredAmount !== undefined && money.deliveredCurrency
      ? { cents: money.deliveredAmount, currency: money.deliveredCurrency }
      : (retail ?? (money.cost !== undefined && money.costCurrency ? { cents: money.cost, currency: money.costCurrency } : null));
  if (!face) return { malformed: `transaction ${vendorId} without an amount` };
  const mobile = tx?.credit_party_identifier?.mobile_number;
  return {
    vendorId,
    ourReference: typeof tx?.external_id === 'string' && tx.external_id !== '' ? tx.external_id : null,
    state: REPORT_STATES[cls] ?? 'pending',
    amount: face.cents,
    currency: face.currency,
    cost: money.cost ?? null,
    costCurrency: money.costCurrency ?? null,
    phone: typeof mobile === 'string' && mobile ? mobile : null,
    at,
  };
}

/** A transaction by its status class (dtone-answers.ts); another class, or no id, is unknown. */
function fromTransaction(tx: DtOneTransactionBody | null | undefined): DeliveryResult {
  const deliveryId = tx?.id != null ? String(tx.id) : null;
  const cls = Number(tx?.status?.class?.id);
  const meaning = DTONE_CLASS_MEANINGS[cls] ?? 'unknown';
  if (meaning === 'delivered' && deliveryId)
    return { status: 'delivered', deliveryId, operatorReference: String(tx?.operator_reference ?? deliveryId), ...dtOneMoney(tx) };
  if (meaning === 'processing' && deliveryId) return { status: 'processing', deliveryId };
  if (meaning === 'failed') {
    const word = String(tx?.status?.class?.message ?? tx?.status?.message ?? '');
    const detail = typeof tx?.status_message === 'string' ? `: ${tx.status_message}` : '';
    return { status: 'failed', deliveryId, reason: `DT One did not deliver the top-up (${word}${detail}).` };
  }
  return { status: 'unknown', error: `Unclassified answer: transaction ${deliveryId ?? '-'} status class ${String(tx?.status?.class?.id ?? '-')}` };
}

/** An amount of money: `{amount, fee?, unit}` where unit_type is a currency (or not said). */
interface DtOneMoney {
  amount?: unknown;
  fee?: unknown;
  unit?: unknown;
  unit_type?: unknown;
}
const isMoney = (m: unknown): m is DtOneMoney & { amount: number } =>
  !!m &&
  typeof m === 'object' &&
  typeof (m as DtOneMoney).amount === 'number' &&
  Number.isFinite((m as DtOneMoney).amount) &&
  ((m as DtOneMoney).unit_type === undefined || (m as DtOneMoney).unit_type === 'CURRENCY');

/** What the adapter reads of a DVS product. */
interface DtOneProductBody {
  id?: unknown;
  name?: unknown;
  description?: unknown;
  operator?: { id?: unknown; name?: unknown };
  destination?: unknown;
  prices?: { wholesale?: unknown; retail?: unknown };
}

/** Up to whole cents (DT One's prices have more decimals than cents): never below what DT One takes. */
const upToCents = (dollars: number) => Math.ceil(dollars * 100 - 1e-6);

/**
 * One DVS product as ours. The face value is the destination amount where it is money, else the
 * retail price, else the wholesale price; the cost is wholesale amount + fee, when it is in the
 * face value's currency (else null: AggregatorProduct has one currency). `malformed`: not a product.
 */
export function dtOneProduct(raw: unknown): AggregatorProduct | { malformed: string } {
  const p = (raw && typeof raw === 'object' ? raw : {}) as DtOneProductBody;
  const idOf = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? String(v) : null);
  const id = idOf(p.id);
  if (id === null) return { malformed: 'a product without an id' };
  const operatorId = idOf(p.operator?.id);
  if (operatorId === null) return { malformed: `product ${id} without an operator` };
  const wholesale = p.prices?.wholesale;
  const face = [p.destination, p.prices?.retail, wholesale].find(isMoney);
  if (!face || face.amount <= 0) return { malformed: `product ${id} without a price` };
  const currency = typeof face.unit === 'string' && face.unit ? face.unit : 'USD';
  const wholesaleUnit = isMoney(wholesale) && typeof wholesale.unit === 'string' && wholesale.unit ? wholesale.unit : currency;
  const fee = isMoney(wholesale) && typeof wholesale.fee === 'number' && Number.isFinite(wholesale.fee) ? wholesale.fee : 0;
  return {
    productId: id,
    operatorId,
    operatorName: typeof p.operator?.name === 'string' && p.operator.name ? p.operator.name : operatorId,
    name: typeof p.name === 'string' && p.name ? p.name : id,
    description: typeof p.description === 'string' && p.description.trim() ? p.description.trim() : null,
    amount: Math.round(face.amount * 100),
    currency,
    wholesale: isMoney(wholesale) && wholesaleUnit === currency ? upToCents(wholesale.amount + fee) : null,
  };
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

  const perPage = Math.min(100, Math.max(1, Math.trunc(config.productsPerPage ?? 100)));

  return {
    name: deps.name ?? 'dtone',
    system: 'dtone',
    sendOperation: DTONE_SEND,
    capabilities: { lookupByOwnReference: true, balance: true, productList: true, transactionReport: true },
    /**
     * GET /transactions for [from, to): DT One filters by creation date (ISO 8601); each record is
     * kept by its own date, and once (the list may move while paging). The trail's call cannot read
     * the X-Total-Pages header, so a page shorter than asked is the last. Any page unreadable: the
     * whole report is unknown (a partial one would read as top-ups that never happened).
     */
    async transactions(range, forWhom): Promise<TopUpReport> {
      const byId = new Map<string, VendorTopUp>();
      const dates = `from_date=${encodeURIComponent(range.from.toISOString())}&to_date=${encodeURIComponent(range.to.toISOString())}`;
      for (let page = 1; page <= DTONE_MAX_REPORT_PAGES; page++) {
        const answer = await call(forWhom, 'GET /transactions', 'GET', `/transactions?${dates}&page=${page}&per_page=${DTONE_REPORT_PAGE_SIZE}`);
        if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
        if (answer.status !== 200) return unknownRead(answer.status, answer.body, 'transactions report');
        if (!Array.isArray(answer.body)) return { status: 'unknown', error: `Unclassified answer to the transactions report: page ${page} is not a list` };
        for (const tx of answer.body as DtOneTransactionBody[]) {
          const record = dtOneReportRecord(tx);
          if ('malformed' in record) return { status: 'unknown', error: `Unclassified answer to the transactions report: ${record.malformed}` };
          const at = Date.parse(record.at);
          if (at >= range.from.getTime() && at < range.to.getTime()) byId.set(record.vendorId, record);
        }
        if (answer.body.length < DTONE_REPORT_PAGE_SIZE) return { status: 'ok', records: [...byId.values()] };
      }
      return { status: 'unknown', error: `The transactions report has more than ${DTONE_MAX_REPORT_PAGES} pages of ${DTONE_REPORT_PAGE_SIZE}: not read` };
    },
    async balance(forWhom) {
      const answer = await call(forWhom, 'GET /balances', 'GET', '/balances');
      if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
      if (answer.status !== 200) return unknownRead(answer.status, answer.body, 'balance request');
      // One balance per currency; the first in USD (the product's prices are in USD), else the first.
      const list = Array.isArray(answer.body) ? (answer.body as { available?: unknown; unit?: unknown }[]) : [];
      const chosen = list.find((b) => b?.unit === 'USD') ?? list[0];
      const amount = Number(chosen?.available);
      if (!chosen || !Number.isFinite(amount) || typeof chosen.unit !== 'string')
        return { status: 'unknown', error: 'Unclassified answer to the balance request: no balance with an amount and a unit' };
      return { status: 'ok', amount: Math.floor(Math.round(amount * 1000) / 10), currency: chosen.unit };
    },
    async products(forWhom, operatorId) {
      // The trail's call cannot read headers (X-Total-Pages): a page shorter than asked is the last.
      const products: AggregatorProduct[] = [];
      const filter = `country_iso_code=SOM${operatorId !== undefined ? `&operator_id=${encodeURIComponent(operatorId)}` : ''}`;
      for (let page = 1; page <= DTONE_MAX_PRODUCT_PAGES; page++) {
        const answer = await call(forWhom, 'GET /products', 'GET', `/products?${filter}&page=${page}&per_page=${perPage}`);
        if (answer.kind === 'lost') return { status: 'unknown', error: answer.error };
        if (answer.status !== 200) return unknownRead(answer.status, answer.body, 'catalogue request');
        if (!Array.isArray(answer.body)) return { status: 'unknown', error: `Unclassified answer to the catalogue request: page ${page} is not a list` };
        for (const raw of answer.body) {
          const product = dtOneProduct(raw);
          if ('malformed' in product) return { status: 'unknown', error: `Unclassified answer to the catalogue request: ${product.malformed}` };
          // DT One filters by operator (a product of another one is left out); a product seen on an
          // earlier page (the catalogue moved between pages) is listed once.
          if ((operatorId === undefined || product.operatorId === operatorId) && !products.some((p) => p.productId === product.productId))
            products.push(product);
        }
        if (answer.body.length < perPage) return { status: 'ok', products };
      }
      // A catalogue cut short would read as withdrawn products.
      return { status: 'unknown', error: `The catalogue has more than ${DTONE_MAX_PRODUCT_PAGES} pages of ${perPage}: not read` };
    },
    async send(request, forWhom) {
      // DT One's product ids are digits: an amount ("5.00"), hex or an exponent is not one. Nothing reached DT One.
      const productId = /^\d{1,15}$/.test(request.productCode?.trim() ?? '') ? Number(request.productCode) : NaN;
      if (!Number.isSafeInteger(productId) || productId <= 0)
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
