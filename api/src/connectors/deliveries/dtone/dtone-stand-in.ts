import { setTimeout as sleep } from 'node:timers/promises';
import { drawMillis, faultQueue, type Millis, type StandInAnswer, type StandInHandler, type StandInRequest } from '../../stand-ins/stand-in-server.ts';

/**
 * A local DT One (DVS API, docs/integrations.md, "DT One"): HTTP Basic with the key and secret,
 * snake_case JSON under /v1, so the product's DT One adapter can be exercised offline and a
 * provider set to `dtone` delivers (pretend) bundles with no configuration. State lives in memory.
 *
 * TEST NUMBERS, by the last three digits of the credit party's number (DT One's sandbox rule):
 *
 *   x00, x01   COMPLETED (any other ending too, unless listed below).
 *   x02..x07   DECLINED by the operator (class 9), each with its own message.
 *   1xx..3xx   (the first of the three digits) the answer to the send is delayed by that many
 *              latency units before it is given.
 *   998        SUBMITTED for ever (the operator never answers).
 *   999        processed, but the answer to the first send per external_id is lost (reset).
 *
 * An async transaction answers 201 at once with status CONFIRMED (class 2) and is COMPLETED (7) or
 * DECLINED (9) after latencyMs * (0.5..1.5), or a time drawn in a range. A second send under an
 * external_id already used is refused with 1007001 (never delivered twice); an unknown product with
 * 1003001; a number that is not Somali with 1005003. `GET /transactions?external_id=` finds a
 * transaction by the caller's id (404 1008004 when none), `GET /transactions/{id}` by DT One's.
 * Faults from injectFault() strike first (the network): '503' and 'reset-before' are not processed,
 * 'reset-after' is processed with its answer lost. Field conditions (`unavailableRate`,
 * `lostAnswerRate`) strike an external_id's first send only. `GET /_standin/books` (no auth) lists
 * what happened to each external_id.
 *
 * CATALOGUE: `GET /v1/products` lists DTONE_STAND_IN_PRODUCTS as they stand now, filtered by
 * `country_iso_code` (alpha-3: all of them are SOM) and `operator_id`, a page at a time (`page` from
 * 1, `per_page` default 50, at most 100). The stand-in cannot send DT One's `X-Total*` headers (its
 * transport answers a status and a body only): a page shorter than `per_page` is the last.
 * withdrawProduct() / addProduct() change the catalogue for a test (a withdrawn product is refused
 * with 1003001 like one DT One never sold); resetCatalogue() (and reset()) put it back.
 *
 * MONEY: a transaction carries its product's `prices.wholesale {amount, fee, unit}` (what it costs
 * us; the stand-in's products have a fee of 1 % of it), `prices.retail` and, in `benefits`, the
 * face value delivered in USD.
 *
 * REPORT (the daily close): `GET /v1/transactions?from_date=&to_date=&page=&per_page=` (ISO 8601;
 * from inclusive, to exclusive) lists the transactions created in that period, newest first, a page
 * at a time (`per_page` default 50, at most 100; a shorter page is the last, as for the catalogue).
 * Test controls for the vendor's books the product does not know about (in-thread stand-ins only,
 * like injectFault): plantTransaction() records a transaction the product never sent (its own or a
 * foreign external_id, or none; any product, status and date), and amendTransaction() changes a
 * recorded one afterwards (its status, e.g. COMPLETED -> REVERSED, its delivered amount or date).
 */

export const DTONE_STAND_IN_CREDENTIALS = { apiKey: 'standin-dtone-key', apiSecret: 'standin-dtone-secret' } as const;

/** DVS error codes (`{errors: [{code, message}]}`), with the HTTP status the stand-in answers them with. */
export const DTONE_ERRORS = {
  unauthorized: { code: 1000401, message: 'Unauthorized', status: 401 },
  invalidRequest: { code: 1000400, message: 'Invalid request', status: 400 },
  productUnavailable: { code: 1003001, message: 'Product is not available', status: 400 },
  invalidNumber: { code: 1005003, message: 'Credit party mobile number is invalid', status: 400 },
  insufficientBalance: { code: 1006001, message: 'Insufficient balance', status: 400 },
  duplicateExternalId: { code: 1007001, message: 'External ID already used', status: 409 },
  notFound: { code: 1008004, message: 'Transaction not found', status: 404 },
  retryLater: { code: 1009503, message: 'Service temporarily unavailable, retry later', status: 503 },
} as const;

