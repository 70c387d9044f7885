import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  drawMillis,
  inProcessFetch,
  parseMillis,
  startStandInServer,
  STAND_IN_SERVER_LIMITS,
  type FetchLike,
  type RunningStandIn,
  type StandInHandler,
} from './stand-in-server.ts';
import {
  createWaafiPayStandIn,
  truncateAmount,
  WAAFIPAY_RESULTS,
  WAAFIPAY_STAND_IN_CREDENTIALS,
  type WaafiBooks,
  type WaafiPayStandIn,
} from '../payments/waafipay/waafipay-stand-in.ts';
import { createReloadlyStandIn, RELOADLY_STAND_IN_CREDENTIALS, type ReloadlyBooks, type ReloadlyStandIn } from '../deliveries/reloadly/reloadly-stand-in.ts';

// Raw HTTP against the stand-ins, as the product's adapters will speak it. Latencies are a few
// milliseconds so the suite stays fast while every wait path still runs.

interface Reply {
  status: number;
  contentType: string | null;
  body: any;
}

async function call(
  doFetch: FetchLike,
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Reply> {
  const res = await doFetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

/** Resolves to the error a request rejected with (fails the test if it answered). */
async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

const running: RunningStandIn[] = [];
async function serve(handler: StandInHandler): Promise<string> {
  const server = await startStandInServer(handler);
  running.push(server);
  return server.url;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

describe('stand-in server', () => {
  const echo: StandInHandler = async (req) => {
    if (req.path === '/reset') return { kind: 'reset' };
    if (req.path === '/hang') return { kind: 'hang' };
    if (req.path === '/boom') throw new Error('bug');
    return {
      kind: 'answer',
      status: 201,
      body: { method: req.method, path: req.path, q: req.query.get('q'), auth: req.headers.authorization ?? null, body: req.body ?? null },
    };
  };

  it('binds loopback on a free port and speaks JSON both ways', async () => {
    const url = await serve(echo);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await call(fetch, `${url}/x?q=1`, { body: { a: 1 }, headers: { authorization: 'Bearer t' } });
    expect(reply).toEqual({ status: 201, contentType: 'application/json', body: { method: 'POST', path: '/x', q: '1', auth: 'Bearer t', body: { a: 1 } } });
  });

  it('refuses malformed JSON, oversized bodies, and answers 500 when the handler throws', async () => {
    const url = await serve(echo);
    const malformed = await fetch(`${url}/x`, { method: 'POST', body: '{nope' });
    expect([malformed.status, await malformed.json()]).toEqual([400, { message: 'Malformed JSON' }]);
    const huge = await fetch(`${url}/x`, { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(70_000) }) });
    expect(huge.status).toBe(413);
    expect((await call(fetch, `${url}/boom`)).status).toBe(500);
  });

  it('a reset rejects the fetch; a hang lasts until the client gives up', async () => {
    const url = await serve(echo);
    const reset = await rejection(fetch(`${url}/reset`, { method: 'POST', body: '{}' }));
    expect(reset).toBeInstanceOf(TypeError);
    const hang = await rejection(fetch(`${url}/hang`, { signal: AbortSignal.timeout(200) }));
    expect(hang.name).toBe('TimeoutError');
  });

  it('close() resolves quickly while a request hangs', async () => {
    const server = await startStandInServer(echo);
    const pending = rejection(fetch(`${server.url}/hang`));
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the request arrive
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(TypeError);
  });

  it('inProcessFetch gives the same answers and failures as HTTP, with no socket', async () => {
    const url = await serve(echo);
    const direct = inProcessFetch(echo);
    for (const init of [{ body: { a: [1, 2] } }, { method: 'GET' }, { body: 'text' }]) {
      expect(await call(direct, `${url}/x?q=2`, init)).toEqual(await call(fetch, `${url}/x?q=2`, init));
    }
    const malformed = await direct(`${url}/x`, { method: 'POST', body: '{nope' });
    expect([malformed.status, await malformed.json()]).toEqual([400, { message: 'Malformed JSON' }]);
    expect((await call(direct, `${url}/boom`)).status).toBe(500);

    const reset = await rejection(direct(`${url}/reset`, { method: 'POST', body: '{}' }));
    expect(reset).toBeInstanceOf(TypeError);
    expect(reset.message).toBe('fetch failed');
    expect(reset.cause.code).toBe('ECONNRESET');

    // The same rejection as the global fetch: the signal's reason.
    const timedOut = await rejection(direct(`${url}/hang`, { signal: AbortSignal.timeout(50) }));
    expect(timedOut.name).toBe('TimeoutError');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect((await rejection(direct(`${url}/hang`, { signal: controller.signal }))).name).toBe('AbortError');
  });
});

// ---------------------------------------------------------------------------------------------

describe('WaafiPay stand-in', () => {
  let stand: WaafiPayStandIn;
  let asm: string;
  let doFetch: FetchLike = fetch;
  const creds = WAAFIPAY_STAND_IN_CREDENTIALS;
  let seq = 0;

  beforeEach(async () => {
    stand = createWaafiPayStandIn({ approvalMs: 4 });
    asm = `${await serve(stand.handle)}/asm`;
    doFetch = fetch;
  });

  const envelope = (serviceName: string, serviceParams: Record<string, unknown>) => ({
    schemaVersion: '1.0',
    requestId: `req-${++seq}`,
    timestamp: new Date().toISOString(),
    channelName: 'WEB',
    serviceName,
    serviceParams,
  });
  const chargeBody = (referenceId: string, accountNo: string, extra: Record<string, unknown> = {}, service = 'API_PREAUTHORIZE') =>
    envelope(service, {
      merchantUid: creds.merchantUid,
      apiUserId: creds.apiUserId,
      apiKey: creds.apiKey,
      paymentMethod: 'MWALLET_ACCOUNT',
      payerInfo: { accountNo },
      transactionInfo: { referenceId, invoiceId: referenceId, amount: '5.00', currency: 'USD', description: 'Bundle', ...extra },
    });
  const charge = (referenceId: string, accountNo = '252615551234', extra: Record<string, unknown> = {}, service = 'API_PREAUTHORIZE', signal?: AbortSignal) =>
    call(doFetch, asm, { body: chargeBody(referenceId, accountNo, extra, service), signal });
  const settle = (serviceName: string, transactionId: string, referenceId?: string) =>
    call(doFetch, asm, {
      body: envelope(serviceName, {
        merchantUid: creds.merchantUid,
        apiUserId: creds.apiUserId,
        apiKey: creds.apiKey,
        transactionId,
        referenceId,
        description: 'settle',
      }),
    });
  const info = (referenceId: string) =>
    call(doFetch, asm, { body: envelope('HPP_GETTRANINFO', { merchantUid: creds.merchantUid, storeId: creds.storeId, hppKey: creds.hppKey, referenceId }) });

  it('approves an ordinary number with the WaafiPay envelope', async () => {
    const reply = await charge('ref-ok');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe('application/json');
    expect(reply.body).toMatchObject({ schemaVersion: '1.0', responseCode: '2001', errorCode: '0', responseMsg: 'RCS_SUCCESS' });
    expect(reply.body.params).toMatchObject({ state: 'APPROVED', referenceId: 'ref-ok', txAmount: '5.00', accountNo: '252615551234' });
    expect(typeof reply.body.responseId).toBe('string');
    expect(stand.byReference('ref-ok')).toMatchObject({ kind: 'preauthorize', state: 'Approved', transactionId: reply.body.params.transactionId, requests: 1 });

    const status = await info('ref-ok');
    expect(status.body.responseCode).toBe('2001');
    expect(status.body.params).toMatchObject({
      referenceId: 'ref-ok',
      transactionId: reply.body.params.transactionId,
      status: 'Approved',
      tranStatusDesc: 'Approved',
      txAmount: '5.00',
      currency: 'USD',
    });
  });

  it('is Pending while the payer types the PIN', async () => {
    stand = createWaafiPayStandIn({ approvalMs: 300 });
    asm = `${await serve(stand.handle)}/asm`;
    const charging = charge('ref-pin');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await info('ref-pin')).body.params.status).toBe('Pending');
    expect((await charging).body.params.state).toBe('APPROVED');
    expect((await info('ref-pin')).body.params.status).toBe('Approved');
  });

  it('0000 declines with 5206', async () => {
    const reply = await charge('ref-0000', '252615550000');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ responseCode: '5206', errorCode: 'E10205', responseMsg: 'RCS_USER_REJECTED' });
    expect(reply.body.params).toEqual({
      state: 'DECLINED',
      referenceId: 'ref-0000',
      description: 'Payment declined: the payer cancelled or has too little balance',
    });
    expect((await info('ref-0000')).body.params.status).toBe('Declined');
  });

  it('0001 approves but loses the answer once; the status query tells Approved and a retry is a duplicate', async () => {
    expect(await rejection(charge('ref-0001', '252615550001'))).toBeInstanceOf(TypeError);
    expect((await info('ref-0001')).body.params.status).toBe('Approved');
    const retry = await charge('ref-0001', '252615550001');
    expect(retry.body).toMatchObject({
      responseCode: '5310',
      errorCode: 'E10316',
      responseMsg: 'RCS_DUPLICATE_REFERENCE_ID',
      params: { referenceId: 'ref-0001' },
    });
    expect(stand.transactions()).toHaveLength(1);
    expect(stand.byReference('ref-0001')).toMatchObject({ state: 'Approved', requests: 2 });
  });

  it('0002 answers 503 to the first charge without processing it; the retry goes through', async () => {
    const first = await charge('ref-0002', '252615550002');
    expect([first.status, first.body]).toEqual([503, { message: 'Service Unavailable' }]);
    expect(stand.byReference('ref-0002')).toBeUndefined();
    expect((await charge('ref-0002', '252615550002')).body.params.state).toBe('APPROVED');
    expect(stand.byReference('ref-0002')).toMatchObject({ state: 'Approved', requests: 2 });
  });

  it('0003 never reaches the gateway: reset every time, and the status query finds nothing', async () => {
    for (let i = 0; i < 2; i++) expect(await rejection(charge('ref-0003', '252615550003'))).toBeInstanceOf(TypeError);
    expect((await info('ref-0003')).body).toMatchObject({ responseCode: '5310', errorCode: 'E10309', responseMsg: 'RCS_TRANSACTION_NOT_FOUND' });
    expect(stand.transactions()).toEqual([]);
  });

  it('0004 loses the answer to the first commit; committing again succeeds', async () => {
    const { transactionId } = (await charge('ref-0004', '252615550004')).body.params;
    expect(await rejection(settle('API_PREAUTHORIZE_COMMIT', transactionId, 'ref-0004'))).toBeInstanceOf(TypeError);
    expect(stand.byReference('ref-0004')?.state).toBe('Committed');
    const again = await settle('API_PREAUTHORIZE_COMMIT', transactionId, 'ref-0004');
    expect(again.body).toMatchObject({ responseCode: '2001', params: { state: 'COMMITTED', transactionId, referenceId: 'ref-0004' } });
  });

  it('0005 answers 503 to every commit and cancel, without processing', async () => {
    const { transactionId } = (await charge('ref-0005', '252615550005')).body.params;
    for (const service of ['API_PREAUTHORIZE_COMMIT', 'API_PREAUTHORIZE_CANCEL', 'API_PREAUTHORIZE_COMMIT']) {
      expect((await settle(service, transactionId, 'ref-0005')).status).toBe(503);
    }
    expect(stand.byReference('ref-0005')?.state).toBe('Approved');
  });

  it('a duplicate referenceId is refused and never charges twice, even while the first is pending', async () => {
    stand = createWaafiPayStandIn({ approvalMs: 100 });
    asm = `${await serve(stand.handle)}/asm`;
    const [first, second] = await Promise.all([charge('ref-dup'), charge('ref-dup', '252615559876', { amount: '9.00' })]);
    expect(first.body.responseCode).toBe('2001');
    expect(second.body).toMatchObject({ errorCode: 'E10316', params: { referenceId: 'ref-dup' } });
    expect(stand.transactions()).toEqual([expect.objectContaining({ referenceId: 'ref-dup', amount: '5.00', accountNo: '252615551234', requests: 2 })]);
  });

  it('commit and cancel follow the state rules, and repeat idempotently', async () => {
    const a = (await charge('ref-a')).body.params.transactionId;
    expect((await settle('API_PREAUTHORIZE_COMMIT', a, 'ref-a')).body.params.state).toBe('COMMITTED');
    expect((await settle('API_PREAUTHORIZE_COMMIT', a, 'ref-a')).body.responseCode).toBe('2001');
    expect((await settle('API_PREAUTHORIZE_CANCEL', a, 'ref-a')).body).toMatchObject({ errorCode: 'E10320', responseMsg: 'RCS_INVALID_TRANSACTION_STATE' });

    const b = (await charge('ref-b')).body.params.transactionId;
    expect((await settle('API_PREAUTHORIZE_CANCEL', b, 'ref-b')).body.params.state).toBe('CANCELLED');
    expect((await settle('API_PREAUTHORIZE_CANCEL', b)).body.responseCode).toBe('2001'); // referenceId may be left out
    expect((await settle('API_PREAUTHORIZE_COMMIT', b, 'ref-b')).body.errorCode).toBe('E10320');

    const declined = (await charge('ref-d', '252615550000')).body;
    expect(declined.responseCode).toBe('5206');
    const dId = stand.byReference('ref-d')!.transactionId;
    expect((await settle('API_PREAUTHORIZE_COMMIT', dId, 'ref-d')).body.errorCode).toBe('E10320');

    const p = (await charge('ref-p', '252615551234', {}, 'API_PURCHASE')).body.params.transactionId;
    expect(stand.byReference('ref-p')).toMatchObject({ kind: 'purchase', state: 'Approved' });
    expect((await settle('API_PREAUTHORIZE_COMMIT', p, 'ref-p')).body.errorCode).toBe('E10320');
    expect((await settle('API_CANCELPURCHASE', a, 'ref-a')).body.errorCode).toBe('E10320'); // not a purchase
    expect((await settle('API_CANCELPURCHASE', p, 'ref-p')).body.params.state).toBe('REVERSED');
    expect((await settle('API_CANCELPURCHASE', p, 'ref-p')).body.responseCode).toBe('2001');

    expect((await settle('API_PREAUTHORIZE_COMMIT', '999', 'ref-a')).body.errorCode).toBe('E10309');
    expect((await settle('API_PREAUTHORIZE_COMMIT', a, 'ref-b')).body.errorCode).toBe('E10309'); // a mismatched pair
    expect(stand.transactions().map((t) => t.state)).toEqual(['Committed', 'Cancelled', 'Declined', 'Reversed']);
  });

  it('refuses bad credentials, bad parameters and unknown services with 200 refusals', async () => {
    const bad = chargeBody('ref-x', '252615551234');
    bad.serviceParams.apiKey = 'wrong';
    expect((await call(fetch, asm, { body: bad })).body).toMatchObject({ responseCode: '5310', errorCode: 'E10101', responseMsg: 'RCS_INVALID_CREDENTIALS' });
    const wrongHpp = await call(fetch, asm, {
      body: envelope('HPP_GETTRANINFO', { merchantUid: creds.merchantUid, storeId: creds.storeId, hppKey: 'nope', referenceId: 'x' }),
    });
    expect(wrongHpp.body.errorCode).toBe('E10101');

    for (const [extra, field] of [
      [{ amount: '0' }, 'amount'],
      [{ amount: '-1' }, 'amount'],
      [{ amount: 'abc' }, 'amount'],
      [{ referenceId: 'has space' }, 'referenceId'],
      [{ referenceId: 'x'.repeat(51) }, 'referenceId'],
      [{ currency: 'usd' }, 'currency'],
    ] as const) {
      const reply = await charge('ref-bad', '252615551234', extra);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ responseCode: '5310', errorCode: 'E10102', responseMsg: 'RCS_INVALID_PARAMS' });
      expect(reply.body.params.description).toContain(field);
    }
    expect((await charge('ref-bad', '615551234')).body.params.description).toContain('accountNo'); // national, not international
    expect((await call(fetch, asm, { body: envelope('API_TELEPORT', {}) })).body).toMatchObject({ errorCode: 'E10100', responseMsg: 'RCS_UNKNOWN_SERVICE' });
    expect(stand.transactions()).toEqual([]);

    const notAsm = await call(fetch, asm.replace('/asm', '/other'), { body: {} });
    expect([notAsm.status, notAsm.body]).toEqual([404, { message: 'Not Found' }]);
    expect((await call(fetch, asm)).status).toBe(404); // GET
  });

  it('truncates amounts to two decimals, never rounding', async () => {
    expect(truncateAmount('12.349')).toBe('12.34');
    expect(truncateAmount(0.29)).toBe('0.29');
    expect(truncateAmount(7)).toBe('7.00');
    expect(truncateAmount('0.001')).toBeUndefined();
    expect((await charge('ref-t', '252615551234', { amount: 3.999 })).body.params.txAmount).toBe('3.99');
  });

  it('injectFault: before means not processed, after means processed and the answer lost', async () => {
    stand.injectFault({ serviceName: 'API_PREAUTHORIZE' }, 'reset-before');
    expect(await rejection(charge('ref-f1'))).toBeInstanceOf(TypeError);
    expect(stand.byReference('ref-f1')).toBeUndefined();

    stand.injectFault({ referenceId: 'ref-f2' }, 'reset-after');
    expect(await rejection(charge('ref-f2'))).toBeInstanceOf(TypeError);
    expect(stand.byReference('ref-f2')?.state).toBe('Approved');

    stand.injectFault({ serviceName: 'HPP_GETTRANINFO', referenceId: 'ref-f2' }, '503', 2);
    expect((await info('ref-f2')).status).toBe(503);
    expect((await info('ref-f1')).body.errorCode).toBe('E10309'); // another reference: no fault
    expect((await info('ref-f2')).status).toBe(503);
    expect((await info('ref-f2')).body.params.status).toBe('Approved'); // spent

    stand.injectFault({ serviceName: 'API_PREAUTHORIZE' }, 'hang-before');
    expect((await rejection(charge('ref-f3', undefined, {}, undefined, AbortSignal.timeout(200)))).name).toBe('TimeoutError');
    expect(stand.byReference('ref-f3')).toBeUndefined();

    stand.injectFault({ serviceName: 'API_PREAUTHORIZE_COMMIT' }, 'hang-after');
    const f2 = stand.byReference('ref-f2')!.transactionId;
    await rejection(
      call(fetch, asm, { body: envelope('API_PREAUTHORIZE_COMMIT', { ...creds, transactionId: f2, referenceId: 'ref-f2' }), signal: AbortSignal.timeout(200) }),
    );
    expect(stand.byReference('ref-f2')?.state).toBe('Committed');

    stand.reset();
    expect(stand.transactions()).toEqual([]);
  });

  it('in process: the same answers as over HTTP', async () => {
    const viaHttp = [await charge('ref-ip'), await charge('ref-ip'), await charge('ref-ip0', '252615550000'), await info('ref-ip')];
    stand.reset();
    doFetch = inProcessFetch(stand.handle);
    const inProcess = [await charge('ref-ip'), await charge('ref-ip'), await charge('ref-ip0', '252615550000'), await info('ref-ip')];
    const stable = (replies: Reply[]) =>
      replies.map(({ status, contentType, body }) => ({
        status,
        contentType,
        body: { ...body, timestamp: 'T', responseId: 'R', params: { ...body.params, transactionId: 'X', issuerTransactionId: 'I', tranDate: 'D' } },
      }));
    expect(stable(inProcess)).toEqual(stable(viaHttp));
    expect(await rejection(charge('ref-ip3', '252615550003'))).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
  });

  it('exports the refusal codes', () => {
    expect(WAAFIPAY_RESULTS.duplicateReference).toEqual({ responseCode: '5310', errorCode: 'E10316', responseMsg: 'RCS_DUPLICATE_REFERENCE_ID' });
  });
});

