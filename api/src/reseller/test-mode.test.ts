import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WALLET_BALANCE } from '@app/contracts';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { makeShop, walletBalance, type Shop } from '../recharges/recharge-fixtures.ts';
import { moneyAdapters, readMoneyEnv, startStandIns, type MoneyAdapters, type StandIns } from '../connectors/money-adapters.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../connectors/payments/waafipay/waafipay-stand-in.ts';
import { RELOADLY_STAND_IN_CREDENTIALS } from '../connectors/deliveries/reloadly/reloadly-stand-in.ts';
import { databaseTrail } from '../recharges/remote-calls.ts';
import { RechargeWorker } from '../recharges/recharge-worker.ts';
import { BatchProcessor } from '../recharge-batches/recharge-batch-processor.ts';
import { toDbTime } from '../database/time.ts';

/**
 * Test mode (docs/api-conventions.md, "Test mode") with a "real" WaafiPay and Reloadly configured:
 * a second pair of stand-ins plays the live vendors (WAAFIPAY_URL, RELOADLY_API_URL point at it),
 * the embedded ones are the sandbox. A rk_test_ key's sales, sold at the same moment as a live
 * key's, are paid from the test wallet and reach the sandbox only; the live wallet, its ledger and
 * the live vendors' books hold exactly the live sales; each key reads its own mode only; events
 * say their mode.
 */
let h: Harness;
let root: string;
let shop: Shop;
let liveKey: string;
let testKey: string;
let sandbox: StandIns;
let live: StandIns;
let adapters: MoneyAdapters;
let worker: RechargeWorker;

const SCOPES = ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read', 'webhooks:write'];

async function makeKey(mode?: 'live' | 'test') {
  const res = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: `POS ${mode ?? 'default'}`, scopes: SCOPES, ...(mode ? { mode } : {}) });
  expect(res.status).toBe(201);
  return res.body.data as { key: string; api_key: { id: number; prefix: string; mode: string } };
}

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '10000' } });
  root = await h.adminToken();
  sandbox = await startStandIns({ approvalMs: 5, latencyMs: 5, processingPolls: 2 });
  live = await startStandIns({ approvalMs: 5, latencyMs: 5, processingPolls: 2 });
  const env = readMoneyEnv({
    WAAFIPAY_URL: live.waafipayUrl,
    WAAFIPAY_MERCHANT_UID: WAAFIPAY_STAND_IN_CREDENTIALS.merchantUid,
    WAAFIPAY_API_USER_ID: WAAFIPAY_STAND_IN_CREDENTIALS.apiUserId,
    WAAFIPAY_API_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.apiKey,
    WAAFIPAY_STORE_ID: WAAFIPAY_STAND_IN_CREDENTIALS.storeId,
    WAAFIPAY_HPP_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.hppKey,
    RELOADLY_API_URL: live.reloadlyUrl,
    RELOADLY_AUTH_URL: `${live.reloadlyUrl}/oauth/token`,
    RELOADLY_CLIENT_ID: RELOADLY_STAND_IN_CREDENTIALS.clientId,
    RELOADLY_CLIENT_SECRET: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
    // Roomy: on a loaded machine a call must not time out into review (these tests are about where sales go).
    PAYMENT_TIMEOUT_MS: '5000',
    PAYMENT_CALL_TIMEOUT_MS: '5000',
    OPERATOR_TIMEOUT_MS: '5000',
  });
  adapters = await moneyAdapters(env, { trail: databaseTrail(h.knex), standIns: sandbox });
  expect(adapters.live).toEqual(expect.arrayContaining(['waafipay', 'reloadly']));
  worker = new RechargeWorker({
    db: h.knex,
    client: h.db.client,
    payment: adapters.gateways,
    operators: adapters.operators,
    usableAggregator: adapters.usableAggregator,
    retryBaseMs: 10,
    maxRetryMs: 40,
    paymentTimeoutMs: 5_000,
    reviewAfterMs: 120_000,
    reconcileMs: 60_000,
  });
  shop = await makeShop(h, root, 'cost', { balance: '50' });
  // The operator's live route is the "real" Reloadly (Hormuud is operator 1650 there).
  await h.knex('providers').where({ code: 'HORSHOP' }).update({ adapter_key: 'reloadly', external_operator_id: '1650' });
  liveKey = (await makeKey()).key;
  testKey = (await makeKey('test')).key;
});
afterAll(async () => {
  await adapters?.close();
  await live?.close();
  await h.close();
});

