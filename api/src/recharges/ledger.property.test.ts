import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit } from './recharge-fixtures.ts';
import type { RechargeWorker } from './recharge-worker.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * A property of the money code: whatever sequence of top-ups, adjustments, recharges (succeeding,
 * declined by the payer, failing at the operator, their answers lost) and manual refunds happens, after every step the
 * balance equals the sum of the ledger and is never negative, and every recharge of a "Cost +
 * Profit" dealer has its debit, or its debit and exactly one refund (every sale not delivered and kept).
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

type Step =
  | { op: 'topUp'; cents: number }
  | { op: 'adjust'; type: 'credit' | 'debit'; cents: number }
  | { op: 'recharge'; outcome: 'ok' | 'declined' | 'rejected' }
  | { op: 'settle' }
  | { op: 'refundByHand' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('topUp' as const), cents: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ op: fc.constant('adjust' as const), type: fc.constantFrom('credit' as const, 'debit' as const), cents: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ op: fc.constant('recharge' as const), outcome: fc.constantFrom('ok' as const, 'declined' as const, 'rejected' as const) }),
  fc.constant({ op: 'settle' as const }),
  fc.constant({ op: 'refundByHand' as const }),
);

describe('the ledger under random sequences', () => {
  it('keeps balance = sum of ledger >= 0, and each recharge has its debit or debit + one refund', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const shop = await makeShop(h, root, 'cost');
        for (const [i, s] of steps.entries()) {
          if (s.op === 'topUp')
            await h
              .http()
              .post(`/api/v1/wallets/${shop.walletId}/top-up`)
              .set(bearer(root))
              .send({ amount: s.cents / 100, reference: `prop-${i}` });
          if (s.op === 'adjust')
            await h
              .http()
              .post(`/api/v1/wallets/${shop.walletId}/adjust`)
              .set(bearer(root))
              .send({ type: s.type, amount: s.cents / 100, reference: `prop-${i}`, note: 'property' });
          if (s.op === 'recharge') {
            // 8888: delivered, but the answer to the send is lost (looked up, never sent twice).
            const phone = s.outcome === 'rejected' ? '0615559999' : i % 2 ? '0615558888' : '0615123456';
            const payer = s.outcome === 'declined' ? '0617770000' : '0617000021';
            const res = await buy(h, shop, { phone, payer_phone: payer });
            expect([201, 422]).toContain(res.status);
          }
          if (s.op === 'settle') await worker.drain();
          if (s.op === 'refundByHand') {
            // Whatever sale it is, a manual refund refunds what is left or answers 409: never twice.
            const row = await h.knex('recharges').where({ dealer_id: shop.dealerId }).orderBy('id', 'desc').first('id');
            if (row) expect([200, 409]).toContain((await h.http().post(`/api/v1/recharges/${row.id}/refund`).set(bearer(root))).status);
          }
          const balance = await walletBalance(h, shop.walletId);
          expect(balance).toBeGreaterThanOrEqual(0);
          expect(await ledgerSum(h.knex, shop.walletId)).toBe(balance);
        }
        await worker.drain();
        const recharges = await h.knex('recharges').where({ dealer_id: shop.dealerId });
        for (const r of recharges) {
          const kinds = (await h.knex('wallet_transactions').where({ recharge_id: r.id }).orderBy('id')).map((t: { kind: string }) => t.kind);
          // Every sale that did not end delivered and kept has its debit back, once: refunded (the
          // customer's money came back too) or failed (nothing was taken from the customer).
          expect(kinds).toEqual(r.status === 'completed' ? ['recharge_debit'] : ['recharge_debit', 'recharge_refund']);
          expect(['completed', 'refunded', 'failed']).toContain(r.status);
        }
        expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
      }),
      { numRuns: 15, endOnFailure: true },
    );
  });
});
