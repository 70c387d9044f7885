import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { publicAddress, WebhookDispatcher } from './webhook-dispatcher.ts';
import { enqueueWebhookEvent } from './webhook-events.ts';
import { translator } from '../i18n/server-i18n.ts';
import { encodeId } from '../http/ids.ts';

/**
 * Signed webhooks: a dealer's endpoint and secret (rotation keeps the old secret 24 h), the outbox
 * written with each status change, and the dispatcher delivering at least once to a real local
 * receiver that checks every signature on its own (node:crypto, not the product's signer).
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
const money: RechargeMoney = {};

interface Received {
  id: string;
  timestamp: string;
  signatures: string[];
  body: string;
  valid: boolean;
}

/** A receiver: verifies each request against the secrets it knows; answers with `answer(n)` for its n-th request. */
async function receiver(secrets: () => string[], answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = String(req.headers['x-webhook-timestamp']);
      const signatures = String(req.headers['x-webhook-signature'])
        .split(',')
        .map((s) => s.trim().replace(/^v1=/, ''));
      const expected = secrets().map((secret) => crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'));
      const valid = signatures.some((sig) => expected.some((e) => e.length === sig.length && crypto.timingSafeEqual(Buffer.from(e), Buffer.from(sig))));
      received.push({ id: String(req.headers['x-webhook-id']), timestamp, signatures, body, valid });
      const a = answer(received.length);
      if (a === 'hang') return; // never answers
      res.writeHead(a, { 'content-type': 'text/plain' }).end(a === 200 ? 'ok' : `no (${a})`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  // Each test's dispatcher sees the whole outbox: what one test left waiting must not take another's slots.
  await h.knex('webhook_events').where({ status: 'pending' }).update({ status: 'failed', next_attempt_at: null });
});

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money, reviewAfterMs: 300 });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

async function setWebhook(shop: Shop, url: string) {
  const res = await h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url });
  expect(res.status).toBe(201);
  return res.body.data.secret as string;
}

/** Runs the dispatcher until nothing of the dealer's is due (it serves one event per dealer at a time). */
async function deliverAll(d: WebhookDispatcher, dealerId: number) {
  for (let round = 0; round < 50; round++) {
    const due = await h.knex('webhook_events').where({ dealer_id: dealerId, status: 'pending' }).where('next_attempt_at', '<=', toDbTime()).first('id');
    if (!due) return;
    await d.runOnce();
  }
}

const events = (dealerId: number) => h.knex('webhook_events').where({ dealer_id: dealerId }).orderBy('id');
const dispatcher = (opts: ConstructorParameters<typeof WebhookDispatcher>[0] = {}) =>
  new WebhookDispatcher({ db: h.knex, allowLoopback: true, timeoutMs: 2_000, retryDelayMs: () => 0, ...opts });