const sell = (key: string, body: Record<string, unknown>, idempotencyKey = `k-${Math.random().toString(36).slice(2)}`) =>
  h.http().post('/api/reseller/v1/recharges').set('Authorization', `Bearer ${key}`).set('Idempotency-Key', idempotencyKey).send(body);
const get = (key: string, path: string) => h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${key}`);
const testWalletId = async () => Number((await h.knex('wallets').where({ dealer_id: shop.dealerId, mode: 'test' }).first('id')).id);
const referencesAt = (s: StandIns) => new Set(s.reloadly.transactions().map((t) => t.customIdentifier));

describe('test keys', () => {
  it('are rk_test_ keys, shown as test, with a test wallet of 1,000.00 from the start; the mark is part of the key', async () => {
    const made = await makeKey('test');
    expect(made.key).toMatch(/^rk_test_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(made.api_key).toMatchObject({ mode: 'test', prefix: made.key.slice(0, 20) });
    const listed = await h.http().get('/api/v1/dealer/api-keys?mode=test').set(bearer(shop.token));
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThanOrEqual(2);
    expect(listed.body.data.every((k: { mode: string; prefix: string }) => k.mode === 'test' && k.prefix.startsWith('rk_test_'))).toBe(true);
    const wallet = await h.http().get('/api/v1/dealer/api-keys/test-wallet').set(bearer(shop.token));
    expect(wallet.status).toBe(200);
    expect(wallet.body.data).toMatchObject({ balance: '1000.00', currency: 'USD' });
    // The live wallet list (the console's) never shows it.
    const wallets = await h.http().get('/api/v1/wallets?per_page=100').set(bearer(root));
    expect(wallets.body.data.map((w: { id: number }) => w.id)).not.toContain(await testWalletId());
    // A key sent under the other mode's mark is no key of ours.
    const swapped = made.key.replace('rk_test_', 'rk_live_');
    expect((await get(swapped, '/wallet')).status).toBe(401);
    expect((await get(liveKey.replace('rk_live_', 'rk_test_'), '/wallet')).status).toBe(401);
    expect((await get(made.key, '/wallet')).status).toBe(200);
  });

  it('ten sales of each mode at once: the test ones paid from the test wallet and delivered by the sandbox, the live wallet and live vendors untouched by them', async () => {
    const liveBefore = await walletBalance(h, shop.walletId);
    const testBefore = await walletBalance(h, await testWalletId());
    const body = (i: number) => ({ bundle_id: shop.bundleId, phone: `0615${String(100000 + i)}`, payment: 'wallet' });
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => sell(liveKey, body(i))),
      ...Array.from({ length: 10 }, (_, i) => sell(testKey, body(i))),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const liveRefs = answers.slice(0, 10).map((a) => a.body.data.reference as string);
    const testRefs = answers.slice(10).map((a) => a.body.data.reference as string);
    expect(answers.slice(0, 10).every((a) => a.body.data.mode === 'live')).toBe(true);
    expect(answers.slice(10).every((a) => a.body.data.mode === 'test')).toBe(true);
    await worker.drain();

    const sales = await h
      .knex('recharges')
      .whereIn('reference', [...liveRefs, ...testRefs])
      .select('reference', 'status', 'mode', 'operator_adapter');
    expect(sales.map((s: { status: string }) => s.status)).toEqual(Array(20).fill('completed'));
    for (const s of sales) expect(s.operator_adapter).toBe(s.mode === 'test' ? 'sandbox' : 'reloadly');
    // Each vendor's own books: the live one holds the live sales only, the sandbox the test ones only.
    const atLive = referencesAt(live);
    const atSandbox = referencesAt(sandbox);
    expect(liveRefs.every((r) => atLive.has(r) && !atSandbox.has(r))).toBe(true);
    expect(testRefs.every((r) => atSandbox.has(r) && !atLive.has(r))).toBe(true);
    // Money: each wallet paid for its own mode's ten, and each equals its ledger.
    expect(await walletBalance(h, shop.walletId)).toBe(liveBefore - 10 * 40);
    expect(await walletBalance(h, await testWalletId())).toBe(testBefore - 10 * 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    expect(await ledgerSum(h.knex, await testWalletId())).toBe(await walletBalance(h, await testWalletId()));
    const liveLedger = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId }).whereIn('reference', testRefs).count({ n: '*' }).first();
    expect(Number((liveLedger as { n: number }).n)).toBe(0);

    // Reads are per mode: each key lists, finds and is debited by its own mode only.
    const testList = await get(testKey, '/recharges?per_page=100');
    expect(testList.body.data.map((r: { reference: string }) => r.reference).sort()).toEqual([...testRefs].sort());
    const liveList = await get(liveKey, '/recharges?per_page=100');
    expect(liveList.body.data.some((r: { reference: string }) => testRefs.includes(r.reference))).toBe(false);
    expect((await get(testKey, `/recharges/${liveRefs[0]}`)).status).toBe(404);
    expect((await get(liveKey, `/recharges/${testRefs[0]}`)).status).toBe(404);
    expect((await get(testKey, `/recharges/${testRefs[0]}`)).body.data).toMatchObject({ mode: 'test', status: 'completed' });
    expect((await get(testKey, '/wallet')).body.data.wallet.balance).toBe(((testBefore - 400) / 100).toFixed(2));
    expect((await get(liveKey, '/wallet')).body.data.wallet.balance).toBe(((liveBefore - 400) / 100).toFixed(2));
    const statement = await get(testKey, '/wallet/statement');
    expect(statement.status).toBe(200);

    // The console: live by default, test sales when asked, each marked.
    const consoleLive = await h.http().get('/api/v1/recharges?per_page=100').set(bearer(shop.token));
    expect(consoleLive.body.data.some((r: { reference: string }) => testRefs.includes(r.reference))).toBe(false);
    const consoleTest = await h.http().get('/api/v1/recharges?mode=test&per_page=100').set(bearer(shop.token));
    expect(consoleTest.body.data.map((r: { reference: string }) => r.reference).sort()).toEqual(expect.arrayContaining([...testRefs].sort()));
    expect(consoleTest.body.data.every((r: { mode: string }) => r.mode === 'test')).toBe(true);
    // The console's ledger is live money's.
    const ledger = await h.http().get('/api/v1/wallet-transactions?per_page=100').set(bearer(shop.token));
    expect(ledger.body.data.some((t: { reference: string | null }) => t.reference && testRefs.includes(t.reference))).toBe(false);
  });

  it("a test sale paid by the customer's mobile money is charged by the sandbox gateway, never the live one", async () => {
    const pay = { method_id: shop.methodId, payer_phone: '0615000321' };
    const [testSale, liveSale] = await Promise.all([
      sell(testKey, { bundle_id: shop.bundleId, phone: '0615222333', payment: pay }),
      sell(liveKey, { bundle_id: shop.bundleId, phone: '0615222334', payment: pay }),
    ]);
    expect([testSale.status, liveSale.status]).toEqual([201, 201]);
    await worker.drain();
    const t = await h.knex('recharges').where({ reference: testSale.body.data.reference }).first();
    const l = await h.knex('recharges').where({ reference: liveSale.body.data.reference }).first();
    expect(t).toMatchObject({ status: 'completed', payment_adapter: 'sandbox', operator_adapter: 'sandbox', mode: 'test' });
    expect(l).toMatchObject({ status: 'completed', payment_adapter: 'waafipay', operator_adapter: 'reloadly', mode: 'live' });
    expect(sandbox.waafipay.byReference(t.reference)).toBeTruthy();
    expect(live.waafipay.byReference(t.reference)).toBeUndefined();
    expect(live.waafipay.byReference(l.reference)).toBeTruthy();
    expect(sandbox.waafipay.byReference(l.reference)).toBeUndefined();
  });

  it('keeps Idempotency-Keys per mode: the same key sent by a live and a test key makes two sales', async () => {
    const body = { bundle_id: shop.bundleId, phone: '0615444555', payment: 'wallet' };
    const [a, b] = await Promise.all([sell(liveKey, body, 'shared-key-001'), sell(testKey, body, 'shared-key-001')]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.reference).not.toBe(b.body.data.reference);
    expect([a.body.data.mode, b.body.data.mode]).toEqual(['live', 'test']);
    const again = await sell(testKey, body, 'shared-key-001');
    expect(again.status).toBe(200);
    expect(again.body.data.reference).toBe(b.body.data.reference);
    await worker.drain();
  });

  it("marks the events of a test key's sale as test, and the console's deliveries show and filter it", async () => {
    const now = toDbTime();
    await h
      .knex('webhook_endpoints')
      .insert({ dealer_id: shop.dealerId, url: 'https://example.com/hook', secret: 'whsec_c2VhbGVk', created_at: now, updated_at: now });
    try {
      const t = await sell(testKey, { bundle_id: shop.bundleId, phone: '0615666777', payment: 'wallet' });
      const l = await sell(liveKey, { bundle_id: shop.bundleId, phone: '0615666778', payment: 'wallet' });
      await worker.drain();
      const events = await h.knex('webhook_events').where({ dealer_id: shop.dealerId }).orderBy('id').select('type', 'mode', 'body');
      const about = (ref: string) =>
        events.filter((e: { body: string }) => {
          const data = JSON.parse(e.body).data;
          return data.reference === ref;
        });
      const testEvents = about(t.body.data.reference);
      const liveEvents = about(l.body.data.reference);
      expect(testEvents.map((e: { type: string }) => e.type)).toEqual(['recharge.created', 'wallet.debited', 'recharge.delivered']);
      expect(testEvents.every((e: { mode: string; body: string }) => e.mode === 'test' && JSON.parse(e.body).mode === 'test')).toBe(true);
      expect(liveEvents.every((e: { mode: string; body: string }) => e.mode === 'live' && JSON.parse(e.body).mode === 'live')).toBe(true);
      const deliveries = await h.http().get('/api/v1/webhook-deliveries?mode=test&per_page=100').set(bearer(shop.token));
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.data.length).toBe(testEvents.length);
      expect(deliveries.body.data.every((d: { mode: string }) => d.mode === 'test')).toBe(true);
      // A key reads its own mode's deliveries only.
      const byLiveKey = await get(liveKey, '/webhook/deliveries?per_page=100');
      expect(byLiveKey.status).toBe(200);
      expect(byLiveKey.body.data.length).toBe(liveEvents.length);
      expect(byLiveKey.body.data.every((d: { mode: string }) => d.mode === 'live')).toBe(true);
      const byTestKey = await get(testKey, '/webhook/deliveries?per_page=100');
      expect(byTestKey.body.data.map((d: { event_id: string }) => d.event_id).sort()).toEqual(
        deliveries.body.data.map((d: { event_id: string }) => d.event_id).sort(),
      );
    } finally {
      await h.knex('webhook_events').where({ dealer_id: shop.dealerId }).delete();
      await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).delete();
    }
  });

  it('sells a test key\u2019s bulk sale in the sandbox', async () => {
    const res = await h
      .http()
      .post('/api/reseller/v1/recharge-batches')
      .set('Authorization', `Bearer ${testKey}`)
      .set('Idempotency-Key', 'test-batch-0001')
      .send({ lines: [0, 1, 2].map((i) => ({ phone: `0615888${String(100 + i)}`, bundle_id: shop.bundleId })) });
    expect(res.status).toBe(202);
    expect(res.body.data.mode).toBe('test');
    const liveBefore = await walletBalance(h, shop.walletId);
    await new BatchProcessor({ db: h.knex }).runOnce();
    await worker.drain();
    const batch = await h.knex('recharge_batches').where({ reference: res.body.data.id }).first();
    const sales = await h.knex('recharges').where('idempotency_key', 'like', `rb/${batch.id}/%`).select('reference', 'mode', 'status');
    expect(sales).toHaveLength(3);
    expect(sales.every((s: { mode: string; status: string }) => s.mode === 'test' && s.status === 'completed')).toBe(true);
    const atLive = referencesAt(live);
    expect(sales.some((s: { reference: string }) => atLive.has(s.reference))).toBe(false);
    expect(await walletBalance(h, shop.walletId)).toBe(liveBefore);
    // A live key does not see it.
    expect((await get(liveKey, `/recharge-batches/${res.body.data.id}`)).status).toBe(404);
  });

  it('a failed test sale retried from the console is tried again in the sandbox, never through the live gateway', async () => {
    // "Profit Only": nothing debited, so a sale that never reached the gateway may be tried again.
    const profitShop = await makeShop(h, root, 'profit', { balance: '5' });
    const made = await h.http().post('/api/v1/dealer/api-keys').set(bearer(profitShop.token)).send({ name: 'Profit sandbox', scopes: SCOPES, mode: 'test' });
    const profitTestKey = made.body.data.key as string;
    const sold = await sell(profitTestKey, {
      bundle_id: profitShop.bundleId,
      phone: '0615333444',
      payment: { method_id: profitShop.methodId, payer_phone: '0615000777' },
    });
    expect(sold.status).toBe(201);
    // As after a payment that never reached the gateway (payer ...0002 at its timeout).
    await h.knex('recharges').where({ id: sold.body.data.id }).update({ status: 'failed', payment_state: 'absent', failed_at: toDbTime() });
    const retried = await h.http().post(`/api/v1/recharges/${sold.body.data.id}/retry`).set(bearer(root));
    expect(retried.status).toBe(200);
    expect(await h.knex('recharges').where({ id: sold.body.data.id }).first('payment_adapter', 'mode')).toEqual({ payment_adapter: 'sandbox', mode: 'test' });
    await worker.drain();
    const r = await h.knex('recharges').where({ id: sold.body.data.id }).first();
    expect(r).toMatchObject({ status: 'completed', payment_state: 'collected', mode: 'test' });
    expect(live.waafipay.byReference(r.reference)).toBeUndefined();
    expect(sandbox.waafipay.byReference(r.reference)).toBeTruthy();
    // Its profit went to the test wallet, never the live one.
    const testWallet = await h.knex('wallets').where({ dealer_id: profitShop.dealerId, mode: 'test' }).first('id');
    const profit = await h.knex('wallet_transactions').where({ recharge_id: r.id, kind: 'profit_credit' }).first('wallet_id', 'amount');
    expect(profit).toMatchObject({ wallet_id: testWallet.id, amount: 15 });
    expect(await walletBalance(h, profitShop.walletId)).toBe(500);
  });

  it('test sales whose payments get no answer never mark the live gateway down (the vendor gate is not told)', async () => {
    await h.knex('vendor_health').delete();
    const quick = new RechargeWorker({
      db: h.knex,
      client: h.db.client,
      payment: adapters.gateways,
      operators: adapters.operators,
      usableAggregator: adapters.usableAggregator,
      retryBaseMs: 10,
      maxRetryMs: 40,
      paymentTimeoutMs: 200,
      reviewAfterMs: 120_000,
      reconcileMs: 60_000,
    });
    // ...0003: the charge never reaches the gateway (a reset), every time.
    const pay = { method_id: shop.methodId, payer_phone: '0615550003' };
    for (let i = 0; i < 4; i++) expect((await sell(testKey, { bundle_id: shop.bundleId, phone: `061577700${i}`, payment: pay })).status).toBe(201);
    await quick.drain();
    const health = await h.knex('vendor_health').select('system', 'down_since', 'failures');
    expect(health.filter((v: { system: string; down_since: string | null }) => v.system === 'waafipay' && v.down_since)).toEqual([]);
  });

  it("refuses a test key's change of the dealer's webhook endpoint (live events go to it too); a live key may", async () => {
    const put = (key: string) => h.http().put('/api/reseller/v1/webhook').set('Authorization', `Bearer ${key}`).send({ url: 'https://example.com/hook' });
    const refused = await put(testKey);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('webhooks.test_key_cannot_manage');
    expect(await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).first('id')).toBeUndefined();
    expect((await h.http().post('/api/reseller/v1/webhook/rotate').set('Authorization', `Bearer ${testKey}`)).status).toBe(403);
    expect((await h.http().delete('/api/reseller/v1/webhook').set('Authorization', `Bearer ${testKey}`)).status).toBe(403);
    expect((await put(liveKey)).status).toBe(201);
    await h.knex('webhook_endpoints').where({ dealer_id: shop.dealerId }).delete();
  });

  it('ten test keys made at once for a new dealer make one test wallet with one opening row, no 5xx', async () => {
    const fresh = await makeShop(h, root, 'cost');
    const made = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/dealer/api-keys')
          .set(bearer(fresh.token))
          .send({ name: `Till ${i}`, scopes: SCOPES, mode: 'test' }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(Array(10).fill(201));
    const wallets = await h.knex('wallets').where({ dealer_id: fresh.dealerId, mode: 'test' }).select('id');
    expect(wallets).toHaveLength(1);
    expect(await h.knex('wallet_transactions').where({ wallet_id: wallets[0].id }).select('id')).toHaveLength(1);
    expect(await walletBalance(h, wallets[0].id)).toBe(TEST_WALLET_BALANCE);
  });

  it('resets the test wallet to its starting balance with one adjustment row, logged; the live wallet stays', async () => {
    const liveBefore = await walletBalance(h, shop.walletId);
    const id = await testWalletId();
    expect(await walletBalance(h, id)).toBeLessThan(TEST_WALLET_BALANCE);
    const rowsBefore = Number(((await h.knex('wallet_transactions').where({ wallet_id: id }).count({ n: '*' }).first()) as { n: number }).n);
    const res = await h.http().post('/api/v1/dealer/api-keys/test-wallet/reset').set(bearer(shop.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ balance: '1000.00' });
    expect(await walletBalance(h, id)).toBe(TEST_WALLET_BALANCE);
    expect(await ledgerSum(h.knex, id)).toBe(TEST_WALLET_BALANCE);
    const rowsAfter = Number(((await h.knex('wallet_transactions').where({ wallet_id: id }).count({ n: '*' }).first()) as { n: number }).n);
    expect(rowsAfter).toBe(rowsBefore + 1);
    expect(await h.knex('activity_log').where({ action: 'test_wallet_reset', subject_id: id }).first('id')).toBeTruthy();
    // Twice: nothing more to do, no row.
    expect((await h.http().post('/api/v1/dealer/api-keys/test-wallet/reset').set(bearer(shop.token))).status).toBe(200);
    expect(Number(((await h.knex('wallet_transactions').where({ wallet_id: id }).count({ n: '*' }).first()) as { n: number }).n)).toBe(rowsAfter);
    expect(await walletBalance(h, shop.walletId)).toBe(liveBefore);
  });
});
