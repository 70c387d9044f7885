import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FetchLike, RemoteCallRecord, RemoteTrail } from '../remote-call.ts';
import { startStandInServer, type RunningStandIn } from '../stand-ins/stand-in-server.ts';
import { createReloadlyStandIn, RELOADLY_STAND_IN_CREDENTIALS, type ReloadlyStandIn } from './reloadly/reloadly-stand-in.ts';
import { reloadlyAdapter, RELOADLY_REPORT_PAGE_SIZE } from './reloadly/reloadly-adapter.ts';
import { createDtOneStandIn, DTONE_STAND_IN_CREDENTIALS, type DtOneStandIn } from './dtone/dtone-stand-in.ts';
import { dtOneAdapter, DTONE_REPORT_PAGE_SIZE } from './dtone/dtone-adapter.ts';
import { sandboxDeliveryConnector } from './sandbox/sandbox-connector.ts';
import type { DeliveryRequest, OperatorAdapter, TopUpReport, VendorTopUp } from './operator-adapter.ts';
import type { CommonMoneyEnv } from '../connector.ts';

/**
 * The aggregators' reports for a period (transactions(), issue 26): what the daily close compares
 * the day's sales with. Each adapter against its stand-in over HTTP: every page followed, every
 * state read, the cost as the aggregator states it, top-ups the product never sent (planted in the
 * stand-in's books) listed with their own or no reference, a record changed afterwards (refunded,
 * reversed) read as it stands now, and records dated just outside the period left out. No database
 * is involved (the trail is kept in memory to count the pages asked for).
 */
const calls: RemoteCallRecord[] = [];
const trail: RemoteTrail = async (_id, call) => {
  calls.push(call);
};
const forWhom = { rechargeId: null };
// Answered pages (a 401 after the stand-in's reset forgot the token is asked again, and not a page).
const reportCalls = (operation: string) => calls.filter((c) => c.operation === operation && c.httpStatus === 200).length;

/** A past day, so the live sends of other tests (dated now) never fall in it. */
const DAY = { from: new Date('2026-01-10T00:00:00Z'), to: new Date('2026-01-11T00:00:00Z') };
const at = (iso: string) => new Date(iso);

const records = (report: TopUpReport): VendorTopUp[] => {
  if (report.status !== 'ok') throw new Error(`expected a report, got ${report.error}`);
  return report.records;
};
const byRef = (list: VendorTopUp[], ref: string) => list.find((r) => r.ourReference === ref);

