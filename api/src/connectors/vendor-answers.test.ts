import { afterEach, describe, expect, it } from 'vitest';
import type { PaymentAdapter } from './payments/payment-adapter.ts';
import { waafiPayAdapter } from './payments/waafipay/waafipay-adapter.ts';
import type { DeliveryRequest, OperatorAdapter } from './deliveries/operator-adapter.ts';
import { reloadlyAdapter } from './deliveries/reloadly/reloadly-adapter.ts';
import type { FetchLike, RemoteCallRecord, RemoteTrail } from './remote-call.ts';
import {
  readWaafiAnswer,
  WAAFIPAY_ANSWERS,
  WAAFIPAY_MEANINGS,
  type WaafiAnswerKind,
  type WaafiMeaning,
  type WaafiService,
} from './payments/waafipay/waafipay-answers.ts';
import { readReloadlyError, RELOADLY_ERROR_TABLE, RELOADLY_STATUSES, type ReloadlyMeaning } from './deliveries/reloadly/reloadly-answers.ts';
import { startStandInServer, type RunningStandIn } from './stand-ins/stand-in-server.ts';
import { createWaafiPayStandIn, WAAFIPAY_REAL_RESULTS, WAAFIPAY_STAND_IN_CREDENTIALS } from './payments/waafipay/waafipay-stand-in.ts';

/**
 * The vendors' answer tables (waafipay-answers.ts, reloadly-answers.ts) through the adapters: every
 * classified answer gives its outcome for each service, and any answer nobody classified comes back
 * unknown with its raw text, so it can never complete or fail a sale.
 */

const forWhom = { rechargeId: null };
const trailOf =
  (lines: RemoteCallRecord[]): RemoteTrail =>
  async (_id, call) =>
    void lines.push(call);
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

// ---------------------------------------------------------------------------------------------
// WaafiPay

/** A WaafiPay adapter whose gateway answers every request with `answer(serviceName)`. */
function waafiAnswering(answer: (serviceName: string) => unknown, flow: 'preauthorize' | 'purchase' = 'preauthorize') {
  const trail: RemoteCallRecord[] = [];
  const fake: FetchLike = async (_url, init) => json(200, answer(JSON.parse(String(init?.body)).serviceName));
  const adapter = waafiPayAdapter(
    { url: 'http://gateway.test/asm', ...WAAFIPAY_STAND_IN_CREDENTIALS, flow, chargeTimeoutMs: 1000, timeoutMs: 1000 },
    { fetch: fake, trail: trailOf(trail) },
  );
  return { adapter, trail };
}

const envelopeOf = (answer: { responseCode?: string; errorCode?: string; responseMsg?: string; params?: unknown }) => ({
  schemaVersion: '1.0',
  timestamp: '2026-11-27 10:00:00.000',
  responseId: '1',
  params: {},
  ...answer,
});

const charge = (adapter: PaymentAdapter) =>
  adapter.charge({ referenceId: 'RC0000000001', payerPhone: '615551234', amount: 500, currency: 'USD', description: 'Bundle' }, forWhom);

/** Every service's adapter result, as a word: approved/declined/found/not_found/done/refused/unknown. */
async function outcomes(body: Record<string, unknown>) {
  // A lookup answered with success finds the payment approved.
  const service = (serviceName: string) =>
    serviceName === 'HPP_GETTRANINFO' && body.responseCode === '2001' ? { ...body, params: { status: 'Approved', transactionId: 'T1' } } : body;
  const pre = waafiAnswering(service).adapter;
  const purchase = waafiAnswering(service, 'purchase').adapter;
  const p = { referenceId: 'RC0000000001', transactionId: 'T1' };
  return {
    charge: await charge(pre),
    lookup: await pre.lookup('RC0000000001', forWhom),
    commit: await pre.commit(p, forWhom),
    cancel: await pre.release({ ...p, flow: 'preauthorize' }, forWhom),
    cancelPurchase: await purchase.release({ ...p, flow: 'purchase' }, forWhom),
    refund: await pre.release({ ...p, flow: 'preauthorize', captured: true, amount: 500 }, forWhom),
  };
}