/** Status classes: 1 CREATED, 2 CONFIRMED, 3 REJECTED, 4 CANCELLED, 5 SUBMITTED, 7 COMPLETED, 8 REVERSED, 9 DECLINED. */
export const DTONE_CLASSES = { CREATED: 1, CONFIRMED: 2, REJECTED: 3, CANCELLED: 4, SUBMITTED: 5, COMPLETED: 7, REVERSED: 8, DECLINED: 9 } as const;
type ClassName = keyof typeof DTONE_CLASSES;

/**
 * A product of the stand-in's catalogue: `amount` (+ `fee`) is its wholesale price (what a send
 * costs), `retail` its face value (DT One's destination amount and retail price), in USD.
 */
export interface DtOneStandInProduct {
  id: number;
  name: string;
  description?: string;
  operator: { id: number; name: string };
  amount: number;
  fee?: number;
  retail?: number;
}

/** The Somali products the stand-in sells (ids are what bundles name in their operator product code). */
export const DTONE_STAND_IN_PRODUCTS: readonly Readonly<DtOneStandInProduct>[] = [
  { id: 91001, name: 'Hormuud 1 GB', description: '1 GB data, 1 day', operator: { id: 2701, name: 'Hormuud' }, amount: 0.4, fee: 0.004, retail: 0.5 },
  { id: 91002, name: 'Hormuud 5 GB', description: '5 GB data, 7 days', operator: { id: 2701, name: 'Hormuud' }, amount: 1.5, fee: 0.015, retail: 1.8 },
  { id: 91003, name: 'Somtel 1 GB', description: '1 GB data, 1 day', operator: { id: 2702, name: 'Somtel' }, amount: 0.45, fee: 0.0045, retail: 0.55 },
  { id: 91004, name: 'Golis 1 GB', description: '1 GB data, 1 day', operator: { id: 2703, name: 'Golis' }, amount: 0.5, fee: 0.005, retail: 0.6 },
];

const DECLINES: Record<string, string> = {
  '2': 'Operator declined: the number is barred',
  '3': 'Operator declined: the subscriber cannot receive this product',
  '4': 'Operator declined: the number is not active',
  '5': 'Operator declined: limit reached for this number',
  '6': 'Operator declined: system error at the operator',
  '7': 'Operator declined: the product is not allowed for this subscriber',
};

export interface DtOneTransaction {
  id: number;
  /** Null for one sent without (never by the product: plantTransaction()). */
  externalId: string | null;
  productId: number;
  mobileNumber: string;
  className: ClassName;
  message: string;
  operatorReference: string | null;
  /** USD: what it costs us (the product's wholesale amount and fee) and the face value delivered. */
  wholesale: number;
  fee: number;
  retail: number;
  createdAt: number;
  /** ms epoch of the final status. */
  settledAt: number | null;
  sends: number;
}

export interface DtOneBooks {
  system: 'dtone';
  at: number;
  entries: { externalId: string; id: number | null; status: ClassName | 'NotProcessed'; sends: number; createdAt: number; settledAt: number | null }[];
}

export interface DtOneStandIn {
  handle: StandInHandler;
  byExternalId(externalId: string): DtOneTransaction | undefined;
  books(): DtOneBooks;
  injectFault(match: { path?: string; externalId?: string }, fault: DtOneFault, times?: number): void;
  clearFaults(): void;
  /** The catalogue as it stands now. */
  products(): DtOneStandInProduct[];
  /** Takes a product out of the catalogue (not listed, sends refused with 1003001); false when it was not there. */
  withdrawProduct(id: number): boolean;
  /** Adds a product, or replaces the one with its id. */
  addProduct(product: DtOneStandInProduct): void;
  /** The catalogue as it was at the start (DTONE_STAND_IN_PRODUCTS). */
  resetCatalogue(): void;
  /** Test control: records a transaction the product never sent (see REPORT above); returns it. */
  plantTransaction(planted: PlantedDtOneTransaction): DtOneTransaction;
  /** Test control: changes a recorded transaction, by DT One's id or its external_id (see REPORT above); throws for one it does not have. */
  amendTransaction(which: number | string, change: { status?: ClassName; retail?: number; createdAt?: Date }): DtOneTransaction;
  /** Forgets transactions, sends and faults; resets the catalogue. */
  reset(): void;
}

/** A transaction the product never sent, for a daily-close test (plantTransaction()). */
export interface PlantedDtOneTransaction {
  /** Our reference it carries (a sale's, or one we never made), or null/absent for none. */
  externalId?: string | null;
  /** A product of the catalogue (default 91001): its prices unless overridden. */
  productId?: number;
  /** +252 and 9 digits (default +252615550000). */
  mobileNumber?: string;
  /** Default COMPLETED. */
  status?: ClassName;
  /** USD delivered (default the product's retail). */
  retail?: number;
  /** Default now. */
  createdAt?: Date;
}

