import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * Live money against the stand-ins over real HTTP, with the faults real gateways have: no answer,
 * a 503, a reset connection, PROCESSING then an end, an expired token, a duplicate reference.
 * Every case ends with the customer charged exactly when the bundle was delivered, at most one
 * delivery, no reserve left open, and the ledger exact (assertMoneyRight), on SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  // The worker's 10-40 ms retries ask a gateway that is down about 30 times before review: a budget
  // of 30 lookups a minute for a down vendor (tested in fulfilment.test.ts) would leave none for the
  // reconciliation that these tests run right after, depending on the machine's speed.
  kit = await moneyKit(h, { money, worker: { downVendorLookupsPerMinute: 10_000 } });
  shop = await makeShop(h, root, 'cost', { balance: '50' });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
// By its public reference: a bare id is readable only from the browser session that bought it.
const publicView = async (id: number) => {
  const { reference } = await h.knex('recharges').where({ id }).first('reference');
  return (await h.http().get(`/api/v1/client/recharge/${reference}`).set('dealer_code', shop.code)).body.data;
};
const operations = async (id: number) =>
  (await h.knex('remote_calls').where({ recharge_id: id }).orderBy('id')).map((c: { operation: string; outcome: string }) => `${c.operation}:${c.outcome}`);

/**
 * The invariants of one sale, checked against both stand-ins' own books: delivered once or not at
 * all; charged (committed, or a purchase approved) exactly when delivered; no reserve left open.
 */
async function assertMoneyRight(k: MoneyKit, id: number) {
  const r = await row(id);
  const topups = k.standIns.reloadly.transactions().filter((t) => t.customIdentifier === r.reference);
  const delivered = topups.filter((t) => t.status === 'SUCCESSFUL');
  expect(delivered.length).toBeLessThanOrEqual(1);
  const payment = k.standIns.waafipay.byReference(r.reference);
  const charged = payment?.state === 'Committed' || (payment?.kind === 'purchase' && payment.state === 'Approved');
  if (r.status === 'completed') {
    expect(delivered).toHaveLength(1);
    expect(charged).toBe(true);
  } else {
    expect(delivered).toHaveLength(0);
    expect(charged).toBe(false);
  }
  // A pre-authorisation is never left reserved once the sale is settled.
  if (['completed', 'failed', 'refunded'].includes(r.status)) expect(payment?.kind === 'preauthorize' && payment.state === 'Approved').toBe(false);
  expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  const kinds = (await h.knex('wallet_transactions').where({ recharge_id: id }).orderBy('id')).map((t: { kind: string }) => t.kind);
  // This shop is "Cost + Profit": a sale not delivered (failed or refunded) has its debit back, once.
  expect(kinds).toEqual(['completed', 'pending', 'processing', 'needs_review'].includes(r.status) ? ['recharge_debit'] : ['recharge_debit', 'recharge_refund']);
  return r;
}

describe('the payment gateway loses answers', () => {
  it('0001: approved but the answer is lost: asked by reference (HPP_GETTRANINFO), never charged again, delivered, committed', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770001' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', payment_state: 'collected' });
    expect(kit.standIns.waafipay.byReference(r.reference)).toMatchObject({ state: 'Committed', requests: 1 });
    expect(await operations(r.id)).toEqual(expect.arrayContaining(['API_PREAUTHORIZE:unknown', 'HPP_GETTRANINFO:ok', 'API_PREAUTHORIZE_COMMIT:ok']));
  });

  it('0002: a 503 (not processed): the gateway never had it, so nothing is taken and the sale fails, its debit returned', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770002' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r).toMatchObject({ status: 'failed', payment_state: 'absent', delivery_state: 'none' });
    expect((await operations(r.id)).filter((o) => o.startsWith('API_PREAUTHORIZE:'))).toEqual(['API_PREAUTHORIZE:unknown']);
    expect(await publicView(r.id)).toMatchObject({ outcome: 'not_delivered', money: 'nothing_taken' });
  });

  it('0003: the request never arrives (reset before processing): one charge request, then only questions', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770003' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.payment_state).toBe('absent');
    const ops = await operations(r.id);
    expect(ops.filter((o) => o.startsWith('API_PREAUTHORIZE:'))).toHaveLength(1);
    expect(ops.filter((o) => o.startsWith('HPP_GETTRANINFO'))).not.toHaveLength(0);
  });

  it('no answer at all (the gateway hangs after approving): the timeout is an unknown outcome, asked, and the sale completes', async () => {
    kit.standIns.waafipay.injectFault({ serviceName: 'API_PREAUTHORIZE' }, 'hang-after');
    const sale = await buy(h, shop);
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.status).toBe('completed');
    expect((await h.knex('remote_calls').where({ recharge_id: r.id, operation: 'API_PREAUTHORIZE' }).first()).error).toBe('No answer in time (timeout)');
  });

  it('0004: the answer to the commit is lost: asked, found committed, not committed twice', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770004' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', payment_state: 'collected' });
    expect((await operations(r.id)).filter((o) => o.startsWith('API_PREAUTHORIZE_COMMIT'))).toEqual(['API_PREAUTHORIZE_COMMIT:unknown']);
  });

  it('a duplicate reference (a charge sent again after a crash): refused by the gateway, asked, charged once', async () => {
    const sale = await buy(h, shop);
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    // Replay the sale as if the record of the first charge had been lost.
    await h.knex('recharges').where({ id: r.id }).update({ status: 'pending', payment_state: 'none', delivery_state: 'none', payment_reference: null });
    await h.knex('recharges').where({ id: r.id }).update({ status: 'pending' });
    await kit.worker.drain();
    const again = await row(r.id);
    expect(again.status).toBe('completed');
    expect(kit.standIns.waafipay.byReference(r.reference)).toMatchObject({ requests: 2, state: 'Committed' });
    // The second send of the top-up was refused as a duplicate: still one delivery.
    expect(kit.standIns.reloadly.transactions().filter((t) => t.customIdentifier === r.reference)).toHaveLength(1);
  });
});