// ---------------------------------------------------------------------------------------------

describe('Reloadly stand-in', () => {
  let stand: ReloadlyStandIn;
  let auth: string;
  let api: string;
  let token: string;

  const getToken = (overrides: Record<string, unknown> = {}, base = auth) =>
    call(fetch, `${base}/oauth/token`, {
      body: {
        client_id: RELOADLY_STAND_IN_CREDENTIALS.clientId,
        client_secret: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
        grant_type: 'client_credentials',
        audience: api,
        ...overrides,
      },
    });
  const get = (path: string, signal?: AbortSignal, base = api) =>
    call(fetch, `${base}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/com.reloadly.topups-v1+json' }, signal });
  const topupBody = (customIdentifier: string, number: string, extra: Record<string, unknown> = {}) => ({
    operatorId: 1650,
    amount: 2.5,
    useLocalAmount: false,
    customIdentifier,
    recipientPhone: { countryCode: 'SO', number },
    ...extra,
  });
  const send = (customIdentifier: string, number = '615551234', extra: Record<string, unknown> = {}, path = '/topups', signal?: AbortSignal) =>
    call(fetch, `${api}${path}`, { body: topupBody(customIdentifier, number, extra), headers: { authorization: `Bearer ${token}` }, signal });
  const lookup = async (customIdentifier: string) => (await get(`/topups/reports/transactions?customIdentifier=${encodeURIComponent(customIdentifier)}`)).body;

  beforeEach(async () => {
    stand = createReloadlyStandIn({ latencyMs: 4 });
    auth = await serve(stand.authHandle);
    api = await serve(stand.apiHandle);
    token = (await getToken()).body.access_token;
  });

  it('issues tokens and refuses wrong credentials and missing fields', async () => {
    const reply = await getToken();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'developer' });
    const wrong = await getToken({ client_secret: 'nope' });
    expect([wrong.status, wrong.body]).toEqual([
      401,
      { timeStamp: expect.any(String), message: 'Access Denied', path: '/oauth/token', errorCode: 'INVALID_CREDENTIALS' },
    ]);
    expect((await getToken({ audience: undefined })).status).toBe(400);
    expect((await getToken({ grant_type: 'password' })).status).toBe(400);
    // The token endpoint lives on the auth host only.
    expect((await getToken({}, api)).status).toBe(401);
  });

  it('the API needs a live bearer token', async () => {
    const noToken = await call(fetch, `${api}/operators/auto-detect/phone/615551234/countries/SO`);
    expect([noToken.status, noToken.body.errorCode]).toEqual([401, 'INVALID_TOKEN']);
    const old = token;
    token = 'made-up';
    expect((await get('/operators/auto-detect/phone/615551234/countries/SO')).body.errorCode).toBe('INVALID_TOKEN');

    token = old;
    expect((await get('/operators/auto-detect/phone/615551234/countries/SO')).status).toBe(200);
    stand.expireTokens();
    const expired = await get('/operators/auto-detect/phone/615551234/countries/SO');
    expect([expired.status, expired.body]).toEqual([
      401,
      { timeStamp: expect.any(String), message: expect.any(String), path: '/operators/auto-detect/phone/615551234/countries/SO', errorCode: 'TOKEN_EXPIRED' },
    ]);
    token = (await getToken()).body.access_token;
    expect((await get('/operators/auto-detect/phone/615551234/countries/SO')).status).toBe(200);
  });

  it('tokens expire after their ttl', async () => {
    stand = createReloadlyStandIn({ latencyMs: 0, tokenTtlSeconds: 0.05 });
    auth = await serve(stand.authHandle);
    api = await serve(stand.apiHandle);
    token = (await getToken()).body.access_token;
    expect((await get('/topups/reports/transactions')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await get('/topups/reports/transactions')).body.errorCode).toBe('TOKEN_EXPIRED');
  });

  it('auto-detects Somali operators by prefix, in national or international form', async () => {
    for (const [phone, id, name] of [
      ['615551234', 1650, 'Hormuud'],
      ['252775551234', 1650, 'Hormuud'],
      ['00252625551234', 1651, 'Somtel'],
      ['0665551234', 1651, 'Somtel'],
      [encodeURIComponent('+252635551234'), 1652, 'Telesom'],
      ['905551234', 1653, 'Golis'],
      ['715551234', 1654, 'Amtel'],
    ] as const) {
      const reply = await get(`/operators/auto-detect/phone/${phone}/countries/SO`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        operatorId: id,
        id,
        name,
        bundle: false,
        data: true,
        denominationType: 'RANGE',
        minAmount: 0.2,
        maxAmount: 500,
        fixedAmounts: [],
        country: { isoName: 'SO', name: 'Somalia' },
      });
    }
    for (const path of ['/operators/auto-detect/phone/125551234/countries/SO', '/operators/auto-detect/phone/615551234/countries/KE']) {
      const reply = await get(path);
      expect([reply.status, reply.body.errorCode]).toEqual([404, 'COULD_NOT_AUTO_DETECT_OPERATOR']);
    }
  });

  it('delivers an ordinary number and validates the send', async () => {
    const reply = await send('ci-ok', '252615551234');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      transactionId: expect.any(Number),
      status: 'SUCCESSFUL',
      operatorTransactionId: expect.any(String),
      customIdentifier: 'ci-ok',
      recipientPhone: '252615551234',
      requestedAmount: 2.5,
      requestedAmountCurrencyCode: 'USD',
      deliveredAmount: 2.5,
      deliveredAmountCurrencyCode: 'USD',
      operatorId: 1650,
      operatorName: 'Hormuud',
      // Hormuud's 4 % off 2.50; the float (10 000.00 at the start) less the 2.40 it cost.
      discount: 0.1,
      discountCurrencyCode: 'USD',
      transactionDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      balanceInfo: { oldBalance: 10_000, newBalance: 9997.6, currencyCode: 'USD', currencyName: 'US Dollar', updatedAt: expect.any(String) },
    });
    const next = await send('ci-ok2');
    expect(next.body.transactionId).toBeGreaterThan(reply.body.transactionId);

    for (const [extra, status, errorCode] of [
      [{ operatorId: 4242 }, 404, 'OPERATOR_NOT_FOUND'],
      [{ amount: 0 }, 400, 'INVALID_AMOUNT'],
      [{ amount: 'lots' }, 400, 'INVALID_AMOUNT'],
      [{ recipientPhone: { countryCode: 'SO', number: '61555' } }, 400, 'INVALID_PHONE_NUMBER'],
      [{ recipientPhone: { countryCode: 'KE', number: '615551234' } }, 400, 'INVALID_PHONE_NUMBER'],
      [{ operatorId: 1652 }, 400, 'INVALID_PHONE_NUMBER'], // a Hormuud number sent to Telesom
    ] as const) {
      const bad = await send('ci-bad', '615551234', extra);
      expect([bad.status, bad.body.errorCode]).toEqual([status, errorCode]);
      expect(bad.body).toMatchObject({ timeStamp: expect.any(String), message: expect.any(String), path: '/topups' });
    }
    expect(stand.byCustomIdentifier('ci-bad')).toBeUndefined();
  });

  it('a customIdentifier delivers once, however often it is sent', async () => {
    expect((await send('ci-dup')).body.status).toBe('SUCCESSFUL');
    const again = await send('ci-dup', '905551234', { operatorId: 1653 });
    expect([again.status, again.body.errorCode]).toEqual([400, 'DUPLICATE_CUSTOM_IDENTIFIER']);
    expect((await send('ci-dup', undefined, {}, '/topups-async')).body.errorCode).toBe('DUPLICATE_CUSTOM_IDENTIFIER');
    expect(stand.transactions()).toHaveLength(1);
    expect(stand.sends('ci-dup')).toBe(3);
  });

  it('9999: the operator rejects, FAILED at once', async () => {
    const reply = await send('ci-9999', '615559999');
    expect([reply.status, reply.body.status, reply.body.operatorTransactionId, reply.body.deliveredAmount]).toEqual([200, 'FAILED', null, 0]);
  });

  it('8888: delivered but the answer is lost once; the lookup finds it SUCCESSFUL', async () => {
    expect(await rejection(send('ci-8888', '615558888'))).toBeInstanceOf(TypeError);
    const found = await lookup('ci-8888');
    expect(found).toMatchObject({ totalElements: 1, totalPages: 1, content: [{ customIdentifier: 'ci-8888', status: 'SUCCESSFUL' }] });
    expect((await send('ci-8888', '615558888')).body.errorCode).toBe('DUPLICATE_CUSTOM_IDENTIFIER');
    expect(stand.transactions()).toHaveLength(1);
  });

  it('7777: 503 on the first send, not processed; the retry delivers', async () => {
    const first = await send('ci-7777', '615557777');
    expect([first.status, first.body]).toEqual([503, expect.objectContaining({ message: 'Service Unavailable', errorCode: 'SERVICE_UNAVAILABLE' })]);
    expect((await lookup('ci-7777')).content).toEqual([]);
    expect((await send('ci-7777', '615557777')).body.status).toBe('SUCCESSFUL');
  });

  it('6666: PROCESSING for processingPolls status reads, then SUCCESSFUL', async () => {
    const sent = await send('ci-6666', '615556666');
    expect([sent.body.status, sent.body.operatorTransactionId]).toEqual(['PROCESSING', null]);
    const path = `/topups/${sent.body.transactionId}/status`;
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push((await get(path)).body);
    expect(reads.map((r) => r.status)).toEqual(['PROCESSING', 'PROCESSING', 'SUCCESSFUL']);
    expect(reads[2]).toMatchObject({
      code: null,
      message: null,
      transaction: { status: 'SUCCESSFUL', operatorTransactionId: expect.any(String), deliveredAmount: 2.5 },
    });
  });

  it('5555: PROCESSING, then REFUNDED (reads by report count too)', async () => {
    expect((await send('ci-5555', '615555555')).body.status).toBe('PROCESSING');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await lookup('ci-5555')).content[0].status);
    expect(statuses).toEqual(['PROCESSING', 'PROCESSING', 'REFUNDED']);
  });

  it('4444: the send never arrives, every time', async () => {
    for (let i = 0; i < 2; i++) expect(await rejection(send('ci-4444', '615554444'))).toBeInstanceOf(TypeError);
    expect(await lookup('ci-4444')).toEqual({ content: [], totalElements: 0, totalPages: 0, size: 20, number: 1, last: true });
  });

  it('3333: PROCESSING for ever', async () => {
    const sent = await send('ci-3333', '615553333');
    for (let i = 0; i < 5; i++) expect((await get(`/topups/${sent.body.transactionId}/status`)).body.status).toBe('PROCESSING');
  });

  it('topups-async answers the id at once and the status settles after the latency', async () => {
    stand = createReloadlyStandIn({ latencyMs: 60 });
    auth = await serve(stand.authHandle);
    api = await serve(stand.apiHandle);
    token = (await getToken()).body.access_token;
    const sent = await send('ci-async', '615551234', {}, '/topups-async');
    expect(sent.body).toEqual({ transactionId: expect.any(Number) });
    expect((await get(`/topups/${sent.body.transactionId}/status`)).body.status).toBe('PROCESSING');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await get(`/topups/${sent.body.transactionId}/status`)).body.status).toBe('SUCCESSFUL');
  });

  it('status and report lookups, found and not found', async () => {
    const sent = (await send('ci-look')).body;
    const status = await get(`/topups/${sent.transactionId}/status`);
    expect(status.body).toEqual({ code: null, message: null, status: 'SUCCESSFUL', transaction: sent });
    const missing = await get('/topups/12345/status');
    expect([missing.status, missing.body.errorCode]).toEqual([404, 'TRANSACTION_NOT_FOUND']);
    expect(await lookup('ci-look')).toEqual({ content: [sent], totalElements: 1, totalPages: 1, size: 20, number: 1, last: true });
    expect((await lookup('nobody')).content).toEqual([]);
    await send('ci-look2');
    const all = (await get('/topups/reports/transactions?page=1&size=1')).body;
    expect(all).toMatchObject({ totalElements: 2, totalPages: 2, size: 1, number: 1, content: [{ customIdentifier: 'ci-look2' }] });
    expect((await get('/nowhere')).body.errorCode).toBe('NOT_FOUND');
  });

  it('injectFault by path and customIdentifier', async () => {
    stand.injectFault({ path: '/topups', customIdentifier: 'ci-f1' }, 'reset-before');
    expect(await rejection(send('ci-f1'))).toBeInstanceOf(TypeError);
    expect(stand.byCustomIdentifier('ci-f1')).toBeUndefined();
    expect((await send('ci-f1')).body.status).toBe('SUCCESSFUL'); // spent

    stand.injectFault({ customIdentifier: 'ci-f2' }, 'hang-after');
    expect((await rejection(send('ci-f2', undefined, {}, '/topups', AbortSignal.timeout(200)))).name).toBe('TimeoutError');
    // Delivered although the answer never came (on a loaded machine the operator may still be at work when the client gives up).
    await vi.waitFor(() => expect(stand.byCustomIdentifier('ci-f2')?.status).toBe('SUCCESSFUL'), { timeout: 5_000 });

    stand.injectFault({ path: '/topups/reports/transactions' }, '503', 2);
    expect((await lookup('ci-f2')).errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((await lookup('ci-f2')).errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((await lookup('ci-f2')).content).toHaveLength(1);

    stand.injectFault({ path: '/oauth/token' }, 'reset-after');
    expect(await rejection(getToken())).toBeInstanceOf(TypeError);

    stand.reset();
    expect(stand.transactions()).toEqual([]);
    expect((await get('/topups/reports/transactions')).body.errorCode).toBe('INVALID_TOKEN'); // tokens forgotten too
  });

  it('combinedHandle serves auth and API on one port; in process answers as over HTTP', async () => {
    const one = await serve(stand.combinedHandle);
    token = (await getToken({}, one)).body.access_token;
    const viaHttp = (await get('/operators/auto-detect/phone/615551234/countries/SO', undefined, one)).body;
    const direct = inProcessFetch(stand.combinedHandle);
    const tokenReply = await call(direct, `${one}/oauth/token`, {
      body: { client_id: 'standin-client', client_secret: 'standin-secret', grant_type: 'client_credentials', audience: one },
    });
    const inProcess = await call(direct, `${one}/operators/auto-detect/phone/615551234/countries/SO`, {
      headers: { authorization: `Bearer ${tokenReply.body.access_token}` },
    });
    expect(inProcess).toEqual({ status: 200, contentType: 'application/json', body: viaHttp });
    const wrong = await call(direct, `${one}/topups/reports/transactions`);
    expect([wrong.status, wrong.body.errorCode]).toEqual([401, 'INVALID_TOKEN']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('field conditions and books (the stand-ins for a fulfilment benchmark)', () => {
  const creds = WAAFIPAY_STAND_IN_CREDENTIALS;
  const chargeBody = (referenceId: string, accountNo = '252615551234') => ({
    schemaVersion: '1.0',
    requestId: `req-${referenceId}`,
    timestamp: new Date().toISOString(),
    channelName: 'WEB',
    serviceName: 'API_PREAUTHORIZE',
    serviceParams: {
      merchantUid: creds.merchantUid,
      apiUserId: creds.apiUserId,
      apiKey: creds.apiKey,
      paymentMethod: 'MWALLET_ACCOUNT',
      payerInfo: { accountNo },
      transactionInfo: { referenceId, invoiceId: referenceId, amount: '5.00', currency: 'USD', description: 'Bundle' },
    },
  });
  /** 'ok' (answered), 'unavailable' (503) or 'lost' (reset), for one request. */
  const outcomeOf = async (request: Promise<Response>) => {
    try {
      const res = await request;
      await res.text();
      return res.status === 503 ? 'unavailable' : 'ok';
    } catch {
      return 'lost';
    }
  };

  it('draws a wait in a range, or around a number as before; parses 1500 and 5000-40000', () => {
    expect([0, 0.5, 0.999999].map((r) => drawMillis({ min: 5000, max: 40000 }, () => r))).toEqual([5000, 22500, expect.closeTo(40000, 0)]);
    expect([0, 1].map((r) => drawMillis(1500, () => r))).toEqual([750, 2250]);
    for (let i = 0; i < 200; i++) {
      const wait = drawMillis({ min: 1000, max: 5000 });
      expect(wait).toBeGreaterThanOrEqual(1000);
      expect(wait).toBeLessThanOrEqual(5000);
    }
    expect(parseMillis('1500')).toBe(1500);
    expect(parseMillis(' 5000-40000 ')).toEqual({ min: 5000, max: 40000 });
    expect(parseMillis('0-0')).toEqual({ min: 0, max: 0 });
    for (const bad of ['40000-5000', '-5', '1.5', 'abc', '5000-', '']) expect(parseMillis(bad), bad).toBeUndefined();
  });

  it('honours an approval range: the PIN prompt lasts between its ends, and the books show when it went out and was answered', async () => {
    const stand = createWaafiPayStandIn({ approvalMs: { min: 150, max: 200 } });
    const url = await serve(stand.handle);
    const started = Date.now();
    const [a, b] = await Promise.all([
      call(fetch, `${url}/asm`, { body: chargeBody('book-a') }),
      call(fetch, `${url}/asm`, { body: chargeBody('book-b', '252615550000') }),
    ]);
    expect([a.body.responseCode, b.body.responseCode]).toEqual(['2001', '5206']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    const commit = await call(fetch, `${url}/asm`, {
      body: {
        ...chargeBody('x'),
        serviceName: 'API_PREAUTHORIZE_COMMIT',
        serviceParams: { ...creds, transactionId: a.body.params.transactionId, referenceId: 'book-a' },
      },
    });
    expect(commit.body.responseCode).toBe('2001');

    const books = (await call(fetch, `${url}/_standin/books`)).body as WaafiBooks;
    expect(books).toMatchObject({ system: 'waafipay', at: expect.any(Number) });
    const [first, second] = books.entries;
    expect(books.entries.map((e) => [e.referenceId, e.state, e.amount, e.requests, e.fault])).toEqual(
      expect.arrayContaining([
        ['book-a', 'Committed', '5.00', 1, null],
        ['book-b', 'Declined', '5.00', 1, null],
      ]),
    );
    for (const entry of [first, second]) {
      expect(entry.requestedAt).toBeGreaterThanOrEqual(started);
      const waited = entry.answeredAt! - entry.requestedAt;
      expect(waited).toBeGreaterThanOrEqual(148); // the timer may fire a millisecond early against Date.now()
      expect(waited).toBeLessThan(1000);
    }
    const committed = books.entries.find((e) => e.referenceId === 'book-a')!;
    expect(committed.settledAt).toBeGreaterThanOrEqual(committed.answeredAt!);
    expect(books.entries.find((e) => e.referenceId === 'book-b')!.settledAt).toBeNull();
    // Only those requested from `since` on; the product's API never serves this path (it is the stand-in's own).
    expect((await call(fetch, `${url}/_standin/books?since=${Date.now() + 60_000}`)).body.entries).toEqual([]);
    expect(stand.books().entries).toHaveLength(2);
  });

  it('WaafiPay: the unavailable and lost-answer rates strike that share of first charges, any payer, never a second request', async () => {
    const stand = createWaafiPayStandIn({ approvalMs: 0, unavailableRate: 0.1, lostAnswerRate: 0.2 });
    const direct = inProcessFetch(stand.handle);
    // Payers 252615551000 to 252615551999: never a test number's last four digits.
    const post = (i: number) => direct('http://waafipay.local/asm', { method: 'POST', body: JSON.stringify(chargeBody(`r-${i}`, `25261555${1000 + i}`)) });
    const n = 1000;
    const first = await Promise.all(Array.from({ length: n }, (_, i) => outcomeOf(post(i))));
    const count = (what: string) => first.filter((o) => o === what).length;
    // Binomial: 100 +- 9.5 and 200 +- 12.6; bounds five deviations wide.
    expect(count('unavailable')).toBeGreaterThan(50);
    expect(count('unavailable')).toBeLessThan(150);
    expect(count('lost')).toBeGreaterThan(135);
    expect(count('lost')).toBeLessThan(265);
    const books = stand.books().entries;
    // 503: not processed; lost: processed (approved), only the answer gone.
    for (const [i, outcome] of first.entries()) {
      const entry = books.find((e) => e.referenceId === `r-${i}`)!;
      expect(entry.fault).toBe(outcome === 'ok' ? null : outcome);
      expect(entry.state).toBe(outcome === 'unavailable' ? 'NotProcessed' : 'Approved');
    }
    // The second request for a reference is never struck: the 503'd ones go through, the rest are duplicates.
    const again = await Promise.all(first.map((_, i) => outcomeOf(post(i))));
    expect(again.every((o) => o === 'ok')).toBe(true);
    expect(stand.transactions()).toHaveLength(n);
  });

  it('Reloadly: the same rates on first sends; the books show when each top-up came and was delivered', async () => {
    const stand = createReloadlyStandIn({ latencyMs: { min: 20, max: 40 }, unavailableRate: 0.1, lostAnswerRate: 0.2 });
    const direct = inProcessFetch(stand.combinedHandle);
    const token = (
      await call(direct, 'http://reloadly.local/oauth/token', {
        body: { client_id: 'standin-client', client_secret: 'standin-secret', grant_type: 'client_credentials', audience: 'http://reloadly.local' },
      })
    ).body.access_token;
    const send = (id: string) =>
      direct('http://reloadly.local/topups', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          operatorId: 1650,
          amount: 1.5,
          useLocalAmount: false,
          customIdentifier: id,
          recipientPhone: { countryCode: 'SO', number: '615551234' },
        }),
      });
    const n = 600;
    const started = Date.now();
    const first = await Promise.all(Array.from({ length: n }, (_, i) => outcomeOf(send(`ci-${i}`))));
    const count = (what: string) => first.filter((o) => o === what).length;
    // 60 +- 7.3 and 120 +- 9.8.
    expect(count('unavailable')).toBeGreaterThan(23);
    expect(count('unavailable')).toBeLessThan(97);
    expect(count('lost')).toBeGreaterThan(71);
    expect(count('lost')).toBeLessThan(169);
    const again = await Promise.all(first.map((_, i) => outcomeOf(send(`ci-${i}`))));
    expect(again.every((o) => o === 'ok')).toBe(true); // delivered, or a duplicate of the delivered one

    const books = (await call(direct, 'http://reloadly.local/_standin/books')).body as ReloadlyBooks; // no token: the stand-in's own
    expect(books.system).toBe('reloadly');
    expect(books.entries).toHaveLength(n);
    for (const [i, outcome] of first.entries()) {
      const entry = books.entries.find((e) => e.customIdentifier === `ci-${i}`)!;
      expect(entry).toMatchObject({ status: 'SUCCESSFUL', fault: outcome === 'ok' ? null : outcome, sends: 2, requestedAmount: 1.5, deliveredAmount: 1.5 });
      expect(entry.requestedAt).toBeGreaterThanOrEqual(started);
      const took = entry.deliveredAt! - entry.requestedAt;
      expect(took).toBeGreaterThanOrEqual(18); // timers and Date.now() may disagree by a millisecond
      expect(took).toBeLessThanOrEqual(41);
      expect(entry.endedAt).toBe(entry.deliveredAt);
    }
  });

  it('keeps requests open as long as the PIN prompt lasts, and idle connections longer than a client keeps them', async () => {
    const slow: StandInHandler = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return { kind: 'answer', status: 200, body: { ok: true } };
    };
    const url = await serve(slow);
    const replies = await Promise.all(Array.from({ length: 300 }, () => fetch(`${url}/x`, { method: 'POST', body: '{}' })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    // undici keeps an idle socket for the server's hint less a second: well past its own 4 s default.
    expect(replies[0].headers.get('keep-alive')).toBe(`timeout=${STAND_IN_SERVER_LIMITS.keepAliveTimeout / 1000}`);
    await Promise.all(replies.map((r) => r.text()));
  });
});
