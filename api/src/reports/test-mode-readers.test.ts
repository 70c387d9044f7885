import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinor } from '@app/contracts';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { DAY_TOTALS, rebuildDayTotals } from '../../../db/migrations/20261125A-recharge-day-totals.ts';
import { makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import type { RoutingDeps } from '../routing/routing.routes.ts';
import { systemContext } from '../platform/context.ts';
import { startOfZonedDay, toDbTime, zonedDay, zoneOffsetMinutes } from '../database/time.ts';
import { detectCorrections } from '../daily-close/daily-close.service.ts';
import { salesReport } from './reports.service.ts';

/**
 * Test mode and live money: a dealer sells once with its live key and three times with its test
 * key (two delivered, one refused and refunded to the test wallet), all settled by the real worker
 * against the stand-ins. Every reader of live money (the sales report by both of its paths, the day
 * totals after the triggers and after a rebuild, the dashboard, the margins, the daily close, the
 * aggregators' spend and the console search) sees the live sale only; the test sales are there, on
 * the recharges page's test list.
 */
const TZ = 'Africa/Mogadishu';
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;
const money: RechargeMoney = {};
const routing: RoutingDeps = {};
interface Sale {
  id: number;
  reference: string;
  mode: string;
  status: string;
  operator_adapter: string | null;
  amount: number;
  cost: number;
  profit: number;
  aggregator_cost: number | null;
}
let liveSale: Sale;
let testSales: Sale[];
const PHONE = '0615123456';
const today = () => zonedDay(new Date(), TZ);

async function makeKey(mode: 'live' | 'test') {
  const res = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: `POS ${mode}`, scopes: ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read'], ...(mode === 'test' ? { mode } : {}) });
  expect(res.status).toBe(201);
  const key = res.body.data.key as string;
  expect(key.startsWith('rk_test_')).toBe(mode === 'test');
  return key;
}

let sold = 0;
async function sell(key: string, phone = PHONE) {
  sold += 1;
  const res = await h
    .http()
    .post('/api/reseller/v1/recharges')
    .set('Authorization', `Bearer ${key}`)
    .set('Idempotency-Key', `test-mode-readers-${sold}`)
    .send({ bundle_id: shop.bundleId, phone, payment: 'wallet' });
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

const api = (path: string, token = root) => h.http().get(`/api/v1${path}`).set(bearer(token));
const row = async (id: number): Promise<Sale> => h.knex('recharges').where({ id }).first();

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money, routing, env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  routing.operators = kit.operators;
  routing.gateways = kit.gateways;
  shop = await makeShop(h, root, 'cost', { balance: '10' });
  const liveKey = await makeKey('live');
  const testKey = await makeKey('test');
  const liveId = await sell(liveKey);
  // Two delivered, one the stand-in refuses (refunded to the test wallet).
  const testIds = [await sell(testKey), await sell(testKey), await sell(testKey, '0615129999')];
  await kit.worker.drain();
  liveSale = await row(liveId);
  testSales = await Promise.all(testIds.map(row));
});
afterAll(async () => {
  await kit?.close();
  await h?.close();
});

describe('the sales themselves', () => {
  it('are settled: the live one completed from the live wallet, the test ones through the sandbox from the test wallet', async () => {
    expect(liveSale).toMatchObject({ mode: 'live', status: 'completed', amount: 55 });
    expect(testSales.map((s) => [s.mode, s.status, s.operator_adapter])).toEqual([
      ['test', 'completed', 'sandbox'],
      ['test', 'completed', 'sandbox'],
      ['test', 'refunded', 'sandbox'],
    ]);
    // The test wallet paid them: the live wallet only the live sale's cost.
    expect(Number((await h.knex('wallets').where({ id: shop.walletId }).first()).balance)).toBe(1000 - 40);
    const testWallet = await h.knex('wallets').where({ dealer_id: shop.dealerId, mode: 'test' }).first();
    expect(Number(testWallet.balance)).toBe(100_000 - 2 * 40);
  });

  it('GET /recharges lists the live sale by default and the test ones with ?mode=test', async () => {
    const live = await api('/recharges', shop.token);
    expect(live.status).toBe(200);
    expect(live.body.data.map((r: { id: number }) => r.id)).toEqual([liveSale.id]);
    const test = await api('/recharges?mode=test', shop.token);
    expect(test.status).toBe(200);
    expect(test.body.data.map((r: { id: number }) => r.id).sort()).toEqual(testSales.map((s) => s.id).sort());
    expect(test.body.data.every((r: { mode: string }) => r.mode === 'test')).toBe(true);
  });
});

