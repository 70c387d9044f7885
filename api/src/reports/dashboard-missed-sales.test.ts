import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { encodeId } from '../http/ids.ts';
import { recordMissedSale } from '../wallets/missed-sales.ts';

/**
 * The dashboard's `missed_sales`: today's count and amount in the company's time zone (a dealer:
 * its own), and for admins the five dealers who missed most today. Also: the dashboard's
 * low-balance warning follows the dealer's own threshold when it has one.
 */
let h: Harness;
let root: string;
const dealers: { id: number; token: string; code: string }[] = [];
const ZONE = 'Africa/Mogadishu';

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  for (let i = 1; i <= 7; i++) {
    const code = `DMS${i}`;
    const email = `${code.toLowerCase()}@test.example`;
    const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
    await h.knex('dealer_details').insert({ user_id: id, brand_color: '#000000', pricing_model: 'cost', created_at: toDbTime(), updated_at: toDbTime() });
    await h.knex('wallets').insert({ dealer_id: id, balance: 1000, currency: 'USD', created_at: toDbTime(), updated_at: toDbTime() });
    dealers.push({ id, token: await h.login(email), code });
  }
  // Dealer i misses i sales of i.00 today; dealer 1 also missed one yesterday (company day).
  for (const [i, d] of dealers.entries()) {
    for (let k = 0; k <= i; k++)
      await recordMissedSale(h.knex, { dealerId: d.id, bundleId: null, bundleName: '1 GB', amount: (i + 1) * 100, cost: 80, idempotencyKey: `today-${k}` });
  }
  const today = zonedDay(new Date(), ZONE);
  await h.knex('missed_sales').insert({
    dealer_id: dealers[0].id,
    bundle_id: null,
    bundle_name: '1 GB',
    amount: 99_900,
    cost: 80,
    idempotency_key: 'yesterday',
    created_at: toDbTime(new Date(startOfZonedDay(today, ZONE).getTime() - 60_000)),
  });
});
afterAll(() => h.close());

describe('GET /dashboard missed_sales', () => {
  it('an admin sees today’s totals and the five dealers who missed most', async () => {
    const res = await h.http().get('/api/v1/dashboard').set(bearer(root));
    expect(res.status).toBe(200);
    // 1 + 2 + ... + 7 = 28 sales, worth 1 + 4 + 9 + ... + 49 = 140.00
    expect(res.body.data.missed_sales.today_count).toBe(28);
    expect(res.body.data.missed_sales.today_amount).toBe('140.00');
    expect(res.body.data.missed_sales.by_dealer).toEqual(
      [7, 6, 5, 4, 3].map((i) => ({
        dealer: { id: dealers[i - 1].id, h_id: encodeId(dealers[i - 1].id), name: `Dealer DMS${i}`, dealer_code: `DMS${i}` },
        count: i,
        amount: `${i * i}.00`,
      })),
    );
  });

  it('a dealer sees only its own, and no ranking', async () => {
    const res = await h.http().get('/api/v1/dashboard').set(bearer(dealers[2].token));
    expect(res.body.data.missed_sales).toEqual({ today_count: 3, today_amount: '9.00', by_dealer: [] });
    const first = await h.http().get('/api/v1/dashboard').set(bearer(dealers[0].token));
    expect(first.body.data.missed_sales).toEqual({ today_count: 1, today_amount: '1.00', by_dealer: [] });
  });

  it('warns a "Cost + Profit" dealer below its own low-balance threshold (5.00 without one)', async () => {
    const d = dealers[3];
    expect((await h.http().get('/api/v1/dashboard').set(bearer(d.token))).body.data.low_balance).toBe(false);
    await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(d.token)).send({ threshold: '20.00' });
    expect((await h.http().get('/api/v1/dashboard').set(bearer(d.token))).body.data.low_balance).toBe(true);
  });

  it('is typed in the OpenAPI document', async () => {
    const doc = (await h.http().get('/api/v1/openapi.json')).body;
    const data = doc.paths['/dashboard'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties.missed_sales.properties)).toEqual(['today_count', 'today_amount', 'by_dealer']);
  });
});
