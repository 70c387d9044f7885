import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_SCHEMAS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@app/contracts';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { startMailCatcher } from '../../../tests/api/mail-catcher.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import { toDbTime } from '../database/time.ts';
import { WebhookDispatcher } from './webhook-dispatcher.ts';
import { disableGone, GONE_ANSWER } from './webhook-gone.ts';
import { webhookReceiver } from '../../../tests/api/webhook-receiver.ts';

/**
 * Each event a reseller acts on, produced by the real change (a sale through the stand-ins, a
 * top-up, a refund), written in the change's transaction and delivered to a receiver that verifies
 * it with the standardwebhooks package; 410 Gone disabling the endpoint, the dealer emailed; and
 * the endpoint managed with an API key (scope webhooks:write), each key reaching its own dealer only.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
const money: RechargeMoney = {};
let mail: Awaited<ReturnType<typeof startMailCatcher>>;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  await h.knex('webhook_events').where({ status: 'pending' }).update({ status: 'failed', next_attempt_at: null });
});

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money, env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  kit = await moneyKit(h, { money, reviewAfterMs: 300 });
  mail = await startMailCatcher();
});
afterAll(async () => {
  await mail.close();
  await kit.close();
  await h.close();
});

interface EventRow {
  id: number;
  event_id: string;
  type: WebhookEventType;
  body: string;
  status: string;
  last_answer: string | null;
}
const events = async (dealerId: number): Promise<EventRow[]> => h.knex('webhook_events').where({ dealer_id: dealerId }).orderBy('id');
const parse = (body: string) => JSON.parse(body) as { type: WebhookEventType; timestamp: string; data: Record<string, unknown> };
const dispatcher = () => new WebhookDispatcher({ db: h.knex, allowLoopback: true, timeoutMs: 2_000, retryDelayMs: () => 0 });

/** Sends everything due for the dealer (one event per dealer per round). */
async function deliverAll(dealerId: number) {
  const d = dispatcher();
  for (let round = 0; round < 100; round++) {
    const due = await h.knex('webhook_events').where({ dealer_id: dealerId, status: 'pending' }).where('next_attempt_at', '<=', toDbTime()).first('id');
    if (!due) return;
    await d.runOnce();
  }
}

/** A shop with a webhook to a verifying receiver, and an API key (recharges:write) to sell with a client_reference. */
async function hookedShop(balance = '10.00', answer?: (n: number) => number) {
  const shop = await makeShop(h, root, 'cost', { balance });
  let secret = '';
  const hook = await webhookReceiver({ secrets: () => [secret], answer });
  closers.push(hook.close);
  const put = await h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url: hook.url });
  expect(put.status).toBe(201);
  secret = put.body.data.secret;
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: 'POS', scopes: ['recharges:write'] });
  expect(made.status).toBe(201);
  return { shop, hook, key: made.body.data.key as string };
}

const sell = (key: string, body: Record<string, unknown>) =>
  h
    .http()
    .post('/api/reseller/v1/recharges')
    .set('Authorization', `Bearer ${key}`)
    .set('Idempotency-Key', `k-${Math.random().toString(36).slice(2)}`)
    .send(body);

/** The events about one sale, in the order written, by type. */
const aboutSale = (written: EventRow[], reference: string) => written.filter((e) => parse(e.body).data.reference === reference);

