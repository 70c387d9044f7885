import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';
import { toDbTime } from '../database/time.ts';
import { ledgerSum } from './ledger.ts';

/**
 * A "Profit Only" dealer's payout requests (the top-up request's table with kind `payout`): asked
 * up to the balance, approved once (a `payout` debit, even under ten approvals at once) or
 * rejected with a reason; the pending count for the menu badge; where a dealer pays a top-up in.
 */
let h: Harness;
let root: string;
let seq = 0;

async function makeDealer(pricing: 'cost' | 'profit', balanceMinor = 0) {
  const code = `PAY${++seq}${Date.now() % 100000}`;
  const email = `${code.toLowerCase()}@test.example`;
  const res = await h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', `Dealer ${code}`)
    .field('email', email)
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', code)
    .field('pricing_model', pricing)
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(res.status).toBe(201);
  const id = res.body.data.id as number;
  await h.knex('dealer_details').where({ user_id: id }).update({ pricing_model: pricing });
  const wallet = await h.knex('wallets').where({ dealer_id: id, mode: 'live' }).first();
  if (balanceMinor) {
    // Profit as the sales credit it: a ledger row with its balance (profit_credit rows need a sale, so an adjustment).
    const r = await h
      .http()
      .post(`/api/v1/wallets/${wallet.id}/adjust`)
      .set(bearer(root))
      .send({ type: 'credit', amount: (balanceMinor / 100).toFixed(2), reference: `PROFIT-${code}`, note: 'Profit so far' });
    expect(r.status).toBe(200);
  }
  return { id, walletId: wallet.id as number, token: await h.login(email) };
}

const payout = (token: string, body: Record<string, unknown>, lng = 'en') =>
  h.http().post(`/api/v1/wallet-top-up-requests/payout?lng=${lng}`).set(bearer(token)).send(body);
const approve = (id: number) => h.http().post(`/api/v1/wallet-top-up-requests/${id}/approve`).set(bearer(root));
const balance = async (walletId: number) => Number((await h.knex('wallets').where({ id: walletId }).first()).balance);

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

describe('asking for a payout', () => {
  it('a Profit Only dealer asks for its profit to its mobile number, kept as 9 digits', async () => {
    const shop = await makeDealer('profit', 5000);
    const res = await payout(shop.token, { amount: '20.00', phone: '+252 61 512 3456', note: 'Weekly' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Payout request sent. An admin will send the money and confirm it.');
    expect(res.body.data).toMatchObject({ kind: 'payout', amount: '20.00', reference: '615123456', status: 'pending', note: 'Weekly', receipt: null });
    expect(await h.knex('activity_log').where({ action: 'payout_requested', subject_id: res.body.data.id })).toHaveLength(1);
    // Nothing moves until an admin approves.
    expect(await balance(shop.walletId)).toBe(5000);
    const list = await h.http().get('/api/v1/wallet-top-up-requests?kind=payout').set(bearer(shop.token));
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([res.body.data.id]);
  });

  it('never more than the balance less the payouts already pending', async () => {
    const shop = await makeDealer('profit', 3000);
    const over = await payout(shop.token, { amount: '30.01', phone: '0615000001' });
    expect(over.status).toBe(422);
    expect(over.body.errors.amount).toEqual(['You can ask for at most 30.00 USD (your balance less the payouts already asked for).']);
    expect((await payout(shop.token, { amount: '20.00', phone: '0615000001' })).status).toBe(201);
    const second = await payout(shop.token, { amount: '10.01', phone: '0615000001' }, 'ae');
    expect(second.status).toBe(422);
    expect(second.body.errors.amount[0]).toContain('10.00');
    expect(second.body.errors.amount[0]).toMatch(/[\u0600-\u06FF]/);
    expect((await payout(shop.token, { amount: '10.00', phone: '0615000001' })).status).toBe(201);
  });

  it('refuses a bad number, a missing one and a bad amount with a 422 in the reader’s language', async () => {
    const shop = await makeDealer('profit', 1000);
    const bad = await payout(shop.token, { amount: '1.00', phone: '12345' }, 'so');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.phone[0]).not.toMatch(/^Enter/);
    const missing = await payout(shop.token, { amount: '0', phone: '' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.phone).toEqual(['Enter the mobile number to send the money to']);
    expect(missing.body.errors.amount).toBeDefined();
    expect(await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId })).toHaveLength(0);
  });

  it('a payout is a Profit Only dealer’s; a top-up request is not (its wallet holds profit)', async () => {
    const cost = await makeDealer('cost', 1000);
    const refused = await payout(cost.token, { amount: '1.00', phone: '0615000001' });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('wallets.payout_profit_only');
    const profit = await makeDealer('profit', 1000);
    const topUp = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(profit.token)).send({ amount: '5.00', reference: 'EVC-P-1' });
    expect(topUp.status).toBe(422);
    expect(topUp.body.code).toBe('wallets.profit_only_top_up');
    // Staff ask for nobody.
    expect((await payout(root, { amount: '1.00', phone: '0615000001' })).status).toBe(403);
  });
});