describe('Reloadly: GET /topups/reports/transactions for a period', () => {
  let stand: ReloadlyStandIn;
  let server: RunningStandIn;
  let adapter: OperatorAdapter;
  beforeAll(async () => {
    stand = createReloadlyStandIn({ latencyMs: 2, processingPolls: 0 });
    server = await startStandInServer(stand.combinedHandle);
    adapter = reloadlyAdapter({ authUrl: `${server.url}/oauth/token`, apiUrl: server.url, ...RELOADLY_STAND_IN_CREDENTIALS, timeoutMs: 2000 }, { trail });
  });
  beforeEach(() => {
    stand.reset();
    calls.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  const send = (ref: string, phone: string, amount = '2.50'): DeliveryRequest => ({
    customIdentifier: ref,
    phone,
    externalOperatorId: null,
    productCode: amount,
    cost: 0,
  });

  it('lists the day of sends in every state, the cost as Reloadly states it (amount less its discount), and what was planted', async () => {
    expect(adapter.capabilities.transactionReport).toBe(true);
    const started = new Date(Date.now() - 1000);
    expect(await adapter.send(send('REP-OK', '615551234'), forWhom)).toMatchObject({ status: 'delivered' });
    expect(await adapter.send(send('REP-FAIL', '615559999'), forWhom)).toMatchObject({ status: 'failed' });
    expect(await adapter.send(send('REP-PROC', '615553333'), forWhom)).toMatchObject({ status: 'processing' });
    expect(await adapter.send(send('REP-LATER-REFUNDED', '625551234', '5.00'), forWhom)).toMatchObject({ status: 'delivered' });
    // The operator reversed it afterwards; a top-up nobody here sent; one without our reference.
    stand.amendTopUp('REP-LATER-REFUNDED', { status: 'REFUNDED' });
    stand.plantTopUp({ customIdentifier: 'SOMEONE-ELSES-1', phone: '905551234', requestedAmount: 1 });
    stand.plantTopUp({ customIdentifier: null, phone: '615550001', requestedAmount: 3, status: 'FAILED' });
    const list = records(await adapter.transactions({ from: started, to: new Date(Date.now() + 1000) }, forWhom));
    expect(list).toHaveLength(6);
    // Hormuud's discount is 4 %: 2.50 costs 2.40.
    expect(byRef(list, 'REP-OK')).toEqual({
      vendorId: expect.stringMatching(/^\d+$/),
      ourReference: 'REP-OK',
      state: 'done',
      amount: 250,
      currency: 'USD',
      cost: 240,
      costCurrency: 'USD',
      phone: '252615551234',
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
    });
    expect(byRef(list, 'REP-FAIL')).toMatchObject({ state: 'failed', amount: 250 });
    expect(byRef(list, 'REP-PROC')).toMatchObject({ state: 'pending' });
    // Somtel's 3.5 % of 5.00: 17 cents (rounded down), so 4.83.
    expect(byRef(list, 'REP-LATER-REFUNDED')).toMatchObject({ state: 'refunded', amount: 500, cost: 483 });
    // Golis 3 % of 1.00.
    expect(byRef(list, 'SOMEONE-ELSES-1')).toMatchObject({ state: 'done', amount: 100, cost: 97, phone: '252905551234' });
    expect(list.filter((r) => r.ourReference === null)).toEqual([expect.objectContaining({ state: 'failed', amount: 300 })]);
    expect(new Set(list.map((r) => r.vendorId)).size).toBe(6);
    // The one still processing is delivered afterwards: the report and a lookup say so, with what reached the number.
    stand.amendTopUp('REP-PROC', { status: 'SUCCESSFUL' });
    const later = records(await adapter.transactions({ from: started, to: new Date(Date.now() + 1000) }, forWhom));
    expect(byRef(later, 'REP-PROC')?.state).toBe('done');
    expect(await adapter.lookup('REP-PROC', forWhom)).toMatchObject({ status: 'delivered', deliveredAmount: 250, cost: 240 });
  });

  it('a period is [from, to): records dated just before it or at its end are left out; a delivered amount that differs is the vendor’s', async () => {
    stand.plantTopUp({ customIdentifier: 'DAY-FIRST', requestedAmount: 1, transactionDate: at('2026-01-10T00:00:00Z') });
    stand.plantTopUp({ customIdentifier: 'DAY-LAST', requestedAmount: 2, deliveredAmount: 1.5, transactionDate: at('2026-01-10T23:59:59Z') });
    stand.plantTopUp({ customIdentifier: 'DAY-BEFORE', requestedAmount: 1, transactionDate: at('2026-01-09T23:59:59Z') });
    stand.plantTopUp({ customIdentifier: 'DAY-AFTER', requestedAmount: 1, transactionDate: at('2026-01-11T00:00:00Z') });
    const list = records(await adapter.transactions(DAY, forWhom));
    expect(list.map((r) => r.ourReference).sort()).toEqual(['DAY-FIRST', 'DAY-LAST']);
    expect(byRef(list, 'DAY-FIRST')?.at).toBe('2026-01-10T00:00:00.000Z');
    // The report states the face amount sent; the sale's record (not the report) keeps what was delivered.
    expect(byRef(list, 'DAY-LAST')).toMatchObject({ amount: 200, at: '2026-01-10T23:59:59.000Z' });
    // Moved to another day afterwards: no longer in this one.
    stand.amendTopUp('DAY-LAST', { transactionDate: at('2026-01-12T08:00:00Z') });
    expect(records(await adapter.transactions(DAY, forWhom)).map((r) => r.ourReference)).toEqual(['DAY-FIRST']);
  });

  it('follows every page of the report', async () => {
    const count = 2 * RELOADLY_REPORT_PAGE_SIZE + 50;
    for (let i = 0; i < count; i++)
      stand.plantTopUp({ customIdentifier: `PAGE-${i}`, requestedAmount: 1, transactionDate: new Date(DAY.from.getTime() + i * 60_000) });
    const list = records(await adapter.transactions(DAY, forWhom));
    expect(list).toHaveLength(count);
    expect(new Set(list.map((r) => r.ourReference)).size).toBe(count);
    expect(reportCalls('GET /topups/reports/transactions')).toBe(3);
  });

  it('an unreadable page, a refusal or no answer makes the whole report unknown, never a shorter list', async () => {
    const answering =
      (body: unknown, status = 200): FetchLike =>
      async (url) => {
        if (url.endsWith('/oauth/token')) return new Response(JSON.stringify({ access_token: 't', expires_in: 3600 }), { status: 200 });
        return new Response(JSON.stringify(body), { status });
      };
    const config = { authUrl: 'http://reloadly.invalid/oauth/token', apiUrl: 'http://reloadly.invalid', ...RELOADLY_STAND_IN_CREDENTIALS, timeoutMs: 500 };
    const good = { transactionId: 1, status: 'SUCCESSFUL', requestedAmount: 1, requestedAmountCurrencyCode: 'USD', transactionDate: '2026-01-10 10:00:00' };
    for (const [body, status] of [
      [{ content: [good, { ...good, transactionId: 2, status: 'ON_HOLD' }], totalPages: 1 }, 200],
      [{ content: [{ ...good, transactionDate: 'yesterday' }], totalPages: 1 }, 200],
      [{ nothing: true }, 200],
      [{ errorCode: 'INVALID_REQUEST', message: 'bad dates' }, 400],
      [{ message: 'down' }, 503],
    ] as const) {
      const report = await reloadlyAdapter(config, { trail, fetch: answering(body, status) }).transactions(DAY, forWhom);
      expect(report.status).toBe('unknown');
    }
    const fine = await reloadlyAdapter(config, { trail, fetch: answering({ content: [good], totalPages: 1, last: true }) }).transactions(DAY, forWhom);
    expect(records(fine)).toEqual([expect.objectContaining({ vendorId: '1', ourReference: null, state: 'done', cost: null, at: '2026-01-10T10:00:00.000Z' })]);
  });

  it('plants and amends records over HTTP too (POST /_standin/topups), as a person trying the close would', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}/_standin/topups${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const planted = await post('', { customIdentifier: 'RCFOREIGN0001', requestedAmount: 1.5, transactionDate: '2026-01-10T09:00:00Z' });
    expect(planted).toMatchObject({ status: 200, body: { customIdentifier: 'RCFOREIGN0001', status: 'SUCCESSFUL', requestedAmount: 1.5 } });
    expect(await post('/RCFOREIGN0001', { status: 'REFUNDED' })).toMatchObject({ status: 200, body: { status: 'REFUNDED' } });
    expect(byRef(records(await adapter.transactions(DAY, forWhom)), 'RCFOREIGN0001')).toMatchObject({ state: 'refunded', amount: 150 });
    // Bad controls say what is wrong and plant nothing.
    expect(await post('', { customIdentifier: 'RCFOREIGN0002' })).toMatchObject({ status: 400 });
    expect(await post('', { requestedAmount: 1, transactionDate: 'yesterday' })).toMatchObject({ status: 400 });
    expect(await post('/RCNOSUCH', { status: 'FAILED' })).toMatchObject({ status: 400 });
    expect(byRef(records(await adapter.transactions(DAY, forWhom)), 'RCFOREIGN0002')).toBeUndefined();
  });

  it('the sandbox aggregator (Reloadly’s protocol on the stand-in) answers the same report', async () => {
    const sandbox = sandboxDeliveryConnector.build({
      env: { OPERATOR_TIMEOUT_MS: 2000 } as CommonMoneyEnv & Record<string, unknown>,
      trail,
      http: (url, init) => fetch(url, init),
      standInUrls: { reloadly: server.url },
      livePayment: false,
    });
    stand.plantTopUp({ customIdentifier: 'SANDBOX-1', requestedAmount: 0.5, transactionDate: at('2026-01-10T12:00:00Z') });
    expect(sandbox.name).toBe('sandbox');
    expect(records(await sandbox.transactions(DAY, forWhom))).toEqual([expect.objectContaining({ ourReference: 'SANDBOX-1', amount: 50, cost: 48 })]);
  });
});

describe('DT One: GET /transactions for a period', () => {
  let stand: DtOneStandIn;
  let server: RunningStandIn;
  let adapter: OperatorAdapter;
  beforeAll(async () => {
    stand = createDtOneStandIn({ latencyMs: 2 });
    server = await startStandInServer(stand.handle);
    adapter = dtOneAdapter({ apiUrl: `${server.url}/v1`, ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: 2000 }, { trail });
  });
  beforeEach(() => {
    stand.reset();
    calls.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  const send = (ref: string, phone: string, productCode = '91001'): DeliveryRequest => ({
    customIdentifier: ref,
    phone,
    externalOperatorId: null,
    productCode,
    cost: 0,
  });
  const settled = async (ref: string) => {
    for (let i = 0; i < 100 && ['processing'].includes((await adapter.lookup(ref, forWhom)).status); i++) await new Promise((r) => setTimeout(r, 5));
  };

  it('lists the sends in every class, the cost as wholesale + fee, and what was planted or reversed afterwards', async () => {
    expect(adapter.capabilities.transactionReport).toBe(true);
    const started = new Date(Date.now() - 1000);
    for (const [ref, phone] of [
      ['DT-REP-OK', '615551001'],
      ['DT-REP-DECL', '615551004'],
      ['DT-REP-SUB', '615551998'],
      ['DT-REP-REV', '615551000'],
    ])
      await adapter.send(send(ref, phone), forWhom);
    for (const ref of ['DT-REP-OK', 'DT-REP-DECL', 'DT-REP-REV']) await settled(ref);
    stand.amendTransaction('DT-REP-REV', { status: 'REVERSED' });
    stand.plantTransaction({ externalId: 'NOT-OURS-7', productId: 91003, status: 'COMPLETED' });
    stand.plantTransaction({ externalId: null, status: 'CANCELLED' });
    stand.plantTransaction({ externalId: 'DT-REP-REJ', status: 'REJECTED' });
    const list = records(await adapter.transactions({ from: started, to: new Date(Date.now() + 1000) }, forWhom));
    expect(list).toHaveLength(7);
    // 91001: wholesale 0.40 + fee 0.004, up to 41 cents; its face value 0.50 delivered.
    expect(byRef(list, 'DT-REP-OK')).toEqual({
      vendorId: expect.stringMatching(/^\d+$/),
      ourReference: 'DT-REP-OK',
      state: 'done',
      amount: 50,
      currency: 'USD',
      cost: 41,
      costCurrency: 'USD',
      phone: '+252615551001',
      at: expect.any(String),
    });
    expect(byRef(list, 'DT-REP-DECL')?.state).toBe('failed');
    expect(byRef(list, 'DT-REP-SUB')?.state).toBe('pending');
    expect(byRef(list, 'DT-REP-REV')?.state).toBe('refunded');
    expect(byRef(list, 'DT-REP-REJ')?.state).toBe('failed');
    // 91003: 0.45 + 0.0045 -> 46 cents; face 0.55.
    expect(byRef(list, 'NOT-OURS-7')).toMatchObject({ state: 'done', amount: 55, cost: 46 });
    expect(list.filter((r) => r.ourReference === null)).toEqual([expect.objectContaining({ state: 'failed' })]);
  });

  it('a period is [from, to), and every page is followed', async () => {
    stand.plantTransaction({ externalId: 'DT-DAY-FIRST', createdAt: at('2026-01-10T00:00:00Z') });
    stand.plantTransaction({ externalId: 'DT-DAY-LAST', retail: 0.45, createdAt: at('2026-01-10T23:59:59.999Z') });
    stand.plantTransaction({ externalId: 'DT-DAY-BEFORE', createdAt: at('2026-01-09T23:59:59.999Z') });
    stand.plantTransaction({ externalId: 'DT-DAY-AFTER', createdAt: at('2026-01-11T00:00:00Z') });
    const day = records(await adapter.transactions(DAY, forWhom));
    expect(day.map((r) => r.ourReference).sort()).toEqual(['DT-DAY-FIRST', 'DT-DAY-LAST']);
    // What reached the number, as DT One says it: less than the product's face value.
    expect(byRef(day, 'DT-DAY-LAST')).toMatchObject({ amount: 45, cost: 41 });

    stand.reset();
    calls.length = 0;
    const count = 2 * DTONE_REPORT_PAGE_SIZE + 30;
    for (let i = 0; i < count; i++) stand.plantTransaction({ externalId: `DT-PAGE-${i}`, createdAt: new Date(DAY.from.getTime() + i * 60_000) });
    const list = records(await adapter.transactions(DAY, forWhom));
    expect(list).toHaveLength(count);
    expect(new Set(list.map((r) => r.vendorId)).size).toBe(count);
    expect(reportCalls('GET /transactions')).toBe(3);
  });

  it('an unreadable page or a refusal makes the whole report unknown', async () => {
    const answering =
      (body: unknown, status = 200): FetchLike =>
      async () =>
        new Response(JSON.stringify(body), { status });
    const config = { apiUrl: 'http://dtone.invalid/v1', ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: 500 };
    const good = { id: 5, status: { class: { id: 7 } }, creation_date: '2026-01-10T10:00:00Z', prices: { wholesale: { amount: 1, fee: 0.1, unit: 'USD' } } };
    for (const [body, status] of [
      [[good, { ...good, id: 6, creation_date: null }], 200],
      [[{ ...good, status: {} }], 200],
      [{ not: 'a list' }, 200],
      [{ errors: [{ code: 1000401, message: 'Unauthorized' }] }, 401],
    ] as const) {
      expect((await dtOneAdapter(config, { trail, fetch: answering(body, status) }).transactions(DAY, forWhom)).status).toBe('unknown');
    }
    // Without benefits or a retail price the face amount is what it cost.
    expect(records(await dtOneAdapter(config, { trail, fetch: answering([good]) }).transactions(DAY, forWhom))).toEqual([
      expect.objectContaining({ vendorId: '5', ourReference: null, state: 'done', amount: 110, cost: 110, costCurrency: 'USD' }),
    ]);
  });
});