describe('the aggregator loses answers', () => {
  it('7777: a 503 once (not processed): the lookup finds nothing, the top-up is sent again under the same id, delivered once', async () => {
    const sale = await buy(h, shop, { phone: '0615557777' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.status).toBe('completed');
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(2);
  });

  it('a reset connection after the top-up was made: looked up, delivered once, charged once', async () => {
    kit.standIns.reloadly.injectFault({ path: '/topups' }, 'reset-after');
    const sale = await buy(h, shop);
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.status).toBe('completed');
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(1);
  });

  it('6666: PROCESSING, then SUCCESSFUL: polled until it ends', async () => {
    const sale = await buy(h, shop, { phone: '0615556666' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', delivery_state: 'delivered' });
    expect((await operations(r.id)).filter((o) => o.startsWith('GET /topups/{id}/status'))).not.toHaveLength(0);
  });

  it('5555: PROCESSING, then REFUNDED: not delivered, the reserve is cancelled (nothing taken), the debit returned', async () => {
    const sale = await buy(h, shop, { phone: '0615555555' });
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r).toMatchObject({ status: 'failed', delivery_state: 'failed', payment_state: 'released' });
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Cancelled');
    expect(await publicView(r.id)).toMatchObject({ outcome: 'not_delivered', money: 'nothing_taken' });
  });

  it('an expired token is renewed once and the call made again', async () => {
    kit.standIns.reloadly.expireTokens();
    const sale = await buy(h, shop);
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.status).toBe('completed');
    const calls = await h.knex('remote_calls').where({ system: 'reloadly' }).where('id', '>', 0).orderBy('id', 'desc').limit(6);
    expect(calls.some((c: { http_status: number }) => c.http_status === 401)).toBe(true);
  });
});

