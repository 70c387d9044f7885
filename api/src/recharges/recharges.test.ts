import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, fastWorker, makeShop, walletBalance, type Shop } from './recharge-fixtures.ts';
import type { RechargeWorker } from './recharge-worker.ts';

/**
 * Recharges end to end on the real app and database: the sale, every refusal (writes nothing),
 * idempotency, the worker's settlement with the sandbox test numbers, crash recovery, the admin's
 * retry and refund, and 200 purchases at once against a wallet that affords 50.
 */
let h: Harness;
let root: string;
let worker: RechargeWorker;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  worker = fastWorker(h);
});
afterAll(() => h.close());

const counts = async () => ({
  recharges: Number((await h.knex('recharges').count({ n: '*' }).first())!.n),
  ledger: Number((await h.knex('wallet_transactions').count({ n: '*' }).first())!.n),
});
const status = async (shop: Shop, id: number) => (await h.http().get(`/api/v1/client/recharge/${id}`).set('dealer_code', shop.code)).body.data;

describe('"Cost + Profit": the dealer pays the cost when the sale is made', () => {
  it('debits the cost with the recharge, completes in the background, and snapshots the sale', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const res = await buy(h, shop, { phone: '+252 61 512 3456' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Purchase received. Approve the payment on your phone.');
    expect(res.body.data).toMatchObject({ status: 'pending', amount: '0.55', currency: 'USD', phone: '61****456', provider_name: 'Hormuud' });
    expect(res.body.data.reference).toMatch(/^RC[A-Z0-9]{10}$/);
    expect(await walletBalance(h, shop.walletId)).toBe(960);
    const row = await h.knex('recharges').where({ id: res.body.data.id }).first();
    expect(row).toMatchObject({ phone: '615123456', payer_phone: '617000001', bundle_name: expect.stringContaining('1 GB'), pricing_model: 'cost' });
    expect([Number(row.amount), Number(row.cost), Number(row.profit)]).toEqual([55, 40, 15]);
    await worker.drain();
    expect(await status(shop, res.body.data.id)).toMatchObject({ status: 'completed', failure_reason: null });
    const ledger = await h.knex('wallet_transactions').where({ recharge_id: res.body.data.id });
    expect(ledger.map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit']);
    // Changing the price later never changes the sale.
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ selling_price: '0.90' });
    expect(Number((await h.knex('recharges').where({ id: res.body.data.id }).first()).amount)).toBe(55);
  });

  it('with too little balance says "temporarily unavailable" and writes nothing', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '0.39' });
    const before = await counts();
    const res = await buy(h, shop);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('This bundle is temporarily unavailable. Please try again later.');
    expect(await counts()).toEqual(before);
    expect(await walletBalance(h, shop.walletId)).toBe(39);
  });
});

describe('"Profit Only": the dealer is credited its profit when the sale completes', () => {
  it('debits nothing, then credits the profit once', async () => {
    const shop = await makeShop(h, root, 'profit');
    const res = await buy(h, shop);
    expect(res.status).toBe(201);
    expect(await walletBalance(h, shop.walletId)).toBe(0);
    await worker.drain();
    expect((await status(shop, res.body.data.id)).status).toBe('completed');
    expect(await walletBalance(h, shop.walletId)).toBe(15);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(15);
  });
});

describe('refusals write nothing', () => {
  it('unknown or inactive dealer, bundle not offered, wrong operator, payment method not offered, bad input', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '5' });
    const before = await counts();
    expect((await buy(h, { ...shop, code: 'NOSUCHSHOP' })).status).toBe(404);
    const notOffered = await buy(h, shop, { bundle_id: 999999 });
    expect(notOffered.body.errors).toEqual({ bundle_id: ['This bundle is not available in this shop.'] });
    const wrongOperator = await buy(h, shop, { phone: '0625123456' });
    expect(wrongOperator.body.errors).toEqual({ phone: ['This number is not a Hormuud number (it should start with 61, 77).'] });
    const method = await buy(h, shop, { payment_method_id: 999999 });
    expect(method.body.errors).toEqual({ payment_method_id: ['This shop does not take this payment method.'] });
    const bad = await h.http().post('/api/v1/client/recharge').set('dealer_code', shop.code).send({ phone: '12345', payer_phone: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({ bundle_id: ['Choose a bundle'], phone: ['Enter a Somali mobile number: 9 digits, e.g. 61 5123456'], payer_phone: ['Enter the number that pays'], payment_method_id: ['Choose how to pay'] });
    const noKey = await buy(h, shop, { idempotency_key: '' });
    expect(noKey.body.errors).toEqual({ idempotency_key: ['The purchase key is missing (idempotency_key or the Idempotency-Key header)'] });
    // The dealer switched the bundle off.
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'inactive' });
    expect((await buy(h, shop)).status).toBe(422);
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'active' });
    // The dealer was deactivated.
    await h.http().patch(`/api/v1/users/${shop.dealerId}`).set(bearer(root)).send({ status: 'inactive' });
    expect((await buy(h, shop)).status).toBe(404);
    await h.http().patch(`/api/v1/users/${shop.dealerId}`).set(bearer(root)).send({ status: 'active' });
    expect(await counts()).toEqual(before);
    expect(await walletBalance(h, shop.walletId)).toBe(500);
  });
});