describe('the endpoint', () => {
  it('takes https (or http on loopback), shows the secret once, keeps it sealed, logs each change', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const put = (url: unknown) => h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url });
    for (const [url, message] of [
      ['', 'validation:webhook_url_required'],
      ['not a url', 'validation:webhook_url_invalid'],
      ['ftp://shop.example.so/hooks', 'validation:webhook_url_invalid'],
      ['http://shop.example.so/hooks', 'validation:webhook_url_https'],
      ['https://user:pw@shop.example.so/hooks', 'validation:webhook_url_credentials'],
    ]) {
      const res = await put(url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url[0]).toBe(translator('en')(message));
    }
    expect(await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId })).toHaveLength(0);

    const first = await put('https://shop.example.so/hooks');
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    expect(secret).toMatch(/^whsec_[\w-]{32}$/);
    const stored = await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).first();
    expect(stored.secret).not.toContain(secret.slice(6));
    const shown = await h.http().get('/api/v1/dealer/webhook').set(bearer(shop.token));
    expect(shown.body.data).toMatchObject({ url: 'https://shop.example.so/hooks', secret_hint: `…${secret.slice(-4)}`, previous_secret_expires_at: null });
    expect(shown.body.data.secret).toBeUndefined();

    const moved = await put('http://127.0.0.1:9/hooks');
    expect(moved.status).toBe(200);
    expect(moved.body.data.secret).toBeUndefined();
    const logged = await h.knex('activity_log').where({ subject_type: 'user', subject_id: shop.dealerId }).where('action', 'like', 'webhook_%');
    expect(logged.map((l: { action: string }) => l.action)).toEqual(['webhook_endpoint_set', 'webhook_endpoint_set']);
  });

  it('one dealer never reaches another dealer’s endpoint or deliveries; an admin does with dealer_id', async () => {
    const a = await makeShop(h, root, 'cost', { balance: '10.00' });
    const b = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(a, 'https://a.example.so/hooks');
    await unitOfWork((trx) => enqueueWebhookEvent(trx, a.dealerId, 'webhook.test', { message: 'hello' }), h.knex);
    const [event] = await events(a.dealerId);
    // B asks for A by id: it is always itself.
    expect((await h.http().get(`/api/v1/dealer/webhook?dealer_id=${a.dealerId}`).set(bearer(b.token))).body.data).toBeNull();
    expect((await h.http().get('/api/v1/webhook-deliveries').set(bearer(b.token))).body.data).toEqual([]);
    expect((await h.http().get(`/api/v1/webhook-deliveries/${event.id}`).set(bearer(b.token))).status).toBe(404);
    expect((await h.http().post(`/api/v1/webhook-deliveries/${event.id}/resend`).set(bearer(b.token))).status).toBe(404);
    const admin = await h.http().get(`/api/v1/webhook-deliveries?dealer_id=${a.dealerId}`).set(bearer(root));
    expect(admin.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([event.event_id]);
    expect((await h.http().get(`/api/v1/dealer/webhook?dealer_id=${a.dealerId}`).set(bearer(root))).body.data.url).toBe('https://a.example.so/hooks');
  });
});