describe('what neither side can tell goes to review, and a person settles it', () => {
  it('4444: the top-up never arrives (three sends): needs_review with the reason; the customer is told it is delayed; settled as not delivered, nothing is taken', async () => {
    const sale = await buy(h, shop, { phone: '0615554444' });
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r.status).toBe('needs_review');
    expect(r.review_reason).toMatch(/no record of the top-up after 3 sends/);
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(3);
    // The reserve stays while a person looks; the customer hears the truth.
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Approved');
    expect(await publicView(r.id)).toMatchObject({ status: 'needs_review', outcome: 'delayed', money: 'reserved' });
    const count = await h.http().get('/api/v1/recharges/review-count').set(bearer(root));
    expect(count.body.data.count).toBeGreaterThanOrEqual(1);
    const queue = await h.http().get('/api/v1/recharges?status=needs_review').set(bearer(root));
    expect(queue.body.data.map((x: { id: number }) => x.id)).toContain(r.id);

    // Only a reviewer settles; a dealer cannot; bad input changes nothing.
    expect((await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(shop.token)).send({ outcome: 'delivered', note: 'x' })).status).toBe(403);
    const bad = await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'maybe' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ outcome: ['Choose delivered or not delivered'], note: ['Write down why'] });
    const settles = await Promise.all(
      Array.from({ length: 5 }, () =>
        h
          .http()
          .post(`/api/v1/recharges/${r.id}/settle`)
          .set(bearer(root))
          .send({ outcome: 'not_delivered', note: 'The operator confirms no top-up reached this number.' }),
      ),
    );
    expect(settles.map((s) => s.status).sort()).toEqual([200, 409, 409, 409, 409]);
    await kit.worker.drain();
    const settled = await assertMoneyRight(kit, r.id);
    expect(settled).toMatchObject({ status: 'failed', review_outcome: 'not_delivered', payment_state: 'released' });
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Cancelled');
    expect(await publicView(r.id)).toMatchObject({ outcome: 'not_delivered', money: 'nothing_taken' });
    const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: r.id }).orderBy('id')).map((l: { action: string }) => l.action);
    expect(log).toEqual(['recharge_created', 'recharge_needs_review', 'recharge_settled_in_review', 'recharge_failed']);
  });

  it('settled as delivered: the reserve is committed and the sale completes', async () => {
    const sale = await buy(h, shop, { phone: '0615554444' });
    await kit.worker.drain();
    expect((await row(sale.body.data.id)).status).toBe('needs_review');
    const res = await h
      .http()
      .post(`/api/v1/recharges/${sale.body.data.id}/settle`)
      .set(bearer(root))
      .send({ outcome: 'delivered', note: 'The customer confirms the bundle arrived.' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Settled as delivered: the customer's payment is taken and the sale completes.");
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', payment_state: 'collected', review_outcome: 'delivered' });
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
    expect((await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'delivered', note: 'again' })).status).toBe(409);
  });

  it('3333: PROCESSING for ever goes to review; the reconciliation leaves it there while the aggregator still cannot tell', async () => {
    const sale = await buy(h, shop, { phone: '0615553333' });
    await kit.worker.drain();
    expect((await row(sale.body.data.id)).status).toBe('needs_review');
    await kit.worker.reconcile();
    expect((await row(sale.body.data.id)).status).toBe('needs_review');
  });

  it('the reconciliation resumes a sale in review once the gateway can tell', async () => {
    // Every status question fails while the sale is decided: it goes to review with its payment unknown.
    kit.standIns.waafipay.injectFault({ serviceName: 'API_PREAUTHORIZE' }, 'reset-after');
    kit.standIns.waafipay.injectFault({ serviceName: 'HPP_GETTRANINFO' }, '503', 1_000_000);
    const sale = await buy(h, shop);
    await kit.worker.drain();
    expect(await row(sale.body.data.id)).toMatchObject({ status: 'needs_review', payment_state: 'sent' });
    kit.standIns.waafipay.clearFaults();
    await kit.worker.reconcile();
    expect((await row(sale.body.data.id)).status).toBe('pending');
    await kit.worker.drain();
    const r = await assertMoneyRight(kit, sale.body.data.id);
    expect(r.status).toBe('completed');
  });

  it('0005: the gateway refuses every commit: review, then a person settles; the reconciliation keeps asking and the trail shows each try', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770005' });
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'needs_review', delivery_state: 'delivered', payment_state: 'committing' });
    expect(await publicView(r.id)).toMatchObject({ outcome: 'delayed' });
    await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'delivered', note: 'Delivered per the aggregator.' });
    await kit.worker.drain();
    expect(await row(r.id)).toMatchObject({ status: 'completed', payment_state: 'committing' });
    const before = (await operations(r.id)).length;
    await kit.worker.reconcile();
    expect((await operations(r.id)).length).toBeGreaterThan(before);
    expect(await publicView(r.id)).toMatchObject({ outcome: 'delivered', money: 'charged' });
  });
});

describe('the purchase flow (WAAFIPAY_MODE=purchase)', () => {
  it('charges at once, and reverses the purchase when the operator refuses (the customer is told the payment is returned)', async () => {
    const purchase = await moneyKit(h, { flow: 'purchase' });
    try {
      const ok = await buy(h, shop);
      const refused = await buy(h, shop, { phone: '0615559999' });
      await purchase.worker.drain();
      expect(await assertMoneyRight(purchase, ok.body.data.id)).toMatchObject({ status: 'completed', payment_flow: 'purchase', payment_state: 'collected' });
      expect(await assertMoneyRight(purchase, refused.body.data.id)).toMatchObject({ status: 'refunded', payment_state: 'released' });
      expect(purchase.standIns.waafipay.byReference((await row(refused.body.data.id)).reference)?.state).toBe('Reversed');
      expect(await publicView(refused.body.data.id)).toMatchObject({
        outcome: 'not_delivered',
        money: 'returned',
        message: 'The bundle could not be delivered. Your payment is returned.',
      });
    } finally {
      await purchase.close();
    }
  });
});

describe('through the in-process transport', () => {
  it('the same adapters and stand-ins with no network hop settle a sale the same way', async () => {
    const inProcess = await moneyKit(h, { inProcess: true });
    try {
      const sale = await buy(h, shop, { phone: '0615558888' });
      await inProcess.worker.drain();
      expect(await assertMoneyRight(inProcess, sale.body.data.id)).toMatchObject({ status: 'completed' });
    } finally {
      await inProcess.close();
    }
  });
});
