import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { systemContext, transact } from '../platform/context.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { credit, ledgerSum } from './ledger.ts';

/**
 * Live money on the wallet side: idempotent admin top-ups and adjustments (the Idempotency-Key
 * header, else the bank reference, per wallet), and the money ceilings (one operation, one
 * balance, and the ledger's own safety net), on SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let n = 0;

async function makeDealer() {
  n += 1;
  const code = `MONEY${n}`;
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
const rows = (walletId: number) => h.knex('wallet_transactions').where({ wallet_id: walletId }).orderBy('id');
const topUp = (walletId: number, body: Record<string, unknown>, key?: string) => {
  const req = h.http().post(`/api/v1/wallets/${walletId}/top-up`).set(bearer(root));
  if (key !== undefined) req.set('Idempotency-Key', key);
  return req.send(body);
};
const setLimits = (max_operation: string, max_balance: string) => h.http().put('/api/v1/settings/money').set(bearer(root)).send({ max_operation, max_balance });

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

describe('idempotent top-ups and adjustments', () => {
  it('the same reference twice credits once and answers the first result again, marked as a replay', async () => {
    const shop = await makeDealer();
    const first = await topUp(shop.walletId, { amount: '12.00', reference: 'EVC-5001', note: 'Cash' });
    expect(first.status).toBe(200);
    expect(first.body.data.replayed).toBe(false);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await topUp(shop.walletId, { amount: '12.00', reference: 'EVC-5001', note: 'Cash' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual({ ...first.body, data: { ...first.body.data, replayed: true } });
    expect(again.body.message).toBe('Wallet topped up with 12.00. Balance: 12.00');
    expect(await balance(shop.walletId)).toBe(1200);
    expect(await rows(shop.walletId)).toHaveLength(1);
    expect((await rows(shop.walletId))[0]).toMatchObject({ idempotency_key: 'top_up:ref:evc-5001' });
    expect((await rows(shop.walletId))[0].request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await h.knex('activity_log').where({ action: 'wallet_topped_up', subject_id: shop.walletId })).toHaveLength(1);
    // A bank reference is one payment whatever its case, on both databases.
    const lower = await topUp(shop.walletId, { amount: '12.00', reference: 'evc-5001', note: 'Cash' });
    expect(lower.body.data.replayed).toBe(true);
    expect(await balance(shop.walletId)).toBe(1200);
  });

  it('the same reference with another amount or note is a 409 that writes nothing, in the caller’s language', async () => {
    const shop = await makeDealer();
    await topUp(shop.walletId, { amount: '3.00', reference: 'EVC-6001' });
    const other = await topUp(shop.walletId, { amount: '4.00', reference: 'EVC-6001' });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      success: false,
      code: 'wallets.reference_reused',
      errors_detail: expect.any(Array),
      message:
        'This reference was already used on this wallet for a different request. Use a new reference, or send exactly the same request again to get its result.',
      errors: {
        reference: [
          'This reference was already used on this wallet for a different request. Use a new reference, or send exactly the same request again to get its result.',
        ],
      },
    });
    const note = await h
      .http()
      .post(`/api/v1/wallets/${shop.walletId}/top-up?lng=so`)
      .set(bearer(root))
      .send({ amount: '3.00', reference: 'EVC-6001', note: 'different' });
    expect(note.status).toBe(409);
    expect(note.body.message).toMatch(/^Tixraacan horay/);
    const arabic = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up?lng=ae`).set(bearer(root)).send({ amount: '5.00', reference: 'EVC-6001' });
    expect(arabic.body.message).toMatch(/^هذا المرجع/);
    expect(await balance(shop.walletId)).toBe(300);
    expect(await rows(shop.walletId)).toHaveLength(1);
  });

  it('the Idempotency-Key header, when sent, is the key: any reference under it is the same request or a 422 (idempotency.key_reused), and a bank reference is credited once whatever the key', async () => {
    const shop = await makeDealer();
    const key = '5b0e7f3c-0d1e-4a9b-8c55-2f1c9e7a1d20';
    const first = await topUp(shop.walletId, { amount: 2, reference: 'EVC-7001' }, key);
    const again = await topUp(shop.walletId, { amount: 2, reference: 'EVC-7001' }, key);
    expect(again.status).toBe(200);
    expect(again.body.data.transaction.id).toBe(first.body.data.transaction.id);
    expect(again.body.data.replayed).toBe(true);
    const otherRequest = await topUp(shop.walletId, { amount: 2, reference: 'EVC-7002' }, key);
    expect(otherRequest.status).toBe(422);
    expect(otherRequest.body.code).toBe('idempotency.key_reused');
    expect(otherRequest.body.message).toBe('This Idempotency-Key was already used on this wallet for a different request.');
    // Another key (a dialog opened again, a second admin) with a bank reference already credited: refused, never a second credit.
    const sameTransfer = await topUp(shop.walletId, { amount: 2, reference: 'evc-7001' }, 'another-key-0001');
    expect(sameTransfer.status).toBe(409);
    expect(sameTransfer.body.errors.reference).toEqual([
      expect.stringMatching(
        /^This bank reference was already credited to this wallet on \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(2\.00 USD, ledger entry #\d+\)\. Check the ledger before crediting the same transfer again\.$/,
      ),
    ]);
    // Keys are opaque: case counts, and a long or unusual one is kept as its hash (at most 160 characters).
    expect((await topUp(shop.walletId, { amount: 2, reference: 'EVC-7004' }, key.toUpperCase())).body.data.replayed).toBe(false);
    const long = 'k'.repeat(300);
    const l1 = await topUp(shop.walletId, { amount: 1, reference: 'EVC-7003' }, long);
    const l2 = await topUp(shop.walletId, { amount: 1, reference: 'EVC-7003' }, long);
    expect(l2.body.data).toMatchObject({ replayed: true, transaction: { id: l1.body.data.transaction.id } });
    const stored = (await rows(shop.walletId)).map((r: { idempotency_key: string }) => r.idempotency_key);
    expect(stored.every((k: string) => k.length <= 160 && k.startsWith('top_up:hdr:'))).toBe(true);
    expect(stored[0]).toBe(`top_up:hdr:${key}`);
    expect(stored.filter((k: string) => k.includes('sha256:'))).toHaveLength(2);
    expect(await balance(shop.walletId)).toBe(500);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(500);
  });

  it('adjustments are keyed apart from top-ups, a replayed debit debits once', async () => {
    const shop = await makeDealer();
    await topUp(shop.walletId, { amount: 10, reference: 'SAME-REF' });
    const credit = await h
      .http()
      .post(`/api/v1/wallets/${shop.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'credit', amount: 1, reference: 'SAME-REF', note: 'Bonus' });
    expect(credit.body.data.replayed).toBe(false);
    const debit = () =>
      h.http().post(`/api/v1/wallets/${shop.walletId}/adjust`).set(bearer(root)).send({ type: 'debit', amount: 4, reference: 'FIX-1', note: 'Wrong top-up' });
    const d1 = await debit();
    const d2 = await debit();
    expect(d1.body.message).toBe('Wallet adjusted. Balance: 7.00');
    expect(d2.body).toEqual({ ...d1.body, data: { ...d1.body.data, replayed: true } });
    const asCredit = await h
      .http()
      .post(`/api/v1/wallets/${shop.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'credit', amount: 4, reference: 'FIX-1', note: 'Wrong top-up' });
    expect(asCredit.status).toBe(409);
    expect(await balance(shop.walletId)).toBe(700);
    expect((await rows(shop.walletId)).map((r: { idempotency_key: string }) => r.idempotency_key)).toEqual([
      'top_up:ref:same-ref',
      'adjustment:ref:same-ref',
      'adjustment:ref:fix-1',
    ]);
  });

  it('ten identical requests at once: credited exactly once, ten answers without a 5xx, one log entry', async () => {
    const shop = await makeDealer();
    const results = await Promise.all(Array.from({ length: 10 }, () => topUp(shop.walletId, { amount: '7.25', reference: 'EVC-RACE-1' })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.data.transaction.id)).size).toBe(1);
    expect(results.filter((r) => r.body.data.replayed === false)).toHaveLength(1);
    expect(await balance(shop.walletId)).toBe(725);
    expect(await rows(shop.walletId)).toHaveLength(1);
    expect(await h.knex('activity_log').where({ action: 'wallet_topped_up', subject_id: shop.walletId })).toHaveLength(1);
    // The same with a header key, and for adjustments.
    const keyed = await Promise.all(
      Array.from({ length: 10 }, () =>
        h
          .http()
          .post(`/api/v1/wallets/${shop.walletId}/adjust`)
          .set(bearer(root))
          .set('Idempotency-Key', 'adjust-race-0001')
          .send({ type: 'debit', amount: '0.25', reference: 'ADJ-RACE', note: 'race' }),
      ),
    );
    expect(keyed.filter((r) => r.status >= 500)).toEqual([]);
    expect(keyed.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await balance(shop.walletId)).toBe(700);
    expect(await h.knex('activity_log').where({ action: 'wallet_adjusted', subject_id: shop.walletId })).toHaveLength(1);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(700);
  });

  it('one bank transfer sent at once under ten different keys (ten dialogs, ten admins): credited once, the others a 409, no 5xx', async () => {
    const shop = await makeDealer();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => topUp(shop.walletId, { amount: '3.00', reference: 'EVC-SAME-TRANSFER' }, `dialog-key-${i}-0000`)),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect(await balance(shop.walletId)).toBe(300);
    expect(await rows(shop.walletId)).toHaveLength(1);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(300);
  });

  it('the unique index is the last word: a second ledger row under one key is refused by the database', async () => {
    const shop = await makeDealer();
    const ctx = systemContext({ db: h.knex });
    const entry = { kind: 'top_up' as const, amount: 100, reference: 'X', idempotencyKey: 'top_up:ref:x', requestHash: 'h' };
    await transact(ctx, (tctx) => credit(tctx, shop.walletId, entry));
    const second = await transact(ctx, (tctx) => credit(tctx, shop.walletId, entry)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isUniqueViolation(second)).toBe(true);
    expect(await balance(shop.walletId)).toBe(100);
  });

  it('a dealer top-up request is still credited once when approved (approvals carry no key)', async () => {
    const shop = await makeDealer();
    const asked = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(shop.token)).send({ amount: 9, reference: 'EVC-REQ-1' });
    const approvals = await Promise.all(
      [1, 2, 3, 4].map(() => h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/approve`).set(bearer(root))),
    );
    expect(approvals.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await balance(shop.walletId)).toBe(900);
  });
});

describe('money ceilings', () => {
  it('refuse one operation above max_operation: top-ups, adjustment credits and top-up requests (debits are not capped)', async () => {
    const shop = await makeDealer();
    const big = await topUp(shop.walletId, { amount: '100000.01', reference: 'BIG-1' });
    expect(big.status).toBe(422);
    expect(big.body).toEqual({
      success: false,
      code: 'wallet.amount_above_limit',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { amount: ['The most one operation may move is 100000.00 USD.'] },
    });
    const bigSo = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up?lng=so`).set(bearer(root)).send({ amount: '100000.01', reference: 'BIG-1' });
    expect(bigSo.body.errors.amount).toEqual(['Lacagta ugu badan ee hal hawlgal dhaqaajin karo waa 100000.00 USD.']);
    const bigAe = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up?lng=ae`).set(bearer(root)).send({ amount: '100000.01', reference: 'BIG-1' });
    expect(bigAe.body.errors.amount).toEqual(['أقصى مبلغ يمكن أن تنقله عملية واحدة هو 100000.00 USD.']);
    expect((await topUp(shop.walletId, { amount: '100000.00', reference: 'BIG-2' })).status).toBe(200);
    const adjust = await h
      .http()
      .post(`/api/v1/wallets/${shop.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'credit', amount: '100000.01', reference: 'BIG-3', note: 'x' });
    expect(adjust.body.errors).toEqual({ amount: ['The most one operation may move is 100000.00 USD.'] });
    const request = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(shop.token)).send({ amount: '150000', reference: 'BIG-4' });
    expect(request.status).toBe(422);
    expect(request.body.errors).toEqual({ amount: ['The most one operation may move is 100000.00 USD.'] });
    // The refused attempts wrote nothing, and a refused key can be used again once the request is right.
    expect(await rows(shop.walletId)).toHaveLength(1);
    expect((await topUp(shop.walletId, { amount: '1.00', reference: 'BIG-1' })).status).toBe(200);
  });

  it('refuse a credit that would take the balance above max_balance, and a top-up request approved above it stays pending', async () => {
    expect((await setLimits('50.00', '100.00')).status).toBe(200);
    try {
      const shop = await makeDealer();
      expect((await topUp(shop.walletId, { amount: 50, reference: 'C-1' })).status).toBe(200);
      expect((await topUp(shop.walletId, { amount: 50, reference: 'C-2' })).status).toBe(200);
      const over = await topUp(shop.walletId, { amount: '0.01', reference: 'C-3' });
      expect(over.status).toBe(422);
      expect(over.body.errors).toEqual({ amount: ['This would take the balance above the ceiling of 100.00 USD.'] });
      const overSo = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up?lng=so`).set(bearer(root)).send({ amount: '0.01', reference: 'C-3' });
      expect(overSo.body.errors.amount[0]).toContain('100.00 USD');
      await h.http().post(`/api/v1/wallets/${shop.walletId}/adjust`).set(bearer(root)).send({ type: 'debit', amount: 10, reference: 'C-4', note: 'room' });
      const asked = await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(shop.token)).send({ amount: 20, reference: 'C-5' });
      const approve = await h.http().post(`/api/v1/wallet-top-up-requests/${asked.body.data.id}/approve`).set(bearer(root));
      expect(approve.status).toBe(422);
      expect(approve.body.errors).toEqual({ amount: ['This would take the balance above the ceiling of 100.00 USD.'] });
      expect((await h.knex('wallet_top_up_requests').where({ id: asked.body.data.id }).first()).status).toBe('pending');
      expect(await balance(shop.walletId)).toBe(9000);
      // The sales' money is not an admin operation: a refund or a profit credit passes the company ceiling.
      await transact(systemContext({ db: h.knex }), (tctx) => credit(tctx, shop.walletId, { kind: 'profit_credit', amount: 2000 }));
      expect(await balance(shop.walletId)).toBe(11000);
      expect(await ledgerSum(h.knex, shop.walletId)).toBe(11000);
    } finally {
      await setLimits('100000.00', '10000000.00');
    }
  });

  it('ten credits at once can never pass the balance ceiling together', async () => {
    await setLimits('15.00', '100.00');
    try {
      const shop = await makeDealer();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => topUp(shop.walletId, { amount: 15, reference: `PAR-${i}` })));
      expect(results.filter((r) => r.status >= 500)).toEqual([]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(6);
      expect(results.filter((r) => r.status === 422).map((r) => r.body.errors.amount[0])).toEqual(
        Array(4).fill('This would take the balance above the ceiling of 100.00 USD.'),
      );
      expect(await balance(shop.walletId)).toBe(9000);
      expect(await ledgerSum(h.knex, shop.walletId)).toBe(9000);
      const chain = await rows(shop.walletId);
      for (let i = 1; i < chain.length; i++) expect(Number(chain[i].balance_before)).toBe(Number(chain[i - 1].balance_after));
    } finally {
      await setLimits('100000.00', '10000000.00');
    }
  });

  it('eleven top-ups of 9,999,999,999,999.99 are refused, and the largest allowed figures stay exact', async () => {
    expect((await setLimits('1000000000000.00', '1000000000000.00')).status).toBe(200);
    try {
      const shop = await makeDealer();
      const huge = await Promise.all(Array.from({ length: 11 }, (_, i) => topUp(shop.walletId, { amount: '9999999999999.99', reference: `HUGE-${i}` })));
      expect(huge.map((r) => r.status)).toEqual(Array(11).fill(422));
      expect(huge[0].body.errors).toEqual({ amount: ['The most one operation may move is 1000000000000.00 USD.'] });
      expect(await balance(shop.walletId)).toBe(0);
      expect(await rows(shop.walletId)).toHaveLength(0);
      const top = await topUp(shop.walletId, { amount: '999999999999.99', reference: 'MAX-1' });
      expect(top.body.data.transaction).toMatchObject({ amount: '999999999999.99', balance_before: '0.00', balance_after: '999999999999.99' });
      expect(top.body.data.wallet.balance).toBe('999999999999.99');
      expect((await topUp(shop.walletId, { amount: '0.01', reference: 'MAX-2' })).body.data.wallet.balance).toBe('1000000000000.00');
      const past = await Promise.all(Array.from({ length: 11 }, (_, i) => topUp(shop.walletId, { amount: '0.01', reference: `PAST-${i}` })));
      expect(past.map((r) => r.status)).toEqual(Array(11).fill(422));
      expect(await balance(shop.walletId)).toBe(100_000_000_000_000);
      expect(await ledgerSum(h.knex, shop.walletId)).toBe(100_000_000_000_000);
      const ledger = await h.http().get(`/api/v1/wallet-transactions?wallet_id=${shop.walletId}&order=asc`).set(bearer(root));
      expect(ledger.body.data.map((t: { amount: string; balance_after: string }) => [t.amount, t.balance_after])).toEqual([
        ['999999999999.99', '999999999999.99'],
        ['0.01', '1000000000000.00'],
      ]);
      const debit = await h
        .http()
        .post(`/api/v1/wallets/${shop.walletId}/adjust`)
        .set(bearer(root))
        .send({ type: 'debit', amount: '999999999999.98', reference: 'MAX-3', note: 'back' });
      expect(debit.body.data.transaction).toMatchObject({ balance_before: '1000000000000.00', balance_after: '0.02' });
    } finally {
      await setLimits('100000.00', '10000000.00');
    }
  });

  it('the ledger itself refuses any amount or balance above MAX_MONEY_LIMIT, whatever the caller', async () => {
    const shop = await makeDealer();
    const ctx = systemContext({ db: h.knex });
    const tooMuch = await transact(ctx, (tctx) => credit(tctx, shop.walletId, { kind: 'recharge_refund', amount: 100_000_000_000_001 })).then(
      () => null,
      (err: unknown) => err,
    );
    expect(tooMuch).toMatchObject({ status: 422, errors: { amount: ['validation:amount_above_operation_limit'] } });
    await h.knex('wallets').where({ id: shop.walletId }).update({ balance: 100_000_000_000_000 });
    const past = await transact(ctx, (tctx) => credit(tctx, shop.walletId, { kind: 'profit_credit', amount: 1 })).then(
      () => null,
      (err: unknown) => err,
    );
    expect(past).toMatchObject({ status: 422, errors: { amount: ['validation:balance_above_ceiling'] } });
    expect(await balance(shop.walletId)).toBe(100_000_000_000_000);
  });
});