/** What the adapter answers for a meaning, per service. */
const expected = (service: WaafiService, meaning: WaafiMeaning): string =>
  ({
    charge: { success: 'approved', refused: 'declined', not_found: 'unknown', already_done: 'unknown', has_it: 'unknown', unknown: 'unknown' },
    lookup: { success: 'found', refused: 'unknown', not_found: 'not_found', already_done: 'unknown', has_it: 'unknown', unknown: 'unknown' },
    commit: { success: 'done', refused: 'refused', not_found: 'refused', already_done: 'done', has_it: 'unknown', unknown: 'unknown' },
    cancel: { success: 'done', refused: 'refused', not_found: 'refused', already_done: 'done', has_it: 'unknown', unknown: 'unknown' },
    refund: { success: 'done', refused: 'refused', not_found: 'refused', already_done: 'done', has_it: 'unknown', unknown: 'unknown' },
  })[service][meaning];

/** Samples of the texts the table recognises (the "Payment Failed (...)" forms, a duplicate's description). */
const TEXT_SAMPLES: Partial<Record<WaafiAnswerKind, string[]>> = {
  insufficientBalance: ['Payment Failed (Haraaga xisaabtaadu kuguma filna, mobile No: 252615550000)', 'Payment Failed (Insufficient balance)'],
  wrongPin: ['Payment Failed (Invalid PIN code)', 'Payment Failed (PIN-ka waa khalad)'],
  duplicateReference: ['This referenceId was already used'],
};

