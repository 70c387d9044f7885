import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';

/**
 * What the vendors said a sale cost, kept per sale, and the real margin from it (issue 26), on
 * SQLite and MariaDB: sales through the stand-ins record the gateway's amount and charges and the
 * aggregator's cost, discount, fee and delivered amount; the recharge answer shows the margin to
 * staff who may see it and never to a dealer; GET /reports/margins over a hand-computed fixture,
 * grouped four ways, as CSV, refusing dealers, counting a sale whose cost is not known instead of
 * guessing it; the dashboard's 30-day margin; the migration rolled back and forth with the day
 * totals' triggers kept.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(async () => {
  await h.close();
});

const row = (id: number) => h.knex('recharges').where({ id }).first();

describe('a sale records what the vendors said', () => {
  let kit: MoneyKit;
  let shop: Shop;
  let providerId: number;
  beforeAll(async () => {
    kit = await moneyKit(h);
    shop = await makeShop(h, root, 'cost', { balance: '20' });
    const bundle = await h.knex('bundles').where({ id: shop.bundleId }).first();
    providerId = (await h.knex('categories').where({ id: bundle.category_id }).first()).provider_id;
  });
  afterAll(async () => {
    await kit.close();
  });

  it('through WaafiPay and the sandbox aggregator (Reloadly’s protocol): txAmount, merchantCharges, the discounted cost; the margin shown to staff only', async () => {
    const sold = await buy(h, shop);
    expect(sold.status).toBe(201);
    await kit.worker.drain();
    const r = await row(sold.body.data.id);
    expect(r).toMatchObject({ status: 'completed', operator_adapter: 'sandbox' });
    // The dealer's price 0.55 taken, the gateway's 1 % (at least a cent); the cost 0.40 sent, less
    // Hormuud's 4 % discount (1.6 cents, rounded down to 1): 0.39.
    expect(
      [
        'gateway_amount',
        'gateway_charges',
        'gateway_currency',
        'aggregator_cost',
        'aggregator_currency',
        'aggregator_discount',
        'aggregator_fee',
        'fx_rate',
        'delivered_amount',
        'delivered_currency',
      ].map((c) => (r[c] === null ? null : typeof r[c] === 'string' && /^[A-Z]{3}$/.test(r[c]) ? r[c] : Number(r[c]))),
    ).toEqual([55, 1, 'USD', 39, 'USD', 1, null, null, 40, 'USD']);

    const shown = (await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root))).body.data.recharge;
    expect(shown).toMatchObject({
      amount: '0.55',
      gateway_amount: '0.55',
      gateway_charges: '0.01',
      gateway_currency: 'USD',
      aggregator_cost: '0.39',
      aggregator_currency: 'USD',
      delivered_amount: '0.40',
      delivered_currency: 'USD',
      fx_rate: null,
      margin: '0.15',
    });
    // Staff who see cost prices but not reports: the cost, no margin; neither without cost prices.
    const costOnly = await h.userWith(['view recharges', 'view bundles prices']);
    const noCost = await h.userWith(['view recharges', 'view reports']);
    const asCostOnly = (await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(costOnly.token))).body.data.recharge;
    expect(asCostOnly.aggregator_cost).toBe('0.39');
    expect(asCostOnly).not.toHaveProperty('margin');
    const asNoCost = (await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(noCost.token))).body.data.recharge;
    expect(asNoCost).not.toHaveProperty('aggregator_cost');
    expect(asNoCost).not.toHaveProperty('margin');
    // The gateway's charges and the aggregator's rate are company costs too.
    for (const hidden of ['gateway_charges', 'aggregator_currency', 'fx_rate']) expect(asNoCost).not.toHaveProperty(hidden);
    expect(asNoCost.gateway_amount).toBe('0.55');
    // The dealer sees its sale, never the company's cost or margin (in the list too).
    const asDealer = await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(shop.token));
    expect(asDealer.status).toBe(200);
    expect(asDealer.body.data.recharge).not.toHaveProperty('aggregator_cost');
    expect(asDealer.body.data.recharge).not.toHaveProperty('margin');
    expect(asDealer.body.data.recharge).not.toHaveProperty('gateway_charges');
    expect(asDealer.body.data.recharge).toMatchObject({ gateway_amount: '0.55', delivered_amount: '0.40' });
    const dealerList = await h.http().get('/api/v1/recharges').set(bearer(shop.token));
    expect(dealerList.body.data.every((s: Record<string, unknown>) => !('margin' in s) && !('aggregator_cost' in s))).toBe(true);
  });

  it('through DT One: the wholesale amount + fee, the fee on its own, the face value delivered', async () => {
    expect((await h.http().patch(`/api/v1/internet-providers/${providerId}`).set(bearer(root)).send({ adapter_key: 'dtone' })).status).toBe(200);
    expect((await h.http().patch(`/api/v1/bundles/${shop.bundleId}`).set(bearer(root)).send({ operator_product_code: '91001' })).status).toBe(200);
    try {
      const sold = await buy(h, shop);
      await kit.worker.drain();
      const r = await row(sold.body.data.id);
      expect(r).toMatchObject({ status: 'completed', operator_adapter: 'dtone', aggregator_currency: 'USD', delivered_currency: 'USD' });
      // 0.40 + 0.004: 41 cents up; the fee 0.004 up to a cent; 0.50 delivered.
      expect([r.aggregator_cost, r.aggregator_fee, r.aggregator_discount, r.delivered_amount].map((v) => (v === null ? null : Number(v)))).toEqual([
        41,
        1,
        null,
        50,
      ]);
      const shown = (await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root))).body.data.recharge;
      expect(shown).toMatchObject({ aggregator_cost: '0.41', margin: '0.13' });
    } finally {
      await h.http().patch(`/api/v1/internet-providers/${providerId}`).set(bearer(root)).send({ adapter_key: 'sandbox' });
    }
  });

  it('a sale that did not complete has no margin; one the vendor gave no cost for has none either', async () => {
    const declined = await buy(h, shop, { payer_phone: '0615550000' });
    await kit.worker.drain();
    const r = await row(declined.body.data.id);
    // Declined: the sale failed and the dealer's debit came back.
    expect(['failed', 'refunded']).toContain(r.status);
    expect(r.aggregator_cost).toBeNull();
    const shown = (await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root))).body.data.recharge;
    expect(shown).toMatchObject({ gateway_amount: null, aggregator_cost: null, margin: null });
    const completed = await h.knex('recharges').where({ dealer_id: shop.dealerId, status: 'completed' }).first('id');
    await h.knex('recharges').where({ id: completed.id }).update({ aggregator_cost: null });
    expect((await h.http().get(`/api/v1/recharges/${completed.id}`).set(bearer(root))).body.data.recharge.margin).toBeNull();
  });
});

describe('GET /reports/margins', () => {
  let a: { id: number; token: string };
  let b: { id: number; token: string };
  const providers: Record<string, number> = {};
  const STAMP = '2026-01-01 00:00:00.000';

  async function dealer(code: string) {
    const email = `${code.toLowerCase()}@test.example`;
    const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
    await h.knex('dealer_details').insert({ user_id: id, brand_color: '#000000', pricing_model: 'cost', created_at: STAMP, updated_at: STAMP });
    return { id, token: await h.login(email) };
  }

  beforeAll(async () => {
    a = await dealer('MARGA');
    b = await dealer('MARGB');
    for (const [code, name] of [
      ['MP1', 'Hormuud'],
      ['MP2', 'Somtel'],
    ]) {
      await h.knex('providers').insert({ name, code, status: 'active', sort_order: 0, adapter_key: 'sandbox', created_at: STAMP, updated_at: STAMP });
      providers[code] = (await h.knex('providers').where({ code }).first()).id;
    }
    // dealer, provider, status, amount, profit, gateway charges, aggregator cost (+ currency), route, created_at (UTC)
    const rows: [number, string, string, number, number, number | null, number | null, string | null, string | null, string][] = [
      [a.id, 'MP1', 'completed', 100, 20, 1, 78, 'USD', 'reloadly', '2026-10-31 20:30:00.000'], // Oct 31, 23:30 local
      [a.id, 'MP1', 'completed', 100, 20, 1, 78, 'USD', 'reloadly', '2026-10-31 21:30:00.000'], // Nov 1, 00:30 local
      [a.id, 'MP2', 'failed', 200, 50, null, null, null, 'dtone', '2026-11-01 10:00:00.000'],
      [b.id, 'MP2', 'completed', 200, 50, 2, 150, 'USD', 'dtone', '2026-11-02 09:00:00.000'],
      // The aggregator said nothing of its cost; then one in another currency than the sale's.
      [b.id, 'MP1', 'completed', 300, 100, null, null, null, 'reloadly', '2026-11-09 09:00:00.000'],
      [b.id, 'MP1', 'completed', 150, 30, 1, 9000, 'KES', 'sandbox', '2026-11-09 10:00:00.000'],
    ];
    let n = 0;
    for (const [dealerId, provider, status, amount, profit, charges, cost, costCurrency, route, at] of rows) {
      n += 1;
      await h.knex('recharges').insert({
        dealer_id: dealerId,
        provider_id: providers[provider],
        provider_name: provider === 'MP1' ? 'Hormuud' : 'Somtel',
        category_name: 'Daily',
        bundle_name: '1 GB',
        pricing_model: 'cost',
        phone: '615000001',
        payer_phone: '615000001',
        amount,
        cost: amount - profit,
        profit,
        currency: 'USD',
        status,
        idempotency_key: `margin-fixture-${n}`,
        reference: `RCMARGIN000${n}`,
        attempts: 1,
        operator_adapter: route,
        gateway_amount: charges === null ? null : amount,
        gateway_charges: charges,
        gateway_currency: charges === null ? null : 'USD',
        aggregator_cost: cost,
        aggregator_currency: costCurrency,
        created_at: at,
        updated_at: at,
      });
    }
  });

  const margins = (token: string, query: string) => h.http().get(`/api/v1/reports/margins?from=2026-10-31&to=2026-11-09&${query}`).set(bearer(token));
  type Line = {
    label: string;
    count: number;
    revenue: string;
    list_profit: string;
    gateway_charges: string;
    aggregator_cost: string;
    margin: string;
    unknown_cost: number;
  };
  const pick = (rows: Line[]) => rows.map((r) => [r.label, r.count, r.revenue, r.list_profit, r.gateway_charges, r.aggregator_cost, r.margin, r.unknown_cost]);

  it('by company day: the price less the gateway’s charges less the aggregator’s cost; a cost not known (or in another currency) counted, not guessed', async () => {
    const res = await margins(root, 'group_by=day');
    expect(res.status).toBe(200);
    expect(pick(res.body.data.rows)).toEqual([
      ['2026-10-31', 1, '1.00', '0.20', '0.01', '0.78', '0.21', 0],
      ['2026-11-01', 1, '1.00', '0.20', '0.01', '0.78', '0.21', 0],
      ['2026-11-02', 1, '2.00', '0.50', '0.02', '1.50', '0.48', 0],
      ['2026-11-09', 2, '4.50', '1.30', '0.01', '0.00', '0.00', 2],
    ]);
    expect(res.body.data.totals).toEqual({
      count: 5,
      revenue: '8.50',
      list_profit: '2.20',
      gateway_charges: '0.05',
      aggregator_cost: '3.06',
      margin: '0.90',
      unknown_cost: 2,
    });
    expect(res.body.data).toMatchObject({ from: '2026-10-31', to: '2026-11-09', group_by: 'day' });
  });

  it('by dealer, by provider and by route (the aggregator that delivered); filtered by dealer and provider', async () => {
    expect(pick((await margins(root, 'group_by=dealer')).body.data.rows)).toEqual([
      ['Dealer MARGB', 3, '6.50', '1.80', '0.03', '1.50', '0.48', 2],
      ['Dealer MARGA', 2, '2.00', '0.40', '0.02', '1.56', '0.42', 0],
    ]);
    expect(pick((await margins(root, 'group_by=provider')).body.data.rows)).toEqual([
      ['Hormuud', 4, '6.50', '1.70', '0.03', '1.56', '0.42', 2],
      ['Somtel', 1, '2.00', '0.50', '0.02', '1.50', '0.48', 0],
    ]);
    const byRoute = (await margins(root, 'group_by=route')).body.data.rows;
    expect(pick(byRoute)).toEqual([
      ['reloadly', 3, '5.00', '1.40', '0.02', '1.56', '0.42', 1],
      ['dtone', 1, '2.00', '0.50', '0.02', '1.50', '0.48', 0],
      ['sandbox', 1, '1.50', '0.30', '0.01', '0.00', '0.00', 1],
    ]);
    expect(byRoute.map((r: { key: string }) => r.key)).toEqual(['reloadly', 'dtone', 'sandbox']);
    expect((await margins(root, `group_by=route&dealer_id=${a.id}`)).body.data.totals).toMatchObject({ count: 2, margin: '0.42', unknown_cost: 0 });
    expect((await margins(root, `group_by=dealer&provider_id=${providers.MP2}`)).body.data.totals).toMatchObject({ count: 1, margin: '0.48' });
  });

  it('as CSV: the rows shown and the totals', async () => {
    const res = await margins(root, 'group_by=route&format=csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    expect(res.headers['content-disposition']).toContain('margins-2026-10-31-2026-11-09-by-route.csv');
    expect(
      res.text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n'),
    ).toEqual([
      'Delivery route,Count,Revenue,List profit,Gateway charges,Aggregator cost,Margin,Sales with unknown cost',
      'reloadly,3,5.00,1.40,0.02,1.56,0.42,1',
      'dtone,1,2.00,0.50,0.02,1.50,0.48,0',
      'sandbox,1,1.50,0.30,0.01,0.00,0.00,1',
      'Total,5,8.50,2.20,0.05,3.06,0.90,2',
    ]);
    const lines = async (lng: string) =>
      (await margins(root, `group_by=route&format=csv&lng=${lng}`)).text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
    const arabic = await lines('ae');
    expect(arabic[0]).toBe('مسار التسليم,العدد,الإيراد,الربح حسب القائمة,رسوم بوابة الدفع,تكلفة المجمّع,الهامش,مبيعات بتكلفة غير معروفة');
    expect(arabic.at(-1)).toBe('المجموع,5,8.50,2.20,0.05,3.06,0.90,2');
    const somali = await lines('so');
    expect(somali[0].split(',')[0]).toBe('Waddada gaarsiinta');
    expect(somali.at(-1)).toBe('Wadarta,5,8.50,2.20,0.05,3.06,0.90,2');
  });

  it('is the company’s: a dealer is refused (even holding both permissions), so is staff without cost prices; a bad grouping is a validation error', async () => {
    expect((await margins(a.token, 'group_by=day')).status).toBe(403);
    const dealerRole = await h.knex('roles').where({ name: 'dealer' }).first('id');
    // The dealer role given both permissions for this test: still refused, as a dealer.
    const both: { id: number }[] = await h.knex('permissions').whereIn('name', ['view reports', 'view bundles prices']).select('id');
    const have = (await h.knex('role_permissions').where({ role_id: dealerRole.id }).select('permission_id')).map(
      (x: { permission_id: number }) => x.permission_id,
    );
    const missing = both.filter((p) => !have.includes(p.id));
    if (missing.length) await h.knex('role_permissions').insert(missing.map((p) => ({ role_id: dealerRole.id, permission_id: p.id })));
    try {
      const refused = await margins(await h.login('margb@test.example'), 'group_by=day');
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("Margins are the company's figures: only staff may see them.");
    } finally {
      if (missing.length)
        await h
          .knex('role_permissions')
          .where({ role_id: dealerRole.id })
          .whereIn(
            'permission_id',
            missing.map((p) => p.id),
          )
          .delete();
    }
    const reportsOnly = await h.userWith(['view reports']);
    expect((await margins(reportsOnly.token, 'group_by=day')).status).toBe(403);
    const res = await margins(root, 'group_by=bundle');
    expect(res.status).toBe(422);
  });

  it('the dashboard shows staff the last 30 days’ margin; not a dealer', async () => {
    // Sales of today (the fixture's days are long past): one known, one whose cost is unknown.
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    for (const [i, cost] of [
      [1, 70],
      [2, null],
    ] as const)
      await h.knex('recharges').insert({
        dealer_id: a.id,
        provider_id: providers.MP1,
        provider_name: 'Hormuud',
        category_name: 'Daily',
        bundle_name: '1 GB',
        pricing_model: 'cost',
        phone: '615000001',
        payer_phone: '615000001',
        amount: 100,
        cost: 80,
        profit: 20,
        currency: 'USD',
        status: 'completed',
        idempotency_key: `margin-today-${i}`,
        reference: `RCMARGINTOD${i}`,
        attempts: 1,
        operator_adapter: 'reloadly',
        gateway_charges: 2,
        gateway_currency: 'USD',
        aggregator_cost: cost,
        aggregator_currency: cost === null ? null : 'USD',
        created_at: now,
        updated_at: now,
      });
    const staff = await h.http().get('/api/v1/dashboard').set(bearer(root));
    expect(staff.status).toBe(200);
    // The stand-in sales of this file are today's too: compared with the report for the same days.
    const today = staff.body.data.days.at(-1).date;
    const first = staff.body.data.days[0].date;
    const report = (await h.http().get(`/api/v1/reports/margins?from=${first}&to=${today}&group_by=day`).set(bearer(root))).body.data.totals;
    expect(staff.body.data.margin).toEqual({ last_30_days: { margin: report.margin, list_profit: report.list_profit, unknown_cost: report.unknown_cost } });
    expect(report.unknown_cost).toBeGreaterThanOrEqual(1);
    const dealerView = await h.http().get('/api/v1/dashboard').set(bearer(a.token));
    expect(dealerView.status).toBe(200);
    expect(dealerView.body.data).not.toHaveProperty('margin');
  });
});

describe(`the migration on ${TEST_DATABASE}`, () => {
  it('rolls back and forth, keeping the day totals’ triggers', async () => {
    const MIGRATION = '20261127F-vendor-money.ts';
    await h.knex.migrate.down({ name: MIGRATION });
    try {
      expect(await h.knex.schema.hasColumn('recharges', 'aggregator_cost')).toBe(false);
      if (TEST_DATABASE === 'sqlite') {
        const triggers = await h.knex('sqlite_master').where({ type: 'trigger', tbl_name: 'recharges' }).count({ n: '*' }).first();
        expect(Number((triggers as { n: number }).n)).toBeGreaterThan(0);
      }
    } finally {
      await h.knex.migrate.up({ name: MIGRATION });
    }
    for (const column of ['gateway_amount', 'gateway_charges', 'gateway_currency', 'aggregator_cost', 'fx_rate', 'delivered_currency'])
      expect(await h.knex.schema.hasColumn('recharges', column)).toBe(true);
  });
});