describe('events, signed and delivered at least once', () => {
  it('a sale completed, one refused by the operator and one left in review each write their event with the change', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const hook = await receiver(() => [secret]);
    closers.push(hook.close);
    const secret = await setWebhook(shop, hook.url);
    const done = await buy(h, shop, { idempotency_key: 'hook-done-0001' });
    const refused = await buy(h, shop, { idempotency_key: 'hook-refused-01', phone: '0615559999' });
    const review = await buy(h, shop, { idempotency_key: 'hook-review-01', phone: '0615553333' });
    await kit.worker.drain();
    const written = await events(shop.dealerId);
    const byReference = new Map(written.map((e: { body: string; type: string }) => [JSON.parse(e.body).data.reference, e]));
    expect(byReference.get(done.body.data.reference)?.type).toBe('recharge.completed');
    expect(byReference.get(refused.body.data.reference)?.type).toBe('recharge.failed');
    expect(byReference.get(review.body.data.reference)?.type).toBe('recharge.needs_review');
    const completed = JSON.parse(byReference.get(done.body.data.reference)!.body);
    expect(completed).toMatchObject({
      type: 'recharge.completed',
      data: { status: 'completed', amount: '0.55', cost: '0.40', phone: '615123456', operator: 'Hormuud' },
    });
    expect(completed.id).toMatch(/^evt_[0-9a-f]{32}$/);

    await deliverAll(dispatcher(), shop.dealerId);
    expect(hook.received).toHaveLength(written.length);
    expect(hook.received.every((r) => r.valid)).toBe(true);
    expect(new Set(hook.received.map((r) => r.id))).toEqual(new Set(written.map((e: { event_id: string }) => e.event_id)));
    for (const e of await events(shop.dealerId)) expect([e.status, Number(e.attempts), Number(e.last_status_code)]).toEqual(['delivered', 1, 200]);
  });

  it('a receiver that fails twice gets the same event, id and body a third time; then it is delivered', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const hook = await receiver(
      () => [secret],
      (n) => (n <= 2 ? 500 : 200),
    );
    closers.push(hook.close);
    const secret = await setWebhook(shop, hook.url);
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', { message: 'hello' }), h.knex);
    const d = dispatcher();
    await d.runOnce();
    let [event] = await events(shop.dealerId);
    expect([event.status, Number(event.attempts), Number(event.last_status_code), event.last_answer]).toEqual(['pending', 1, 500, 'no (500)']);
    await d.runOnce();
    await d.runOnce();
    [event] = await events(shop.dealerId);
    expect([event.status, Number(event.attempts), Number(event.last_status_code)]).toEqual(['delivered', 3, 200]);
    expect(hook.received.map((r) => [r.id, r.body, r.valid])).toEqual(Array(3).fill([event.event_id, event.body, true]));
  });

  it('backs off after each failure, and gives up 24 hours after the event was written', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(shop, 'http://127.0.0.1:9/hooks'); // nothing listens there: connection refused
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    let now = Date.now();
    const d = new WebhookDispatcher({ db: h.knex, allowLoopback: true, now: () => now });
    await d.runOnce();
    let [event] = await events(shop.dealerId);
    const wait = Date.parse(`${event.next_attempt_at.replace(' ', 'T')}Z`) - now;
    // 30 s for the first failure, ±20% jitter.
    expect(wait).toBeGreaterThanOrEqual(24_000 - 5);
    expect(wait).toBeLessThanOrEqual(36_000 + 5);
    expect(event.last_status_code).toBeNull();
    expect(event.last_answer).toMatch(/ECONNREFUSED/);
    // Not due yet: not sent again.
    await d.runOnce();
    expect(Number((await events(shop.dealerId))[0].attempts)).toBe(1);
    now += 25 * 3_600_000;
    await d.runOnce();
    [event] = await events(shop.dealerId);
    expect([event.status, Number(event.attempts), event.next_attempt_at]).toEqual(['failed', 2, null]);

    // "Resend": one more attempt now, logged.
    const resent = await h.http().post(`/api/v1/webhook-deliveries/${event.id}/resend`).set(bearer(shop.token));
    expect(resent.status).toBe(200);
    expect(resent.body.data.status).toBe('pending');
    expect(await h.knex('activity_log').where({ action: 'webhook_resent', subject_id: shop.dealerId })).toHaveLength(1);
  });

  it('after a rotation events carry both signatures for 24 hours, then the new one only', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    let known: string[] = [];
    const hook = await receiver(() => known);
    closers.push(hook.close);
    const old = await setWebhook(shop, hook.url);
    const rotated = await h.http().post('/api/v1/dealer/webhook/rotate-secret').set(bearer(shop.token));
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.body.data.previous_secret_expires_at).not.toBeNull();
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    let now = Date.now() + 1_000;
    const d = dispatcher({ now: () => now });
    known = [old]; // a receiver not yet switched still verifies
    await d.runOnce();
    expect(hook.received.at(-1)).toMatchObject({ valid: true });
    expect(hook.received.at(-1)!.signatures).toHaveLength(2);
    now += 24 * 3_600_000 + 1_000;
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await h
      .knex('webhook_events')
      .where({ dealer_id: shop.dealerId, status: 'pending' })
      .update({ next_attempt_at: toDbTime(new Date(now)) });
    await d.runOnce();
    expect(hook.received.at(-1)!.signatures).toHaveLength(1);
    expect(hook.received.at(-1)!.valid).toBe(false);
    known = [fresh];
    expect(
      crypto
        .createHmac('sha256', fresh)
        .update(`${hook.received.at(-1)!.timestamp}.${hook.received.at(-1)!.body}`)
        .digest('hex'),
    ).toBe(hook.received.at(-1)!.signatures[0]);
  });

  it('two dispatchers at once send each attempt once', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const hook = await receiver(() => [secret]);
    closers.push(hook.close);
    const secret = await setWebhook(shop, hook.url);
    for (let i = 0; i < 12; i++) await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', { n: i }), h.knex);
    const one = dispatcher();
    const two = dispatcher();
    for (let round = 0; round < 20 && (await h.knex('webhook_events').where({ dealer_id: shop.dealerId, status: 'pending' })).length; round++)
      await Promise.all([one.runOnce(), two.runOnce()]);
    expect(hook.received).toHaveLength(12);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(12);
  });

  it('a hanging receiver and a dead one slow neither purchases nor other dealers’ events', async () => {
    const slow = await makeShop(h, root, 'cost', { balance: '50.00' });
    const dead = await makeShop(h, root, 'cost', { balance: '50.00' });
    const hook = await receiver(
      () => [],
      () => 'hang',
    );
    closers.push(hook.close);
    const calm = await makeShop(h, root, 'cost', { balance: '10.00' });
    const good = await receiver(() => [goodSecret]);
    closers.push(good.close);
    await setWebhook(slow, hook.url);
    await setWebhook(dead, 'http://127.0.0.1:9/hooks');
    const goodSecret = await setWebhook(calm, good.url);
    // A backlog of the hanging receiver's events older than everyone else's.
    for (let i = 0; i < 40; i++) await unitOfWork((trx) => enqueueWebhookEvent(trx, slow.dealerId, 'webhook.test', { n: i }), h.knex);
    for (let i = 0; i < 8; i++) await unitOfWork((trx) => enqueueWebhookEvent(trx, dead.dealerId, 'webhook.test', { n: i }), h.knex);
    await unitOfWork((trx) => enqueueWebhookEvent(trx, calm.dealerId, 'webhook.test', { n: 0 }), h.knex);
    const timed = async (shop: Shop, tag: string) => {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => buy(h, shop, { idempotency_key: `${tag}-${String(i).padStart(4, '0')}` })));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      return performance.now() - started;
    };
    const before = await timed(slow, 'calm');
    const d = new WebhookDispatcher({ db: h.knex, allowLoopback: true, timeoutMs: 10_000, pollMs: 20, retryDelayMs: () => 0 });
    d.start();
    try {
      await new Promise((r) => setTimeout(r, 100));
      // The hanging receiver holds its slot (an attempt under way) the whole time; the others' events go on.
      expect(await h.knex('webhook_events').where({ dealer_id: slow.dealerId }).whereNotNull('claim_token')).toHaveLength(1);
      expect(good.received.map((r) => r.valid)).toEqual([true]);
      const during = await timed(dead, 'busy');
      expect(during).toBeLessThan(Math.max(before * 3, 1_500));
    } finally {
      const stopping = d.stop();
      await hook.close();
      await stopping;
    }
  });
});

