import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, FORBIDDEN, type Harness } from '../../../tests/api/harness.ts';
import { startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { recordMissedSale } from './missed-sales.ts';

/**
 * Missed sales: purchases refused because the wallet could not pay their cost. Recorded once per
 * (dealer, purchase key), never throwing; counted per company day on /my-wallet and /dashboard;
 * listed and exported on /missed-sales, a dealer only its own.
 */
let h: Harness;
let root: string;
let a: { id: number; token: string };
let b: { id: number; token: string };
let bundleId: number;
const ZONE = 'Africa/Mogadishu';
const today = zonedDay(new Date(), ZONE);
const yesterday = zonedDay(new Date(startOfZonedDay(today, ZONE).getTime() - 12 * 3_600_000), ZONE);

async function dealer(code: string) {
  const email = `${code.toLowerCase()}@test.example`;
  const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
  await h.knex('wallets').insert({ dealer_id: id, balance: 0, currency: 'USD', created_at: toDbTime(), updated_at: toDbTime() });
  return { id, token: await h.login(email) };
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  a = await dealer('MISSA');
  b = await dealer('MISSB');
  const now = '2026-01-01 00:00:00.000';
  await h
    .knex('providers')
    .insert({ name: 'Hormuud', code: 'MSHOR', status: 'active', sort_order: 0, adapter_key: 'sandbox', created_at: now, updated_at: now });
  const provider = (await h.knex('providers').where({ code: 'MSHOR' }).first()).id;
  await h.knex('categories').insert({ provider_id: provider, name: 'Daily', status: 'active', sort_order: 0, created_at: now, updated_at: now });
  const category = (await h.knex('categories').where({ provider_id: provider }).first()).id;
  await h.knex('bundles').insert({
    category_id: category,
    name: '1 GB Daily',
    data_volume_mb: 1024,
    validity_days: 1,
    cost_price: 40,
    selling_price: 50,
    status: 'active',
    sort_order: 0,
    created_at: now,
    updated_at: now,
  });
  bundleId = (await h.knex('bundles').where({ category_id: category }).first()).id;
});
afterAll(() => h.close());

describe('recordMissedSale', () => {
  it('keeps one row per (dealer, purchase key), and never throws', async () => {
    await recordMissedSale(h.knex, { dealerId: a.id, bundleId, bundleName: '1 GB Daily', amount: 55, cost: 40, idempotencyKey: 'order-1' });
    await Promise.all(
      Array.from({ length: 5 }, () =>
        recordMissedSale(h.knex, { dealerId: a.id, bundleId, bundleName: '1 GB Daily', amount: 55, cost: 40, idempotencyKey: 'order-1' }),
      ),
    );
    await recordMissedSale(h.knex, { dealerId: b.id, bundleId: null, bundleName: '3 GB Weekly', amount: 120, cost: 100, idempotencyKey: 'order-1' });
    await recordMissedSale(h.knex, { dealerId: a.id, bundleId, bundleName: 'x'.repeat(300), amount: 55, cost: 40, idempotencyKey: 'k'.repeat(400) });
    expect(await h.knex('missed_sales').where({ dealer_id: a.id })).toHaveLength(2);
    expect(await h.knex('missed_sales').where({ dealer_id: b.id })).toHaveLength(1);
    const long = await h.knex('missed_sales').where({ dealer_id: a.id }).whereNot({ idempotency_key: 'order-1' }).first();
    expect(long.idempotency_key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(long.bundle_name).toHaveLength(191);
    // An unknown dealer: logged and dropped, never thrown at the sale.
    await expect(
      recordMissedSale(h.knex, { dealerId: 999999, bundleId: null, bundleName: 'x', amount: 1, cost: 1, idempotencyKey: 'z' }),
    ).resolves.toBeUndefined();
    await h.knex('missed_sales').where({ dealer_id: a.id }).whereNot({ idempotency_key: 'order-1' }).delete();
    // Yesterday's, in the company's time zone (one millisecond before today began there).
    await h.knex('missed_sales').insert({
      dealer_id: a.id,
      bundle_id: bundleId,
      bundle_name: '1 GB Daily',
      amount: 500,
      cost: 400,
      idempotency_key: 'order-old',
      created_at: toDbTime(new Date(startOfZonedDay(today, ZONE).getTime() - 1)),
    });
  });
});

describe('what the dealer sees', () => {
  it('GET /my-wallet counts today’s missed sales (company day)', async () => {
    const res = await h.http().get('/api/v1/my-wallet').set(bearer(a.token));
    expect(res.status).toBe(200);
    expect(res.body.data.missed_sales_today).toEqual({ count: 1, amount: '0.55' });
    expect((await h.http().get('/api/v1/my-wallet').set(bearer(b.token))).body.data.missed_sales_today).toEqual({ count: 1, amount: '1.20' });
  });

  it('GET /missed-sales lists its own only, newest first, with the cost it may see', async () => {
    const res = await h.http().get(`/api/v1/missed-sales?dealer_id=${b.id}`).set(bearer(a.token));
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ total: 2, current_page: 1 });
    expect(res.body.data.map((m: { amount: string; created_at: string }) => m.amount)).toEqual(['0.55', '5.00']);
    expect(res.body.data[0]).toMatchObject({
      dealer: { id: a.id, dealer_code: 'MISSA' },
      bundle_id: bundleId,
      bundle_name: '1 GB Daily',
      amount: '0.55',
      cost: '0.40',
    });
    const onlyToday = await h.http().get(`/api/v1/missed-sales?from=${today}&to=${today}`).set(bearer(a.token));
    expect(onlyToday.body.data.map((m: { amount: string }) => m.amount)).toEqual(['0.55']);
    const onlyYesterday = await h.http().get(`/api/v1/missed-sales?to=${yesterday}`).set(bearer(a.token));
    expect(onlyYesterday.body.data.map((m: { amount: string }) => m.amount)).toEqual(['5.00']);
  });
});