describe('the WaafiPay answer table, through the adapter', () => {
  // Each way an entry is recognised, alone (the others neutral), gives that entry's meaning for every service.
  const cases = WAAFIPAY_ANSWERS.filter((e) => e.kind !== 'success').flatMap((entry) => [
    ...entry.messages.map((responseMsg) => ({
      kind: entry.kind,
      how: `responseMsg ${responseMsg}`,
      body: { responseCode: '5999', errorCode: 'E99999', responseMsg },
    })),
    ...entry.errorCodes.map((errorCode) => ({ kind: entry.kind, how: `errorCode ${errorCode}`, body: { responseCode: '5999', errorCode, responseMsg: '' } })),
    ...entry.responseCodes.map((responseCode) => ({
      kind: entry.kind,
      how: `responseCode ${responseCode}`,
      body: { responseCode, errorCode: '', responseMsg: '' },
    })),
    ...(TEXT_SAMPLES[entry.kind] ?? []).map((responseMsg) => ({
      kind: entry.kind,
      how: `text "${responseMsg}"`,
      body: { responseCode: '5999', errorCode: 'E99999', responseMsg },
    })),
  ]);

  it('lists a sample of every text entry', () => {
    for (const entry of WAAFIPAY_ANSWERS.filter((e) => e.text)) expect(TEXT_SAMPLES[entry.kind], entry.kind).toBeDefined();
  });

  it.each(cases)('$kind by $how', async ({ kind, body }) => {
    const reading = readWaafiAnswer('charge', envelopeOf(body));
    expect(reading.kinds).toContain(kind);
    const got = await outcomes(envelopeOf(body));
    const meanings = (service: WaafiService) => {
      // Recognised by a shared code (5206/E10205: rejected by the payer or failed at the issuer), the kinds agree or it is unknown.
      const all = new Set(readWaafiAnswer(service, envelopeOf(body)).kinds.map((k) => WAAFIPAY_MEANINGS[k][service]));
      return all.size === 1 ? [...all][0] : 'unknown';
    };
    expect(got.charge.status).toBe(expected('charge', meanings('charge')));
    expect(got.lookup.status).toBe(expected('lookup', meanings('lookup')));
    expect(got.commit.status).toBe(expected('commit', meanings('commit')));
    expect(got.cancel.status).toBe(expected('cancel', meanings('cancel')));
    expect(got.cancelPurchase.status).toBe(expected('cancel', meanings('cancel')));
    expect(got.refund.status).toBe(expected('refund', meanings('refund')));
  });

  it('success: 2001 approves a charge, finds a payment, commits and cancels', async () => {
    const got = await outcomes(
      envelopeOf({ responseCode: '2001', errorCode: '0', responseMsg: 'RCS_SUCCESS', params: { transactionId: 'T9', state: 'APPROVED' } }),
    );
    expect(got.charge).toEqual({ status: 'approved', transactionId: 'T9' });
    expect(got.lookup).toEqual({ status: 'found', state: 'approved', transactionId: 'T1' });
    expect([got.commit, got.cancel, got.cancelPurchase, got.refund]).toEqual([{ status: 'done' }, { status: 'done' }, { status: 'done' }, { status: 'done' }]);
  });

  // Answers as captured from the real gateway and the stand-in, with what each service makes of them.
  it.each([
    {
      what: 'RCS_TRAN_NOT_FOUND 5213/E10206 with params [] (real gateway)',
      body: { responseCode: '5213', errorCode: 'E10206', responseMsg: 'RCS_TRAN_NOT_FOUND', params: [] },
      charge: 'unknown',
      lookup: 'not_found',
      commit: 'refused',
      cancel: 'refused',
    },
    {
      what: 'RCS_TRANSACTION_NOT_FOUND 5310/E10309 (stand-in)',
      body: { responseCode: '5310', errorCode: 'E10309', responseMsg: 'RCS_TRANSACTION_NOT_FOUND' },
      charge: 'unknown',
      lookup: 'not_found',
      commit: 'refused',
      cancel: 'refused',
    },
    {
      what: 'RCS_TRAN_ALREADY_CANCELLED 5202/E10207',
      body: { responseCode: '5202', errorCode: 'E10207', responseMsg: 'RCS_TRAN_ALREADY_CANCELLED' },
      charge: 'unknown',
      lookup: 'unknown',
      commit: 'refused',
      cancel: 'done',
    },
    {
      what: 'RCS_TRAN_FAILED_AT_ISSUER_SYSTEM 5206/E10205',
      body: { responseCode: '5206', errorCode: 'E10205', responseMsg: 'RCS_TRAN_FAILED_AT_ISSUER_SYSTEM' },
      charge: 'declined',
      lookup: 'unknown',
      commit: 'refused',
      cancel: 'refused',
    },
    {
      what: 'insufficient balance in Somali, 5206/E10205',
      body: { responseCode: '5206', errorCode: 'E10205', responseMsg: 'Payment Failed (Haraaga xisaabtaadu kuguma filna, mobile No: 252615550000)' },
      charge: 'declined',
      lookup: 'unknown',
      commit: 'refused',
      cancel: 'unknown', // the balance means nothing to a cancel; the kinds disagree
    },
    {
      what: 'RCS_USER_REJECTED under a code of its own',
      body: { responseCode: '5001', errorCode: '', responseMsg: 'RCS_USER_REJECTED' },
      charge: 'declined',
      lookup: 'unknown',
      commit: 'refused',
      cancel: 'refused',
    },
    {
      what: 'RCS_NO_ROUTE_FOUND',
      body: { responseCode: '5310', errorCode: '', responseMsg: 'RCS_NO_ROUTE_FOUND' },
      charge: 'declined',
      lookup: 'unknown',
      commit: 'unknown',
      cancel: 'unknown',
    },
    {
      what: 'the duplicate reference E10316 (stand-in)',
      body: { responseCode: '5310', errorCode: 'E10316', responseMsg: 'RCS_DUPLICATE_REFERENCE_ID' },
      charge: 'unknown',
      lookup: 'unknown',
      commit: 'unknown',
      cancel: 'unknown',
    },
    {
      what: 'invalid credentials E10101: refused before processing, never "not found"',
      body: { responseCode: '5310', errorCode: 'E10101', responseMsg: 'RCS_INVALID_CREDENTIALS' },
      charge: 'declined',
      lookup: 'unknown',
      commit: 'refused',
      cancel: 'refused',
    },
    {
      what: 'a not-found code under an unknown name (a new answer)',
      body: { responseCode: '5213', errorCode: 'E10206', responseMsg: 'RCS_SOMETHING_NEW' },
      charge: 'unknown',
      lookup: 'unknown',
      commit: 'unknown',
      cancel: 'unknown',
    },
    {
      what: 'a decline by text that also says duplicate (conflicting)',
      body: { responseCode: '5206', errorCode: 'E10205', responseMsg: 'RCS_USER_REJECTED', params: { description: 'Duplicate transaction' } },
      charge: 'unknown',
      lookup: 'unknown',
      commit: 'unknown',
      cancel: 'unknown',
    },
  ])('$what', async ({ body, ...want }) => {
    const got = await outcomes(envelopeOf(body));
    expect({
      charge: got.charge.status,
      lookup: got.lookup.status,
      commit: got.commit.status,
      cancel: got.cancel.status,
      cancelPurchase: got.cancelPurchase.status,
    }).toEqual({
      charge: want.charge,
      lookup: want.lookup,
      commit: want.commit,
      cancel: want.cancel,
      cancelPurchase: want.cancel,
    });
  });

  it('an unclassified answer is unknown everywhere and carries its raw codes and message', async () => {
    const body = envelopeOf({ responseCode: '5399', errorCode: 'E99999', responseMsg: 'RCS_SOMETHING_NEW', params: { description: 'Something new happened' } });
    const got = await outcomes(body);
    const raw = '5399/E99999 RCS_SOMETHING_NEW: Something new happened';
    for (const result of Object.values(got)) expect(result).toEqual({ status: 'unknown', error: `Unclassified answer ${raw}` });
    // A message that is not a symbolic name, with codes nobody listed: unclassified too.
    const plain = await outcomes(envelopeOf({ responseCode: '5399', errorCode: 'E99999', responseMsg: 'Try again later' }));
    for (const result of Object.values(plain)) expect(result).toEqual({ status: 'unknown', error: 'Unclassified answer 5399/E99999 Try again later' });
  });

  it('a lookup with an unknown status word is unknown with the word; a success without a transactionId is unknown', async () => {
    const { adapter } = waafiAnswering(() => envelopeOf({ responseCode: '2001', errorCode: '0', responseMsg: 'RCS_SUCCESS', params: { status: 'Frozen' } }));
    expect(await adapter.lookup('RC1', forWhom)).toEqual({ status: 'unknown', error: 'Unclassified status "Frozen" in 2001/0 RCS_SUCCESS' });
    expect(await charge(adapter)).toMatchObject({ status: 'unknown', error: expect.stringContaining('without a transactionId') });
  });

  it('a decline keeps its code, message and raw answer; the trail marks answers that decide nothing as unknown', async () => {
    const { adapter, trail } = waafiAnswering((service) =>
      service === 'HPP_GETTRANINFO'
        ? envelopeOf({ responseCode: '5399', errorCode: 'E99999', responseMsg: 'RCS_SOMETHING_NEW' })
        : envelopeOf({ responseCode: '5206', errorCode: 'E10205', responseMsg: 'Payment Failed (Invalid PIN code)' }),
    );
    expect(await charge(adapter)).toEqual({
      status: 'declined',
      code: 'E10205',
      message: 'Payment Failed (Invalid PIN code)',
      raw: '5206/E10205 Payment Failed (Invalid PIN code)',
    });
    await adapter.lookup('RC1', forWhom);
    expect(trail.map((t) => `${t.operation}:${t.outcome}`)).toEqual(['API_PREAUTHORIZE:refused', 'HPP_GETTRANINFO:unknown']);
  });
});