describe('events for every change a reseller acts on', () => {
  it('a wallet sale delivered: recharge.created, wallet.debited and recharge.delivered, each with the client_reference, verified by the receiver', async () => {
    const { shop, hook, key } = await hookedShop();
    const sold = await sell(key, { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet', client_reference: 'TILL-7-0001' });
    expect(sold.status).toBe(201);
    const reference = sold.body.data.reference as string;
    // Written with the sale itself: there before the worker has done anything.
    expect(aboutSale(await events(shop.dealerId), reference).map((e) => e.type)).toEqual(['recharge.created', 'wallet.debited']);
    await kit.worker.drain();
    const written = aboutSale(await events(shop.dealerId), reference);
    expect(written.map((e) => e.type)).toEqual(['recharge.created', 'wallet.debited', 'recharge.delivered']);
    const [created, debited, delivered] = written.map((e) => parse(e.body));
    expect(created.data).toMatchObject({ reference, client_reference: 'TILL-7-0001', status: 'pending', payment: 'wallet', amount: '0.55', cost: '0.40' });
    expect(debited.data).toEqual({
      kind: 'recharge_debit',
      amount: '0.40',
      balance_after: '9.60',
      currency: 'USD',
      reference,
      client_reference: 'TILL-7-0001',
      created_at: expect.any(String),
    });
    expect(delivered.data).toMatchObject({ reference, client_reference: 'TILL-7-0001', status: 'completed', completed_at: expect.any(String) });
    for (const e of written) expect(WEBHOOK_EVENT_SCHEMAS[e.type].safeParse(parse(e.body)).success, e.type).toBe(true);

    await deliverAll(shop.dealerId);
    expect(hook.received.map((r) => [r.id, r.verifiedBy, r.payload?.type])).toEqual(written.map((e) => [e.event_id, 0, e.type]));
  });

  it('refused by the operator: recharge.failed (as failed), then recharge.refunded and wallet.credited with the money back', async () => {
    const { shop, hook, key } = await hookedShop();
    const sold = await sell(key, { bundle_id: shop.bundleId, phone: '0615129999', payment: 'wallet', client_reference: 'TILL-7-0002' });
    expect(sold.status).toBe(201);
    await kit.worker.drain();
    const reference = sold.body.data.reference as string;
    const written = aboutSale(await events(shop.dealerId), reference);
    expect(written.map((e) => e.type)).toEqual(['recharge.created', 'wallet.debited', 'wallet.credited', 'recharge.failed', 'recharge.refunded']);
    const byType = Object.fromEntries(written.map((e) => [e.type, parse(e.body).data]));
    // Never recharge.failed with status refunded: the refund is its own event.
    expect(byType['recharge.failed']).toMatchObject({
      status: 'failed',
      refunded_at: null,
      client_reference: 'TILL-7-0002',
      failure_reason: expect.any(String),
    });
    expect(byType['recharge.refunded']).toMatchObject({ status: 'refunded', refunded_at: expect.any(String), client_reference: 'TILL-7-0002' });
    expect(byType['wallet.credited']).toMatchObject({
      kind: 'recharge_refund',
      amount: '0.40',
      balance_after: '10.00',
      reference,
      client_reference: 'TILL-7-0002',
    });
    await deliverAll(shop.dealerId);
    expect(hook.received.map((r) => r.verifiedBy)).toEqual(written.map(() => 0));
  });

  it('20 sales at once (one group on MariaDB): each writes its recharge.created and wallet.debited, the balances chained', async () => {
    const { shop, key } = await hookedShop('10.00');
    const sold = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sell(key, { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet', client_reference: `POS-${i}` })),
    );
    expect(sold.map((r) => r.status)).toEqual(Array(20).fill(201));
    const written = await events(shop.dealerId);
    const created = written.filter((e) => e.type === 'recharge.created').map((e) => parse(e.body).data);
    const debited = written.filter((e) => e.type === 'wallet.debited').map((e) => parse(e.body).data);
    expect(created).toHaveLength(20);
    expect(debited).toHaveLength(20);
    // Each sale's own references, in both of its events.
    const refs = new Map(sold.map((r) => [r.body.data.reference as string, r.body.data.client_reference as string]));
    for (const d of [...created, ...debited]) expect(d.client_reference).toBe(refs.get(d.reference as string));
    // 10.00 less 0.40 twenty times: every balance from 9.60 down to 2.00 once.
    const balances = debited.map((d) => d.balance_after as string).sort((a, b) => Number(b) - Number(a));
    expect(balances).toEqual(Array.from({ length: 20 }, (_, i) => (10 - 0.4 * (i + 1)).toFixed(2)));
  });

  it('a delivered sale refunded by hand: recharge.refunded and wallet.credited, with its client_reference', async () => {
    const { shop, hook, key } = await hookedShop();
    const sold = await sell(key, { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet', client_reference: 'TILL-7-0003' });
    await kit.worker.drain();
    const refund = await h.http().post(`/api/v1/recharges/${sold.body.data.id}/refund`).set(bearer(root));
    expect(refund.status).toBe(200);
    const written = aboutSale(await events(shop.dealerId), sold.body.data.reference);
    expect(written.map((e) => e.type)).toEqual(['recharge.created', 'wallet.debited', 'recharge.delivered', 'wallet.credited', 'recharge.refunded']);
    expect(parse(written[3].body).data).toMatchObject({ kind: 'recharge_refund', amount: '0.40', balance_after: '10.00', client_reference: 'TILL-7-0003' });
    expect(parse(written[4].body).data).toMatchObject({ status: 'refunded', client_reference: 'TILL-7-0003', completed_at: expect.any(String) });
    await deliverAll(shop.dealerId);
    expect(hook.received.map((r) => [r.payload?.type, r.verifiedBy])).toEqual(written.map((e) => [e.type, 0]));
  });

  it("a customer's mobile-money sale: recharge.payment_approved when the payment is approved, then delivered", async () => {
    const { shop, hook } = await hookedShop();
    const sold = await buy(h, shop, { idempotency_key: 'hook-approved-01' });
    expect(sold.status).toBe(201);
    await kit.worker.drain();
    const written = aboutSale(await events(shop.dealerId), sold.body.data.reference);
    expect(written.map((e) => e.type)).toEqual(['recharge.created', 'wallet.debited', 'recharge.payment_approved', 'recharge.delivered']);
    expect(parse(written[2].body).data).toMatchObject({ payment: 'mobile_money', payment_status: 'reserved', client_reference: null });
    await deliverAll(shop.dealerId);
    expect(hook.received.map((r) => r.verifiedBy)).toEqual(written.map(() => 0));
  });

  it('an admin’s top-up and debit: wallet.credited and wallet.debited with the balance after; a dealer without a webhook gets no rows at all', async () => {
    const { shop, hook } = await hookedShop('1.00');
    const top = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up`).set(bearer(root)).send({ amount: '2.50', reference: 'EVC-TOPUP-77' });
    expect(top.status).toBe(200);
    const written = (await events(shop.dealerId)).filter((e) => e.type.startsWith('wallet.'));
    expect(written.map((e) => [e.type, parse(e.body).data])).toEqual([
      [
        'wallet.credited',
        {
          kind: 'top_up',
          amount: '2.50',
          balance_after: '3.50',
          currency: 'USD',
          reference: 'EVC-TOPUP-77',
          client_reference: null,
          created_at: expect.any(String),
        },
      ],
    ]);
    await deliverAll(shop.dealerId);
    expect(hook.received.map((r) => [r.payload?.type, r.verifiedBy])).toEqual([['wallet.credited', 0]]);

    const quiet = await makeShop(h, root, 'cost', { balance: '5.00' });
    expect((await buy(h, quiet)).status).toBe(201);
    await kit.worker.drain();
    expect(await events(quiet.dealerId)).toEqual([]);
  });

  it('every event type has a payload schema, and recharge_batch.completed’s matches what bulk sales send', () => {
    expect(Object.keys(WEBHOOK_EVENT_SCHEMAS).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const batch = {
      type: 'recharge_batch.completed',
      timestamp: '2026-11-27T10:00:00.000Z',
      mode: 'live',
      data: {
        id: 'kVzPqjRa',
        client_reference: null,
        status: 'completed',
        lines_total: 3,
        lines_delivered: 2,
        lines_failed: 1,
        lines_pending: 0,
        created_at: '2026-11-27T09:59:00.000Z',
        completed_at: '2026-11-27T10:00:00.000Z',
      },
    };
    expect(WEBHOOK_EVENT_SCHEMAS['recharge_batch.completed'].safeParse(batch).success).toBe(true);
    expect(WEBHOOK_EVENT_SCHEMAS['recharge_batch.completed'].safeParse({ ...batch, data: { ...batch.data, lines_total: 'three' } }).success).toBe(false);
    expect(WEBHOOK_EVENT_SCHEMAS['wallet.debited'].safeParse({ ...batch, type: 'wallet.debited' }).success).toBe(false);
  });
});

describe('410 Gone', () => {
  it('disables the endpoint: waiting events fail, nothing more is written or sent, the dealer is emailed; PUT of the URL enables it', async () => {
    expect(
      (
        await h
          .http()
          .put('/api/v1/settings/mail')
          .set(bearer(root))
          .send({ host: '127.0.0.1', port: mail.port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' })
      ).status,
    ).toBe(200);
    let gone = true;
    const { shop, hook } = await hookedShop('10.00', () => (gone ? 410 : 200));
    const email = (await h.knex('users').where({ id: shop.dealerId }).first('email')).email as string;
    for (const n of [1, 2, 3]) expect((await h.http().post('/api/v1/dealer/webhook/test').set(bearer(shop.token))).status, `test ${n}`).toBe(201);
    await dispatcher().runOnce();
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].verifiedBy).toBe(0);
    const [first, ...rest] = await events(shop.dealerId);
    expect([first.status, first.last_answer]).toEqual(['failed', 'no (410)']);
    expect(rest.map((e) => [e.status, e.last_answer])).toEqual([
      ['failed', GONE_ANSWER],
      ['failed', GONE_ANSWER],
    ]);
    const endpoint = await h.http().get('/api/v1/dealer/webhook').set(bearer(shop.token));
    expect(endpoint.body.data).toMatchObject({ disabled_reason: 'gone', disabled_at: expect.any(String) });
    // The dealer is told, at its account's address.
    await expect.poll(() => mail.mails.filter((m) => m.to.includes(email)).length).toBe(1);
    const body = mail.mails.find((m) => m.to.includes(email))!.body.replace(/=\r?\n/g, '');
    expect(body).toContain('Subject: Your webhook was disabled');
    expect(body).toContain(`${hook.url} answered 410 Gone`);

    // While disabled: no events written (a sale, a top-up), a test or a resend refused, nothing sent.
    expect((await buy(h, shop)).status).toBe(201);
    await kit.worker.drain();
    expect(await events(shop.dealerId)).toHaveLength(3);
    const test = await h.http().post('/api/v1/dealer/webhook/test').set(bearer(shop.token));
    expect([test.status, test.body.message]).toEqual([409, 'This webhook is disabled: set its address again to enable it.']);
    expect((await h.http().post(`/api/v1/webhook-deliveries/${first.id}/resend`).set(bearer(shop.token))).status).toBe(409);
    await dispatcher().runOnce();
    expect(hook.received).toHaveLength(1);

    // The same URL saved again enables it (logged); a resend and new events go out.
    gone = false;
    const enabled = await h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url: hook.url });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ disabled_at: null, disabled_reason: null });
    const logged = await h.knex('activity_log').where({ action: 'webhook_endpoint_set', subject_id: shop.dealerId }).orderBy('id', 'desc').first();
    expect(JSON.parse(logged.before)).toMatchObject({ url: hook.url, disabled_reason: 'gone' });
    expect((await h.http().post(`/api/v1/webhook-deliveries/${first.id}/resend`).set(bearer(shop.token))).status).toBe(200);
    expect((await h.http().post('/api/v1/dealer/webhook/test').set(bearer(shop.token))).status).toBe(201);
    await deliverAll(shop.dealerId);
    expect(hook.received.slice(1).map((r) => [r.payload?.type, r.verifiedBy])).toEqual([
      ['webhook.test', 0],
      ['webhook.test', 0],
    ]);
    expect(mail.mails.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it('a late 410 does not disable an endpoint the dealer saved again while that POST was under way', async () => {
    const { shop, hook } = await hookedShop('10.00', () => 200);
    const endpoint = await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).first('id', 'url');
    // The attempt read the endpoint a minute ago; the dealer has saved it since: its 410 is about the old one.
    const beforeSave = Date.now() - 60_000;
    expect(await disableGone(h.knex, Number(endpoint.id), endpoint.url, Date.now(), beforeSave)).toBe(false);
    expect((await h.knex('webhook_endpoints').where({ id: endpoint.id }).first('disabled_at')).disabled_at).toBeNull();
    // Read after the last save: the 410 stands.
    expect(await disableGone(h.knex, Number(endpoint.id), endpoint.url, Date.now() + 1_000, Date.now() + 1_000)).toBe(true);
    expect(hook.received).toHaveLength(0);
  });
});

describe('the endpoint managed with an API key (webhooks:write)', () => {
  const call = (key: string, method: 'get' | 'put' | 'delete' | 'post', path: string) =>
    h.http()[method](`/api/reseller/v1${path}`).set('Authorization', `Bearer ${key}`);

  it('refuses a key without the scope; with it, sets, shows, rotates, tests and lists, as the key’s dealer only', async () => {
    const a = await makeShop(h, root, 'cost', { balance: '5.00' });
    const b = await makeShop(h, root, 'cost', { balance: '5.00' });
    const keyOf = async (shop: Shop, scopes: string[]) =>
      (await h.http().post('/api/v1/dealer/api-keys').set(bearer(shop.token)).send({ name: 'Ops', scopes })).body.data.key as string;
    const narrow = await keyOf(a, ['recharges:write', 'wallet:read']);
    const keyA = await keyOf(a, ['webhooks:write']);
    const keyB = await keyOf(b, ['webhooks:write']);
    for (const [method, path] of [
      ['get', '/webhook'],
      ['put', '/webhook'],
      ['delete', '/webhook'],
      ['post', '/webhook/rotate'],
      ['post', '/webhook/test'],
      ['get', '/webhook/deliveries'],
    ] as const) {
      const refused = await call(narrow, method, path).send({ url: 'https://a.example.so/hooks' });
      expect(refused.status, `${method} ${path}`).toBe(403);
    }
    expect(await h.knex('webhook_endpoints').whereIn('dealer_id', [a.dealerId, b.dealerId])).toEqual([]);

    let secret = '';
    const hook = await webhookReceiver({ secrets: () => [secret] });
    closers.push(hook.close);
    expect((await call(keyA, 'get', '/webhook')).body.data).toBeNull();
    const refusedUrl = await call(keyA, 'put', '/webhook').send({ url: 'https://[::127.0.0.1]/hooks' });
    expect([refusedUrl.status, Object.keys(refusedUrl.body.errors ?? {})]).toEqual([422, ['url']]);
    const set = await call(keyA, 'put', '/webhook').send({ url: hook.url });
    expect(set.status).toBe(201);
    secret = set.body.data.secret;
    expect(set.body.data).toMatchObject({ url: hook.url, dealer: { id: a.dealerId }, disabled_at: null });
    // The change is logged as the dealer's own.
    expect((await h.knex('activity_log').where({ action: 'webhook_endpoint_set', subject_id: a.dealerId }).first()).actor_id).toBe(a.dealerId);
    const rotated = await call(keyA, 'post', '/webhook/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(secret);
    secret = rotated.body.data.secret;
    const test = await call(keyA, 'post', '/webhook/test');
    expect(test.status).toBe(201);
    await deliverAll(a.dealerId);
    expect(hook.received.map((r) => [r.payload?.type, r.verifiedBy])).toEqual([['webhook.test', 0]]);
    const listed = await call(keyA, 'get', '/webhook/deliveries?per_page=5');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((d: { event_id: string; status: string }) => [d.event_id, d.status])).toEqual([[test.body.data.event_id, 'delivered']]);

    // B's key: its own (none), never A's, whatever it sends.
    expect((await call(keyB, 'get', '/webhook')).body.data).toBeNull();
    // Naming A is refused, named (the reseller API takes no dealer_id): a key is always its own dealer.
    const named = await call(keyB, 'get', `/webhook?dealer_id=${a.dealerId}`);
    expect(named.status).toBe(422);
    expect(named.body.code).toBe('validation.unknown_parameter');
    expect(named.body.data).toBeUndefined();
    expect((await call(keyB, 'get', '/webhook/deliveries')).body.data).toEqual([]);
    expect((await call(keyB, 'post', '/webhook/rotate')).status).toBe(404);
    expect((await call(keyB, 'post', '/webhook/test')).status).toBe(404);
    expect((await call(keyB, 'delete', '/webhook')).status).toBe(404);
    expect((await call(keyA, 'get', '/webhook')).body.data.url).toBe(hook.url);

    expect((await call(keyA, 'delete', '/webhook')).status).toBe(200);
    expect((await call(keyA, 'get', '/webhook')).body.data).toBeNull();
  });

  it('is in the reseller OpenAPI document with its scope', async () => {
    const doc = (await h.http().get('/api/reseller/v1/openapi.json')).body;
    for (const [path, method] of [
      ['/webhook', 'get'],
      ['/webhook', 'put'],
      ['/webhook', 'delete'],
      ['/webhook/rotate', 'post'],
      ['/webhook/test', 'post'],
      ['/webhook/deliveries', 'get'],
    ])
      expect(JSON.stringify(doc.paths[path]?.[method] ?? null), `${method} ${path}`).toContain('webhooks:write');
  });
});