describe('what an admin sees', () => {
  it('every dealer’s, filtered and paginated, and a CSV of the same', async () => {
    const all = await h.http().get('/api/v1/missed-sales?per_page=2&order=asc').set(bearer(root));
    expect(all.body.meta).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(all.body.data.map((m: { amount: string }) => m.amount)).toEqual(['5.00', '0.55']);
    expect((await h.http().get('/api/v1/missed-sales?per_page=500').set(bearer(root))).body.errors).toEqual({
      per_page: ['Rows per page must be a whole number from 1 to 100.'],
    });
    const byDealer = await h.http().get(`/api/v1/missed-sales?dealer_id=${b.id}`).set(bearer(root));
    expect(byDealer.body.data).toEqual([
      expect.objectContaining({ dealer: expect.objectContaining({ id: b.id }), bundle_id: null, bundle_name: '3 GB Weekly', amount: '1.20', cost: '1.00' }),
    ]);
    const bad = await h.http().get(`/api/v1/missed-sales?from=${today}&to=${yesterday}`).set(bearer(root));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ from: ['The start date must be on or before the end date'] });
    expect((await h.http().get('/api/v1/missed-sales?from=yesterday').set(bearer(root))).body.errors).toEqual({
      from: ['Enter a real date as YYYY-MM-DD (e.g. 2026-02-28)'],
    });
    const csv = await h.http().get(`/api/v1/missed-sales/export?from=${today}`).set(bearer(root));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('ID,Created at,Dealer,Dealer code,Bundle ID,Bundle,Amount,Cost');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual([
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/),
      expect.stringMatching(/\+03:00$/),
    ]);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',').slice(2).join(','))
        .sort(),
    ).toEqual([`Dealer MISSA,MISSA,${bundleId},1 GB Daily,0.55,0.40`, 'Dealer MISSB,MISSB,,3 GB Weekly,1.20,1.00']);
    // Headers in the reader's language; the times still on the company's clock.
    const inLanguage = async (lng: string) =>
      (await h.http().get(`/api/v1/missed-sales/export?from=${today}&lng=${lng}`).set(bearer(root))).text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
    const arabic = await inLanguage('ae');
    expect(arabic[0]).toBe('المعرّف,تاريخ الإنشاء,الوكيل,رمز الوكيل,معرّف الباقة,الباقة,المبلغ,التكلفة');
    expect(arabic[1].split(',')[1]).toMatch(/\+03:00$/);
    expect((await inLanguage('so'))[0]).toBe('Aqoonsi,Waqtiga la sameeyay,Wakiilka,Koodka wakiilka,Aqoonsiga xirmada,Xirmada,Lacagta,Kharashka');
  });

  it('needs "view recharges"; the cost needs "view bundles prices"', async () => {
    const none = await h.userWith(['view dashboard']);
    expect((await h.http().get('/api/v1/missed-sales').set(bearer(none.token))).body).toEqual(FORBIDDEN);
    expect((await h.http().get('/api/v1/missed-sales/export').set(bearer(none.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/missed-sales')).status).toBe(401);
    const viewer = await h.userWith(['view recharges']);
    const res = await h.http().get('/api/v1/missed-sales').set(bearer(viewer.token));
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data.every((m: Record<string, unknown>) => !('cost' in m))).toBe(true);
    const csv = await h.http().get('/api/v1/missed-sales/export').set(bearer(viewer.token));
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('ID,Created at,Dealer,Dealer code,Bundle ID,Bundle,Amount');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await h.http().get('/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/missed-sales', '/missed-sales/export', '/my-wallet/low-balance-alert', '/wallets/{id}/low-balance-alert', '/settings/money']),
    );
    expect(Object.keys(doc.paths['/missed-sales'].get.responses['200'].content['application/json'].schema.properties.data.items.properties)).toEqual(
      expect.arrayContaining(['dealer', 'bundle_name', 'amount', 'cost', 'created_at']),
    );
  });
});
