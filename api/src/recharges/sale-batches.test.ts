import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { debitMany, ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit } from './recharge-fixtures.ts';
import { saleGroupStats } from './recharge.service.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * Sales written in groups (sale-batches.ts on MySQL/MariaDB; write-batches.ts on SQLite): whatever
 * the grouping, each sale has its recharge, its log line and exactly one debit, the ledger rows
 * chain balance_before -> balance_after in id order, a wallet that cannot pay a whole group still
 * sells exactly what it can pay, and a repeated key makes one sale.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
const money: RechargeMoney = {};
const mysql = () => h.knex.client.config.client === 'mysql2';

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

/** The wallet's ledger in the order it was written: each row starts where the one before ended. */
async function expectChained(walletId: number) {
  const rows: { balance_before: number; balance_after: number; amount: number; type: string }[] = await h
    .knex('wallet_transactions')
    .where({ wallet_id: walletId })
    .orderBy('id');
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    expect(Number(r.balance_after)).toBe(Number(r.balance_before) + (r.type === 'credit' ? 1 : -1) * Number(r.amount));
    if (i > 0) expect(Number(r.balance_before)).toBe(Number(rows[i - 1].balance_after));
  }
  expect(Number(rows.at(-1)!.balance_after)).toBe(await walletBalance(h, walletId));
  expect(await ledgerSum(h.knex, walletId)).toBe(await walletBalance(h, walletId));
}

describe('sales written in groups', () => {
  it('sixty sales at once: one recharge, one log line and one debit each, the ledger chained and exact', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '100.00' });
    const before = saleGroupStats();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => buy(h, shop, { idempotency_key: `group-${String(i).padStart(4, '0')}` })));
    expect(answers.map((a) => a.status)).toEqual(Array(60).fill(201));
    const ids = answers.map((a) => a.body.data.id as number);
    expect(new Set(ids).size).toBe(60);
    const recharges = await h.knex('recharges').where({ dealer_id: shop.dealerId }).select('id', 'reference');
    expect(recharges).toHaveLength(60);
    // Each answer names its own row (the references the customers were given are theirs).
    const byId = new Map(recharges.map((r: { id: number; reference: string }) => [Number(r.id), r.reference]));
    for (const a of answers) expect(byId.get(Number(a.body.data.id))).toBe(a.body.data.reference);
    const logged = await h
      .knex('activity_log')
      .where({ action: 'recharge_created', subject_type: 'recharge' })
      .whereIn('subject_id', [...byId.keys()]);
    expect(logged).toHaveLength(60);
    const debits = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' });
    expect(debits).toHaveLength(60);
    expect(new Set(debits.map((d: { recharge_id: number }) => Number(d.recharge_id)))).toEqual(new Set(byId.keys()));
    for (const d of debits) expect(d.reference).toBe(byId.get(Number(d.recharge_id)));
    expect(await walletBalance(h, shop.walletId)).toBe(10000 - 60 * 40);
    await expectChained(shop.walletId);
    if (mysql()) {
      // They really were grouped: fewer groups than sales.
      const after = saleGroupStats();
      expect(after.sales - before.sales).toBe(60);
      expect(after.groups - before.groups).toBeLessThan(60);
    }
  });

  it('a wallet that pays 12 of 40 sales at once sells exactly 12; the rest are refused, kept as missed sales, nothing else written', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '4.80' });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => buy(h, shop, { idempotency_key: `short-${String(i).padStart(4, '0')}` })));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(12);
    const refused = answers.filter((a) => a.status === 422);
    expect(refused).toHaveLength(28);
    for (const r of refused) expect(r.body.errors.bundle_id).toBeDefined();
    expect(await h.knex('recharges').where({ dealer_id: shop.dealerId })).toHaveLength(12);
    expect(await h.knex('missed_sales').where({ dealer_id: shop.dealerId })).toHaveLength(28);
    expect(await walletBalance(h, shop.walletId)).toBe(0);
    await expectChained(shop.walletId);
  });

  it('one key sent 20 times among 20 other sales: one sale for it, every copy answered with it, one debit each', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '100.00' });
    const before = saleGroupStats();
    const same = Array.from({ length: 20 }, () => buy(h, shop, { idempotency_key: 'group-same-0001' }));
    const others = Array.from({ length: 20 }, (_, i) => buy(h, shop, { idempotency_key: `group-other-${String(i).padStart(4, '0')}` }));
    const answers = await Promise.all([...same, ...others]);
    expect(answers.filter((a) => a.status >= 300)).toEqual([]);
    const copies = answers.slice(0, 20);
    expect(new Set(copies.map((a) => a.body.data.id)).size).toBe(1);
    expect(copies.filter((a) => a.status === 201)).toHaveLength(1);
    expect(await h.knex('recharges').where({ dealer_id: shop.dealerId })).toHaveLength(21);
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' })).toHaveLength(21);
    await expectChained(shop.walletId);
    // Only copies went alone: the 20 other sales were still written in groups. (The key's own sale
    // is grouped too, unless a copy sent alone after a refused group wrote it first: both are right.)
    if (mysql()) expect(saleGroupStats().sales - before.sales).toBeGreaterThanOrEqual(20);
  });

  it('a key used by an earlier sale sent again among new ones: it answers the earlier sale, the new ones are grouped', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '100.00' });
    const first = await buy(h, shop, { idempotency_key: 'group-retry-0001' });
    const before = saleGroupStats();
    const answers = await Promise.all([
      ...Array.from({ length: 15 }, (_, i) => buy(h, shop, { idempotency_key: `group-new-${String(i).padStart(4, '0')}` })),
      buy(h, shop, { idempotency_key: 'group-retry-0001' }),
    ]);
    expect(answers.slice(0, 15).map((a) => a.status)).toEqual(Array(15).fill(201));
    expect([answers[15].status, answers[15].body.data.id]).toEqual([200, first.body.data.id]);
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' })).toHaveLength(16);
    await expectChained(shop.walletId);
    if (mysql()) expect(saleGroupStats().sales - before.sales).toBe(15);
  });
});