// ---------------------------------------------------------------------------------------------
// The WaafiPay stand-in answering as the real gateway

describe("the WaafiPay stand-in in the real gateway's dialect, through the adapter", () => {
  const running: RunningStandIn[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
  });

  async function realGateway(flow: 'preauthorize' | 'purchase' = 'preauthorize') {
    const stand = createWaafiPayStandIn({ approvalMs: 2, dialect: 'real' });
    const server = await startStandInServer(stand.handle);
    running.push(server);
    const adapter = waafiPayAdapter(
      { url: `${server.url}/asm`, ...WAAFIPAY_STAND_IN_CREDENTIALS, flow, chargeTimeoutMs: 2000, timeoutMs: 2000 },
      { trail: async () => undefined },
    );
    return { stand, adapter, url: server.url };
  }
  const request = (referenceId: string, payerPhone: string) => ({ referenceId, payerPhone, amount: 500, currency: 'USD', description: 'Bundle' });

  it('a charge lost to a 503 (0002) or a reset (0003) is found never made: the lookup answers 5213/E10206, read as not found', async () => {
    const { stand, adapter, url } = await realGateway();
    const raw = await fetch(`${url}/asm`, {
      method: 'POST',
      body: JSON.stringify({
        schemaVersion: '1.0',
        requestId: 'r',
        timestamp: 't',
        channelName: 'WEB',
        serviceName: 'HPP_GETTRANINFO',
        serviceParams: { merchantUid: 'M0910291', storeId: '1000201', hppKey: 'HPP-STANDIN-KEY', referenceId: 'RCNOBODY' },
      }),
    });
    expect(await raw.json()).toMatchObject({ ...WAAFIPAY_REAL_RESULTS.transactionNotFound, params: [] });

    for (const [reference, payer] of [
      ['RCLOST503', '615550002'],
      ['RCLOSTRESET', '615550003'],
    ]) {
      const charged = await adapter.charge(request(reference, payer), forWhom);
      expect(charged.status).toBe('unknown');
      // Before the answer tables this lookup was "unknown" (only E10309 meant not found): the sale went to review.
      expect(await adapter.lookup(reference, forWhom)).toEqual({ status: 'not_found' });
      expect(stand.byReference(reference)).toBeUndefined();
    }
  });

  it('a decline in Somali text is declined; a second cancel (already cancelled) is done; an unknown transaction is refused', async () => {
    const { stand, adapter } = await realGateway();
    expect(await adapter.charge(request('RCNOMONEY', '615550000'), forWhom)).toMatchObject({
      status: 'declined',
      code: 'E10205',
      message: WAAFIPAY_REAL_RESULTS.insufficientBalance.responseMsg,
    });
    const approved = await adapter.charge(request('RCCANCEL', '615551234'), forWhom);
    if (approved.status !== 'approved') throw new Error('expected an approval');
    const p = { referenceId: 'RCCANCEL', transactionId: approved.transactionId, flow: 'preauthorize' as const };
    expect(await adapter.release(p, forWhom)).toEqual({ status: 'done' });
    expect(await adapter.release(p, forWhom)).toEqual({ status: 'done' }); // RCS_TRAN_ALREADY_CANCELLED
    expect(stand.byReference('RCCANCEL')?.state).toBe('Cancelled');
    expect(await adapter.commit({ referenceId: 'RCCANCEL', transactionId: '404' }, forWhom)).toMatchObject({ status: 'refused', code: 'E10206' });
  });

  it('a purchase reversed twice: the second reversal is already cancelled, done', async () => {
    const { adapter } = await realGateway('purchase');
    const approved = await adapter.charge(request('RCPURCHASE', '615551234'), forWhom);
    if (approved.status !== 'approved') throw new Error('expected an approval');
    const p = { referenceId: 'RCPURCHASE', transactionId: approved.transactionId, flow: 'purchase' as const };
    expect(await adapter.release(p, forWhom)).toEqual({ status: 'done' });
    expect(await adapter.release(p, forWhom)).toEqual({ status: 'done' });
  });
});