describe('deciding a payout', () => {
  it('approval debits the wallet once with a payout ledger row; the request keeps it', async () => {
    const shop = await makeDealer('profit', 4000);
    const asked = await payout(shop.token, { amount: '15.00', phone: '0615123456' });
    const res = await approve(asked.body.data.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'payout', status: 'approved', reviewed_by: { name: 'Root Admin' } });
    // Money went out: the toast says so, never "credited".
    expect(res.body.message).toBe('Payout approved: the amount was taken from the wallet. Send the money to the dealer as the request says.');
    expect(await balance(shop.walletId)).toBe(2500);
    const row = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'payout' }).first();
    expect(row).toMatchObject({ type: 'debit', reference: '615123456' });
    expect(Number(row.amount)).toBe(1500);
    expect(Number(row.balance_before)).toBe(4000);
    expect(Number(row.balance_after)).toBe(2500);
    expect(Number(res.body.data.wallet_transaction_id)).toBe(Number(row.id));
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(2500);
    expect(await h.knex('activity_log').where({ action: 'payout_approved', subject_id: asked.body.data.id })).toHaveLength(1);
    // The dealer's ledger lists it by its kind.
    const ledger = await h.http().get('/api/v1/wallet-transactions?kind=payout').set(bearer(shop.token));
    expect(ledger.status).toBe(200);
    expect((await approve(asked.body.data.id)).status).toBe(409);
  });

  it('a rejection keeps the money, with its reason', async () => {
    const shop = await makeDealer('profit', 1000);
    const asked = await payout(shop.token, { amount: '5.00', phone: '0615123456' });
    const res = await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/reject`).set(bearer(root)).send({ reason: 'Wrong number' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'rejected', reason: 'Wrong number' });
    expect(res.body.message).toBe('Payout request rejected: the money stays in the wallet.');
    expect(await balance(shop.walletId)).toBe(1000);
    expect(await h.knex('activity_log').where({ action: 'payout_rejected', subject_id: asked.body.data.id })).toHaveLength(1);
  });

  it('a balance that fell short meanwhile refuses the approval (422) and the request stays pending', async () => {
    const shop = await makeDealer('profit', 1000);
    const asked = await payout(shop.token, { amount: '8.00', phone: '0615123456' });
    await h
      .http()
      .post(`/api/v1/wallets/${shop.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'debit', amount: '5.00', reference: 'FIX', note: 'Correction' });
    const res = await approve(asked.body.data.id);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('wallet.insufficient_balance');
    expect((await h.knex('wallet_top_up_requests').where({ id: asked.body.data.id }).first()).status).toBe('pending');
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'payout' })).toHaveLength(0);
  });

  it('ten approvals at once: one debit, nine 409s, no 5xx', async () => {
    const shop = await makeDealer('profit', 10000);
    const asked = await payout(shop.token, { amount: '60.00', phone: '0615123456' });
    const results = await Promise.all(Array.from({ length: 10 }, () => approve(asked.body.data.id)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'payout' })).toHaveLength(1);
    expect(await balance(shop.walletId)).toBe(4000);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(4000);
  });

  it('ten payouts of one wallet approved at once never take it below zero', async () => {
    const shop = await makeDealer('profit', 3000);
    const now = toDbTime();
    // Asked before (within the balance each, more than it together): as if the balance had fallen since.
    for (let i = 0; i < 10; i++)
      await h.knex('wallet_top_up_requests').insert({
        wallet_id: shop.walletId,
        dealer_id: shop.id,
        kind: 'payout',
        amount: 1000,
        reference: '615123456',
        status: 'pending',
        created_at: now,
        updated_at: now,
      });
    const ids = (await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId }).select('id')).map((r: { id: number }) => r.id);
    const results = await Promise.all(ids.map((id: number) => approve(id)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 422)).toHaveLength(7);
    expect(await balance(shop.walletId)).toBe(0);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(0);
  });
});

