import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../../tests/api/harness.ts';
import { databaseTrail } from '../../recharges/remote-calls.ts';
import type { RemoteCallRow } from '../../recharges/recharge-rows.ts';
import { startStandInServer, type RunningStandIn } from '../stand-ins/stand-in-server.ts';
import { createReloadlyStandIn, RELOADLY_STAND_IN_CREDENTIALS, type ReloadlyStandIn } from './reloadly/reloadly-stand-in.ts';
import { createDtOneStandIn, DTONE_STAND_IN_CREDENTIALS, type DtOneStandIn } from './dtone/dtone-stand-in.ts';
import { dtOneAdapter, DTONE_MAX_PRODUCT_PAGES } from './dtone/dtone-adapter.ts';
import type { AggregatorProduct, DeliveryRequest, OperatorAdapter } from './operator-adapter.ts';
import { reloadlyAdapter } from './reloadly/reloadly-adapter.ts';
import type { FetchLike } from '../remote-call.ts';

/**
 * The aggregators' catalogues (products()): Reloadly's operators with their fixed amounts and DT
 * One's products, each adapter against its stand-in over HTTP, on SQLite and MariaDB (the trail is
 * the database's). The stand-ins' catalogue controls withdraw and add products; a withdrawn product
 * is refused when sent (a definite refusal: the delivery fails); any answer that is not a readable
 * catalogue is unknown, never a shorter list.
 */
let h: Harness;
let reloadlyServer: RunningStandIn;
let dtoneServer: RunningStandIn;
let reloadly: ReloadlyStandIn;
let dtone: DtOneStandIn;
let reloadlyA: OperatorAdapter;
let dtoneA: OperatorAdapter;
const forWhom = { rechargeId: null };

const reloadlyConfig = (url: string) => ({ authUrl: `${url}/oauth/token`, apiUrl: url, ...RELOADLY_STAND_IN_CREDENTIALS, timeoutMs: 2000 });

beforeAll(async () => {
  h = await createHarness();
  reloadly = createReloadlyStandIn({ latencyMs: 5 });
  reloadlyServer = await startStandInServer(reloadly.combinedHandle);
  reloadlyA = reloadlyAdapter(reloadlyConfig(reloadlyServer.url), { trail: databaseTrail(h.knex) });
  dtone = createDtOneStandIn({ latencyMs: 5 });
  dtoneServer = await startStandInServer(dtone.handle);
  // Two products a page, so the four of the stand-in take three pages (the last one empty).
  dtoneA = dtOneAdapter(
    { apiUrl: `${dtoneServer.url}/v1`, ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: 2000, productsPerPage: 2 },
    { trail: databaseTrail(h.knex) },
  );
});
afterEach(() => {
  reloadly.resetCatalogue();
  dtone.resetCatalogue();
  reloadly.clearFaults();
  dtone.clearFaults();
});
afterAll(async () => {
  await reloadlyServer.close();
  await dtoneServer.close();
  await h.close();
});

const productsOf = async (adapter: OperatorAdapter, operatorId?: string): Promise<AggregatorProduct[]> => {
  const result = await adapter.products(forWhom, operatorId);
  if (result.status !== 'ok') throw new Error(`expected a catalogue, got ${result.error}`);
  return result.products;
};
const trailOf = (system: string, operation: string): Promise<RemoteCallRow[]> =>
  h.knex('remote_calls').where({ system, operation }).orderBy('id') as unknown as Promise<RemoteCallRow[]>;
