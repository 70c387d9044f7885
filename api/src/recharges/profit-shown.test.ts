import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { encodeId } from '../http/ids.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * A sale earns its profit only when delivered and kept (issue 28): the console's list, a sale's
 * page and the CSV show 0.00 for a failed or refunded one, so summing the CSV's profit column gives
 * what was earned. On SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let cost: Shop;
let profit: Shop;
const money: RechargeMoney = {};
const sales: Record<'completed' | 'not_delivered' | 'declined' | 'refunded_by_hand', number> = {
  completed: 0,
  not_delivered: 0,
  declined: 0,
  refunded_by_hand: 0,
};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  cost = await makeShop(h, root, 'cost', { balance: '5' });
  profit = await makeShop(h, root, 'profit');
  sales.completed = (await buy(h, cost)).body.data.id;
  // The operator refuses a number ending in 9999: the dealer's debit comes back (refunded).
  sales.not_delivered = (await buy(h, cost, { phone: '0615559999' })).body.data.id;
  // A payer ending in 0000 declines: a Profit Only sale simply fails.
  sales.declined = (await buy(h, profit, { payer_phone: '0617770000' })).body.data.id;
  sales.refunded_by_hand = (await buy(h, cost)).body.data.id;
  await kit.worker.drain();
  const undone = await h.http().post(`/api/v1/recharges/${sales.refunded_by_hand}/refund`).set(bearer(root)).send({ reason: 'Customer complaint' });
  expect(undone.status).toBe(200);
  await kit.worker.drain();
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first('status', 'profit');

describe('profit of a sale that was not delivered and kept', () => {
  it('the sales are what the test needs: one completed, the others failed or refunded with a profit on their rows', async () => {
    expect(await row(sales.completed)).toMatchObject({ status: 'completed' });
    // Not delivered, its reserve let go: nothing taken, so Failed.
    expect(await row(sales.not_delivered)).toMatchObject({ status: 'failed' });
    expect(await row(sales.declined)).toMatchObject({ status: 'failed' });
    expect(await row(sales.refunded_by_hand)).toMatchObject({ status: 'refunded' });
    for (const id of [sales.completed, sales.not_delivered, sales.declined, sales.refunded_by_hand]) expect(Number((await row(id)).profit)).toBeGreaterThan(0);
  });

  it('is 0.00 in the list and on the sale’s page; a completed sale shows its profit', async () => {
    const listed = async (shop: Shop) =>
      (
        await h
          .http()
          .get(`/api/v1/recharges?dealer_id=${encodeId(shop.dealerId)}&per_page=50`)
          .set(bearer(root))
      ).body.data as {
        id: number;
        profit: string;
      }[];
    const all = [...(await listed(cost)), ...(await listed(profit))];
    const profitOf = (id: number) => all.find((r) => r.id === id)!.profit;
    expect(profitOf(sales.completed)).toBe('0.15');
    expect(profitOf(sales.not_delivered)).toBe('0.00');
    expect(profitOf(sales.declined)).toBe('0.00');
    expect(profitOf(sales.refunded_by_hand)).toBe('0.00');

    const page = async (id: number) => (await h.http().get(`/api/v1/recharges/${id}`).set(bearer(root))).body.data.recharge as { profit: string; cost: string };
    expect(await page(sales.completed)).toMatchObject({ profit: '0.15', cost: '0.40' });
    // The cost stays: only the profit was not earned.
    expect(await page(sales.not_delivered)).toMatchObject({ profit: '0.00', cost: '0.40' });
    expect((await page(sales.declined)).profit).toBe('0.00');
    expect((await page(sales.refunded_by_hand)).profit).toBe('0.00');
  });

  it('is 0.00 in the CSV, so its profit column sums to what was earned', async () => {
    const csv = await h
      .http()
      .get(`/api/v1/recharges/export?dealer_id=${encodeId(cost.dealerId)}`)
      .set(bearer(root));
    expect(csv.status).toBe(200);
    const [header, ...lines] = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    const columns = header.split(',');
    const at = (name: string) => columns.indexOf(name);
    const byId = new Map(lines.map((l) => l.split(',')).map((c) => [Number(c[at('ID')]), c]));
    expect(byId.get(sales.completed)![at('Profit')]).toBe('0.15');
    expect(byId.get(sales.not_delivered)![at('Profit')]).toBe('0.00');
    expect(byId.get(sales.refunded_by_hand)![at('Profit')]).toBe('0.00');
    expect([...byId.values()].reduce((sum, c) => sum + Number(c[at('Profit')]), 0)).toBeCloseTo(0.15);

    const failed = await h
      .http()
      .get(`/api/v1/recharges/export?dealer_id=${encodeId(profit.dealerId)}`)
      .set(bearer(root));
    const failedLines = failed.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .slice(1);
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0].split(',')[at('Profit')]).toBe('0.00');
  });
});