describe('low balance and removal', () => {
  it('a wallet crossing its threshold sends one wallet.low_balance event per crossing', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1.00' });
    await setWebhook(shop, 'https://shop.example.so/hooks');
    await h.knex('wallets').where({ id: shop.walletId }).update({ low_balance_threshold: 50 });
    const answers = await Promise.all(Array.from({ length: 2 }, (_, i) => buy(h, shop, { idempotency_key: `low-${i}-000001` })));
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    await new Promise((r) => setTimeout(r, 200));
    const low = (await events(shop.dealerId)).filter((e: { type: string }) => e.type === 'wallet.low_balance');
    expect(low).toHaveLength(1);
    expect(JSON.parse(low[0].body).data).toEqual({ balance: '0.20', threshold: '0.50', currency: 'USD' });
  });

  it('removing the endpoint (three times at once: one removes it) fails what was waiting and sends nothing more', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(shop, 'https://shop.example.so/hooks');
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    const removals = await Promise.all([1, 2, 3].map(() => h.http().delete('/api/v1/dealer/webhook').set(bearer(shop.token))));
    expect(removals.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(await h.knex('activity_log').where({ action: 'webhook_endpoint_removed', subject_id: shop.dealerId })).toHaveLength(1);
    // Not an id, an id nobody has, a user who is not a dealer: each refused on the filter.
    const rootUser: { id: number } = await h.knex('users').where({ email: 'root@test.example' }).first('id');
    for (const wrong of ['not-an-id', encodeId(999_999), String(rootUser.id)]) {
      const refused = await h.http().get(`/api/v1/webhook-deliveries?dealer_id=${wrong}`).set(bearer(root));
      expect([refused.status, refused.body.errors], wrong).toEqual([422, { dealer_id: [translator('en')('validation:dealer_not_found')] }]);
    }
    const [event] = await events(shop.dealerId);
    expect([event.status, event.last_answer]).toEqual(['failed', 'The webhook endpoint was removed.']);
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    expect(await events(shop.dealerId)).toHaveLength(1);
    expect((await h.http().post(`/api/v1/webhook-deliveries/${event.id}/resend`).set(bearer(shop.token))).status).toBe(409);
  });

  it('delivers to a host name (Node asks the lookup for every address when it races IPv4 and IPv6)', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const hook = await receiver(() => [secret]);
    closers.push(hook.close);
    const secret = await setWebhook(shop, hook.url.replace('127.0.0.1', 'localhost'));
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await dispatcher().runOnce();
    const [event] = await events(shop.dealerId);
    expect([event.status, event.last_answer]).toEqual(['delivered', 'ok']);
    expect(hook.received.map((r) => r.valid)).toEqual([true]);
  });

  it('refuses a private address written in the URL (saved, or already in the table), and a name resolving to one', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    for (const url of [
      'https://10.0.0.5:8443/hooks',
      'https://169.254.169.254/latest',
      'https://0.0.0.0:8443/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
    ]) {
      const res = await h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url[0]).toBe(translator('en')('validation:webhook_url_private'));
    }
    const hook = await receiver(() => []);
    closers.push(hook.close);
    await setWebhook(shop, hook.url);
    // A row written before this rule (or by hand): the dispatcher checks again.
    await h
      .knex('webhook_endpoints')
      .where({ dealer_id: shop.dealerId })
      .update({ url: hook.url.replace('127.0.0.1', '0.0.0.0') });
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await dispatcher().runOnce();
    let [event] = await events(shop.dealerId);
    expect(event.last_answer).toBe('0.0.0.0 is not a public address.');
    // This machine's own name resolves to a loopback address here: as a plain name it is refused after DNS.
    const own = await dns.lookup(os.hostname()).catch(() => null);
    if (own && !publicAddress(own.address)) {
      await h
        .knex('webhook_endpoints')
        .where({ dealer_id: shop.dealerId })
        .update({ url: hook.url.replace('127.0.0.1', os.hostname()) });
      await h.knex('webhook_events').where({ id: event.id }).update({ status: 'pending', next_attempt_at: toDbTime() });
      await dispatcher().runOnce();
      [event] = await events(shop.dealerId);
      expect(event.last_answer).toContain(`resolves to ${own.address}, not a public address`);
    }
    expect(hook.received).toEqual([]);
  });

  it('refuses receivers on private addresses, and on this machine unless allowed', async () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.9',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '0.0.0.0',
      '198.18.0.1',
    ])
      expect(publicAddress(address), address).toBe(false);
    for (const address of ['41.78.1.2', '8.8.8.8', '2001:4860:4860::8888']) expect(publicAddress(address), address).toBe(true);
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(shop, 'http://127.0.0.1:9/hooks');
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await new WebhookDispatcher({ db: h.knex, allowLoopback: false, retryDelayMs: () => 0 }).runOnce();
    const [event] = await events(shop.dealerId);
    expect(event.last_answer).toBe('Receivers on this machine are not allowed here.');
  });
});