describe('the report totals (recharge_day_totals)', () => {
  const totals = () =>
    h
      .knex(DAY_TOTALS)
      .where({ dealer_id: shop.dealerId })
      .groupBy('status')
      .orderBy('status')
      .select('status', h.knex.raw('SUM(sales) as sales'), h.knex.raw('SUM(amount) as amount'), h.knex.raw('SUM(cost) as cost'));
  const liveOnly = [{ status: 'completed', sales: 1, amount: 55, cost: 40 }];
  const asNumbers = (rows: Record<string, unknown>[]) =>
    rows.map((r) => ({ status: r.status, sales: Number(r.sales), amount: Number(r.amount), cost: Number(r.cost) }));

  it('hold the live sale only once the test sales settled (the triggers)', async () => {
    expect(asNumbers(await totals())).toEqual(liveOnly);
  });

  it('and after a rebuild from the recharges', async () => {
    expect(await rebuildDayTotals(h.knex, zoneOffsetMinutes(new Date(), TZ), { force: true })).toBe(true);
    expect(asNumbers(await totals())).toEqual(liveOnly);
  });
});

describe('the sales report', () => {
  const expected = { count: 1, revenue: '0.55', cost: '0.40', profit: '0.15' };

  it('from the totals and the in-flight sales (status=all), over HTTP, counts the live sale only', async () => {
    for (const group of ['day', 'dealer', 'provider', 'bundle']) {
      for (const status of ['', '&status=all', '&status=refunded', '&status=completed']) {
        const res = await api(`/reports/sales?from=${today()}&to=${today()}&group_by=${group}${status}`);
        expect(res.status).toBe(200);
        expect(res.body.data.totals).toEqual(status === '&status=refunded' ? { count: 0, revenue: '0.00', cost: '0.00', profit: '0.00' } : expected);
      }
    }
    // The in-flight path alone reads `recharges`: a test sale still pending is not counted either.
    await h.knex('recharges').where({ id: testSales[0].id }).update({ status: 'pending' });
    try {
      const res = await api(`/reports/sales?from=${today()}&to=${today()}&group_by=day&status=pending`);
      expect(res.body.data.totals.count).toBe(0);
      expect((await api(`/reports/sales?from=${today()}&to=${today()}&group_by=day&status=all`)).body.data.totals).toEqual(expected);
    } finally {
      await h.knex('recharges').where({ id: testSales[0].id }).update({ status: 'completed' });
    }
  });

  it('counted in the recharges (the live count) answers the same', async () => {
    const ctx = systemContext({ db: h.knex });
    for (const status of [undefined, 'all', 'refunded']) {
      const f = { from: today(), to: today(), group_by: 'day' as const, status };
      const live = await salesReport(ctx, f, TZ, { live: true });
      expect(live.totals).toEqual(status === 'refunded' ? { count: 0, revenue: '0.00', cost: '0.00', profit: '0.00' } : expected);
      expect(await salesReport(ctx, f, TZ)).toEqual(live);
    }
  });

  it('the dealer profit report too', async () => {
    const res = await api(`/reports/dealer-profit?from=${today()}&to=${today()}&dealer_id=${shop.dealerId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.totals).toEqual(expected);
  });
});

describe('the dashboard', () => {
  it("shows the live sale only: today's and the month's figures, the failed count, the latest sales, the live wallet", async () => {
    for (const token of [root, shop.token]) {
      const res = await api('/dashboard', token);
      expect(res.status).toBe(200);
      const d = res.body.data;
      expect(d.today).toMatchObject({ count: 1, revenue: '0.55', profit: '0.15', pending: 0, failed: 0, success_rate: 100 });
      expect(d.month).toMatchObject({ count: 1, revenue: '0.55', failed: 0 });
      expect(d.days.find((x: { date: string }) => x.date === today())).toEqual({ date: today(), count: 1, revenue: '0.55', profit: '0.15' });
      expect(d.latest.map((r: { id: number }) => r.id)).toEqual([liveSale.id]);
      expect(d.top_bundles).toEqual([expect.objectContaining({ count: 1, revenue: '0.55' })]);
      // The live wallet alone (the root's total is every dealer's live wallet: this harness has one dealer).
      expect(d.wallet_balance).toBe('9.60');
    }
    const staff = (await api('/dashboard')).body.data;
    expect(staff.top_dealers).toEqual([expect.objectContaining({ id: shop.dealerId, count: 1, revenue: '0.55' })]);
    expect(staff.margin.last_30_days.list_profit).toBe('0.15');
  });
});

describe('the margins report', () => {
  it('counts the live sale only, in every grouping', async () => {
    for (const group of ['day', 'dealer', 'provider', 'route']) {
      const res = await api(`/reports/margins?from=${today()}&to=${today()}&group_by=${group}`);
      expect(res.status).toBe(200);
      expect(res.body.data.totals).toMatchObject({ count: 1, revenue: '0.55', list_profit: '0.15' });
      expect(res.body.data.rows).toHaveLength(1);
      if (group === 'route') expect(res.body.data.rows[0].key).toBe(liveSale.operator_adapter);
    }
  });
});

describe('the console search', () => {
  it('finds the live sale by phone and never a test sale, by phone or reference', async () => {
    const byPhone = await api(`/search?q=${PHONE}`);
    expect(byPhone.status).toBe(200);
    expect(byPhone.body.data.recharges.map((r: { id: number }) => r.id)).toEqual([liveSale.id]);
    expect((await api(`/search?q=${PHONE}`, shop.token)).body.data.recharges.map((r: { id: number }) => r.id)).toEqual([liveSale.id]);
    expect((await api(`/search?q=${liveSale.reference}`)).body.data.recharges.map((r: { id: number }) => r.id)).toEqual([liveSale.id]);
    expect((await api(`/search?q=${testSales[0].reference}`)).body.data.recharges).toEqual([]);
  });
});

describe('the daily close of the day', () => {
  it("compares the live sale only: the sandbox's records of the test sales are no difference and are not counted", async () => {
    const refreshed = await h.http().post(`/api/v1/daily-close/${today()}/refresh`).set(bearer(root));
    expect(refreshed.status).toBe(200);
    const d = refreshed.body.data;
    expect(d.differences).toEqual([]);
    expect(d.totals.sales).toMatchObject({ count: 1, amount: '0.55', cost: '0.40', profit: '0.15' });
    expect(d.totals.by_status).toEqual({ completed: 1, failed: 0, refunded: 0, needs_review: 0, in_flight: 0 });
    // Every aggregator record counted is the live sale's (the sandbox also holds the three test top-ups).
    const aggregators = d.totals.vendors.filter((v: { kind: string }) => v.kind === 'aggregator');
    expect(aggregators.reduce((n: number, v: { records: number }) => n + v.records, 0)).toBe(1);
    expect(aggregators.find((v: { vendor: string }) => v.vendor === liveSale.operator_adapter)).toMatchObject({ records: 1, matched: 1 });
    // The live wallets' ledger: the 10.00 top-up and the live sale's 0.40; never the test wallet's 1,000.00, debits or refund.
    expect(d.totals.ledger).toEqual({ credits: '10.00', debits: '0.40', net: '9.60' });
  });

  it('the list of days and the CSV of the day hold the live sale only', async () => {
    const list = await api('/daily-close');
    expect(list.status).toBe(200);
    expect(list.body.data.find((x: { date: string }) => x.date === today())).toMatchObject({ sales_count: 1, amount: '0.55' });
    const csv = await api(`/daily-close/${today()}/export?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(liveSale.reference);
    for (const s of testSales) expect(csv.text).not.toContain(s.reference);
  });

  it('closes with the live sale frozen, and a later change of a test sale is no correction (a live one is)', async () => {
    const closed = await h.http().post(`/api/v1/daily-close/${today()}/close`).set(bearer(root));
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', totals: { sales: { count: 1, amount: '0.55' } } });
    const frozen = JSON.parse((await h.knex('daily_closes').where({ day: today() }).first()).snapshot);
    expect(Object.keys(frozen)).toEqual([String(liveSale.id)]);
    const later = toDbTime(new Date(Date.now() + 1000));
    await h.knex('recharges').where({ id: testSales[0].id }).update({ status: 'refunded', updated_at: later });
    await h.knex('recharges').where({ id: liveSale.id }).update({ profit: 16, updated_at: later });
    try {
      await detectCorrections(systemContext({ db: h.knex }));
      const found = await h.knex('daily_close_corrections').where({ closed_day: today() });
      expect(found.map((c: { recharge_id: number; profit: number | string }) => [Number(c.recharge_id), Number(c.profit)])).toEqual([[liveSale.id, 1]]);
    } finally {
      await h.knex('recharges').where({ id: testSales[0].id }).update({ status: 'completed' });
      await h.knex('recharges').where({ id: liveSale.id }).update({ profit: liveSale.profit });
    }
  });

  it('an adjustment from the close is refused on a test wallet', async () => {
    const diffDay = today();
    const testWallet = await h.knex('wallets').where({ dealer_id: shop.dealerId, mode: 'test' }).first('id');
    // The day is closed with no difference: one is planted to act on (an operator record we never made).
    const [id] = await h.knex('daily_close_differences').insert({
      day: diffDay,
      kind: 'only_theirs',
      source: 'aggregator',
      vendor: 'sandbox',
      reference: '~planted',
      evidence: '{}',
      handled: false,
      created_at: toDbTime(),
      updated_at: toDbTime(),
    });
    const diffId = Number(id) || (await h.knex('daily_close_differences').where({ reference: '~planted' }).first('id')).id;
    const res = await h
      .http()
      .post(`/api/v1/daily-close/${diffDay}/differences/${diffId}/resolve`)
      .set(bearer(root))
      .send({ action: 'adjust', note: 'wrong wallet', wallet_id: testWallet.id, type: 'credit', amount: '1.00' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['wallet_id']);
    // The dealer's live wallet is taken.
    const taken = await h
      .http()
      .post(`/api/v1/daily-close/${diffDay}/differences/${diffId}/resolve`)
      .set(bearer(root))
      .send({ action: 'adjust', note: 'the right wallet', wallet_id: shop.walletId, type: 'credit', amount: '1.00' });
    expect(taken.status).toBe(200);
    expect(taken.body.data).toMatchObject({ handled: true });
  });
});

describe("the aggregators' spend", () => {
  it('is the live sales delivered through each, never the test sales through the sandbox', async () => {
    // Moved to yesterday noon: the forecast averages the last 7 full company days.
    const yesterdayNoon = new Date(startOfZonedDay(today(), TZ).getTime() - 12 * 3_600_000);
    await h
      .knex('recharges')
      .whereIn('id', [liveSale.id, ...testSales.map((s) => s.id)])
      .update({ created_at: toDbTime(yesterdayNoon) });
    const res = await api('/aggregators');
    expect(res.status).toBe(200);
    const live = await row(liveSale.id);
    const spent = Number(live.aggregator_cost ?? live.cost);
    const floats = res.body.data as { name: string; daily_spend: string | null }[];
    expect(floats.find((f) => f.name === live.operator_adapter)?.daily_spend).toBe(formatMinor(Math.round(spent / 7)));
    // The test sales went through the sandbox: unless the live one did too, it spent nothing there.
    if (live.operator_adapter !== 'sandbox') expect(floats.find((f) => f.name === 'sandbox')?.daily_spend ?? null).toBeNull();
  });
});
