import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeMoney } from './recharge.routes.ts';
import { toDbTime } from '../database/time.ts';

/**
 * Money taken is given back by the gateway's refund (issue 25, item 6): a committed reserve can no
 * longer be cancelled, so WaafiPay's HPP_REFUNDPURCHASE returns its amount. By hand (ten at once:
 * one refund), by the worker for a sale not delivered, and by the reconciliation for a failed sale
 * whose payment the gateway says it took; through the stand-in over HTTP, on SQLite and MariaDB.
 *
 * A failed sale holding a committed payment is made here by moving a completed sale's row to
 * `failed` (as when the operator takes a delivered top-up back): the product has no other path to it.
 */
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '20' });
  kit = await moneyKit(h, { money });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
const calls = async (id: number, operation: string) => h.knex('remote_calls').where({ recharge_id: id, operation }).orderBy('id');

/** A sale delivered and paid (its reserve committed at the stand-in). */
async function paidSale(): Promise<{ id: number; reference: string }> {
  const sale = await buy(h, shop);
  await kit.worker.drain();
  const r = await row(sale.body.data.id);
  expect(r).toMatchObject({ status: 'completed', payment_state: 'collected', payment_flow: 'preauthorize' });
  expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
  return { id: Number(r.id), reference: r.reference };
}

/** The completed sale's row as a failed one whose payment the gateway took (see above). */
async function failedHolding(id: number, fields: Record<string, unknown> = {}) {
  await h
    .knex('recharges')
    .where({ id })
    .update({
      status: 'failed',
      delivery_state: 'failed',
      failed_at: toDbTime(),
      completed_at: null,
      failure_reason: 'The operator took the top-up back.',
      ...fields,
    });
}

