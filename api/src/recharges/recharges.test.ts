import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeWorker } from './recharge-worker.ts';
import type { RechargeMoney } from './recharge.routes.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';

/**
 * Recharges end to end on the real app and database: the sale, every refusal (writes nothing),
 * idempotency, the worker's settlement with the sandbox test numbers, crash recovery, the admin's
 * retry and refund, and 200 purchases at once against a wallet that affords 50.
 */
let h: Harness;
let root: string;
let worker: RechargeWorker;
let kit: MoneyKit;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  worker = kit.worker;
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const counts = async () => ({
  recharges: Number((await h.knex('recharges').count({ n: '*' }).first())!.n),
  ledger: Number((await h.knex('wallet_transactions').count({ n: '*' }).first())!.n),
});
// By its public reference: a bare id is readable only from the browser session that bought it.
const status = async (shop: Shop, id: number) => {
  const { reference } = await h.knex('recharges').where({ id }).first('reference');
  return (await h.http().get(`/api/v1/client/recharge/${reference}`).set('dealer_code', shop.code)).body.data;
};

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
    expect(row).toMatchObject({ phone: '615123456', payer_phone: '617000021', bundle_name: expect.stringContaining('1 GB'), pricing_model: 'cost' });
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
    // Kept as a missed sale for the dealer's dashboard, once per purchase key.
    await buy(h, shop, { idempotency_key: 'missed-sale-key-1' });
    await buy(h, shop, { idempotency_key: 'missed-sale-key-1' });
    const missed = await h.knex('missed_sales').where({ dealer_id: shop.dealerId }).orderBy('id');
    expect(missed).toHaveLength(2);
    expect([Number(missed[0].amount), Number(missed[0].cost)]).toEqual([55, 40]);
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
  it('unknown or inactive dealer, bundle not offered, wrong operator, payment method not offered or from another network, bad input', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '5' });
    const before = await counts();
    expect((await buy(h, { ...shop, code: 'NOSUCHSHOP' })).status).toBe(404);
    const notOffered = await buy(h, shop, { bundle_id: 999999 });
    expect(notOffered.body.errors).toEqual({ bundle_id: ['This bundle is not available in this shop.'] });
    const wrongOperator = await buy(h, shop, { phone: '0625123456' });
    expect(wrongOperator.body.errors).toEqual({ phone: ['This number is not a Hormuud number (it should start with 61, 77).'] });
    const method = await buy(h, shop, { payment_method_id: 999999 });
    expect(method.body.errors).toEqual({ payment_method_id: ['This shop does not take this payment method.'] });
    // EVC Plus is Hormuud's mobile money: a Golis (90) or Telesom (63) payer cannot pay with it.
    for (const payer of ['0907000021', '+252 63 7000021']) {
      const wrongNetwork = await buy(h, shop, { payer_phone: payer });
      expect(wrongNetwork.status).toBe(422);
      expect(wrongNetwork.body.errors).toEqual({
        payer_phone: ['EVC Plus is paid from a Hormuud number (it starts with 61, 77, 68). Use a Hormuud number or choose another payment method.'],
      });
    }
    const bad = await h.http().post('/api/v1/client/recharge').set('dealer_code', shop.code).send({ phone: '12345', payer_phone: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({
      bundle_id: ['Choose a bundle'],
      phone: ['Enter a Somali mobile number: 9 digits, e.g. 61 5123456'],
      payer_phone: ['Enter the number that pays'],
      payment_method_id: ['Choose how to pay'],
    });
    // A phone filter that is not a number is refused, not dropped (which would list every sale).
    for (const phone of ['😀', '61😀', 'abc']) {
      const listed = await h
        .http()
        .get(`/api/v1/recharges?phone=${encodeURIComponent(phone)}`)
        .set(bearer(root));
      expect(listed.status).toBe(422);
      expect(listed.body.errors).toEqual({ phone: ['Search a number with digits only, e.g. 61 5123456'] });
    }
    expect(
      (
        await h
          .http()
          .get(`/api/v1/recharges?phone=${encodeURIComponent('+252 (61) 512-3456')}`)
          .set(bearer(root))
      ).status,
    ).toBe(200);
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
    const viaHeader = await h
      .http()
      .post('/api/v1/client/recharge')
      .set('dealer_code', shop.code)
      .set('Idempotency-Key', 'order-0001-abc')
      .send({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone: '0615123456', payer_phone: '+252 61 7000021' });
    expect(viaHeader.body.data.id).toBe(first.body.data.id);
    const other = await buy(h, shop, { idempotency_key: 'order-0001-abc', phone: '0615999000' });
    // The IETF Idempotency-Key draft's 422 (idempotency.key_reused), as on the reseller API.
    expect([other.status, other.body.code]).toEqual([422, 'idempotency.key_reused']);
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

describe("the stand-ins' test numbers", () => {
  it('a payer ending in 0000 declines: nothing is taken, "Cost + Profit" gets its debit back, "Profit Only" simply fails', async () => {
    const cost = await makeShop(h, root, 'cost', { balance: '1' });
    const profit = await makeShop(h, root, 'profit');
    const a = await buy(h, cost, { payer_phone: '0617770000' });
    const b = await buy(h, profit, { payer_phone: '0617770000' });
    await worker.drain();
    const declined = 'The payment was not approved: check your balance and try again.';
    // Nothing was taken from the customer: Failed, though the dealer's own debit came back (issue 28 item 3).
    expect(await status(cost, a.body.data.id)).toMatchObject({
      status: 'failed',
      outcome: 'declined',
      money: 'nothing_taken',
      can_retry: true,
      failure_reason: declined,
      message: declined,
    });
    expect(await status(profit, b.body.data.id)).toMatchObject({ status: 'failed', outcome: 'declined', money: 'nothing_taken', failure_reason: declined });
    expect(await walletBalance(h, cost.walletId)).toBe(100);
    expect((await h.knex('wallet_transactions').where({ recharge_id: a.body.data.id })).map((t: { kind: string }) => t.kind)).toEqual([
      'recharge_debit',
      'recharge_refund',
    ]);
    expect(await walletBalance(h, profit.walletId)).toBe(0);
  });

  it('a target ending in 9999 is refused by the operator: the reserve is cancelled (nothing taken), the debit returned', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const rejected = await buy(h, shop, { phone: '0615559999' });
    await worker.drain();
    expect(await status(shop, rejected.body.data.id)).toMatchObject({
      status: 'failed',
      outcome: 'not_delivered',
      money: 'nothing_taken',
      message: 'The bundle could not be delivered. Nothing was taken from your account.',
    });
    const tx = kit.standIns.waafipay.byReference(rejected.body.data.reference);
    expect(tx?.state).toBe('Cancelled');
    expect(await walletBalance(h, shop.walletId)).toBe(100);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(100);
  });

  it('a target ending in 8888 is delivered but the answer is lost: looked up by reference, never sent twice, charged once', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const lost = await buy(h, shop, { phone: '0615558888' });
    await worker.drain();
    const row = await h.knex('recharges').where({ id: lost.body.data.id }).first();
    expect(row).toMatchObject({ status: 'completed', payment_state: 'collected', delivery_state: 'delivered' });
    expect(kit.standIns.reloadly.transactions().filter((t) => t.customIdentifier === row.reference)).toHaveLength(1);
    expect(kit.standIns.waafipay.byReference(row.reference)?.state).toBe('Committed');
    const ops = (await h.knex('remote_calls').where({ recharge_id: row.id }).orderBy('id')).map(
      (c: { operation: string; outcome: string }) => `${c.operation}:${c.outcome}`,
    );
    expect(ops).toContain('POST /topups:unknown');
    expect(ops).toContain('GET /topups/reports/transactions:ok');
    expect(ops.filter((o: string) => o.startsWith('POST /topups'))).toHaveLength(1);
    expect(await walletBalance(h, shop.walletId)).toBe(60);
  });
});