const topUp = (customIdentifier: string, externalOperatorId: string | null, productCode: string, phone = '615551234'): DeliveryRequest => ({
  customIdentifier,
  phone,
  externalOperatorId,
  productCode,
  cost: 100,
});
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('Reloadly: GET /operators/countries/SO as products', () => {
  it('every fixed amount of every operator, priced less its discount, with the demo costs in the list; on the trail with no sale', async () => {
    const products = await productsOf(reloadlyA);
    expect(products).toHaveLength(4 * 11 + 4);
    expect(products.find((p) => p.operatorId === '1650' && p.productId === '5.00')).toEqual({
      productId: '5.00',
      operatorId: '1650',
      operatorName: 'Hormuud',
      name: 'Hormuud 10 GB 30 days',
      description: '10 GB 30 days',
      amount: 500,
      currency: 'USD',
      wholesale: 480,
    });
    // Somtel's 3.5 %: the discount counts whole cents, rounded down (1.50 -> 5.25 -> 5 cents off).
    const somtel = (code: string) => products.find((p) => p.operatorId === '1651' && p.productId === code);
    expect([somtel('1.50')?.wholesale, somtel('0.20')?.wholesale, somtel('25.00')?.wholesale]).toEqual([145, 20, 2413]);
    // The demo catalogue's bundles send their cost (no operator product code): every cost is an amount of the four demo operators.
    for (const operatorId of ['1650', '1651', '1652', '1653'])
      expect(products.filter((p) => p.operatorId === operatorId).map((p) => p.productId)).toEqual(
        expect.arrayContaining(['0.20', '0.40', '0.70', '1.50', '3.00', '5.00', '10.00', '25.00']),
      );
    expect(new Set(products.map((p) => `${p.operatorId}/${p.productId}`)).size).toBe(products.length);

    const [line] = (await trailOf('reloadly', 'GET /operators/countries')).slice(-1);
    expect(line).toMatchObject({ recharge_id: null, method: 'GET', http_status: 200, outcome: 'ok', request: '?includeData=true&includeBundles=true' });
    expect(line.url).toBe(`${reloadlyServer.url}/operators/countries/SO`);
  });

  it("one operator's products; an operator it does not have has none", async () => {
    const amtel = await productsOf(reloadlyA, '1654');
    expect(amtel.map((p) => [p.productId, p.amount, p.wholesale, p.description])).toEqual([
      ['0.50', 50, 49, '1 GB 1 day'],
      ['1.00', 100, 98, '2 GB 3 days'],
      ['2.00', 200, 195, '5 GB 7 days'],
      ['5.00', 500, 488, '12 GB 30 days'],
    ]);
    expect(await productsOf(reloadlyA, '4242')).toEqual([]);
  });

  it('a withdrawn amount disappears and is refused when sent (failed, never delivered); an added one appears and delivers; a reset brings it back', async () => {
    expect(reloadly.withdrawAmount(1650, 5)).toBe(true);
    reloadly.addAmount(1650, 7.5, '15 GB 30 days');
    const hormuud = await productsOf(reloadlyA, '1650');
    expect(hormuud.map((p) => p.productId)).not.toContain('5.00');
    expect(hormuud.find((p) => p.productId === '7.50')).toMatchObject({
      amount: 750,
      wholesale: 720,
      description: '15 GB 30 days',
      name: 'Hormuud 15 GB 30 days',
    });

    const withdrawn = await reloadlyA.send(topUp('CAT-RL-WITHDRAWN', '1650', '5.00'), forWhom);
    expect(withdrawn).toMatchObject({ status: 'failed', deliveryId: null, reason: expect.stringContaining('HTTP 400 INVALID_AMOUNT_FOR_OPERATOR') });
    expect(reloadly.byCustomIdentifier('CAT-RL-WITHDRAWN')).toBeUndefined();
    // The operator detected from the number is held to its list too.
    expect(await reloadlyA.send(topUp('CAT-RL-DETECTED', null, '5.00'), forWhom)).toMatchObject({ status: 'failed' });
    expect(await reloadlyA.send(topUp('CAT-RL-ADDED', '1650', '7.50'), forWhom)).toMatchObject({ status: 'delivered' });
    expect(reloadly.byCustomIdentifier('CAT-RL-ADDED')?.requestedAmount).toBe(7.5);
    // An operator nobody changed is not strict: a cost-derived amount still goes through.
    expect(await reloadlyA.send(topUp('CAT-RL-SOMTEL', '1651', '2.37', '625551234'), forWhom)).toMatchObject({ status: 'delivered' });

    reloadly.resetCatalogue();
    expect((await productsOf(reloadlyA, '1650')).map((p) => p.productId)).toContain('5.00');
    expect(await reloadlyA.send(topUp('CAT-RL-AFTER', '1650', '5.00'), forWhom)).toMatchObject({ status: 'delivered' });
  });

  it('strictAmounts: every operator refuses an amount it does not list', async () => {
    const strict = createReloadlyStandIn({ latencyMs: 5, strictAmounts: true });
    const server = await startStandInServer(strict.combinedHandle);
    try {
      const adapter = reloadlyAdapter(reloadlyConfig(server.url), { trail: databaseTrail(h.knex) });
      expect(await adapter.send(topUp('CAT-STRICT-1', '1651', '2.37', '625551234'), forWhom)).toMatchObject({
        status: 'failed',
        reason: expect.stringContaining('INVALID_AMOUNT_FOR_OPERATOR'),
      });
      expect(await adapter.send(topUp('CAT-STRICT-2', '1651', '2.00', '625551234'), forWhom)).toMatchObject({ status: 'delivered' });
    } finally {
      await server.close();
    }
  });

  it('an expired token is renewed once and the catalogue read', async () => {
    await productsOf(reloadlyA);
    const tokensBefore = (await trailOf('reloadly', 'POST /oauth/token')).length;
    const callsBefore = (await trailOf('reloadly', 'GET /operators/countries')).length;
    reloadly.expireTokens();
    expect(await productsOf(reloadlyA, '1652')).toHaveLength(11);
    expect((await trailOf('reloadly', 'POST /oauth/token')).length).toBe(tokensBefore + 1);
    const calls = (await trailOf('reloadly', 'GET /operators/countries')).slice(callsBefore);
    expect(calls.map((c) => c.http_status)).toEqual([401, 200]);
    expect(calls[0].response).toContain('TOKEN_EXPIRED');
  });

  it('a 503, a refusal or an answer that is not a catalogue is unknown with what came back', async () => {
    reloadly.injectFault({ path: '/operators/countries/SO' }, '503');
    expect(await reloadlyA.products(forWhom)).toEqual({ status: 'unknown', error: 'HTTP 503: the outcome is unknown' });
    expect((await trailOf('reloadly', 'GET /operators/countries')).at(-1)).toMatchObject({ http_status: 503, outcome: 'unknown' });

    const answering = (answer: { status: number; body: unknown }) => {
      const fake: FetchLike = async (url) =>
        new URL(url).pathname === '/oauth/token' ? json(200, { access_token: 'tok', expires_in: 3600 }) : json(answer.status, answer.body);
      return reloadlyAdapter(
        { authUrl: 'http://aggregator.test/oauth/token', apiUrl: 'http://aggregator.test', clientId: 'c', clientSecret: 's', timeoutMs: 1000 },
        { fetch: fake, trail: async () => undefined },
      );
    };
    expect(await answering({ status: 404, body: { errorCode: 'COUNTRY_NOT_SUPPORTED', message: 'No' } }).products(forWhom)).toEqual({
      status: 'unknown',
      error: 'The aggregator refused the catalogue request: HTTP 404 COUNTRY_NOT_SUPPORTED: No',
    });
    for (const body of [{ content: [] }, [{ name: 'no id', fixedAmounts: [1] }], [{ id: 1, fixedAmounts: 'five' }], [{ id: 1, fixedAmounts: [5, -1] }]]) {
      const result = await answering({ status: 200, body }).products(forWhom);
      expect(result).toMatchObject({ status: 'unknown', error: expect.stringMatching(/^Unclassified answer to the catalogue request: HTTP 200/) });
    }
    // A RANGE operator has no fixed amounts: no products, not an error.
    expect(
      await answering({
        status: 200,
        body: [
          { id: 7, denominationType: 'RANGE', fixedAmounts: [] },
          { id: 8, fixedAmounts: null },
        ],
      }).products(forWhom),
    ).toEqual({
      status: 'ok',
      products: [],
    });
  });

  it('declares what it can do', () => {
    expect(reloadlyA.capabilities).toEqual({ lookupByOwnReference: true, balance: true, productList: true, transactionReport: true });
  });
});