describe('idempotency', () => {
  it('the same key and body answers the first recharge and charges once; another body under it is a 409', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '5' });
    const first = await buy(h, shop, { idempotency_key: 'order-0001-abc' });
    const again = await buy(h, shop, { idempotency_key: 'order-0001-abc' });
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('This purchase was already received.');
    expect(again.body.data.id).toBe(first.body.data.id);
    const viaHeader = await h.http().post('/api/v1/client/recharge').set('dealer_code', shop.code).set('Idempotency-Key', 'order-0001-abc').send({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone: '0615123456', payer_phone: '+252 61 7000001' });
    expect(viaHeader.body.data.id).toBe(first.body.data.id);
    const other = await buy(h, shop, { idempotency_key: 'order-0001-abc', phone: '0615999000' });
    expect(other.status).toBe(409);
    expect(other.body.message).toBe('This purchase key was already used for a different purchase.');
    expect(await walletBalance(h, shop.walletId)).toBe(460);
  });

  it('ten sends of one key at the same moment make one recharge and one debit', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '5' });
    const results = await Promise.all(Array.from({ length: 10 }, () => buy(h, shop, { idempotency_key: 'same-moment-key' })));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(new Set(results.map((r) => r.body.data?.id))).toEqual(new Set([results[0].body.data.id]));
    expect(await h.knex('recharges').where({ dealer_id: shop.dealerId })).toHaveLength(1);
    expect(await walletBalance(h, shop.walletId)).toBe(460);
  });
});

describe('the sandbox test numbers', () => {
  it('a payer ending in 0000 declines: "Cost + Profit" gets its debit back, "Profit Only" simply fails', async () => {
    const cost = await makeShop(h, root, 'cost', { balance: '1' });
    const profit = await makeShop(h, root, 'profit');
    const a = await buy(h, cost, { payer_phone: '0617770000' });
    const b = await buy(h, profit, { payer_phone: '0617770000' });
    await worker.drain();
    expect(await status(cost, a.body.data.id)).toMatchObject({ status: 'refunded', failure_reason: 'The bundle could not be delivered. Your payment is returned.' });
    expect(await status(profit, b.body.data.id)).toMatchObject({ status: 'failed', failure_reason: 'The payment was not approved, so nothing was charged.' });
    expect(await walletBalance(h, cost.walletId)).toBe(100);
    expect((await h.knex('wallet_transactions').where({ recharge_id: a.body.data.id })).map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit', 'recharge_refund']);
    expect(await walletBalance(h, profit.walletId)).toBe(0);
  });

  it('a target ending in 9999 fails at the operator; one in 8888 times out, its status then says not delivered; both are refunded', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const rejected = await buy(h, shop, { phone: '0615559999' });
    const silent = await buy(h, shop, { phone: '0615558888' });
    await worker.drain();
    for (const r of [rejected, silent]) expect((await status(shop, r.body.data.id)).status).toBe('refunded');
    // Attempt 1 timed out; attempt 2 asked the operator first, which never delivered it.
    expect(Number((await h.knex('recharges').where({ id: silent.body.data.id }).first()).attempts)).toBe(2);
    expect(await walletBalance(h, shop.walletId)).toBe(100);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(100);
  });
});