// ---------------------------------------------------------------------------------------------
// Reloadly

/** A Reloadly adapter whose aggregator hands out tokens and answers API calls with `answer`. */
function reloadlyAnswering(answer: (method: string, path: string) => { status: number; body: unknown }) {
  const trail: RemoteCallRecord[] = [];
  const fake: FetchLike = async (url, init) => {
    const u = new URL(url);
    if (u.pathname === '/oauth/token') return json(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
    const { status, body } = answer(init?.method ?? 'GET', u.pathname);
    return json(status, body);
  };
  const adapter: OperatorAdapter = reloadlyAdapter(
    { authUrl: 'http://aggregator.test/oauth/token', apiUrl: 'http://aggregator.test', clientId: 'c', clientSecret: 's', timeoutMs: 1000 },
    { fetch: fake, trail: trailOf(trail) },
  );
  return { adapter, trail };
}
const topUp: DeliveryRequest = { customIdentifier: 'RC0000000001', phone: '615551234', externalOperatorId: '1650', productCode: '1.50', cost: 40 };
const error = (status: number, errorCode: string, message = 'Refused') => ({ status, body: { timeStamp: 't', message, path: '/topups', errorCode } });
const sendResult = (meaning: ReloadlyMeaning) => ({ refused: 'failed', retry: 'not_sent', has_it: 'unknown', unknown: 'unknown' })[meaning];

describe('the Reloadly answer table, through the adapter', () => {
  it.each(RELOADLY_ERROR_TABLE.map((e) => ({ ...e, status: e.errorCode === 'TOKEN_EXPIRED' || e.errorCode.startsWith('INVALID_TOKEN') ? 401 : 400 })))(
    'a send refused with $errorCode ($meaning)',
    async ({ errorCode, meaning, status }) => {
      const { adapter } = reloadlyAnswering(() => error(status, errorCode, 'Because'));
      const sent = await adapter.send(topUp, forWhom);
      expect(sent.status).toBe(sendResult(meaning));
      const text = sent.status === 'failed' ? sent.reason : 'error' in sent ? sent.error : '';
      expect(text).toContain(`HTTP ${status} ${errorCode}: Because`);
    },
  );

  it.each([
    { status: 429, errorCode: 'TOO_MANY_REQUESTS', want: 'not_sent' },
    { status: 403, errorCode: 'FORBIDDEN', want: 'not_sent' },
    { status: 401, errorCode: 'SOMETHING', want: 'not_sent' },
    { status: 404, errorCode: 'NOT_FOUND', want: 'unknown' },
    { status: 400, errorCode: 'SOMETHING_NEW', want: 'unknown' },
    { status: 409, errorCode: 'DUPLICATE_CUSTOM_IDENTIFIER', want: 'unknown' },
  ])('a send answered $status $errorCode is $want', async ({ status, errorCode, want }) => {
    const { adapter } = reloadlyAnswering(() => error(status, errorCode));
    expect((await adapter.send(topUp, forWhom)).status).toBe(want);
  });

  it('an unclassified refusal of a send is unknown with its raw answer (never a failed delivery)', async () => {
    const { adapter, trail } = reloadlyAnswering(() => error(400, 'SOMETHING_NEW', 'A new rule'));
    expect(await adapter.send(topUp, forWhom)).toEqual({ status: 'unknown', error: 'Unclassified answer HTTP 400 SOMETHING_NEW: A new rule' });
    const bare = reloadlyAnswering(() => ({ status: 400, body: { message: 'no code' } }));
    expect(await bare.adapter.send(topUp, forWhom)).toEqual({ status: 'unknown', error: 'Unclassified answer HTTP 400 -: no code' });
    expect(trail.at(-1)).toMatchObject({ operation: 'POST /topups', outcome: 'unknown' });
  });

  it.each(Object.entries(RELOADLY_STATUSES).map(([word, { meaning }]) => ({ word, meaning })))('a top-up $word is $meaning', async ({ word, meaning }) => {
    const tx = { transactionId: 77, status: word, customIdentifier: topUp.customIdentifier, operatorTransactionId: 'OP77' };
    const { adapter } = reloadlyAnswering((method, path) =>
      path.endsWith('/status')
        ? { status: 200, body: { code: null, message: null, status: word, transaction: tx } }
        : path === '/topups/reports/transactions'
          ? { status: 200, body: { content: [tx] } }
          : { status: 200, body: tx },
    );
    const sent = await adapter.send(topUp, forWhom);
    expect(sent.status).toBe(meaning);
    expect((await adapter.lookup(topUp.customIdentifier, forWhom)).status).toBe(meaning);
    expect((await adapter.poll('77', forWhom)).status).toBe(meaning);
  });

  it('an unclassified status word is unknown with the word, for send, lookup and poll', async () => {
    const tx = { transactionId: 78, status: 'ON_HOLD', customIdentifier: topUp.customIdentifier };
    const { adapter } = reloadlyAnswering((method, path) =>
      path.endsWith('/status')
        ? { status: 200, body: { status: 'ON_HOLD', transaction: tx } }
        : path === '/topups/reports/transactions'
          ? { status: 200, body: { content: [tx] } }
          : { status: 200, body: tx },
    );
    const unknown = { status: 'unknown', error: 'Unclassified answer: top-up 78 status "ON_HOLD"' };
    expect(await adapter.send(topUp, forWhom)).toEqual(unknown);
    expect(await adapter.lookup(topUp.customIdentifier, forWhom)).toEqual(unknown);
    expect(await adapter.poll('78', forWhom)).toEqual(unknown);
  });

  it('a refused report or status poll is unknown with its raw answer, never "not found"', async () => {
    const { adapter } = reloadlyAnswering(() => error(400, 'SOMETHING_NEW', 'Odd'));
    expect(await adapter.lookup('RC1', forWhom)).toEqual({ status: 'unknown', error: 'Unclassified answer to the report: HTTP 400 SOMETHING_NEW: Odd' });
    expect(await adapter.poll('9', forWhom)).toEqual({ status: 'unknown', error: 'Unclassified answer to the status poll: HTTP 400 SOMETHING_NEW: Odd' });
    const limited = reloadlyAnswering(() => error(429, 'TOO_MANY_REQUESTS'));
    expect(await limited.adapter.lookup('RC1', forWhom)).toMatchObject({ status: 'unknown', error: expect.stringContaining('HTTP 429 TOO_MANY_REQUESTS') });
  });

  it('the operator detection: a known refusal fails the delivery, anything else leaves it unsent', async () => {
    const detect = { ...topUp, externalOperatorId: null };
    const noOperator = reloadlyAnswering(() => error(404, 'COULD_NOT_AUTO_DETECT_OPERATOR'));
    expect(await noOperator.adapter.send(detect, forWhom)).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('COULD_NOT_AUTO_DETECT_OPERATOR'),
    });
    for (const answer of [error(429, 'TOO_MANY_REQUESTS'), error(400, 'SOMETHING_NEW'), { status: 200, body: { name: 'no id' } }]) {
      const { adapter } = reloadlyAnswering(() => answer);
      expect((await adapter.send(detect, forWhom)).status).toBe('not_sent');
    }
  });

  it("no token: not sent, with the token endpoint's refusal in the reason", async () => {
    const fake: FetchLike = async () => json(401, { timeStamp: 't', message: 'Access Denied', path: '/oauth/token', errorCode: 'INVALID_CREDENTIALS' });
    const adapter = reloadlyAdapter(
      { authUrl: 'http://aggregator.test/oauth/token', apiUrl: 'http://aggregator.test', clientId: 'c', clientSecret: 's', timeoutMs: 1000 },
      { fetch: fake, trail: async () => undefined },
    );
    expect(await adapter.send(topUp, forWhom)).toEqual({
      status: 'not_sent',
      error: 'No access token from the aggregator (HTTP 401 INVALID_CREDENTIALS: Access Denied)',
    });
    expect((await adapter.lookup('RC1', forWhom)).status).toBe('unknown');
  });

  it('reads a duplicate by its errorCode whatever the status', () => {
    expect(readReloadlyError(409, { errorCode: 'CUSTOM_IDENTIFIER_ALREADY_USED' }).meaning).toBe('has_it');
    expect(readReloadlyError(400, { errorCode: 'phone_recently_recharged' }).meaning).toBe('retry');
    expect(readReloadlyError(418, {}).classified).toBe(false);
  });
});