describe('crash recovery', () => {
  it('recharges a dead worker left in processing are resumed and end completed, paid once', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '2' });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await buy(h, shop)).body.data.id);
    // A worker claims them and dies before settling.
    const claimed = await kit.newWorker().claim(10);
    expect(claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await kit.newWorker().claim(10)).toEqual([]);
    // The next start gives them back and finishes them.
    expect(await worker.recoverExpired(0)).toBe(3);
    await worker.drain();
    for (const id of ids) expect((await status(shop, id)).status).toBe('completed');
    expect(await walletBalance(h, shop.walletId)).toBe(200 - 3 * 40);
    expect(await h.knex('wallet_transactions').whereIn('recharge_id', ids)).toHaveLength(3);
  });

  it('a sale whose processing keeps crashing stops after a bounded number of tries and waits for review', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const sale = await buy(h, shop);
    for (let i = 0; i < 10; i++) {
      const [row] = await kit.newWorker().claim(1);
      if (!row) break;
      await h.knex('recharges').where({ id: row.id }).update({ processing_started_at: '2020-01-01 00:00:00.000' });
      await worker.recoverExpired();
    }
    const row = await h.knex('recharges').where({ id: sale.body.data.id }).first();
    expect(row.status).toBe('needs_review');
    expect(Number(row.crashes)).toBe(5);
    expect(row.review_reason).toMatch(/stopped unexpectedly 5 times/);
  });

  it('a sale that meets a sick database is postponed, not counted as a crash, and never sent to review for it', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const sale = await buy(h, shop);
    // The database times out on a lock right after the gateway took the payment, then at each of
    // the next nine tries (twice the crash bound in all).
    let sick = 10;
    const lockTimeout = () => Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 });
    const sickPayment = Object.create(kit.payment) as typeof kit.payment;
    sickPayment.charge = async (...args) => {
      await kit.payment.charge(...args);
      sick--;
      throw lockTimeout();
    };
    sickPayment.lookup = async (...args) => {
      if (sick-- > 0) throw lockTimeout();
      return kit.payment.lookup(...args);
    };
    // The storefront's method asks for `waafipay`: here, as in the kit, that is the stand-in.
    const sickWorker = kit.newWorker({ payment: new PaymentGateways(sickPayment, [], { waafipay: sickPayment.name }) });
    for (let i = 0; i < 20 && (await status(shop, sale.body.data.id)).status !== 'completed'; i++) {
      await h.knex('recharges').where({ id: sale.body.data.id }).update({ next_attempt_at: null });
      await sickWorker.drain();
    }
    expect(sick).toBeLessThanOrEqual(0);
    // Every trouble met, none counted: the sale went through once the database was well, paid once.
    const row = await h.knex('recharges').where({ id: sale.body.data.id }).first();
    expect([row.status, Number(row.crashes), row.needs_review_at ?? null]).toEqual(['completed', 0, null]);
    expect(await h.knex('wallet_transactions').where('recharge_id', sale.body.data.id)).toHaveLength(1);
    expect(await walletBalance(h, shop.walletId)).toBe(100 - 40);
  });
});

