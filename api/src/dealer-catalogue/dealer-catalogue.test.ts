import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/**
 * A dealer's catalogue: its switches and prices over the company's operators, categories and
 * bundles, scoped to itself; admins act for a named dealer.
 */
let h: Harness;
let root: string;
let dealerA: { id: number; token: string };
let dealerB: { id: number; token: string };
let providerId: number;
let categoryId: number;
let bundleIds: number[];

async function dealer(code: string, pricing: 'cost' | 'profit' = 'cost') {
  const email = `${code.toLowerCase()}@test.example`;
  const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
  await h
    .knex('dealer_details')
    .insert({ user_id: id, brand_color: '#112233', pricing_model: pricing, created_at: '2026-01-01 00:00:00.000', updated_at: '2026-01-01 00:00:00.000' });
  return { id, token: await h.login(email) };
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  dealerA = await dealer('DCA');
  dealerB = await dealer('DCB');
  const p = await h
    .http()
    .post('/api/v1/internet-providers')
    .set(bearer(root))
    .send({ name: 'Hormuud', code: 'HOR', phone_prefixes: ['61', '77'] });
  providerId = p.body.data.id;
  const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: providerId, name: 'Daily' });
  categoryId = c.body.data.id;
  bundleIds = [];
  for (const [name, cost, price] of [
    ['500 MB', '0.20', '0.30'],
    ['1 GB', '0.40', '0.50'],
    ['3 GB', '1.00', '1.25'],
  ]) {
    const b = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name, validity_days: 1, cost_price: cost, selling_price: price });
    expect(b.status).toBe(201);
    bundleIds.push(b.body.data.id);
  }
});
afterAll(() => h.close());