describe('DT One: GET /products?country_iso_code=SOM as products', () => {
  it('every product, page after page, at its face value and its wholesale price + fee; on the trail with no sale', async () => {
    const before = (await trailOf('dtone', 'GET /products')).length;
    const products = await productsOf(dtoneA);
    expect(products.map((p) => p.productId)).toEqual(['91001', '91002', '91003', '91004']);
    expect(products[0]).toEqual({
      productId: '91001',
      operatorId: '2701',
      operatorName: 'Hormuud',
      name: 'Hormuud 1 GB',
      description: '1 GB data, 1 day',
      amount: 50,
      currency: 'USD',
      // 0.40 + its fee 0.004, up to whole cents.
      wholesale: 41,
    });
    const pages = (await trailOf('dtone', 'GET /products')).slice(before);
    expect(pages.map((c) => [c.recharge_id, c.http_status, c.outcome, c.request])).toEqual([
      [null, 200, 'ok', '?country_iso_code=SOM&page=1&per_page=2'],
      [null, 200, 'ok', '?country_iso_code=SOM&page=2&per_page=2'],
      [null, 200, 'ok', '?country_iso_code=SOM&page=3&per_page=2'],
    ]);
  });

  it("one operator's products (operator_id); the stand-in answers another country with none", async () => {
    expect((await productsOf(dtoneA, '2701')).map((p) => p.productId)).toEqual(['91001', '91002']);
    expect(await productsOf(dtoneA, '9999')).toEqual([]);
    const authorization = `Basic ${Buffer.from(`${DTONE_STAND_IN_CREDENTIALS.apiKey}:${DTONE_STAND_IN_CREDENTIALS.apiSecret}`).toString('base64')}`;
    const kenya = await fetch(`${dtoneServer.url}/v1/products?country_iso_code=KEN`, { headers: { authorization } });
    expect(await kenya.json()).toEqual([]);
  });

  it('a withdrawn product disappears and is refused when sent (1003001: failed); an added one appears and delivers; a reset brings it back', async () => {
    expect(dtone.withdrawProduct(91002)).toBe(true);
    dtone.addProduct({
      id: 91010,
      name: 'Telesom 2 GB',
      description: '2 GB data, 7 days',
      operator: { id: 2704, name: 'Telesom' },
      amount: 0.8,
      fee: 0.021,
      retail: 1,
    });
    const products = await productsOf(dtoneA);
    expect(products.map((p) => p.productId)).toEqual(['91001', '91003', '91004', '91010']);
    // Wholesale 0.80 + fee 0.021: 82.1 cents, up to 83 (never below what DT One takes).
    expect(products[3]).toMatchObject({ operatorId: '2704', operatorName: 'Telesom', amount: 100, wholesale: 83, currency: 'USD' });

    expect(await dtoneA.send(topUp('CAT-DT-WITHDRAWN', null, '91002', '615551001'), forWhom)).toMatchObject({
      status: 'failed',
      deliveryId: null,
      reason: expect.stringContaining('1003001'),
    });
    expect(dtone.byExternalId('CAT-DT-WITHDRAWN')).toBeUndefined();
    expect(await dtoneA.send(topUp('CAT-DT-ADDED', null, '91010', '635551001'), forWhom)).toMatchObject({ status: 'processing' });

    dtone.resetCatalogue();
    expect((await productsOf(dtoneA)).map((p) => p.productId)).toEqual(['91001', '91002', '91003', '91004']);
    expect(await dtoneA.send(topUp('CAT-DT-AFTER', null, '91002', '615551001'), forWhom)).toMatchObject({ status: 'processing' });
  });

  it('a 503 is unknown; so is a failure on a later page (never a shorter list), a refusal, an answer that is not a catalogue, and one too long', async () => {
    dtone.injectFault({ path: '/v1/products' }, '503');
    expect(await dtoneA.products(forWhom)).toEqual({ status: 'unknown', error: 'HTTP 503: the outcome is unknown' });

    const product = (id: number) => ({ id, name: `P${id}`, operator: { id: 1, name: 'Op' }, prices: { wholesale: { amount: 1, fee: 0, unit: 'USD' } } });
    const answering = (answer: (page: number) => Response, productsPerPage = 2) => {
      const fake: FetchLike = async (url) => answer(Number(new URL(url).searchParams.get('page')));
      return dtOneAdapter(
        { apiUrl: 'http://dtone.test/v1', apiKey: 'k', apiSecret: 's', timeoutMs: 1000, productsPerPage },
        { fetch: fake, trail: async () => undefined },
      );
    };
    expect(await answering((page) => (page === 1 ? json(200, [product(1), product(2)]) : json(500, {}))).products(forWhom)).toEqual({
      status: 'unknown',
      error: 'HTTP 500: the outcome is unknown',
    });
    expect(await answering(() => json(400, { errors: [{ code: 1000400, message: 'Invalid request' }] })).products(forWhom)).toEqual({
      status: 'unknown',
      error: 'DT One refused the catalogue request: HTTP 400 1000400 Invalid request',
    });
    for (const body of [{ products: [] }, [{ name: 'no id' }], [{ id: 5, name: 'no operator' }], [{ id: 5, operator: { id: 1 }, prices: {} }]]) {
      expect(await answering(() => json(200, body)).products(forWhom)).toMatchObject({
        status: 'unknown',
        error: expect.stringMatching(/^Unclassified answer to the catalogue request/),
      });
    }
    let calls = 0;
    const endless = answering(() => json(200, [product(++calls)]), 1);
    expect(await endless.products(forWhom)).toEqual({
      status: 'unknown',
      error: `The catalogue has more than ${DTONE_MAX_PRODUCT_PAGES} pages of 1: not read`,
    });
    expect(calls).toBe(DTONE_MAX_PRODUCT_PAGES);
    // Without a destination or a retail price, the wholesale price is the face value.
    expect(await answering(() => json(200, [product(3)])).products(forWhom)).toMatchObject({
      status: 'ok',
      products: [{ productId: '3', amount: 100, wholesale: 100 }],
    });
  });

  it('declares what it can do', () => {
    expect(dtoneA.capabilities).toEqual({ lookupByOwnReference: true, balance: true, productList: true, transactionReport: true });
  });
});