describe('crash recovery', () => {
  it('recharges a dead worker left in processing are resumed and end completed, paid once', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '2' });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await buy(h, shop)).body.data.id);
    // A worker claims them and dies before settling.
    const claimed = await fastWorker(h).claim(10);
    expect(claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await fastWorker(h).claim(10)).toEqual([]);
    // The next start gives them back and finishes them.
    expect(await worker.recoverExpired(0)).toBe(3);
    await worker.drain();
    for (const id of ids) expect((await status(shop, id)).status).toBe('completed');
    expect(await walletBalance(h, shop.walletId)).toBe(200 - 3 * 40);
    expect(await h.knex('wallet_transactions').whereIn('recharge_id', ids)).toHaveLength(3);
  });
});

describe('the console: list, detail, retry, refund', () => {
  it('dealers see only their own; the detail has its timeline and ledger rows; costs need the permission', async () => {
    const a = await makeShop(h, root, 'cost', { balance: '2' });
    const b = await makeShop(h, root, 'cost', { balance: '2' });
    const mine = await buy(h, a);
    await buy(h, b);
    await worker.drain();
    const list = await h.http().get('/api/v1/recharges').set(bearer(a.token));
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([mine.body.data.id]);
    expect(list.body.data[0]).toMatchObject({ status: 'completed', amount: '0.55', cost: '0.40', profit: '0.15', payment_method: 'EVC Plus' });
    expect((await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(b.token))).status).toBe(404);
    const detail = await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(root));
    expect(detail.body.data.timeline.map((e: { event: string }) => e.event)).toEqual(['recharge_created', 'recharge_completed']);
    expect(detail.body.data.transactions.map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit']);
    const viewer = await h.userWith(['view recharges']);
    expect((await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(viewer.token))).body.data.recharge).not.toHaveProperty('cost');
    const byPhone = await h.http().get('/api/v1/recharges?phone=0615123456&status=completed').set(bearer(root));
    expect(byPhone.body.meta.total).toBeGreaterThanOrEqual(2);
    const csv = await h.http().get(`/api/v1/recharges/export?dealer_id=${a.dealerId}`).set(bearer(root));
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('id,reference,created_at,dealer,provider,bundle,phone,status,amount,cost,profit,currency,payment_reference,operator_reference,failure_reason');
  });

  it('a stuck recharge is refunded by hand once; a failed one that moved no money is retried', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const stuck = await buy(h, shop);
    await fastWorker(h).claim(10);
    expect((await h.http().post(`/api/v1/recharges/${stuck.body.data.id}/refund`).set(bearer(root))).status).toBe(409);
    await h.knex('recharges').where({ id: stuck.body.data.id }).update({ processing_started_at: '2020-01-01 00:00:00.000' });
    const refunds = await Promise.all([1, 2, 3].map(() => h.http().post(`/api/v1/recharges/${stuck.body.data.id}/refund`).set(bearer(root))));
    expect(refunds.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await walletBalance(h, shop.walletId)).toBe(100);
    expect((await h.knex('wallet_transactions').where({ recharge_id: stuck.body.data.id })).map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit', 'recharge_refund']);
    expect((await h.http().post(`/api/v1/recharges/${stuck.body.data.id}/retry`).set(bearer(root))).status).toBe(409);

    const profit = await makeShop(h, root, 'profit');
    const declined = await buy(h, profit, { payer_phone: '0617770000' });
    await worker.drain();
    expect((await h.http().post(`/api/v1/recharges/${declined.body.data.id}/retry`).set(bearer(shop.token))).status).toBe(403);
    const retried = await h.http().post(`/api/v1/recharges/${declined.body.data.id}/retry`).set(bearer(root));
    expect(retried.body.data.status).toBe('pending');
  });
});

describe('200 purchases at once against a wallet that affords exactly 50', () => {
  it('exactly 50 succeed, the balance ends at 0, the ledger sums to it, no recharge is debited twice', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '20.00' }); // 50 x 0.40
    const results: { status: number; body: { data?: { id: number } } }[] = [];
    // Fired in waves of 50 so the test's own HTTP client is not the bottleneck.
    for (let wave = 0; wave < 4; wave++) results.push(...(await Promise.all(Array.from({ length: 50 }, () => buy(h, shop)))));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(50);
    expect(results.filter((r) => r.status === 422)).toHaveLength(150);
    expect(await walletBalance(h, shop.walletId)).toBe(0);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(0);
    const debits = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' });
    expect(debits).toHaveLength(50);
    expect(new Set(debits.map((d: { recharge_id: number }) => d.recharge_id)).size).toBe(50);
  });
});
