import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../../../tests/api/harness.ts';
import { ledgerSum } from '../../../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../../../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../../../recharges/recharge.routes.ts';

/**
 * Whole sales against the WaafiPay stand-in answering as the real gateway does where it differs
 * from the stand-in's own codes (dialect 'real': not found is 5213/E10206 RCS_TRAN_NOT_FOUND, a
 * decline a "Payment Failed (...)" text). Read through the answer table (waafipay-answers.ts), a
 * charge lost to a 503 or a reset fails as never made, instead of waiting for a person.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money, waafipayDialect: 'real' });
  shop = await makeShop(h, root, 'cost', { balance: '20' });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
const operations = async (id: number) =>
  (await h.knex('remote_calls').where({ recharge_id: id }).orderBy('id')).map((c: { operation: string; outcome: string }) => `${c.operation}:${c.outcome}`);

describe("the real gateway's answers", () => {
  it.each([
    ['0002', 'a 503 (not processed)'],
    ['0003', 'a reset before processing'],
  ])('%s: a charge lost to %s fails as never made: nothing taken, the debit returned, no review', async (suffix) => {
    const sale = await buy(h, shop, { payer_phone: `061777${suffix}` });
    expect(sale.status).toBe(201);
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'failed', payment_state: 'absent', delivery_state: 'none' });
    expect(kit.standIns.waafipay.byReference(r.reference)).toBeUndefined();
    const ops = await operations(r.id);
    expect(ops.filter((o) => o.startsWith('API_PREAUTHORIZE:'))).toEqual(['API_PREAUTHORIZE:unknown']);
    // Every lookup was answered RCS_TRAN_NOT_FOUND 5213/E10206, read as "not found" (a refusal in the trail).
    expect(ops.filter((o) => o.startsWith('HPP_GETTRANINFO'))).not.toHaveLength(0);
    expect(new Set(ops.filter((o) => o.startsWith('HPP_GETTRANINFO')))).toEqual(new Set(['HPP_GETTRANINFO:refused']));
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });

  it('0000: a decline in Somali text ("Payment Failed (Haraaga ...)") fails the sale at once, nothing taken', async () => {
    const sale = await buy(h, shop, { payer_phone: '0617770000' });
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'failed', payment_state: 'declined', delivery_state: 'none' });
    expect(await operations(r.id)).toEqual(['API_PREAUTHORIZE:refused']);
  });

  it('an ordinary payer: approved, delivered, committed', async () => {
    const sale = await buy(h, shop);
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', payment_state: 'collected' });
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
  });
});
