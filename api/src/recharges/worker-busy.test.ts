import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit } from './recharge-fixtures.ts';

/**
 * While the process is busy answering people, the worker keeps to `busyConcurrency` sales at a
 * time (purchases first, settlement right after), and when it is not, it goes back to its full
 * concurrency. It never stops settling.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  kit = await moneyKit(h);
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

async function settleWatching(busy: () => boolean, sales: number) {
  const shop = await makeShop(h, root, 'cost', { balance: '20.00' });
  for (let i = 0; i < sales; i++) expect((await buy(h, shop)).status).toBe(201);
  const worker = kit.newWorker({ concurrency: 8, busy, busyConcurrency: 2, pollMs: 10 });
  let most = 0;
  worker.start();
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      const rows: { status: string }[] = await h.knex('recharges').where({ dealer_id: shop.dealerId }).select('status');
      most = Math.max(most, rows.filter((r) => r.status === 'processing').length);
      if (rows.every((r) => r.status !== 'pending' && r.status !== 'processing')) break;
      if (Date.now() > deadline) throw new Error('sales still open');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await worker.stop();
  }
  expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  return most;
}

describe('the recharge worker under load', () => {
  it('settles every sale, at most two at a time while the process is busy', async () => {
    const most = await settleWatching(() => true, 12);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('uses its whole concurrency when the process is not busy', async () => {
    expect(await settleWatching(() => false, 12)).toBeGreaterThan(2);
  });
});