describe('the console: list, detail, retry, refund', () => {
  it('dealers see only their own; the detail has its timeline, ledger rows and (staff) the remote calls; costs need the permission', async () => {
    const a = await makeShop(h, root, 'cost', { balance: '2' });
    const b = await makeShop(h, root, 'cost', { balance: '2' });
    const mine = await buy(h, a);
    await buy(h, b);
    await worker.drain();
    const list = await h.http().get('/api/v1/recharges').set(bearer(a.token));
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([mine.body.data.id]);
    expect(list.body.data[0]).toMatchObject({
      status: 'completed',
      amount: '0.55',
      cost: '0.40',
      profit: '0.15',
      payment_method: 'EVC Plus',
      payment_state: 'collected',
      payment_flow: 'preauthorize',
      delivery_state: 'delivered',
    });
    expect((await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(b.token))).status).toBe(404);
    expect((await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(a.token))).body.data.remote_calls).toEqual([]);
    const detail = await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(root));
    expect(detail.body.data.timeline.map((e: { event: string }) => e.event)).toEqual(['recharge_created', 'recharge_completed']);
    expect(detail.body.data.transactions.map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit']);
    const calls = detail.body.data.remote_calls as { operation: string; outcome: string; request: string; http_status: number }[];
    expect(calls.map((c) => c.operation)).toEqual(expect.arrayContaining(['API_PREAUTHORIZE', 'POST /topups', 'API_PREAUTHORIZE_COMMIT']));
    expect(calls.filter((c) => c.outcome !== 'ok')).toEqual([]);
    // Credentials never reach the trail.
    expect(calls.map((c) => c.request ?? '').join(' ')).not.toMatch(/API-STANDIN-KEY|standin-secret/);
    expect(calls.find((c) => c.operation === 'API_PREAUTHORIZE')!.request).toContain('[redacted]');
    const viewer = await h.userWith(['view recharges']);
    expect((await h.http().get(`/api/v1/recharges/${mine.body.data.id}`).set(bearer(viewer.token))).body.data.recharge).not.toHaveProperty('cost');
    const byPhone = await h.http().get('/api/v1/recharges?phone=0615123456&status=completed').set(bearer(root));
    expect(byPhone.body.meta.total).toBeGreaterThanOrEqual(2);
    const csv = await h.http().get(`/api/v1/recharges/export?dealer_id=${a.dealerId}`).set(bearer(root));
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(
      "ID,Reference,Created at,Dealer,Operator,Bundle,Phone,Status,Amount,Cost,Profit,Currency,Payment reference,Operator reference,Failure reason,Vendor's words",
    );
    // created_at on the company's clock (Africa/Mogadishu, +03:00), the same instant as the list's UTC time.
    const [first] = csv.text
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .slice(1);
    expect(first.split(',')[2]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
  });

  it('a manual refund refunds what is left once (ten at once), keeps the reason, and is a 409 when nothing is left; a sale that reached no one is retried', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1' });
    const rejected = await buy(h, shop, { phone: '0615559999' });
    await worker.drain();
    // Already all back (the debit returned, the reserve cancelled): nothing to refund.
    const none = await h.http().post(`/api/v1/recharges/${rejected.body.data.id}/refund`).set(bearer(root));
    expect(none.status).toBe(409);
    expect(none.body.message).toBe(
      "Nothing is left to refund on this sale: neither the dealer's nor the customer's money is held for it (never taken, or already given back).",
    );

    // A purchase-flow sale failed while its payment was still collected and its debit not yet back (as after a crash).
    const stuck = await buy(h, shop);
    const reason = 'The operator refused the top-up.';
    await h.knex('recharges').where({ id: stuck.body.data.id }).update({
      status: 'failed',
      payment_state: 'collected',
      payment_flow: 'purchase',
      // As the worker records it: the gateway that took the payment (the kit's stand-in).
      payment_adapter: 'sandbox',
      payment_reference: 'TX-HAND',
      delivery_state: 'failed',
      failure_reason: reason,
    });
    kit.standIns.waafipay.reset();
    const refunds = await Promise.all(Array.from({ length: 10 }, () => h.http().post(`/api/v1/recharges/${stuck.body.data.id}/refund`).set(bearer(root))));
    expect(refunds.filter((r) => r.status >= 500)).toEqual([]);
    expect(refunds.filter((r) => r.status === 200)).toHaveLength(1);
    expect(refunds.filter((r) => r.status === 409)).toHaveLength(9);
    const after = await h.knex('recharges').where({ id: stuck.body.data.id }).first();
    expect(after).toMatchObject({ status: 'refunded', failure_reason: reason });
    // The gateway was asked once; it does not know TX-HAND, so the return stays to be confirmed.
    expect(await h.knex('remote_calls').where({ recharge_id: stuck.body.data.id, operation: 'API_CANCELPURCHASE' })).toHaveLength(1);
    expect(after.payment_state).toBe('releasing');
    expect((await h.knex('wallet_transactions').where({ recharge_id: stuck.body.data.id })).map((t: { kind: string }) => t.kind)).toEqual([
      'recharge_debit',
      'recharge_refund',
    ]);
    expect(await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: stuck.body.data.id, action: 'recharge_refunded_by_hand' })).toHaveLength(
      1,
    );
    expect(await walletBalance(h, shop.walletId)).toBe(100);
    expect((await h.http().post(`/api/v1/recharges/${stuck.body.data.id}/retry`).set(bearer(root))).status).toBe(409);

    // The gateway never had it (0003: the request never arrives): nothing taken, so it may be tried again.
    const profit = await makeShop(h, root, 'profit');
    const unreachable = await buy(h, profit, { payer_phone: '0617770003' });
    await worker.drain();
    expect(await h.knex('recharges').where({ id: unreachable.body.data.id }).first()).toMatchObject({ status: 'failed', payment_state: 'absent' });
    expect((await h.http().post(`/api/v1/recharges/${unreachable.body.data.id}/retry`).set(bearer(shop.token))).status).toBe(403);
    const retried = await h.http().post(`/api/v1/recharges/${unreachable.body.data.id}/retry`).set(bearer(root));
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
