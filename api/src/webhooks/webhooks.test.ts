import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_SCHEMAS, WEBHOOK_RETRY_SCHEDULE_SECONDS, webhookUrlProblem, type WebhookEventType } from '@app/contracts';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { sealSecret } from '../settings/secret-box.ts';
import { hostKind, publicAddress, WebhookDispatcher } from './webhook-dispatcher.ts';
import { enqueueWebhookEvent } from './webhook-events.ts';
import { webhookReceiver } from '../../../tests/api/webhook-receiver.ts';
import { translator } from '../i18n/server-i18n.ts';
import { encodeId } from '../http/ids.ts';

/**
 * Standard Webhooks: a dealer's endpoint and secret (rotation keeps the old secret 24 h, rotations
 * at once hand out one secret), the outbox written with each status change, and the dispatcher
 * delivering at least once, on the retry schedule, to a real local receiver that verifies every
 * request with the standardwebhooks package.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
const money: RechargeMoney = {};

const receiver = (secrets: () => string[], answer?: (n: number) => number | 'hang', clock?: () => number) => webhookReceiver({ secrets, answer, clock });

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
  expect(res.status, JSON.stringify(res.body)).toBe(201);
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
const parse = (body: string) => JSON.parse(body) as { type: WebhookEventType; timestamp: string; data: Record<string, unknown> };

describe('the endpoint', () => {
  it('takes https (or http on loopback), shows the secret once, keeps it sealed, logs each change', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const put = (url: unknown) => h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url });
    for (const [url, message] of [
      ['', 'validation:webhook_url_required'],
      ['not-a-url', 'validation:webhook_url_invalid'],
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
    // Standard Webhooks: whsec_ and standard base64 of 32 random bytes.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const stored = await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).first();
    expect(stored.secret).not.toContain(secret.slice(6));
    const shown = await h.http().get('/api/v1/dealer/webhook').set(bearer(shop.token));
    expect(shown.body.data).toMatchObject({ url: 'https://shop.example.so/hooks', secret_hint: `…${secret.slice(-4)}`, previous_secret_expires_at: null });
    expect(shown.body.data.secret).toBeUndefined();

    // Spaces and control characters are refused before the URL parser would quietly drop or encode them.
    for (const url of ['https://shop.example.so/ho oks', 'https://shop.example.so/ho\toks', 'https://shop.exa\nmple.so/', 'https://shop.example.so/\u0000']) {
      const res = await put(url);
      expect(res.status, JSON.stringify(url)).toBe(422);
      expect(res.body.errors.url[0]).toBe(translator('en')('validation:webhook_url_spaces'));
    }
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
    const typesOf = (reference: string) =>
      written.filter((e: { body: string }) => parse(e.body).data.reference === reference).map((e: { type: string }) => e.type);
    expect(typesOf(done.body.data.reference).at(-1)).toBe('recharge.delivered');
    expect(typesOf(refused.body.data.reference)).toContain('recharge.failed');
    expect(typesOf(review.body.data.reference).at(-1)).toBe('recharge.needs_review');
    const delivered = written.find(
      (e: { type: string; body: string }) => e.type === 'recharge.delivered' && parse(e.body).data.reference === done.body.data.reference,
    );
    const payload = parse(delivered.body);
    expect(payload).toMatchObject({
      type: 'recharge.delivered',
      data: { status: 'completed', amount: '0.55', cost: '0.40', phone: '615123456', operator: 'Hormuud', client_reference: null },
    });
    // {type, timestamp, mode, data} only: the id is the webhook-id header; a live key's sale is live.
    expect(Object.keys(payload)).toEqual(['type', 'timestamp', 'mode', 'data']);
    expect(payload).toMatchObject({ mode: 'live' });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(delivered.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
    for (const e of written) expect(WEBHOOK_EVENT_SCHEMAS[e.type as WebhookEventType].safeParse(parse(e.body)).success, e.type).toBe(true);

    await deliverAll(dispatcher(), shop.dealerId);
    expect(hook.received).toHaveLength(written.length);
    expect(hook.received.map((r) => r.verifiedBy)).toEqual(Array(written.length).fill(0));
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
    expect(hook.received.map((r) => [r.id, r.body, r.verifiedBy])).toEqual(Array(3).fill([event.event_id, event.body, 0]));
  });

  it('retries on the Standard Webhooks schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), then fails; resend tries once more', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    let now = 0;
    const hook = await receiver(
      () => [secret],
      () => 503,
      () => now,
    );
    closers.push(hook.close);
    const secret = await setWebhook(shop, hook.url);
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', { message: 'schedule' }), h.knex);
    now = Date.now();
    const d = new WebhookDispatcher({ db: h.knex, allowLoopback: true, timeoutMs: 2_000, now: () => now });
    await d.runOnce();
    expect(hook.received).toHaveLength(1);
    for (const [i, seconds] of WEBHOOK_RETRY_SCHEDULE_SECONDS.entries()) {
      const [event] = await events(shop.dealerId);
      expect([event.status, Number(event.attempts), Number(event.last_status_code)]).toEqual(['pending', i + 1, 503]);
      // Due after the step's wait, and at most 10% later (jitter).
      const wait = Date.parse(`${event.next_attempt_at.replace(' ', 'T')}Z`) - now;
      expect(wait, `step ${i + 1}`).toBeGreaterThanOrEqual(seconds * 1_000 - 5);
      expect(wait, `step ${i + 1}`).toBeLessThanOrEqual(seconds * 1_100 + 5);
      // Not yet due: nothing sent.
      now += seconds * 1_000 - 1_000;
      await d.runOnce();
      expect(hook.received, `step ${i + 1}`).toHaveLength(i + 1);
      now += seconds * 100 + 1_000;
      await d.runOnce();
      expect(hook.received, `step ${i + 1}`).toHaveLength(i + 2);
    }
    const [event] = await events(shop.dealerId);
    expect([event.status, Number(event.attempts), event.next_attempt_at]).toEqual(['failed', 10, null]);
    // Ten attempts of one event: the same id and body each time, each signed for its own timestamp, each verified.
    expect(new Set(hook.received.map((r) => r.id))).toEqual(new Set([event.event_id]));
    expect(hook.received.every((r) => r.body === event.body && r.verifiedBy === 0)).toBe(true);
    expect(new Set(hook.received.map((r) => r.timestamp)).size).toBe(10);
    // About three days in all.
    const spanHours = (Number(hook.received.at(-1)!.timestamp) - Number(hook.received[0].timestamp)) / 3_600;
    expect(spanHours).toBeGreaterThan(75);
    expect(spanHours).toBeLessThan(84);
    now += 365 * 86_400_000;
    await d.runOnce();
    expect(hook.received).toHaveLength(10);

    // "Resend": one more attempt now, logged; failing again, it stays failed.
    const resent = await h.http().post(`/api/v1/webhook-deliveries/${event.id}/resend`).set(bearer(shop.token));
    expect(resent.status).toBe(200);
    expect(resent.body.data.status).toBe('pending');
    expect(await h.knex('activity_log').where({ action: 'webhook_resent', subject_id: shop.dealerId })).toHaveLength(1);
    await h
      .knex('webhook_events')
      .where({ id: event.id })
      .update({ next_attempt_at: toDbTime(new Date(now)) });
    await d.runOnce();
    expect(hook.received).toHaveLength(11);
    expect((await events(shop.dealerId))[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
  });

  it('a refused connection is retried 5 s later, with the error kept', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(shop, 'http://127.0.0.1:9/hooks'); // nothing listens there: connection refused
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    const now = Date.now();
    await new WebhookDispatcher({ db: h.knex, allowLoopback: true, now: () => now }).runOnce();
    const [event] = await events(shop.dealerId);
    const wait = Date.parse(`${event.next_attempt_at.replace(' ', 'T')}Z`) - now;
    expect(wait).toBeGreaterThanOrEqual(5_000 - 5);
    expect(wait).toBeLessThanOrEqual(5_500 + 5);
    expect(event.last_status_code).toBeNull();
    expect(event.last_answer).toMatch(/ECONNREFUSED/);
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
    expect(hook.received.at(-1)!.verifiedBy).toBe(0);
    // Space-separated, the current secret's first.
    expect(hook.received.at(-1)!.signature.split(' ')).toHaveLength(2);
    known = [fresh];
    await h
      .knex('webhook_events')
      .where({ dealer_id: shop.dealerId })
      .update({ status: 'pending', next_attempt_at: toDbTime(new Date(now)) });
    await d.runOnce();
    expect(hook.received.at(-1)!.verifiedBy).toBe(0);
    now += 24 * 3_600_000 + 1_000;
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await h
      .knex('webhook_events')
      .where({ dealer_id: shop.dealerId, status: 'pending' })
      .update({ next_attempt_at: toDbTime(new Date(now)) });
    known = [old, fresh];
    const clocked = await receiver(
      () => known,
      undefined,
      () => now,
    );
    closers.push(clocked.close);
    await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).update({ url: clocked.url });
    await d.runOnce();
    // The old secret no longer signs: one signature, the new secret's.
    expect(clocked.received.at(-1)!.signature.split(' ')).toHaveLength(1);
    expect(clocked.received.at(-1)!.verifiedBy).toBe(1);
  });

  it('ten rotations at once hand out one secret, and it verifies the next delivery (as does the one before)', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    let known: string[] = [];
    const hook = await receiver(() => known);
    closers.push(hook.close);
    const old = await setWebhook(shop, hook.url);
    const rotations = await Promise.all(Array.from({ length: 10 }, () => h.http().post('/api/v1/dealer/webhook/rotate-secret').set(bearer(shop.token))));
    expect(rotations.map((r) => r.status)).toEqual(Array(10).fill(200));
    const handedOut = [...new Set(rotations.map((r) => r.body.data.secret as string))];
    expect(handedOut).toHaveLength(1);
    expect(handedOut[0]).not.toBe(old);
    // One rotation happened (logged once); the others answered its secret.
    expect(await h.knex('activity_log').where({ action: 'webhook_secret_rotated', subject_id: shop.dealerId })).toHaveLength(1);
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', { message: 'after rotations' }), h.knex);
    for (const secret of [...handedOut, old]) {
      known = [secret];
      await h.knex('webhook_events').where({ dealer_id: shop.dealerId }).update({ status: 'pending', next_attempt_at: toDbTime() });
      await dispatcher().runOnce();
      expect(hook.received.at(-1)!.verifiedBy, secret === old ? 'the previous secret' : 'the secret handed out').toBe(0);
    }
    // A minute later a rotation makes a new secret again.
    await h
      .knex('webhook_endpoints')
      .where({ dealer_id: shop.dealerId })
      .update({ secret_rotated_at: toDbTime(new Date(Date.now() - 61_000)) });
    const again = await h.http().post('/api/v1/dealer/webhook/rotate-secret').set(bearer(shop.token));
    expect(again.body.data.secret).not.toBe(handedOut[0]);
  });

  it('a secret made before Standard Webhooks (whsec_ and base64url) keeps its key: the receiver writes it in the standard alphabet', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const legacy = `whsec_${Buffer.from([251, 255, 190, ...crypto.randomBytes(21)]).toString('base64url')}`;
    expect(legacy).toMatch(/[-_]/);
    const standard = `whsec_${Buffer.from(legacy.slice(6), 'base64url').toString('base64')}`;
    const hook = await receiver(() => [standard]);
    closers.push(hook.close);
    await setWebhook(shop, hook.url);
    await h
      .knex('webhook_endpoints')
      .where({ dealer_id: shop.dealerId })
      .update({ secret: sealSecret(legacy) });
    // The library refuses the URL-safe alphabet itself; the same bytes in base64 verify.
    expect(() => new Webhook(legacy)).toThrow();
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', { message: 'legacy' }), h.knex);
    await dispatcher().runOnce();
    expect(hook.received.map((r) => r.verifiedBy)).toEqual([0]);
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
      expect(good.received.map((r) => r.verifiedBy)).toEqual([0]);
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
    expect(hook.received.map((r) => r.verifiedBy)).toEqual([0]);
  });

  it('refuses a private address written in the URL (saved, or already in the table), and a name resolving to one', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    for (const url of [
      'https://10.0.0.5:8443/hooks',
      'https://169.254.169.254/latest',
      'https://0.0.0.0:8443/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      // IPv4-compatible IPv6 (::/96): loopback and private IPv4 in disguise.
      'https://[::127.0.0.1]/',
      'https://[::127.0.0.1]:8443/hooks',
      'https://[::7f00:1]/',
      'https://[::a00:1]/',
      'https://[0:0:0:0:0:0:10.1.2.3]/',
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
      '::',
      '::127.0.0.1',
      '::7f00:1',
      '::a00:1',
      '::808:808',
    ])
      expect(publicAddress(address), address).toBe(false);
    for (const address of ['41.78.1.2', '8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(publicAddress(address), address).toBe(true);
    for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[::a00:1]']) expect(hostKind(new URL(`https://${host}/`).hostname), host).toBe('private');
    // Spaces and control characters, checked on the raw string (the parser would drop or encode them).
    for (const url of [
      'https://a.example.so/x y',
      'https://a.example.so/\tx',
      'https://a.exa\rmple.so/',
      'https://a.example.so/\u007f',
      'https://a.example.so/\u00a0',
    ])
      expect(webhookUrlProblem(url), JSON.stringify(url)).toBe('validation:webhook_url_spaces');
    expect(webhookUrlProblem('https://a.example.so/x%20y')).toBeNull();
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    await setWebhook(shop, 'http://127.0.0.1:9/hooks');
    await unitOfWork((trx) => enqueueWebhookEvent(trx, shop.dealerId, 'webhook.test', {}), h.knex);
    await new WebhookDispatcher({ db: h.knex, allowLoopback: false, retryDelayMs: () => 0 }).runOnce();
    const [event] = await events(shop.dealerId);
    expect(event.last_answer).toBe('Receivers on this machine are not allowed here.');
  });
});
