import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';

/**
 * Reports against a hand-computed fixture: recharges written at known UTC times around a month
 * end, read in the company's time zone (Africa/Mogadishu, UTC+3), grouped every way, scoped to a
 * dealer, with and without the cost; then the dashboard, the logs and the global search.
 */
let h: Harness;
let root: string;
let a: { id: number; token: string };
let b: { id: number; token: string };
const ids: Record<string, number> = {};

async function dealer(code: string, pricing: 'cost' | 'profit') {
  const email = `${code.toLowerCase()}@test.example`;
  const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
  await h
    .knex('dealer_details')
    .insert({ user_id: id, brand_color: '#000000', pricing_model: pricing, created_at: '2026-01-01 00:00:00.000', updated_at: '2026-01-01 00:00:00.000' });
  return { id, token: await h.login(email) };
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  a = await dealer('REPA', 'cost');
  b = await dealer('REPB', 'profit');
  for (const [code, name] of [
    ['RP1', 'Hormuud'],
    ['RP2', 'Somtel'],
  ]) {
    await h.knex('providers').insert({
      name,
      code,
      status: 'active',
      sort_order: 0,
      adapter_key: 'sandbox',
      created_at: '2026-01-01 00:00:00.000',
      updated_at: '2026-01-01 00:00:00.000',
    });
    ids[code] = (await h.knex('providers').where({ code }).first()).id;
  }
  // dealer, provider, bundle, status, amount, cost, profit, created_at (UTC), phone
  const rows: [number, string, string, string, number, number, number, string, string][] = [
    [a.id, 'RP1', '1 GB', 'completed', 100, 80, 20, '2026-10-31 20:30:00.000', '615000001'], // Oct 31, 23:30 local
    [a.id, 'RP1', '1 GB', 'completed', 100, 80, 20, '2026-10-31 21:30:00.000', '615000002'], // Nov 1, 00:30 local
    [a.id, 'RP2', '3 GB', 'failed', 200, 150, 50, '2026-11-01 10:00:00.000', '625000003'],
    [b.id, 'RP2', '3 GB', 'completed', 200, 150, 50, '2026-11-02 09:00:00.000', '625000004'], // Monday
    [b.id, 'RP1', '1 GB', 'completed', 300, 200, 100, '2026-11-09 09:00:00.000', '615000005'], // Monday
  ];
  let n = 0;
  for (const [dealerId, provider, bundle, status, amount, cost, profit, at, phone] of rows) {
    n += 1;
    await h.knex('recharges').insert({
      dealer_id: dealerId,
      provider_id: ids[provider],
      provider_name: provider === 'RP1' ? 'Hormuud' : 'Somtel',
      category_name: 'Daily',
      bundle_name: bundle,
      pricing_model: dealerId === a.id ? 'cost' : 'profit',
      phone,
      payer_phone: phone,
      amount,
      cost,
      profit,
      currency: 'USD',
      status,
      idempotency_key: `fixture-${n}`,
      reference: `RCFIXTURE000${n}`,
      attempts: 1,
      created_at: at,
      updated_at: at,
    });
  }
});
afterAll(() => h.close());

const sales = (token: string, query: string) => h.http().get(`/api/v1/reports/sales?from=2026-10-31&to=2026-11-09&${query}`).set(bearer(token));
const pick = (rows: { label: string; count: number; revenue: string; cost?: string; profit: string }[]) =>
  rows.map((r) => [r.label, r.count, r.revenue, r.cost, r.profit]);

