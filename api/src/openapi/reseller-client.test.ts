import fs from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import createClient from 'openapi-fetch';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import { RESELLER_TYPES_FILE, resellerTypes } from './reseller-types.ts';
import type { paths } from './reseller-api.d.ts';

/**
 * What an integrator does with the reseller document: generate types with openapi-typescript and
 * call the API with openapi-fetch. The committed types must be what the document generates today
 * (regenerate with `npm run openapi:types`), and a client built from them, against the real app
 * listening on a port, runs the reseller examples end to end with a live key.
 */
let h: Harness;
let kit: MoneyKit;
let shop: Shop;
let server: Server;
let document: { servers: { url: string }[] };
let client: ReturnType<typeof createClient<paths>>;

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  const root = await h.adminToken();
  kit = await moneyKit(h);
  shop = await makeShop(h, root, 'cost', { balance: '2.00' });
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: 'POS', scopes: ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read'] });
  expect(made.status).toBe(201);
  const key = made.body.data.key as string;
  expect(key).toMatch(/^rk_live_/);
  server = h.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  document = await (await fetch(`${origin}/api/reseller/v1/openapi.json`)).json();
  client = createClient<paths>({ baseUrl: origin + document.servers[0].url, headers: { Authorization: `Bearer ${key}` } });
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await kit?.close();
  await h?.close();
});

describe('the generated reseller client types', () => {
  it('are what the reseller document generates today (npm run openapi:types)', async () => {
    expect(await resellerTypes(document as Record<string, unknown>)).toBe(fs.readFileSync(RESELLER_TYPES_FILE, 'utf8'));
  });
});

describe('openapi-fetch with the generated types, against the running app', () => {
  it('runs the reseller examples: catalogue, a wallet sale and its replay, by reference, a filtered list, the wallet, the statement', async () => {
    const catalogue = await client.GET('/catalogue');
    expect(catalogue.response.status).toBe(200);
    const bundle = catalogue.data!.data.providers.flatMap((p) => p.categories.flatMap((c) => c.bundles)).find((b) => b.id === shop.bundleId);
    expect(bundle).toMatchObject({ price: '0.55', cost: '0.40' });

    const before = await walletBalance(h, shop.walletId);
    const sale = { bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' as const };
    const idempotencyKey = `client-test-${Date.now()}`;
    const first = await client.POST('/recharges', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: sale });
    expect(first.response.status).toBe(201);
    const reference = first.data!.data.reference;
    expect(first.data!.data).toMatchObject({ status: 'pending', payment_flow: 'wallet', phone: '615123456', cost: '0.40' });
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);

    // The same key and body again: the first sale, charged once.
    const replay = await client.POST('/recharges', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: sale });
    expect(replay.response.status).toBe(200);
    expect(replay.data!.data.reference).toBe(reference);
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);

    await kit.worker.drain();
    const one = await client.GET('/recharges/{reference}', { params: { path: { reference } } });
    expect(one.response.status).toBe(200);
    expect(one.data!.data).toMatchObject({ reference, status: 'completed', delivery_state: 'delivered' });

    const listed = await client.GET('/recharges', { params: { query: { status: 'completed' } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.map((r) => r.reference)).toContain(reference);
    expect(listed.data!.data.every((r) => r.status === 'completed')).toBe(true);
    expect(listed.data!.meta.total).toBeGreaterThanOrEqual(1);

    const wallet = await client.GET('/wallet', { params: { query: { limit: 5 } } });
    expect(wallet.response.status).toBe(200);
    expect(wallet.data!.data.transactions[0]).toMatchObject({ kind: 'recharge_debit', amount: '0.40' });
    expect(wallet.data!.data.wallet.balance).toBe(((before - 40) / 100).toFixed(2));

    const statement = await client.GET('/wallet/statement');
    expect(statement.response.status).toBe(200);
    expect(statement.data!.data.lines.map((l) => l.recharge?.reference)).toContain(reference);
  });

  it('reads an error as the typed Error: a bad key is a 401 with its code', async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${document.servers[0].url}`;
    const stranger = createClient<paths>({ baseUrl: base, headers: { Authorization: 'Bearer rk_live_nothing_here' } });
    const res = await stranger.GET('/catalogue');
    expect(res.response.status).toBe(401);
    expect(res.error).toMatchObject({ success: false, code: expect.stringMatching(/^api_key\./) });
  });
});
