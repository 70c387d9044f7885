import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { ledgerSum } from './ledger.ts';
import { bankReferenceKey } from './idempotency.ts';

/**
 * One bank transfer, one credit (bank-references.ts): a bank reference is credited once per
 * wallet whichever way it comes (an admin's top-up under any key, an approved request), in any
 * order and all at once, with a 409 naming the first credit or the pending request; on SQLite and
 * MariaDB (TEST_DATABASE).
 */
let h: Harness;
let root: string;
let n = 0;

async function makeDealer() {
  n += 1;
  const code = `BANKREF${n}`;
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
type Shop = Awaited<ReturnType<typeof makeDealer>>;

const topUp = (walletId: number, body: Record<string, unknown>, key?: string, lng = 'en') => {
  const req = h.http().post(`/api/v1/wallets/${walletId}/top-up?lng=${lng}`).set(bearer(root));
  if (key !== undefined) req.set('Idempotency-Key', key);
  return req.send(body);
};
const ask = (shop: Shop, body: Record<string, unknown>, lng = 'en') =>
  h.http().post(`/api/v1/wallet-top-up-requests?lng=${lng}`).set(bearer(shop.token)).send(body);
const approve = (id: number, lng = 'en') => h.http().post(`/api/v1/wallet-top-up-requests/${id}/approve?lng=${lng}`).set(bearer(root));
const reject = (id: number) => h.http().post(`/api/v1/wallet-top-up-requests/${id}/reject`).set(bearer(root)).send({ reason: 'Already credited' });
const balance = async (walletId: number) => Number((await h.knex('wallets').where({ id: walletId }).first()).balance);
const credits = (walletId: number) => h.knex('wallet_transactions').where({ wallet_id: walletId, kind: 'top_up' }).orderBy('id');
const requestRow = (id: number) => h.knex('wallet_top_up_requests').where({ id }).first();
/** A stored time on the company's clock (Africa/Mogadishu, UTC+3 all year), to the minute, as the messages write it. */
const companyTime = (stored: string) => new Date(Date.parse(fromDbTime(stored)!) + 3 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');

/** Balance = sum of the ledger, and exactly one top-up credit of `cents`. */
async function creditedOnce(walletId: number, cents: number) {
  const rows = await credits(walletId);
  expect(rows).toHaveLength(1);
  expect(Number(rows[0].amount)).toBe(cents);
  expect(await balance(walletId)).toBe(await ledgerSum(h.knex, walletId));
  return rows[0] as { id: number; created_at: string; bank_reference_key: string };
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

describe('a bank reference is credited once per wallet', () => {
  it('request then request: a second request of one reference is refused while the first is pending (case and spaces aside), and may be made again once it is rejected', async () => {
    const shop = await makeDealer();
    const first = await ask(shop, { amount: '5.00', reference: 'EVC-R1' });
    expect(first.status).toBe(201);
    const pending = await requestRow(first.body.data.id);
    expect(pending.pending_reference_key).toBe('evc-r1');
    const message = `You already asked for a top-up with this bank reference on ${companyTime(pending.created_at)} (5.00 USD), and it is waiting for review. Wait for that decision instead of asking again.`;
    const again = await ask(shop, { amount: '6.00', reference: '  evc-r1 ' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, code: expect.any(String), errors_detail: expect.any(Array), message, errors: { reference: [message] } });
    const so = await ask(shop, { amount: '5.00', reference: 'Evc-R1' }, 'so');
    expect(so.status).toBe(409);
    expect(so.body.message).toMatch(/^Horey ayaad u codsatay kordhin leh tixraacan bangiga .*\(5\.00 USD\)/);
    const ae = await ask(shop, { amount: '5.00', reference: 'EVC-R1' }, 'ae');
    expect(ae.body.errors.reference[0]).toMatch(/^لقد طلبت من قبل شحناً بمرجع التحويل هذا .*\(5\.00 USD\)/);
    expect(await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId })).toHaveLength(1);

    // Decided: the reference is free again for a new request (a rejection may have been a mistake).
    expect((await reject(first.body.data.id)).status).toBe(200);
    expect((await requestRow(first.body.data.id)).pending_reference_key).toBeNull();
    const retry = await ask(shop, { amount: '5.00', reference: 'evc-r1' });
    expect(retry.status).toBe(201);
    expect((await approve(retry.body.data.id)).status).toBe(200);
    expect((await requestRow(retry.body.data.id)).pending_reference_key).toBeNull();
    // Credited: a request of it is now refused for that reason, naming the credit.
    const credit = await creditedOnce(shop.walletId, 500);
    const afterCredit = await ask(shop, { amount: '5.00', reference: 'EVC-R1' });
    expect(afterCredit.status).toBe(409);
    expect(afterCredit.body.errors.reference).toEqual([
      `This bank reference was already credited to your wallet on ${companyTime(credit.created_at)} (5.00 USD, ledger entry #${credit.id}). A transfer is credited once, so there is nothing to ask for.`,
    ]);
  });

  it('request then direct: once a request is approved, an admin top-up of the same transfer is a 409 naming that credit, with or without a key', async () => {
    const shop = await makeDealer();
    const asked = await ask(shop, { amount: '7.00', reference: 'EVC-RD1' });
    expect((await approve(asked.body.data.id)).status).toBe(200);
    const credit = await creditedOnce(shop.walletId, 700);
    expect(credit.bank_reference_key).toBe('evc-rd1');
    const message = `This bank reference was already credited to this wallet on ${companyTime(credit.created_at)} (7.00 USD, ledger entry #${credit.id}). Check the ledger before crediting the same transfer again.`;
    for (const [body, key] of [
      [{ amount: '7.00', reference: 'EVC-RD1' }, undefined],
      [{ amount: '7.00', reference: ' evc-rd1' }, 'console-key-rd1-0001'],
      [{ amount: '9.00', reference: 'Evc-Rd1', note: 'other amount' }, undefined],
    ] as const) {
      const res = await topUp(shop.walletId, body, key);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, code: expect.any(String), errors_detail: expect.any(Array), message, errors: { reference: [message] } });
    }
    const so = await topUp(shop.walletId, { amount: '7.00', reference: 'EVC-RD1' }, undefined, 'so');
    expect(so.body.message).toBe(
      `Tixraacan bangiga horey ayaa loogu daray boorsadan taariikhda ${companyTime(credit.created_at)} (7.00 USD, diiwaanka lambar ${credit.id}). Hubi diiwaanka ka hor intaadan mar kale ku darin isla lacag-wareejintaas.`,
    );
    const ae = await topUp(shop.walletId, { amount: '7.00', reference: 'EVC-RD1' }, 'console-key-rd1-0002', 'ae');
    expect(ae.body.errors.reference[0]).toContain(`قيد السجل رقم ${credit.id}`);
    await creditedOnce(shop.walletId, 700);
    // Another wallet may receive a transfer of the same reference: the rule is per wallet.
    const other = await makeDealer();
    expect((await topUp(other.walletId, { amount: '1.00', reference: 'EVC-RD1' })).status).toBe(200);
  });

  it('direct then request: a request for a reference already credited is refused at creation, nothing is stored', async () => {
    const shop = await makeDealer();
    const direct = await topUp(shop.walletId, { amount: '3.00', reference: 'EVC-DR1' });
    expect(direct.status).toBe(200);
    const asked = await ask(shop, { amount: '3.00', reference: 'evc-dr1  ' });
    expect(asked.status).toBe(409);
    expect(asked.body.errors.reference[0]).toMatch(
      new RegExp(`^This bank reference was already credited to your wallet on .* \\(3\\.00 USD, ledger entry #${direct.body.data.transaction.id}\\)\\.`),
    );
    // With a receipt (multipart): refused alike, and the stored receipt removed again.
    const withReceipt = await h
      .http()
      .post('/api/v1/wallet-top-up-requests')
      .set(bearer(shop.token))
      .field('amount', '3')
      .field('reference', 'EVC-DR1')
      .attach('receipt', PNG_1PX, 'r.png');
    expect(withReceipt.status).toBe(409);
    expect(await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId })).toHaveLength(0);
    await creditedOnce(shop.walletId, 300);
  });

  it('approve after direct: the approval is a 409 that changes nothing, and the request stays pending for a rejection', async () => {
    const shop = await makeDealer();
    const asked = await ask(shop, { amount: '4.00', reference: 'EVC-AD1' });
    // The admin credits the same transfer by hand while the request waits (allowed: it is the first credit).
    const direct = await topUp(shop.walletId, { amount: '4.00', reference: ' evc-ad1' }, 'console-key-ad1-0001');
    expect(direct.status).toBe(200);
    const approved = await approve(asked.body.data.id);
    expect(approved.status).toBe(409);
    const credit = await creditedOnce(shop.walletId, 400);
    expect(approved.body.errors.reference).toEqual([
      `This request's bank reference was already credited to this wallet on ${companyTime(credit.created_at)} (4.00 USD, ledger entry #${credit.id}). Nothing was credited and the request is still pending: reject it with the reason.`,
    ]);
    expect((await approve(asked.body.data.id, 'so')).body.message).toMatch(/^Tixraaca bangiga ee codsigan horey ayaa loogu daray boorsadan/);
    expect((await approve(asked.body.data.id, 'ae')).body.message).toMatch(/^سبق إضافة مرجع التحويل الخاص بهذا الطلب/);
    const row = await requestRow(asked.body.data.id);
    expect(row).toMatchObject({ status: 'pending', reviewed_by: null, wallet_transaction_id: null, pending_reference_key: 'evc-ad1' });
    expect(await h.knex('activity_log').where({ action: 'top_up_approved', subject_id: asked.body.data.id })).toHaveLength(0);
    const rejected = await reject(asked.body.data.id);
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'Already credited' });
    await creditedOnce(shop.walletId, 400);
  });

  it('a replay of the same key (header or reference) still answers its first result; only another operation is refused', async () => {
    const shop = await makeDealer();
    const key = 'console-0f3a9c2b7d1e4a5f8b6c0d2e4f6a8b0c';
    const first = await topUp(shop.walletId, { amount: '2.50', reference: 'EVC-K1' }, key);
    expect(first.status).toBe(200);
    const replay = await topUp(shop.walletId, { amount: '2.50', reference: 'EVC-K1' }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...first.body, data: { ...first.body.data, replayed: true } });
    // The same transfer without the key (its key is then the reference): another operation, refused.
    expect((await topUp(shop.walletId, { amount: '2.50', reference: 'EVC-K1' })).status).toBe(409);
    // Keyed by the reference: the same request again is a replay, not a refusal.
    const byRef = await topUp(shop.walletId, { amount: '1.00', reference: 'EVC-K2' });
    const byRefAgain = await topUp(shop.walletId, { amount: '1.00', reference: 'evc-k2' });
    expect(byRefAgain.status).toBe(200);
    expect(byRefAgain.body.data).toMatchObject({ replayed: true, transaction: { id: byRef.body.data.transaction.id } });
    expect(await credits(shop.walletId)).toHaveLength(2);
    expect(await balance(shop.walletId)).toBe(350);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(350);
  });

  it('references compare trimmed and without regard to case on both databases; one the engines would compare differently is kept as its hash', async () => {
    const shop = await makeDealer();
    expect((await topUp(shop.walletId, { amount: '1.00', reference: 'Café-77' })).status).toBe(200);
    // MariaDB's collation would take these two for one; SQLite would not: the key decides the same on both.
    expect((await topUp(shop.walletId, { amount: '1.00', reference: 'Cafe-77' })).status).toBe(200);
    expect((await topUp(shop.walletId, { amount: '1.00', reference: ' CAFÉ-77 ' }, 'console-key-cafe-0001')).status).toBe(409);
    const keys = (await credits(shop.walletId)).map((r: { bank_reference_key: string }) => r.bank_reference_key);
    expect(keys).toEqual([bankReferenceKey('café-77'), 'cafe-77']);
    expect(keys[0]).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Other kinds carry no key: an adjustment under the same reference is no credit of the transfer.
    await h.http().post(`/api/v1/wallets/${shop.walletId}/adjust`).set(bearer(root)).send({ type: 'credit', amount: 1, reference: 'cafe-77', note: 'bonus' });
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'adjustment' }).first('bank_reference_key')).toEqual({
      bank_reference_key: null,
    });
  });
});

