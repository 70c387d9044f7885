import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { DEALER_PERMISSIONS, DEALER_ROLE } from '@app/contracts/permissions';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';

/**
 * The reseller API (/api/reseller/v1) on the real app, database and worker (the WaafiPay and
 * Reloadly stand-ins over loopback): the catalogue at the dealer's prices, a sale paid from the
 * dealer's wallet (debited at once, refunded exactly once when the operator refuses), a sale paid
 * by the customer's mobile money (the storefront's flow), idempotency under 20 simultaneous calls,
 * the dealer's own sales and wallet, and the OpenAPI document's "Reseller API" tag.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
let key: string;

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  kit = await moneyKit(h);
  shop = await makeShop(h, root, 'cost', { balance: '2.00' });
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: 'POS', scopes: ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read'] });
  key = made.body.data.key;
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const auth = { Authorization: '' };
const sell = (body: Record<string, unknown>, idempotencyKey: string | null = `k-${Math.random().toString(36).slice(2)}`, withKey = key) => {
  const req = h
    .http()
    .post('/api/reseller/v1/recharges')
    .set({ ...auth, Authorization: `Bearer ${withKey}` });
  return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body);
};
const get = (path: string) => h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${key}`);
const ledgerOf = async (rechargeId: number) =>
  (await h.knex('wallet_transactions').where({ recharge_id: rechargeId }).orderBy('id')).map((t: { kind: string; type: string; amount: number | string }) => [
    t.kind,
    t.type,
    Number(t.amount),
  ]);

describe('GET /catalogue', () => {
  it("answers the dealer's operators, categories and bundles at its price with their cost, and its customers' payment methods", async () => {
    const res = await get('/catalogue');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const bundle = res.body.data.providers[0].categories[0].bundles.find((b: { id: number }) => b.id === shop.bundleId);
    expect(bundle).toMatchObject({ price: '0.55', cost: '0.40', validity_days: 1 });
    expect(res.body.data).toMatchObject({ currency: 'USD', payment_methods: [{ id: shop.methodId, type: 'evc_plus' }] });
    expect(res.body.data.providers[0]).toMatchObject({ name: 'Hormuud', phone_prefixes: ['61', '77'] });
  });

  it('leaves the cost out when the dealer role lost "view bundles prices", as every console answer does', async () => {
    const dealerRoleId = (await h.knex('roles').where({ name: DEALER_ROLE }).first('id')).id;
    const assign = (permissions: string[]) => h.http().post(`/api/v1/roles/${dealerRoleId}/assign-permissions`).set(bearer(root)).send({ permissions });
    expect((await assign(DEALER_PERMISSIONS.filter((p) => p !== 'view bundles prices'))).status).toBe(200);
    try {
      const res = await get('/catalogue');
      expect(res.status).toBe(200);
      const bundle = res.body.data.providers[0].categories[0].bundles.find((b: { id: number }) => b.id === shop.bundleId);
      expect(bundle).toMatchObject({ price: '0.55', validity_days: 1 });
      expect(bundle).not.toHaveProperty('cost');
    } finally {
      expect((await assign(DEALER_PERMISSIONS)).status).toBe(200);
    }
    expect((await get('/catalogue')).body.data.providers[0].categories[0].bundles[0]).toHaveProperty('cost');
  });
});

describe('POST /recharges with payment "wallet" (the point of sale)', () => {
  it('debits the cost at once, asks nobody for a payment, delivers, and the sale is the dealer’s', async () => {
    const before = await walletBalance(h, shop.walletId);
    const res = await sell({ bundle_id: shop.bundleId, phone: '+252 61 512 3456', payment: 'wallet' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBeTruthy();
    expect(res.body.data).toMatchObject({
      status: 'pending',
      payment_flow: 'wallet',
      payment_method: null,
      payer_phone: null,
      amount: '0.55',
      cost: '0.40',
      // Not earned until delivered (issue 28): a pending sale shows none.
      profit: '0.00',
      phone: '615123456',
      dealer: { id: shop.dealerId },
    });
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    expect(await ledgerOf(res.body.data.id)).toEqual([['recharge_debit', 'debit', 40]]);
    await kit.worker.drain();
    const done = await get(`/recharges/${res.body.data.reference}`);
    expect(done.body.data).toMatchObject({ status: 'completed', payment_state: 'none', delivery_state: 'delivered', failure_reason: null, profit: '0.15' });
    // No payment was ever asked of the gateway for it.
    expect(await h.knex('remote_calls').where({ recharge_id: res.body.data.id, system: 'waafipay' })).toHaveLength(0);
    expect(await ledgerOf(res.body.data.id)).toEqual([['recharge_debit', 'debit', 40]]);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    // Logged as the dealer's act, from its key's call.
    const log = await h.knex('activity_log').where({ action: 'recharge_created', subject_id: res.body.data.id }).first();
    expect(log.actor_id).toBe(shop.dealerId);
  });

  it('a delivery the operator refuses returns the cost to the wallet exactly once', async () => {
    const before = await walletBalance(h, shop.walletId);
    const res = await sell({ bundle_id: shop.bundleId, phone: '0615129999', payment: 'wallet' });
    expect(res.status).toBe(201);
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    await kit.worker.drain();
    const done = await get(`/recharges/${res.body.data.reference}`);
    expect(done.body.data).toMatchObject({ status: 'refunded', delivery_state: 'failed' });
    expect(await ledgerOf(res.body.data.id)).toEqual([
      ['recharge_debit', 'debit', 40],
      ['recharge_refund', 'credit', 40],
    ]);
    expect(await walletBalance(h, shop.walletId)).toBe(before);
    // An admin's refund by hand finds nothing left to return.
    expect((await h.http().post(`/api/v1/recharges/${res.body.data.id}/refund`).set(bearer(root))).status).toBe(409);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(before);
  });

  it('refuses a sale the wallet cannot pay with a clear 422 on payment, writing nothing', async () => {
    const poor = await makeShop(h, root, 'cost', { balance: '0.30' });
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(poor.token))
      .send({ name: 'POS', scopes: ['recharges:write'] });
    const counts = async () => [
      Number((await h.knex('recharges').where({ dealer_id: poor.dealerId }).count({ n: '*' }).first())!.n),
      Number((await h.knex('missed_sales').where({ dealer_id: poor.dealerId }).count({ n: '*' }).first())!.n),
      await walletBalance(h, poor.walletId),
    ];
    const before = await counts();
    const res = await sell({ bundle_id: poor.bundleId, phone: '0615123456', payment: 'wallet' }, 'poor-key-0001', made.body.data.key);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ payment: ['The wallet’s balance is below this bundle’s cost (0.40 USD). Top up the wallet and try again.'] });
    const so = await h
      .http()
      .post('/api/reseller/v1/recharges?lng=so')
      .set('Authorization', `Bearer ${made.body.data.key}`)
      .set('Idempotency-Key', 'poor-key-0002')
      .send({ bundle_id: poor.bundleId, phone: '0615123456', payment: 'wallet' });
    expect(so.body.errors.payment[0]).toContain('0.40 USD');
    expect(so.body.errors.payment[0]).not.toContain('Top up');
    expect(await counts()).toEqual(before);
  });

  it('validates the body and the Idempotency-Key header, every problem at once', async () => {
    // The IETF draft's 400 for a missing (or malformed) Idempotency-Key.
    const noKey = await sell({ bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' }, null);
    expect(noKey.status).toBe(400);
    expect(noKey.body.code).toBe('idempotency.key_missing');
    expect(noKey.body.errors).toEqual({ idempotency_key: ['The purchase key is missing (idempotency_key or the Idempotency-Key header)'] });
    const badKey = await sell({ bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' }, 'short');
    expect([badKey.status, badKey.body.code]).toEqual([400, 'idempotency.key_invalid']);
    const bad = await sell({ bundle_id: '', phone: '12', payment: 'cash' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['bundle_id', 'payment', 'phone']);
    const wrongOperator = await sell({ bundle_id: shop.bundleId, phone: '0621234567', payment: 'wallet' });
    expect(wrongOperator.status).toBe(422);
    expect(Object.keys(wrongOperator.body.errors)).toEqual(['phone']);
  });
});

describe('POST /recharges paid by the customer (the storefront’s flow)', () => {
  it('sends the mobile-money prompt through the gateway; the cost model debits the cost as on the storefront', async () => {
    const before = await walletBalance(h, shop.walletId);
    const res = await sell({ bundle_id: shop.bundleId, phone: '0615123456', payment: { method_id: shop.methodId, payer_phone: '0617000021' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ payment_flow: null, payment_method: 'EVC Plus', payer_phone: '617000021', pricing_model: 'cost' });
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    await kit.worker.drain();
    const done = await get(`/recharges/${res.body.data.reference}`);
    expect(done.body.data).toMatchObject({ status: 'completed', payment_state: 'collected', payment_flow: 'preauthorize' });
    expect((await h.knex('remote_calls').where({ recharge_id: res.body.data.id, system: 'waafipay' })).length).toBeGreaterThan(0);
  });

  it('names the reseller’s own fields in its errors (payment.method_id, payment.payer_phone)', async () => {
    const res = await sell({ bundle_id: shop.bundleId, phone: '0615123456', payment: { method_id: 999999, payer_phone: '0617000021' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['payment.method_id']);
    const network = await sell({ bundle_id: shop.bundleId, phone: '0615123456', payment: { method_id: shop.methodId, payer_phone: '0631234567' } });
    expect(Object.keys(network.body.errors)).toEqual(['payment.payer_phone']);
  });
});

describe('idempotency', () => {
  it('the same key and body: the first answer (200, the same sale, one debit, Idempotent-Replayed); another body: 422', async () => {
    const body = { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' };
    const first = await sell(body, 'same-key-1');
    const again = await sell(body, 'same-key-1');
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.data.reference).toBe(first.body.data.reference);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await sell({ ...body, phone: '0615000111' }, 'same-key-1');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      success: false,
      code: 'idempotency.key_reused',
      message: 'This purchase key was already used for a different purchase.',
    });
    expect(await ledgerOf(first.body.data.id)).toEqual([['recharge_debit', 'debit', 40]]);
  });

  it('a till’s key spent first on the public storefront does not block the till: the two keys live apart', async () => {
    // What the two sales cost, so that the tests after this one find the balance they expect.
    const topUp = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up`).set(bearer(root)).send({ amount: '0.80', reference: 'two-keys' });
    expect(topUp.status).toBe(200);
    const body = { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' };
    const stranger = await buy(h, shop, { idempotency_key: 'till-7-000124' });
    expect(stranger.status).toBe(201);
    const till = await sell(body, 'till-7-000124');
    expect(till.status).toBe(201);
    expect(till.body.data.reference).not.toBe(stranger.body.data.reference);
    expect(till.body.data.payment_flow).toBe('wallet');
  });

  it('20 calls at once under one Idempotency-Key: one sale, one debit, the rest in progress (409) or replayed, the ledger exact', async () => {
    const rich = await makeShop(h, root, 'cost', { balance: '5.00' });
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(rich.token))
      .send({ name: 'POS', scopes: ['recharges:write'] });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => sell({ bundle_id: rich.bundleId, phone: '0615123456', payment: 'wallet' }, 'burst-key-0001', made.body.data.key)),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 200 || s === 201 || s === 409),
      statuses.join(','),
    ).toBe(true);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    const busy = answers.filter((a) => a.status === 409);
    for (const a of busy) expect([a.body.code, a.headers['retry-after']]).toEqual(['idempotency.in_progress', '1']);
    const sold = answers.filter((a) => a.status !== 409);
    expect(new Set(sold.map((a) => a.body.data.reference)).size).toBe(1);
    // Once the first has answered, the key replays it.
    const later = await sell({ bundle_id: rich.bundleId, phone: '0615123456', payment: 'wallet' }, 'burst-key-0001', made.body.data.key);
    expect([later.status, later.headers['idempotent-replayed'], later.body.data.reference]).toEqual([200, 'true', sold[0].body.data.reference]);
    const sales = await h.knex('recharges').where({ dealer_id: rich.dealerId });
    expect(sales).toHaveLength(1);
    expect(await ledgerOf(sales[0].id)).toEqual([['recharge_debit', 'debit', 40]]);
    expect(await walletBalance(h, rich.walletId)).toBe(460);
    expect(await ledgerSum(h.knex, rich.walletId)).toBe(460);
  });
});

describe('idempotency: a retry while the first request is still running', () => {
  it('is 409 idempotency.in_progress while the first is held; the first then sells once, and the key replays it', async () => {
    const held = await makeShop(h, root, 'cost', { balance: '1.00' });
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(held.token))
      .send({ name: 'POS', scopes: ['recharges:write'] });
    const heldKey = made.body.data.key as string;
    const body = JSON.stringify({ bundle_id: held.bundleId, phone: '0615123456', payment: 'wallet' });
    const server = h.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const arrived = once(server, 'request');
      // The first request: its headers and part of its body sent, the rest held back (a slow uplink).
      const first = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/reseller/v1/recharges',
        headers: {
          Authorization: `Bearer ${heldKey}`,
          'Idempotency-Key': 'held-key-0001',
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      });
      const firstAnswer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: { data: { reference: string; id: number } } }>(
        (resolve, reject) => {
          first.on('error', reject);
          first.on('response', (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
          });
        },
      );
      first.write(body.slice(0, 10));
      await arrived;
      // The server has the first request; its middleware runs within moments.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const retry = await sell(JSON.parse(body), 'held-key-0001', heldKey);
      expect(retry.status).toBe(409);
      expect(retry.headers['retry-after']).toBe('1');
      expect(retry.body).toMatchObject({ success: false, code: 'idempotency.in_progress' });
      // Another body under the held key is refused the same way, before anything is read.
      expect((await sell({ ...JSON.parse(body), phone: '0615000999' }, 'held-key-0001', heldKey)).body.code).toBe('idempotency.in_progress');
      // Another key of the same caller is not held up.
      const other = await sell(JSON.parse(body), 'held-key-0002', heldKey);
      expect(other.status).toBe(201);
      expect(await h.knex('recharges').where({ dealer_id: held.dealerId, idempotency_key: 'rs/held-key-0001' })).toHaveLength(0);
      first.end(body.slice(10));
      const answered = await firstAnswer;
      expect(answered.status).toBe(201);
      const replay = await sell(JSON.parse(body), 'held-key-0001', heldKey);
      expect([replay.status, replay.headers['idempotent-replayed'], replay.body.data.reference]).toEqual([200, 'true', answered.body.data.reference]);
      expect(await ledgerOf(answered.body.data.id)).toEqual([['recharge_debit', 'debit', 40]]);
      expect(await walletBalance(h, held.walletId)).toBe(20);
      expect(await ledgerSum(h.knex, held.walletId)).toBe(20);
    } finally {
      server.close();
    }
  });
});

describe('the dealer’s sales and wallet', () => {
  it('GET /recharges filters by status and days, paginated, newest first', async () => {
    const all = await get('/recharges?per_page=2');
    expect(all.status).toBe(200);
    expect(all.body.meta).toMatchObject({ current_page: 1, per_page: 2 });
    expect(all.body.meta.total).toBeGreaterThanOrEqual(4);
    expect(all.body.data[0].id).toBeGreaterThan(all.body.data[1].id);
    const refunded = await get('/recharges?status=refunded');
    expect(refunded.body.data.length).toBeGreaterThan(0);
    expect(refunded.body.data.every((r: { status: string }) => r.status === 'refunded')).toBe(true);
    expect((await get('/recharges?from=2001-01-01&to=2001-01-02')).body.data).toEqual([]);
    const bad = await get('/recharges?status=lost&from=yesterday');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['from', 'status']);
  });

  it('GET /recharges/{reference}: an unknown reference is a 404', async () => {
    const res = await get('/recharges/RC2222222222');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, code: 'recharges.not_found', message: 'This purchase was not found in this shop.' });
  });

  it('GET /wallet: the balance and the latest ledger rows, newest first (limit)', async () => {
    const res = await get('/wallet?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.data.wallet).toMatchObject({ dealer_id: shop.dealerId, balance: ((await walletBalance(h, shop.walletId)) / 100).toFixed(2) });
    expect(res.body.data.transactions).toHaveLength(2);
    expect(res.body.data.transactions[0].id).toBeGreaterThan(res.body.data.transactions[1].id);
    expect((await get('/wallet?limit=500')).status).toBe(422);
  });

  it('an unknown reseller path is the API’s JSON 404', async () => {
    const res = await get('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});

describe('the OpenAPI document', () => {
  it('is its own document under its base URL, with the key scheme, scopes and examples', async () => {
    const doc = (await h.http().get('/api/reseller/v1/openapi.json')).body;
    expect(doc.servers).toEqual([{ url: '/api/reseller/v1' }]);
    expect(doc.tags.find((t: { name: string }) => t.name === 'Reseller API').description).toContain('/api/reseller/v1');
    expect(doc.components.securitySchemes.resellerKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const post = doc.paths['/recharges'];
    expect(post.post.servers).toBeUndefined();
    expect(post.post).toMatchObject({ tags: ['Reseller API'], security: [{ resellerKey: [] }] });
    expect(post.post.description).toContain('Requires the key scope: recharges:write');
    expect(post.post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]));
    expect(post.post.requestBody.content['application/json'].example).toEqual({ bundle_id: 3, phone: '0615123456', payment: 'wallet' });
    expect(Object.keys(post.post.responses)).toEqual(expect.arrayContaining(['200', '201', '401', '403', '409', '422', '429']));
    expect(doc.paths['/catalogue'].get.responses['200'].content['application/json'].example.data.providers).toHaveLength(1);
    // The console's document has the console's paths only.
    const console = (await h.http().get('/api/v1/openapi.json')).body;
    expect(console.paths['/dealer/api-keys'].post.tags).toEqual(['API keys']);
    expect(Object.keys(console.paths).filter((p) => p.startsWith('/reseller') || p === '/catalogue')).toEqual([]);
  });
});