describe('the dealer catalogue', () => {
  it('lists the company catalogue with everything off for a new dealer', async () => {
    const res = await h.http().get('/api/v1/dealer-providers').set(bearer(dealerA.token));
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ current_page: 1, total: 1 });
    expect(res.body.data[0]).toMatchObject({
      id: providerId,
      name: 'Hormuud',
      enabled: false,
      status: 'inactive',
      available: true,
      categories_count: 1,
      enabled_categories_count: 0,
      dealer_id: dealerA.id,
    });
    const bundles = await h.http().get(`/api/v1/dealer-bundles?category_id=${categoryId}`).set(bearer(dealerA.token));
    expect(
      bundles.body.data.map((b: { name: string; enabled: boolean; selling_price: string; cost_price: string }) => [
        b.name,
        b.enabled,
        b.selling_price,
        b.cost_price,
      ]),
    ).toEqual([
      ['500 MB', false, '0.30', '0.20'],
      ['1 GB', false, '0.50', '0.40'],
      ['3 GB', false, '1.25', '1.00'],
    ]);
  });

  it('turns a bundle on with its own price, which turns its category and operator on', async () => {
    const res = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[1]}`).set(bearer(dealerA.token)).send({ status: 'active', selling_price: '0.60' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      enabled: true,
      selling_price: '0.60',
      custom_price: '0.60',
      default_selling_price: '0.50',
      cost_price: '0.40',
      profit: '0.20',
      below_cost: false,
    });
    const cats = await h.http().get(`/api/v1/dealer-categories?provider_id=${providerId}`).set(bearer(dealerA.token));
    expect(cats.body.data[0]).toMatchObject({ id: categoryId, enabled: true, bundles_count: 3, enabled_bundles_count: 1 });
    const provider = await h.http().get(`/api/v1/dealer-providers/${providerId}`).set(bearer(dealerA.token));
    expect(provider.body.data).toMatchObject({ enabled: true, enabled_categories_count: 1 });
    const log = await h.knex('activity_log').where({ subject_type: 'dealer_bundle', subject_id: bundleIds[1] }).first();
    expect(JSON.parse(log.after)).toEqual({ status: 'active', selling_price: 60 });
  });

  it('sets a price as a profit over the cost, and back to the default with null', async () => {
    const profit = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[2]}`).set(bearer(dealerA.token)).send({ profit: '0.35' });
    expect(profit.body.data).toMatchObject({ selling_price: '1.35', profit: '0.35', enabled: false });
    const reset = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[2]}`).set(bearer(dealerA.token)).send({ selling_price: null });
    expect(reset.body.data).toMatchObject({ selling_price: '1.25', custom_price: null });
  });

  it('refuses a price below the cost with the cost in the message, and changes nothing', async () => {
    const res = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[1]}`).set(bearer(dealerA.token)).send({ selling_price: '0.39' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { selling_price: ['The selling price may not be below the cost price (0.40).'] },
    });
    const shown = await h.http().get(`/api/v1/dealer-bundles/${bundleIds[1]}`).set(bearer(dealerA.token));
    expect(shown.body.data.selling_price).toBe('0.60');
    const both = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[1]}`).set(bearer(dealerA.token)).send({ selling_price: '1', profit: '1' });
    expect(both.body.errors).toEqual({ profit: ['Set either a selling price or a profit, not both'] });
    const nothing = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[1]}`).set(bearer(dealerA.token)).send({});
    expect(nothing.status).toBe(422);
  });

  it('enables all bundles of a category and prices them at cost + profit in one call', async () => {
    const res = await h
      .http()
      .post('/api/v1/dealer-bundles/bulk')
      .set(bearer(dealerB.token))
      .send({ category_id: categoryId, status: 'active', profit: '0.15' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '3 bundles updated', data: { affected: 3 } });
    const list = await h.http().get(`/api/v1/dealer-bundles?category_id=${categoryId}&enabled=true`).set(bearer(dealerB.token));
    expect(list.body.data.map((b: { selling_price: string }) => b.selling_price)).toEqual(['0.35', '0.55', '1.15']);
    const provider = await h.http().get(`/api/v1/dealer-providers/${providerId}`).set(bearer(dealerB.token));
    expect(provider.body.data.enabled).toBe(true);
    // Dealer A's choices are its own.
    const a = await h.http().get(`/api/v1/dealer-bundles?category_id=${categoryId}&enabled=true`).set(bearer(dealerA.token));
    expect(a.body.data.map((b: { id: number }) => b.id)).toEqual([bundleIds[1]]);
  });

  it('keeps each dealer to itself: a dealer_id of another dealer is ignored', async () => {
    const res = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[0]}`).set(bearer(dealerA.token)).send({ dealer_id: dealerB.id, status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body.data.dealer_id).toBe(dealerA.id);
    const b = await h.http().get(`/api/v1/dealer-bundles/${bundleIds[0]}`).set(bearer(dealerB.token));
    expect(b.body.data.enabled).toBe(true);
    const listed = await h.http().get(`/api/v1/dealer-providers?dealer_id=${dealerB.id}`).set(bearer(dealerA.token));
    expect(listed.body.data[0].dealer_id).toBe(dealerA.id);
  });

  it('lets an admin act for a named dealer, and asks which one when none is named', async () => {
    const none = await h.http().get('/api/v1/dealer-providers').set(bearer(root));
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ dealer_id: ['Choose the dealer'] });
    for (const wrong of ['999999', 'not-an-id']) {
      const notDealer = await h.http().get(`/api/v1/dealer-providers?dealer_id=${wrong}`).set(bearer(root));
      expect(notDealer.body.errors, wrong).toEqual({ dealer_id: ['The selected dealer does not exist.'] });
    }
    const res = await h.http().patch(`/api/v1/dealer-categories/${categoryId}`).set(bearer(root)).send({ dealer_id: dealerA.id, status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ dealer_id: dealerA.id, enabled: false });
    const seen = await h.http().get(`/api/v1/dealer-categories/${categoryId}`).set(bearer(dealerA.token));
    expect(seen.body.data.enabled).toBe(false);
  });

  it('hides the cost and profit without "view bundles prices", and needs the update permission to change', async () => {
    const viewer = await h.userWith(['view dealer bundles']);
    const list = await h.http().get(`/api/v1/dealer-bundles?dealer_id=${dealerB.id}&category_id=${categoryId}`).set(bearer(viewer.token));
    expect(list.status).toBe(200);
    expect(list.body.data[0]).not.toHaveProperty('cost_price');
    expect(list.body.data[0]).not.toHaveProperty('profit');
    const change = await h.http().patch(`/api/v1/dealer-bundles/${bundleIds[0]}`).set(bearer(viewer.token)).send({ dealer_id: dealerB.id, status: 'inactive' });
    expect(change.status).toBe(403);
  });

  it('answers 404 for a trashed or unknown item', async () => {
    const gone = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name: 'Gone', validity_days: 1, cost_price: 1, selling_price: 1 });
    await h.http().delete(`/api/v1/bundles/${gone.body.data.id}`).set(bearer(root));
    expect((await h.http().patch(`/api/v1/dealer-bundles/${gone.body.data.id}`).set(bearer(dealerA.token)).send({ status: 'active' })).status).toBe(404);
    expect((await h.http().get('/api/v1/dealer-bundles/zzzz').set(bearer(dealerA.token))).status).toBe(404);
  });

  it('lets two switches of the same bundle race without a 5xx, one row per dealer and bundle', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h
          .http()
          .patch(`/api/v1/dealer-bundles/${bundleIds[2]}`)
          .set(bearer(dealerA.token))
          .send({ status: i % 2 ? 'active' : 'inactive', selling_price: `1.${30 + i}` }),
      ),
    );
    expect(answers.map((r) => r.status).every((s) => s === 200)).toBe(true);
    const rows = await h.knex('dealer_bundles').where({ dealer_id: dealerA.id, bundle_id: bundleIds[2] });
    expect(rows).toHaveLength(1);
  });
});