describe('the float left at each aggregator (balance())', () => {
  it('Reloadly: GET /accounts/balance in cents, lower after a delivered top-up; DT One: GET /balances in USD', async () => {
    // Earlier tests here delivered on the same stand-in: the float is what it started with less those.
    const before = await reloadlyA.balance(forWhom);
    if (before.status !== 'ok') throw new Error(before.error);
    expect(before.currency).toBe('USD');
    expect(before.amount).toBeLessThanOrEqual(1_000_000);
    const sent = await reloadlyA.send(topUp('FLOAT-1', '1650', '5.00'), forWhom);
    expect(sent.status).not.toBe('failed');
    for (let i = 0; i < 50 && (await reloadlyA.lookup('FLOAT-1', forWhom)).status !== 'delivered'; i++) await new Promise((r) => setTimeout(r, 20));
    // The float pays what the top-up cost: 5.00 less Hormuud's 4 % discount.
    expect(await reloadlyA.balance(forWhom)).toEqual({ status: 'ok', amount: before.amount - 480, currency: 'USD' });
    expect(await dtoneA.balance(forWhom)).toEqual({ status: 'ok', amount: 1_000_000, currency: 'USD' });
    expect((await trailOf('reloadly', 'GET /accounts/balance')).length).toBe(2);
  });

  it('an answer that is not a balance is unknown, never a number', async () => {
    const broken: FetchLike = async () => json(200, { nothing: true });
    const adapter = dtOneAdapter(
      { apiUrl: 'http://dtone.invalid/v1', ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: 500 },
      { trail: databaseTrail(h.knex), fetch: broken },
    );
    expect((await adapter.balance(forWhom)).status).toBe('unknown');
  });
});
