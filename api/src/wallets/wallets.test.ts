import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from './ledger.ts';

/**
 * Wallets and their ledger: admin top-ups and adjustments, dealer top-up requests and their review,
 * the dealer's own view, scoping, the append-only ledger, CSV, and parallel money actions.
 */
let h: Harness;
let root: string;
let dealer: { id: number; token: string; walletId: number };
let other: { id: number; token: string; walletId: number };

async function makeDealer(code: string) {
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
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(res.status).toBe(201);
  const wallet = await h.knex('wallets').where({ dealer_id: res.body.data.id }).first();
  return { id: res.body.data.id as number, token: await h.login(email), walletId: wallet.id as number };
}
const balance = async (walletId: number) => Number((await h.knex('wallets').where({ id: walletId }).first()).balance);

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  dealer = await makeDealer('WALLETA');
  other = await makeDealer('WALLETB');
});
afterAll(() => h.close());

describe('admin money actions', () => {
  it('tops up with a ledger row carrying balance before and after, and logs it', async () => {
    const res = await h
      .http()
      .post(`/api/v1/wallets/${dealer.walletId}/top-up`)
      .set(bearer(root))
      .send({ amount: '25.50', reference: 'EVC-1001', note: 'Cash at the office' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Wallet topped up with 25.50. Balance: 25.50');
    expect(res.body.data.wallet).toMatchObject({ balance: '25.50', dealer: { dealer_code: 'WALLETA' } });
    expect(res.body.data.transaction).toMatchObject({
      type: 'credit',
      kind: 'top_up',
      amount: '25.50',
      balance_before: '0.00',
      balance_after: '25.50',
      reference: 'EVC-1001',
      actor: { name: 'Root Admin' },
    });
    expect(await h.knex('activity_log').where({ action: 'wallet_topped_up', subject_id: dealer.walletId })).toHaveLength(1);
  });

  it('adjusts both ways, never below zero, and a refused debit writes nothing', async () => {
    const debit = await h
      .http()
      .post(`/api/v1/wallets/${dealer.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'debit', amount: 5, reference: 'FIX-1', note: 'Double top-up' });
    expect(debit.body.data.transaction).toMatchObject({ type: 'debit', kind: 'adjustment', amount: '5.00', balance_before: '25.50', balance_after: '20.50' });
    const rows = await h.knex('wallet_transactions').count({ n: '*' }).first();
    const tooMuch = await h
      .http()
      .post(`/api/v1/wallets/${dealer.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'debit', amount: '20.51', reference: 'FIX-2', note: 'Too much' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toEqual({
      success: false,
      code: 'wallet.insufficient_balance',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { amount: ['The wallet balance is not enough for this.'] },
    });
    expect(await h.knex('wallet_transactions').count({ n: '*' }).first()).toEqual(rows);
    expect(await balance(dealer.walletId)).toBe(2050);
    const bad = await h.http().post(`/api/v1/wallets/${dealer.walletId}/adjust`).set(bearer(root)).send({ type: 'refund', amount: '0', reference: '' });
    expect(bad.body.errors).toEqual({
      type: ['Type must be credit or debit'],
      amount: ['Enter an amount greater than zero with at most two decimals, such as 12.50'],
      reference: ['Enter the payment reference'],
      note: ['Write down why'],
    });
  });

  it('needs the permissions, and the ledger has no route that changes it', async () => {
    const viewer = await h.userWith(['view wallets', 'view wallet transactions']);
    expect((await h.http().get('/api/v1/wallets').set(bearer(viewer.token))).status).toBe(200);
    expect((await h.http().post(`/api/v1/wallets/${dealer.walletId}/top-up`).set(bearer(viewer.token)).send({ amount: 1, reference: 'x' })).status).toBe(403);
    expect((await h.http().post(`/api/v1/wallets/${dealer.walletId}/top-up`).set(bearer(dealer.token)).send({ amount: 1, reference: 'x' })).status).toBe(403);
    const tx = await h.knex('wallet_transactions').first('id');
    for (const call of [
      h.http().patch(`/api/v1/wallet-transactions/${tx.id}`),
      h.http().delete(`/api/v1/wallet-transactions/${tx.id}`),
      h.http().put(`/api/v1/wallet-transactions/${tx.id}`),
    ]) {
      expect((await call.set(bearer(root)).send({ amount: 0 })).status).toBe(404);
    }
  });
});

describe('what a dealer sees', () => {
  it('its own wallet with the latest transactions and 30 days, and nobody else’s', async () => {
    const res = await h.http().get('/api/v1/my-wallet').set(bearer(dealer.token));
    expect(res.status).toBe(200);
    expect(res.body.data.wallet).toMatchObject({ id: dealer.walletId, balance: '20.50' });
    expect(res.body.data.transactions.map((t: { kind: string }) => t.kind)).toEqual(['adjustment', 'top_up']);
    expect(res.body.data.days).toHaveLength(30);
    expect(res.body.data.days.at(-1)).toMatchObject({ credits: '25.50', debits: '5.00', balance: '20.50' });
    expect(res.body.data.days[0].balance).toBe('0.00');
    expect((await h.http().get('/api/v1/wallets').set(bearer(dealer.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/my-wallet').set(bearer(root))).status).toBe(404);
    // The ledger is narrowed to its own wallet, whatever it filters.
    await h.http().post(`/api/v1/wallets/${other.walletId}/top-up`).set(bearer(root)).send({ amount: 3, reference: 'B-1' });
    const own = await h.http().get(`/api/v1/wallet-transactions?wallet_id=${other.walletId}`).set(bearer(dealer.token));
    expect(own.body.data).toEqual([]);
    const all = await h.http().get('/api/v1/wallet-transactions').set(bearer(dealer.token));
    expect(all.body.data.every((t: { wallet_id: number }) => t.wallet_id === dealer.walletId)).toBe(true);
  });
});

describe('the ledger list and export', () => {
  it('filters by dealer, type, kind and days in the company time zone, and exports CSV', async () => {
    const byKind = await h.http().get(`/api/v1/wallet-transactions?kind=top_up&dealer_id=${dealer.id}`).set(bearer(root));
    expect(byKind.body.data.map((t: { reference: string }) => t.reference)).toEqual(['EVC-1001']);
    expect(byKind.body.meta).toMatchObject({ total: 1, current_page: 1 });
    // Today in Mogadishu holds them all; tomorrow none.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Mogadishu' }).format(new Date());
    const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Mogadishu' }).format(new Date(Date.now() + 86_400_000));
    expect((await h.http().get(`/api/v1/wallet-transactions?from=${today}&to=${today}`).set(bearer(root))).body.meta.total).toBe(3);
    expect((await h.http().get(`/api/v1/wallet-transactions?from=${tomorrow}`).set(bearer(root))).body.meta.total).toBe(0);
    const bad = await h.http().get('/api/v1/wallet-transactions?from=22-11-2026&kind=gift').set(bearer(root));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({ from: ['Enter a real date as YYYY-MM-DD (e.g. 2026-02-28)'] });
    const csv = await h.http().get(`/api/v1/wallet-transactions/export?dealer_id=${dealer.id}`).set(bearer(root));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('ID,Created at,Dealer,Dealer code,Credit/debit,Kind,Amount,Balance before,Balance after,Reference,Note,Sale ID,By');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(',Credit,Top-up,25.50,0.00,25.50,EVC-1001,Cash at the office,,Root Admin');
    // Times on the company's clock with its offset (Africa/Mogadishu), not UTC.
    expect(lines[2].split(',')[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
    expect(csv.headers['content-disposition']).toContain(`wallet-transactions-${today}.csv`);
    // In the reader's language: the headers, credit/debit and the kinds are words; amounts and times stay as they are.
    const linesOf = (res: { text: string }) =>
      res.text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
    const exported = () => h.http().get(`/api/v1/wallet-transactions/export?dealer_id=${dealer.id}`).set(bearer(root));
    for (const arabic of [linesOf(await exported().query({ lng: 'ae' })), linesOf(await exported().set('Accept-Language', 'ar'))]) {
      expect(arabic[0]).toBe('المعرّف,تاريخ الإنشاء,الوكيل,رمز الوكيل,دائن/مدين,النوع,المبلغ,الرصيد قبلها,الرصيد بعدها,المرجع,ملاحظة,معرّف عملية البيع,بواسطة');
      expect(arabic[2]).toContain(',دائن,شحن,25.50,0.00,25.50,EVC-1001,');
      expect(arabic[2].split(',')[1]).toMatch(/\+03:00$/);
    }
    const somali = linesOf(await exported().query({ lng: 'so' }));
    expect(somali[0].split(',').slice(0, 6)).toEqual(['Aqoonsi', 'Waqtiga la sameeyay', 'Wakiilka', 'Koodka wakiilka', 'Ku dar/Ka jar', 'Nooca']);
    expect(somali[1]).toContain(',Ka jar,Sixid,5.00,');
    expect(somali[2]).toContain(',Ku dar,Kordhin,25.50,');
    // headers=keys, for scripts: the column keys and the codes, the same file in any language; a bad value is a 422.
    for (const lng of ['en', 'ae']) {
      const keyed = linesOf(await exported().query({ lng, headers: 'keys' }));
      expect(keyed[0]).toBe('id,created_at,dealer,dealer_code,type,kind,amount,balance_before,balance_after,reference,note,recharge_id,actor');
      expect(keyed[2]).toContain(',credit,top_up,25.50,0.00,25.50,EVC-1001,');
      expect(keyed[1]).toContain(',debit,adjustment,5.00,');
    }
    expect(linesOf(await exported().query({ headers: 'labels' }))[0]).toBe(lines[0]);
    const refused = await exported().query({ headers: 'codes' });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['headers']);
  });
});

describe('top-up requests', () => {
  it('a dealer asks with a receipt; an admin approves once, and a second approval is a 409', async () => {
    const asked = await h
      .http()
      .post('/api/v1/wallet-top-up-requests')
      .set(bearer(dealer.token))
      .field('amount', '10')
      .field('reference', 'EVC-77')
      .attach('receipt', PNG_1PX, 'r.png');
    expect(asked.status).toBe(201);
    expect(asked.body.data).toMatchObject({ status: 'pending', amount: '10.00', reference: 'EVC-77', dealer: { id: dealer.id } });
    expect(asked.body.data.receipt).toMatch(/^\/storage\/receipts\//);
    expect(await balance(dealer.walletId)).toBe(2050);
    // Another dealer cannot see it; the dealer cannot approve it.
    expect((await h.http().get(`/api/v1/wallet-top-up-requests/${asked.body.data.id}`).set(bearer(other.token))).status).toBe(404);
    expect((await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/approve`).set(bearer(dealer.token))).status).toBe(403);
    const approvals = await Promise.all([1, 2, 3].map(() => h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/approve`).set(bearer(root))));
    expect(approvals.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await balance(dealer.walletId)).toBe(3050);
    const done = await h.http().get(`/api/v1/wallet-top-up-requests/${asked.body.data.id}`).set(bearer(dealer.token));
    expect(done.body.data).toMatchObject({ status: 'approved', reviewed_by: { name: 'Root Admin' } });
    expect(done.body.data.wallet_transaction_id).toBeGreaterThan(0);
  });

  it('a rejection needs a reason, credits nothing, and admins cannot ask for themselves', async () => {
    const asked = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(dealer.token)).send({ amount: 4, reference: 'EVC-78' });
    const noReason = await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/reject`).set(bearer(root)).send({ reason: ' ' });
    expect(noReason.body.errors).toEqual({ reason: ['Give the reason'] });
    const rejected = await h
      .http()
      .post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/reject`)
      .set(bearer(root))
      .send({ reason: 'No such EVC payment' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'No such EVC payment' });
    expect(await balance(dealer.walletId)).toBe(3050);
    expect((await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/approve`).set(bearer(root))).status).toBe(409);
    const pending = await h.http().get('/api/v1/wallet-top-up-requests?status=pending').set(bearer(root));
    expect(pending.body.data).toEqual([]);
    const admin = await h.userWith(['request wallet top-ups']);
    expect((await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(admin.token)).send({ amount: 4, reference: 'x' })).status).toBe(403);
  });

  it('a dealer never decides a request, even with the review permission; staff who may not review read none by id', async () => {
    const asked = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(dealer.token)).send({ amount: 7, reference: 'EVC-SELF' });
    expect(asked.status).toBe(201);
    // The dealer role is given the review permission by mistake: approving its own is still refused.
    const dealerRole = await h.knex('roles').where({ name: 'dealer' }).first('id');
    const reviewId = (await h.knex('permissions').where({ name: 'review wallet top-ups' }).first('id')).id;
    await h.knex('role_permissions').insert({ role_id: dealerRole.id, permission_id: reviewId });
    const again = await h.login('walleta@test.example');
    const before = await balance(dealer.walletId);
    for (const action of ['approve', 'reject']) {
      const res = await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/${action}`).set(bearer(again)).send({ reason: 'mine' });
      expect(res.status).toBe(403);
    }
    expect(await balance(dealer.walletId)).toBe(before);
    expect((await h.knex('wallet_top_up_requests').where({ id: asked.body.data.id }).first()).status).toBe('pending');
    await h.knex('role_permissions').where({ role_id: dealerRole.id, permission_id: reviewId }).delete();
    // Staff who read wallets but may not review: no request of any dealer, by list or by id.
    const viewer = await h.userWith(['view wallets', 'request wallet top-ups']);
    expect((await h.http().get(`/api/v1/wallet-top-up-requests/${asked.body.data.id}`).set(bearer(viewer.token))).status).toBe(404);
    expect((await h.http().get('/api/v1/wallet-top-up-requests').set(bearer(viewer.token))).body.data).toEqual([]);
  });
});

describe('at once', () => {
  it('30 parallel debits of 1.00 against 10.00: exactly 10 pass, the balance ends at 0 and equals the ledger', async () => {
    const shop = await makeDealer('PARALLEL');
    await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up`).set(bearer(root)).send({ amount: 10, reference: 'seed' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h
          .http()
          .post(`/api/v1/wallets/${shop.walletId}/adjust`)
          .set(bearer(root))
          .send({ type: 'debit', amount: 1, reference: `D${i}`, note: 'race' }),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(await balance(shop.walletId)).toBe(0);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(0);
    // Every row's before/after chain is continuous.
    const rows = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId }).orderBy('id');
    for (let i = 1; i < rows.length; i++) expect(Number(rows[i].balance_before)).toBe(Number(rows[i - 1].balance_after));
  });
});