describe('GET /reports/sales', () => {
  it('groups completed sales by company day: 23:30 on Oct 31 and 00:30 on Nov 1 fall on either side of the month end', async () => {
    const res = await sales(root, 'group_by=day');
    expect(res.status).toBe(200);
    expect(pick(res.body.data.rows)).toEqual([
      ['2026-10-31', 1, '1.00', '0.80', '0.20'],
      ['2026-11-01', 1, '1.00', '0.80', '0.20'],
      ['2026-11-02', 1, '2.00', '1.50', '0.50'],
      ['2026-11-09', 1, '3.00', '2.00', '1.00'],
    ]);
    expect(res.body.data.totals).toEqual({ count: 4, revenue: '7.00', cost: '5.10', profit: '1.90' });
  });

  it('groups by week (Monday first) and by month', async () => {
    expect(pick((await sales(root, 'group_by=week')).body.data.rows)).toEqual([
      ['2026-10-26', 2, '2.00', '1.60', '0.40'],
      ['2026-11-02', 1, '2.00', '1.50', '0.50'],
      ['2026-11-09', 1, '3.00', '2.00', '1.00'],
    ]);
    expect(pick((await sales(root, 'group_by=month')).body.data.rows)).toEqual([
      ['2026-10', 1, '1.00', '0.80', '0.20'],
      ['2026-11', 3, '6.00', '4.30', '1.70'],
    ]);
  });

  it('groups by dealer, provider and bundle, and filters by status, provider and dealer', async () => {
    expect(pick((await sales(root, 'group_by=dealer')).body.data.rows)).toEqual([
      ['Dealer REPB', 2, '5.00', '3.50', '1.50'],
      ['Dealer REPA', 2, '2.00', '1.60', '0.40'],
    ]);
    expect(pick((await sales(root, 'group_by=provider')).body.data.rows)).toEqual([
      ['Hormuud', 3, '5.00', '3.60', '1.40'],
      ['Somtel', 1, '2.00', '1.50', '0.50'],
    ]);
    expect((await sales(root, 'group_by=bundle&status=all')).body.data.totals).toEqual({ count: 5, revenue: '9.00', cost: '6.60', profit: '2.40' });
    expect((await sales(root, 'group_by=day&status=failed')).body.data.totals.count).toBe(1);
    expect((await sales(root, `group_by=day&provider_id=${ids.RP2}`)).body.data.totals.revenue).toBe('2.00');
    expect((await sales(root, `group_by=day&dealer_id=${a.id}`)).body.data.totals.revenue).toBe('2.00');
  });

  it("keeps a dealer to its own figures, whatever it filters, and hides the cost without 'view bundles prices'", async () => {
    const own = await sales(a.token, `group_by=dealer&dealer_id=${b.id}`);
    expect(pick(own.body.data.rows)).toEqual([['Dealer REPA', 2, '2.00', '1.60', '0.40']]);
    const viewer = await h.userWith(['view reports']);
    const res = await sales(viewer.token, 'group_by=month');
    expect(res.body.data.totals).toEqual({ count: 4, revenue: '7.00', profit: '1.90' });
    expect(res.body.data.rows[0]).not.toHaveProperty('cost');
  });

  it('exports exactly what it shows as CSV, and refuses bad parameters', async () => {
    const csv = await sales(root, 'group_by=month&format=csv');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(
      csv.text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n'),
    ).toEqual(['Month,Count,Revenue,Cost,Profit', '2026-10,1,1.00,0.80,0.20', '2026-11,3,6.00,4.30,1.70', 'Total,4,7.00,5.10,1.90']);
    // In the reader's language: headers and the total's label; the figures as they are.
    const lines = async (lng: string) =>
      (await sales(root, `group_by=month&format=csv&lng=${lng}`)).text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
    expect(await lines('ae')).toEqual([
      'الشهر,العدد,الإيراد,التكلفة,الربح',
      '2026-10,1,1.00,0.80,0.20',
      '2026-11,3,6.00,4.30,1.70',
      'المجموع,4,7.00,5.10,1.90',
    ]);
    expect(await lines('so')).toEqual([
      "Bisha,Tirada,Dakhliga,Kharashka,Faa'iidada",
      '2026-10,1,1.00,0.80,0.20',
      '2026-11,3,6.00,4.30,1.70',
      'Wadarta,4,7.00,5.10,1.90',
    ]);
    const bad = await h.http().get('/api/v1/reports/sales?from=2026-11-09&to=2026-10-31&group_by=year').set(bearer(root));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({ group_by: ['Group by day, week, month, provider, bundle or dealer'] });
    expect((await h.http().get('/api/v1/reports/sales?from=2026-11-09&to=2026-10-31').set(bearer(root))).body.errors).toEqual({
      from: ['The start date must be on or before the end date'],
    });
    // Days that do not exist are refused, not rolled over to March.
    for (const [from, to] of [
      ['2026-02-30', '2026-03-05'],
      ['2026-02-01', '2026-02-29'],
      ['2026-13-01', '2026-12-31'],
    ]) {
      const res = await h.http().get(`/api/v1/reports/sales?from=${from}&to=${to}`).set(bearer(root));
      expect(res.status).toBe(422);
      expect(Object.values(res.body.errors).flat()).toEqual(['Enter a real date as YYYY-MM-DD (e.g. 2026-02-28)']);
    }
    expect((await h.http().get('/api/v1/reports/sales?from=2024-02-29&to=2024-03-01').set(bearer(root))).status).toBe(200);
  });
});