describe('the pending count', () => {
  it('counts top-ups and payouts waiting, for reviewers only', async () => {
    const pending = Number((await h.knex('wallet_top_up_requests').where({ status: 'pending' }).count({ n: '*' }).first())!.n);
    const res = await h.http().get('/api/v1/wallet-top-up-requests/pending-count').set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ count: pending });
    const shop = await makeDealer('profit', 100);
    expect((await payout(shop.token, { amount: '1.00', phone: '0615123456' })).status).toBe(201);
    expect((await h.http().get('/api/v1/wallet-top-up-requests/pending-count').set(bearer(root))).body.data.count).toBe(pending + 1);
    expect((await h.http().get('/api/v1/wallet-top-up-requests/pending-count').set(bearer(shop.token))).status).toBe(403);
    const viewer = await h.userWith(['view wallets']);
    expect((await h.http().get('/api/v1/wallet-top-up-requests/pending-count').set(bearer(viewer.token))).status).toBe(403);
  });
});

describe('where to pay a top-up', () => {
  it("lists the company's methods that say where to pay, never a dealer's own, and the company phone", async () => {
    const shop = await makeDealer('cost');
    const add = async (body: Record<string, unknown>) => {
      const r = await h.http().post('/api/v1/payment-methods').set(bearer(root)).send(body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.data;
    };
    await add({ name: 'Salaam Bank', type: 'bank', account_number: 'SO12 3456 7890', instructions: 'Write your dealer code as the reference.' });
    await add({ name: 'EVC Plus (company)', type: 'evc_plus', account_number: '615000111', gateway: 'manual' });
    await add({ name: 'Hidden', type: 'cash', status: 'inactive', instructions: 'Not shown' });
    await h.knex('payment_methods').insert({
      name: 'Dealer own',
      type: 'zaad',
      account_number: '634000000',
      dealer_id: shop.id,
      status: 'active',
      gateway: 'manual',
      sort_order: 0,
      created_at: toDbTime(),
      updated_at: toDbTime(),
    });
    await h
      .http()
      .put('/api/v1/settings/company')
      .set(bearer(root))
      .send({ company_name: 'Bundles Co', phone: '+252 61 0000000', currency: 'USD', timezone: 'Africa/Mogadishu' });
    const res = await h.http().get('/api/v1/wallet-top-up-requests/payment-details').set(bearer(shop.token));
    expect(res.status).toBe(200);
    const names = res.body.data.methods.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['Salaam Bank', 'EVC Plus (company)']));
    expect(names).not.toContain('Hidden');
    expect(names).not.toContain('Dealer own');
    expect(res.body.data.methods.find((m: { name: string }) => m.name === 'Salaam Bank')).toMatchObject({
      account_number: 'SO12 3456 7890',
      instructions: 'Write your dealer code as the reference.',
    });
    expect(res.body.data.phone).toBe('+252 61 0000000');
    // Reviewers without the request permission do not read it.
    const viewer = await h.userWith(['view wallets']);
    expect((await h.http().get('/api/v1/wallet-top-up-requests/payment-details').set(bearer(viewer.token))).status).toBe(403);
  });
});