export type DtOneFault = '503' | 'reset-before' | 'reset-after';

export interface DtOneStandInOptions {
  latencyMs?: Millis;
  lostAnswerRate?: number;
  unavailableRate?: number;
  random?: () => number;
  apiKey?: string;
  apiSecret?: string;
}

const MAX_KEPT = 100_000;

export function createDtOneStandIn(opts: DtOneStandInOptions = {}): DtOneStandIn {
  const latencyMs: Millis = opts.latencyMs ?? 800;
  const random = opts.random ?? Math.random;
  const credentials = { apiKey: opts.apiKey ?? DTONE_STAND_IN_CREDENTIALS.apiKey, apiSecret: opts.apiSecret ?? DTONE_STAND_IN_CREDENTIALS.apiSecret };
  const basic = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiSecret}`).toString('base64')}`;
  const byExternal = new Map<string, DtOneTransaction>();
  const byId = new Map<number, DtOneTransaction>();
  /** Sends per external_id, processed or not (a 503 counts). */
  const sends = new Map<string, { count: number; firstAt: number }>();
  const spent = new Set<string>();
  const faults = faultQueue<{ path: string; externalId: string | undefined }, DtOneFault>();
  let nextId = Date.now();
  /** The catalogue by product id, in the order products were added. */
  const catalogue = new Map<number, DtOneStandInProduct>();
  const resetCatalogue = () => {
    catalogue.clear();
    for (const p of DTONE_STAND_IN_PRODUCTS) catalogue.set(p.id, { ...p, operator: { ...p.operator } });
  };
  resetCatalogue();

  const json = (status: number, body: unknown): StandInAnswer => ({ kind: 'answer', status, body });
  const error = (e: (typeof DTONE_ERRORS)[keyof typeof DTONE_ERRORS]): StandInAnswer => json(e.status, { errors: [{ code: e.code, message: e.message }] });

  const present = (t: DtOneTransaction) => ({
    id: t.id,
    external_id: t.externalId,
    creation_date: new Date(t.createdAt).toISOString(),
    status: { id: DTONE_CLASSES[t.className] * 10000, message: t.className, class: { id: DTONE_CLASSES[t.className], message: t.className } },
    product: { id: t.productId },
    credit_party_identifier: { mobile_number: t.mobileNumber },
    prices: {
      wholesale: { amount: t.wholesale, fee: t.fee, unit: 'USD', unit_type: 'CURRENCY' },
      retail: { amount: t.retail, fee: 0, unit: 'USD', unit_type: 'CURRENCY' },
    },
    benefits: [
      {
        type: 'CREDITS',
        unit: 'USD',
        unit_type: 'CURRENCY',
        amount: { base: t.retail, promotion_bonus: 0, total_excluding_tax: t.retail, tax: 0, total_including_tax: t.retail },
      },
    ],
    operator_reference: t.operatorReference,
    ...(t.className === 'DECLINED' ? { status_message: t.message } : {}),
  });

  function forgetOldest() {
    for (const [key, t] of byExternal) {
      if (byExternal.size <= MAX_KEPT) break;
      byExternal.delete(key);
      byId.delete(t.id);
    }
    for (const key of sends.keys()) {
      if (sends.size <= MAX_KEPT) break;
      sends.delete(key);
    }
  }

  async function send(body: Record<string, unknown>): Promise<StandInAnswer> {
    const externalId = body.external_id;
    if (typeof externalId !== 'string' || !/^[A-Za-z0-9._-]{1,40}$/.test(externalId)) return error(DTONE_ERRORS.invalidRequest);
    if (byExternal.has(externalId)) return error(DTONE_ERRORS.duplicateExternalId);
    const product = catalogue.get(Number(body.product_id));
    if (!product) return error(DTONE_ERRORS.productUnavailable);
    const party = body.credit_party_identifier as { mobile_number?: unknown } | undefined;
    const mobile = typeof party?.mobile_number === 'string' ? party.mobile_number : '';
    if (!/^\+252\d{9}$/.test(mobile)) return error(DTONE_ERRORS.invalidNumber);
    const last3 = mobile.slice(-3);
    const transaction: DtOneTransaction = {
      id: nextId++,
      externalId,
      productId: product.id,
      mobileNumber: mobile,
      className: 'CONFIRMED',
      message: 'CONFIRMED',
      operatorReference: null,
      wholesale: product.amount,
      fee: product.fee ?? 0,
      retail: product.retail ?? product.amount,
      createdAt: Date.now(),
      settledAt: null,
      sends: sends.get(externalId)?.count ?? 1,
    };
    byExternal.set(externalId, transaction);
    byId.set(transaction.id, transaction);
    forgetOldest();
    // The operator answers later; the transaction settles on its own.
    if (last3 !== '998') {
      const wait = drawMillis(latencyMs, random);
      setTimeout(() => {
        const decline = /^[0-9][0-9]$/.test(last3.slice(1)) && last3.slice(1, 2) === '0' ? DECLINES[last3.slice(2)] : undefined;
        transaction.className = decline ? 'DECLINED' : 'COMPLETED';
        transaction.message = decline ?? 'COMPLETED';
        transaction.operatorReference = decline ? null : `DT${transaction.id}`;
        transaction.settledAt = Date.now();
      }, wait).unref?.();
    } else transaction.className = 'SUBMITTED';
    // A delayed answer (1xx, 2xx, 3xx): that many latency units before the 201.
    const delayUnits = Number(last3[0]);
    if (delayUnits >= 1 && delayUnits <= 3) await sleep(drawMillis(latencyMs, random) * delayUnits);
    if (last3 === '999' && !spent.has(`lost:${externalId}`)) {
      spent.add(`lost:${externalId}`);
      return { kind: 'reset' };
    }
    return json(201, present(transaction));
  }

  async function handle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method === 'GET' && req.path === '/_standin/books') return json(200, books());
    if (req.headers.authorization !== basic) return error(DTONE_ERRORS.unauthorized);
    const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
    const externalId =
      req.method === 'POST' ? (typeof body.external_id === 'string' ? body.external_id : undefined) : (req.query.get('external_id') ?? undefined);
    const injected = faults.take({ path: req.path, externalId });
    let field: DtOneFault | undefined;
    if (req.method === 'POST' && req.path === '/v1/async/transactions' && externalId) {
      const seen = sends.get(externalId);
      if (!seen && !injected) {
        const r = random();
        const unavailable = opts.unavailableRate ?? 0;
        if (r < unavailable) field = '503';
        else if (r < unavailable + (opts.lostAnswerRate ?? 0)) field = 'reset-after';
      }
      sends.set(externalId, { count: (seen?.count ?? 0) + 1, firstAt: seen?.firstAt ?? Date.now() });
    }
    const fault = injected ?? field;
    if (fault === '503') return error(DTONE_ERRORS.retryLater);
    if (fault === 'reset-before') return { kind: 'reset' };
    const answer = await route(req, body);
    if (fault === 'reset-after') return { kind: 'reset' };
    return answer;
  }

  async function route(req: StandInRequest, body: Record<string, unknown>): Promise<StandInAnswer> {
    if (req.method === 'POST' && req.path === '/v1/async/transactions') return send(body);
    if (req.method === 'GET' && req.path === '/v1/transactions' && !req.query.has('external_id')) return transactionsPage(req);
    if (req.method === 'GET' && req.path === '/v1/transactions') {
      const found = byExternal.get(req.query.get('external_id') ?? '');
      return found ? json(200, [present(found)]) : error(DTONE_ERRORS.notFound);
    }
    const one = /^\/v1\/transactions\/(\d+)$/.exec(req.path);
    if (req.method === 'GET' && one) {
      const found = byId.get(Number(one[1]));
      return found ? json(200, present(found)) : error(DTONE_ERRORS.notFound);
    }
    if (req.method === 'GET' && req.path === '/v1/products') return productsPage(req);
    if (req.method === 'GET' && req.path === '/v1/balances') return json(200, [{ id: 1, available: 10_000, holding: 0, credit_limit: 0, unit: 'USD' }]);
    return json(404, { errors: [{ code: 1000404, message: 'Not found' }] });
  }

  /** A DVS product (the fields the stand-in fills). */
  const presentProduct = (p: DtOneStandInProduct) => {
    const money = (amount: number, fee = 0) => ({ amount, fee, unit: 'USD', unit_type: 'CURRENCY' });
    return {
      id: p.id,
      name: p.name,
      description: p.description ?? '',
      type: 'FIXED_VALUE_RECHARGE',
      service: { id: 2, name: 'Mobile Data' },
      operator: { id: p.operator.id, name: p.operator.name, country: { iso_code: 'SOM', name: 'Somalia' } },
      ...(p.retail !== undefined ? { destination: { amount: p.retail, unit: 'USD', unit_type: 'CURRENCY' } } : {}),
      prices: { wholesale: money(p.amount, p.fee ?? 0), ...(p.retail !== undefined ? { retail: money(p.retail) } : {}) },
    };
  };

  /** The transactions created in [from_date, to_date), newest first, a page at a time. */
  function transactionsPage(req: StandInRequest): StandInAnswer {
    const from = req.query.has('from_date') ? Date.parse(req.query.get('from_date')!) : -Infinity;
    const to = req.query.has('to_date') ? Date.parse(req.query.get('to_date')!) : Infinity;
    if (Number.isNaN(from) || Number.isNaN(to)) return error(DTONE_ERRORS.invalidRequest);
    const page = intParam(req.query.get('page'), 1, 1, 1_000_000);
    const perPage = intParam(req.query.get('per_page'), 50, 1, 100);
    const matching = [...byId.values()].filter((t) => t.createdAt >= from && t.createdAt < to).sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    return json(200, matching.slice((page - 1) * perPage, page * perPage).map(present));
  }

  function plantTransaction(planted: PlantedDtOneTransaction): DtOneTransaction {
    const product = catalogue.get(planted.productId ?? 91001);
    if (!product) throw new Error(`The DT One stand-in has no product ${planted.productId}`);
    const externalId = planted.externalId ?? null;
    if (externalId !== null && byExternal.has(externalId)) throw new Error(`external_id ${externalId} is already in the books`);
    const className = planted.status ?? 'COMPLETED';
    const id = nextId++;
    const createdAt = planted.createdAt?.getTime() ?? Date.now();
    const transaction: DtOneTransaction = {
      id,
      // DT One's external_id is optional: a transaction sent without one lists none.
      externalId,
      productId: product.id,
      mobileNumber: planted.mobileNumber ?? '+252615550000',
      className,
      message: className,
      operatorReference: className === 'COMPLETED' || className === 'REVERSED' ? `DT${id}` : null,
      wholesale: product.amount,
      fee: product.fee ?? 0,
      retail: planted.retail ?? product.retail ?? product.amount,
      createdAt,
      settledAt: createdAt,
      sends: 0,
    };
    byId.set(id, transaction);
    if (externalId !== null) byExternal.set(externalId, transaction);
    forgetOldest();
    return { ...transaction };
  }

  function amendTransaction(which: number | string, change: { status?: ClassName; retail?: number; createdAt?: Date }): DtOneTransaction {
    const transaction = typeof which === 'number' ? byId.get(which) : byExternal.get(which);
    if (!transaction) throw new Error(`The DT One stand-in has no transaction ${which}`);
    if (change.status) {
      transaction.className = change.status;
      transaction.message = change.status;
      transaction.settledAt = Date.now();
    }
    if (change.retail !== undefined) transaction.retail = change.retail;
    if (change.createdAt) transaction.createdAt = change.createdAt.getTime();
    return { ...transaction };
  }

  function productsPage(req: StandInRequest): StandInAnswer {
    const country = req.query.get('country_iso_code');
    const operator = req.query.get('operator_id');
    const page = intParam(req.query.get('page'), 1, 1, 1_000_000);
    const perPage = intParam(req.query.get('per_page'), 50, 1, 100);
    const matching = [...catalogue.values()].filter((p) => (!country || country.toUpperCase() === 'SOM') && (!operator || String(p.operator.id) === operator));
    return json(200, matching.slice((page - 1) * perPage, page * perPage).map(presentProduct));
  }

  function books(): DtOneBooks {
    return {
      system: 'dtone',
      at: Date.now(),
      entries: [...sends].map(([externalId, s]) => {
        const t = byExternal.get(externalId);
        return {
          externalId,
          id: t?.id ?? null,
          status: t?.className ?? 'NotProcessed',
          sends: s.count,
          createdAt: t?.createdAt ?? s.firstAt,
          settledAt: t?.settledAt ?? null,
        };
      }),
    };
  }

  return {
    handle,
    byExternalId: (externalId) => {
      const t = byExternal.get(externalId);
      return t && { ...t, sends: sends.get(externalId)?.count ?? t.sends };
    },
    books,
    injectFault: (match, fault, times = 1) => faults.add(match, fault, times),
    clearFaults: () => faults.clear(),
    products: () => [...catalogue.values()].map((p) => ({ ...p, operator: { ...p.operator } })),
    withdrawProduct: (id) => catalogue.delete(id),
    addProduct: (product) => {
      catalogue.set(product.id, { ...product, operator: { ...product.operator } });
    },
    resetCatalogue,
    plantTransaction,
    amendTransaction,
    reset: () => {
      resetCatalogue();
      byExternal.clear();
      byId.clear();
      sends.clear();
      spent.clear();
      faults.clear();
    },
  };
}

function intParam(raw: string | null, fallback: number, min: number, max: number): number {
  const value = raw === null ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}