describe('GET /reports/dealer-profit', () => {
  it('gives profit per dealer, and per bundle for one dealer; a dealer sees only its own', async () => {
    const all = await h.http().get('/api/v1/reports/dealer-profit?from=2026-10-31&to=2026-11-09').set(bearer(root));
    expect(
      all.body.data.rows.map((r: { dealer: { name: string }; profit: string; pricing_model: string }) => [r.dealer.name, r.profit, r.pricing_model]),
    ).toEqual([
      ['Dealer REPB', '1.50', 'profit'],
      ['Dealer REPA', '0.40', 'cost'],
    ]);
    expect(all.body.data.totals.profit).toBe('1.90');
    const mine = await h.http().get(`/api/v1/reports/dealer-profit?from=2026-10-31&to=2026-11-09&dealer_id=${b.id}`).set(bearer(a.token));
    expect(mine.body.data.rows.map((r: { dealer: { id: number } }) => r.dealer.id)).toEqual([a.id]);
    expect(mine.body.data.bundles.map((x: { name: string; profit: string }) => [x.name, x.profit])).toEqual([['1 GB', '0.40']]);
    expect(
      (
        await h
          .http()
          .get('/api/v1/reports/dealer-profit')
          .set(bearer((await h.userWith(['view reports'])).token))
      ).status,
    ).toBe(403);
    // Its CSV: exactly the rows shown, per dealer, and per bundle for one dealer (a dealer: its own only).
    const csvLines = (res: { text: string }) =>
      res.text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
    const allCsv = await h.http().get('/api/v1/reports/dealer-profit?from=2026-10-31&to=2026-11-09&format=csv').set(bearer(root));
    expect(allCsv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(allCsv.headers['content-disposition']).toContain('dealer-profit-2026-10-31-2026-11-09.csv');
    const [header, ...rest] = csvLines(allCsv);
    expect(header).toBe('Dealer,Dealer code,Pricing model,Count,Revenue,Cost,Profit');
    expect(rest.map((l) => [l.split(',')[0], l.split(',')[2], l.split(',').at(-1)])).toEqual([
      ['Dealer REPB', expect.stringMatching(/^(Cost \+ Profit|Profit Only)$/), '1.50'],
      ['Dealer REPA', expect.stringMatching(/^(Cost \+ Profit|Profit Only)$/), '0.40'],
      ['Total', '', '1.90'],
    ]);
    // The pricing model by the names of SPEC section 9, in the reader's language.
    const inLanguage = async (lng: string) =>
      csvLines(await h.http().get(`/api/v1/reports/dealer-profit?from=2026-10-31&to=2026-11-09&format=csv&lng=${lng}`).set(bearer(root)));
    const arabic = await inLanguage('ae');
    expect(arabic[0]).toBe('الوكيل,رمز الوكيل,نموذج التسعير,العدد,الإيراد,التكلفة,الربح');
    expect(arabic.slice(1).map((l) => l.split(',')[2])).toEqual([
      ...rest.slice(0, -1).map((l) => (l.split(',')[2] === 'Profit Only' ? 'الربح فقط' : 'التكلفة + الربح')),
      '',
    ]);
    expect(arabic.at(-1)!.split(',')[0]).toBe('المجموع');
    const somali = await inLanguage('so');
    expect(somali[0]).toBe("Wakiilka,Koodka wakiilka,Qaabka qiimaynta,Tirada,Dakhliga,Kharashka,Faa'iidada");
    expect(somali.slice(1, -1).map((l) => l.split(',')[2])).toEqual(
      rest.slice(0, -1).map((l) => (l.split(',')[2] === 'Profit Only' ? "Faa'iido Kaliya" : "Kharash + Faa'iido")),
    );
    const mineCsv = csvLines(await h.http().get('/api/v1/reports/dealer-profit?from=2026-10-31&to=2026-11-09&format=csv').set(bearer(a.token)));
    expect(mineCsv[0]).toMatch(/^Operator,Bundle,Count,Revenue,(Cost,)?Profit$/);
    expect(mineCsv.slice(1).map((l) => [l.split(',')[1], l.split(',').at(-1)])).toEqual([
      ['1 GB', '0.40'],
      ['', '0.40'],
    ]);
  });
});

describe('GET /dashboard', () => {
  it("counts today's and this month's sales in the company time zone, with the 30-day series and the latest sales", async () => {
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    await h.knex('recharges').insert({
      dealer_id: a.id,
      provider_id: ids.RP1,
      provider_name: 'Hormuud',
      category_name: 'Daily',
      bundle_name: '1 GB',
      pricing_model: 'cost',
      phone: '615000009',
      amount: 55,
      cost: 40,
      profit: 15,
      currency: 'USD',
      status: 'completed',
      idempotency_key: 'today-1',
      reference: 'RCTODAY00001',
      attempts: 1,
      created_at: now,
      updated_at: now,
    });
    await h.knex('recharges').insert({
      dealer_id: b.id,
      provider_id: ids.RP1,
      provider_name: 'Hormuud',
      category_name: 'Daily',
      bundle_name: '1 GB',
      pricing_model: 'profit',
      phone: '615000010',
      amount: 55,
      cost: 40,
      profit: 15,
      currency: 'USD',
      status: 'pending',
      idempotency_key: 'today-2',
      reference: 'RCTODAY00002',
      attempts: 0,
      created_at: now,
      updated_at: now,
    });
    const res = await h.http().get('/api/v1/dashboard').set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data.today).toMatchObject({ count: 1, revenue: '0.55', cost: '0.40', profit: '0.15', pending: 1, failed: 0, success_rate: 100 });
    expect(res.body.data.days).toHaveLength(30);
    expect(res.body.data.days.at(-1)).toMatchObject({ count: 1, revenue: '0.55' });
    expect(res.body.data.latest[0].reference).toBe('RCTODAY00002');
    const dealerView = await h.http().get('/api/v1/dashboard').set(bearer(b.token));
    expect(dealerView.body.data.today).toMatchObject({ count: 0, pending: 1 });
    expect(dealerView.body.data.latest.map((r: { reference: string }) => r.reference)).toEqual(['RCTODAY00002', 'RCFIXTURE0005', 'RCFIXTURE0004']);
    expect(dealerView.body.data.top_dealers).toEqual([]);
    expect(dealerView.body.data.low_balance).toBe(false);
    expect((await h.http().get('/api/v1/dashboard').set(bearer(a.token))).body.data.low_balance).toBe(true);
  });
});