describe('debitMany', () => {
  it('chains its rows in the given order, or writes nothing when the wallet cannot pay them all', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1.00' });
    const debits = [30, 25, 45].map((amount, i) => ({ kind: 'recharge_debit' as const, amount, reference: `DM${i}`, rechargeId: null, actorId: null }));
    const refused = await h.knex.transaction((trx) => debitMany(trx, shop.walletId, [...debits, { ...debits[0], amount: 1 }]));
    expect(refused).toBeNull();
    expect(await walletBalance(h, shop.walletId)).toBe(100);
    const posted = await h.knex.transaction((trx) => debitMany(trx, shop.walletId, debits));
    expect(posted).toEqual({ balanceAfter: 0, lowBalanceDue: false });
    const rows = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' }).orderBy('id');
    expect(
      rows.map((r: { reference: string; balance_before: number; balance_after: number }) => [r.reference, Number(r.balance_before), Number(r.balance_after)]),
    ).toEqual([
      ['DM0', 100, 70],
      ['DM1', 70, 45],
      ['DM2', 45, 0],
    ]);
    await expectChained(shop.walletId);
  });

  it('says when the low-balance alert is due: below the threshold and not yet told', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '1.00' });
    await h.knex('wallets').where({ id: shop.walletId }).update({ low_balance_threshold: 50 });
    const one = (amount: number) => [{ kind: 'recharge_debit' as const, amount, reference: null, rechargeId: null, actorId: null }];
    expect(await h.knex.transaction((trx) => debitMany(trx, shop.walletId, one(40)))).toEqual({ balanceAfter: 60, lowBalanceDue: false });
    expect(await h.knex.transaction((trx) => debitMany(trx, shop.walletId, one(20)))).toEqual({ balanceAfter: 40, lowBalanceDue: true });
    await h.knex('wallets').where({ id: shop.walletId }).update({ low_balance_notified_at: h.knex.fn.now() });
    expect(await h.knex.transaction((trx) => debitMany(trx, shop.walletId, one(10)))).toEqual({ balanceAfter: 30, lowBalanceDue: false });
  });
});