describe('a payment taken and not earned goes back through the refund', () => {
  it('the adapter refunds a committed reserve with HPP_REFUNDPURCHASE (its amount, the HPP keys), once and again safely; a reserve never committed is refused', async () => {
    const { id, reference } = await paidSale();
    const r = await row(id);
    const refund = () =>
      kit.payment.release(
        { referenceId: reference, transactionId: r.payment_reference, flow: 'preauthorize', captured: true, amount: Number(r.amount) },
        { rechargeId: id },
      );
    expect(await refund()).toEqual({ status: 'done' });
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
    expect(await kit.payment.lookup(reference, { rechargeId: id })).toMatchObject({ status: 'found', state: 'refunded' });
    // The answer lost and the refund asked again: done, never twice.
    expect(await refund()).toEqual({ status: 'done' });
    const trail = await calls(id, 'HPP_REFUNDPURCHASE');
    expect(trail).toHaveLength(2);
    const sent = JSON.parse(trail[0].request);
    expect(sent.serviceParams).toMatchObject({ transactionId: r.payment_reference, amount: '0.55', storeId: expect.any(String) });
    expect(sent.serviceParams.hppKey).toBe('[redacted]');
    // Not the whole amount: refused, nothing changes.
    const partial = await kit.payment.release(
      { referenceId: reference, transactionId: r.payment_reference, flow: 'preauthorize', captured: true, amount: 10 },
      { rechargeId: id },
    );
    expect(partial.status).toBe('refused');
  });

  it('by hand: a failed sale holding a committed payment is refunded once (ten at once), its debit returned once, the ledger exact', async () => {
    const { id, reference } = await paidSale();
    await failedHolding(id);
    const before = await walletBalance(h, shop.walletId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({})));
    expect(answers.filter((a) => a.status >= 500)).toHaveLength(0);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'refunded', payment_state: 'refunded' });
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
    expect(await calls(id, 'API_PREAUTHORIZE_CANCEL')).toHaveLength(0);
    expect(await walletBalance(h, shop.walletId)).toBe(before + 40);
    expect(await h.knex('wallet_transactions').where({ recharge_id: id, kind: 'recharge_refund' })).toHaveLength(1);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    // The customer is told the payment came back.
    const pub = await h.http().get(`/api/v1/client/recharge/${reference}`).set('dealer_code', shop.code);
    expect(pub.body.data).toMatchObject({ outcome: 'not_delivered', money: 'returned' });
  });

  it('the worker refunds a committed payment of a sale not delivered (never a cancel), and the sale ends refunded', async () => {
    const { id, reference } = await paidSale();
    await h
      .knex('recharges')
      .where({ id })
      .update({ status: 'pending', completed_at: null, delivery_state: 'failed', failure_reason: 'The operator took the top-up back.', next_attempt_at: null });
    await kit.worker.drain();
    expect(await row(id)).toMatchObject({ status: 'refunded', payment_state: 'refunded' });
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
    expect(await calls(id, 'API_PREAUTHORIZE_CANCEL')).toHaveLength(0);
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
  });

  it('the reconciliation refunds a failed sale whose payment the gateway says it took, and a lost refund answer is found by the lookup', async () => {
    const { id, reference } = await paidSale();
    // The commit's answer was never read: the row says committing, the gateway has it committed.
    await failedHolding(id, { payment_state: 'committing', next_check_at: toDbTime(), checks: 0 });
    kit.standIns.waafipay.injectFault({ serviceName: 'HPP_REFUNDPURCHASE' }, 'reset-after');
    await kit.worker.reconcile();
    // Processed, answer lost: the sale still waits (the intent recorded), and the next check finds the refund made.
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
    expect((await row(id)).payment_state).toBe('releasing');
    await h.knex('recharges').where({ id }).update({ next_check_at: toDbTime() });
    await kit.worker.reconcile();
    const r = await row(id);
    expect(r).toMatchObject({ payment_state: 'refunded', next_check_at: null });
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
  });

  it('a delivered sale refunded by hand ("Cost + Profit"): the customer refunded through the gateway, the debit back, once for ten clicks; the customer told', async () => {
    const { id, reference } = await paidSale();
    const before = await walletBalance(h, shop.walletId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({})));
    expect(answers.filter((a) => a.status >= 500)).toHaveLength(0);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'refunded', payment_state: 'refunded', delivery_state: 'delivered' });
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
    expect(await walletBalance(h, shop.walletId)).toBe(before + 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    const pub = await h.http().get(`/api/v1/client/recharge/${reference}`).set('dealer_code', shop.code);
    expect(pub.body.data).toMatchObject({ outcome: 'delivered', money: 'returned' });
    const log = await h.knex('activity_log').where({ action: 'recharge_refunded_by_hand', subject_type: 'recharge', subject_id: id });
    expect(log).toHaveLength(1);
  });

  it('a delivered "Profit Only" sale: the dealer gives its profit back (refused while its wallet holds less, nothing changed)', async () => {
    const profitShop = await makeShop(h, root, 'profit');
    const sale = await buy(h, profitShop);
    await kit.worker.drain();
    const id = Number(sale.body.data.id);
    expect((await row(id)).status).toBe('completed');
    const profit = Number((await h.knex('wallet_transactions').where({ recharge_id: id, kind: 'profit_credit' }).first()).amount);
    expect(profit).toBeGreaterThan(0);
    // The dealer spent its profit but a cent: the wallet holds less than it.
    const spent = await h
      .http()
      .post(`/api/v1/wallets/${profitShop.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'debit', amount: ((profit - 1) / 100).toFixed(2), reference: `spent-${id}`, note: 'Spent' });
    expect(spent.status).toBe(200);
    expect(await walletBalance(h, profitShop.walletId)).toBe(1);
    const short = await h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({});
    expect(short.status).toBe(409);
    expect(short.body.message).toContain('cannot give back');
    expect((await row(id)).status).toBe('completed');
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(0);
    await h
      .http()
      .post(`/api/v1/wallets/${profitShop.walletId}/top-up`)
      .set(bearer(root))
      .send({ amount: '1.00', reference: `top-${id}` });
    const before = await walletBalance(h, profitShop.walletId);
    const ok = await h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({});
    expect(ok.status).toBe(200);
    expect(await walletBalance(h, profitShop.walletId)).toBe(before - profit);
    expect(await h.knex('wallet_transactions').where({ recharge_id: id, kind: 'profit_reversal' })).toHaveLength(1);
    expect(await ledgerSum(h.knex, profitShop.walletId)).toBe(await walletBalance(h, profitShop.walletId));
    expect(await row(id)).toMatchObject({ status: 'refunded', payment_state: 'refunded' });
  });

  it('a refund by hand and the reconciliation at the same moment send one refund (the by-hand call holds the check lease)', async () => {
    const { id, reference } = await paidSale();
    // The refund is processed but its answer never comes (the call times out): unknown.
    kit.standIns.waafipay.injectFault({ serviceName: 'HPP_REFUNDPURCHASE' }, 'hang-after');
    const byHand = h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({});
    await new Promise((r) => setTimeout(r, 100));
    await kit.worker.reconcile();
    const answer = await byHand;
    expect(answer.status).toBe(200);
    expect(answer.body.message).not.toBe('');
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
    // The lease let go, the reconciliation finds the refund made.
    expect((await row(id)).payment_state).toBe('releasing');
    await kit.worker.reconcile();
    expect(await row(id)).toMatchObject({ status: 'refunded', payment_state: 'refunded', check_leased_until: null });
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
    expect(kit.standIns.waafipay.byReference(reference)?.state).toBe('Refunded');
  });

  it('a refund by hand while a check holds the sale leaves the call to that check (never two)', async () => {
    const { id } = await paidSale();
    await h
      .knex('recharges')
      .where({ id })
      .update({ check_leased_until: toDbTime(new Date(Date.now() + 60_000)) });
    const answer = await h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root)).send({});
    expect(answer.status).toBe(200);
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(0);
    expect(await row(id)).toMatchObject({ status: 'refunded', payment_state: 'releasing' });
    // The check's lease runs out: the reconciliation gives the payment back.
    await h.knex('recharges').where({ id }).update({ check_leased_until: null, next_check_at: toDbTime() });
    await kit.worker.reconcile();
    expect(await row(id)).toMatchObject({ payment_state: 'refunded' });
    expect(await calls(id, 'HPP_REFUNDPURCHASE')).toHaveLength(1);
  });
});