describe('GET /logs', () => {
  it('shows a change with its before and after, filtered by subject; nothing can change it', async () => {
    const role = await h.http().post('/api/v1/roles').set(bearer(root)).send({ name: 'auditors', description: 'first' });
    await h.http().patch(`/api/v1/roles/${role.body.data.id}`).set(bearer(root)).send({ description: 'second' });
    const res = await h.http().get(`/api/v1/logs?subject_type=role&subject_id=${role.body.data.id}&action=updated`).set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({
      action: 'updated',
      actor: { name: 'Root Admin' },
      before: expect.objectContaining({ description: 'first' }),
      after: expect.objectContaining({ description: 'second' }),
    });
    expect((await h.http().get('/api/v1/logs').set(bearer(a.token))).status).toBe(403);
    expect((await h.http().delete(`/api/v1/logs/${res.body.data[0].id}`).set(bearer(root))).status).toBe(404);
  });
});

describe('GET /search', () => {
  it('finds what the caller may see: recharges by phone or reference, dealers, operators', async () => {
    const all = await h.http().get('/api/v1/search?q=615000002').set(bearer(root));
    expect(all.body.data.recharges.map((r: { title: string }) => r.title)).toEqual(['RCFIXTURE0002 · 615000002']);
    expect((await h.http().get('/api/v1/search?q=rcfixture0005').set(bearer(root))).body.data.recharges).toHaveLength(1);
    expect((await h.http().get('/api/v1/search?q=REPA').set(bearer(root))).body.data.dealers.map((d: { title: string }) => d.title)).toEqual(['Dealer REPA']);
    expect((await h.http().get('/api/v1/search?q=somtel').set(bearer(root))).body.data.providers.map((p: { title: string }) => p.title)).toEqual(['Somtel']);
    // A dealer finds only its own recharges, and no people.
    const dealerSearch = await h.http().get('/api/v1/search?q=6150000').set(bearer(a.token));
    expect(dealerSearch.body.data.recharges.every((r: { title: string }) => /61500000[12]/.test(r.title) || r.title.includes('615000009'))).toBe(true);
    expect(dealerSearch.body.data.dealers).toEqual([]);
    const limited = await h.userWith(['view recharges']);
    const res = await h.http().get('/api/v1/search?q=REPA').set(bearer(limited.token));
    expect(res.body.data).toMatchObject({ users: [], dealers: [], providers: [] });
    expect((await h.http().get('/api/v1/search?q=a').set(bearer(root))).body.data.recharges).toEqual([]);
  });
});