describe('ten at once', () => {
  it('ten admin top-ups of one transfer under ten keys (case and spaces varying): one credit, nine 409s naming it, no 5xx', async () => {
    const shop = await makeDealer();
    const spellings = ['EVC-TEN-1', 'evc-ten-1', ' Evc-Ten-1', 'EVC-TEN-1 '];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => topUp(shop.walletId, { amount: '8.00', reference: spellings[i % 4] }, `console-ten-key-${i}-0000`)),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const credit = await creditedOnce(shop.walletId, 800);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.errors.reference[0]).toContain(`ledger entry #${credit.id})`);
  });

  it('ten requests of one reference at once: one pending request, nine 409s naming it, no 5xx', async () => {
    const shop = await makeDealer();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(shop, { amount: '2.00', reference: i % 2 ? 'EVC-ASK-10' : 'evc-ask-10 ' })));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const rows = await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId });
    expect(rows).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body.message).toMatch(/^You already asked for a top-up with this bank reference on .* \(2\.00 USD\)/);
    expect((await approve(rows[0].id)).status).toBe(200);
    await creditedOnce(shop.walletId, 200);
  });

  it('approvals and admin top-ups of one transfer racing: exactly one credit, whoever wins, and no 5xx', async () => {
    for (let round = 0; round < 3; round++) {
      const shop = await makeDealer();
      const reference = `EVC-RACE-${round}`;
      const asked = await ask(shop, { amount: '6.00', reference });
      const calls = Array.from({ length: 10 }, (_, i) =>
        i % 2 ? approve(asked.body.data.id) : topUp(shop.walletId, { amount: '6.00', reference: reference.toLowerCase() }, `console-race-${round}-${i}-00`),
      );
      const results = await Promise.all(calls);
      expect(results.filter((r) => r.status >= 500)).toEqual([]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
      const credit = await creditedOnce(shop.walletId, 600);
      const request = await requestRow(asked.body.data.id);
      // An approval won: the request holds the credit. A top-up won: the request is still pending, to be rejected.
      if (request.status === 'approved') expect(Number(request.wallet_transaction_id)).toBe(credit.id);
      else expect(request).toMatchObject({ status: 'pending', wallet_transaction_id: null });
    }
  });

  it('ten old duplicate requests (pending before the rule existed) approved at once: one credit, the others 409 and still pending', async () => {
    const shop = await makeDealer();
    // As the migration leaves old duplicates: the first keeps the pending key, the later ones NULL.
    const now = toDbTime();
    for (let i = 0; i < 10; i++) {
      await h.knex('wallet_top_up_requests').insert({
        wallet_id: shop.walletId,
        dealer_id: shop.id,
        amount: 150,
        reference: i % 2 ? 'EVC-OLD-1' : 'evc-old-1',
        status: 'pending',
        pending_reference_key: i === 0 ? 'evc-old-1' : null,
        created_at: now,
        updated_at: now,
      });
    }
    const ids = (await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId }).orderBy('id').select('id')).map((r: { id: number }) => r.id);
    const results = await Promise.all(ids.map((id: number) => approve(id)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    await creditedOnce(shop.walletId, 150);
    const rows = await h.knex('wallet_top_up_requests').where({ wallet_id: shop.walletId });
    expect(rows.filter((r: { status: string }) => r.status === 'approved')).toHaveLength(1);
    expect(rows.filter((r: { status: string }) => r.status === 'pending')).toHaveLength(9);
  });
});
