import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/**
 * Operators, categories and bundles: the rules of their own on top of the generic lifecycle
 * (which the registry's matrix and contract already run for them).
 */
let h: Harness;
let root: string;
let providerId: number;
let categoryId: number;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const p = await h
    .http()
    .post('/api/v1/internet-providers')
    .set(bearer(root))
    .field('name', 'Hormuud')
    .field('code', 'HORMUUD')
    .field('phone_prefixes', '61, 77')
    .attach('logo', PNG_1PX, 'h.png');
  expect(p.status).toBe(201);
  providerId = p.body.data.id;
  const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: p.body.data.h_id, name: 'Daily' });
  expect(c.status).toBe(201);
  categoryId = c.body.data.id;
});
afterAll(() => h.close());

describe('internet providers', () => {
  it('keeps the number prefixes as digits and the logo as a stored image', async () => {
    const shown = await h.http().get(`/api/v1/internet-providers/${providerId}`).set(bearer(root));
    expect(shown.body.data).toMatchObject({ name: 'Hormuud', code: 'HORMUUD', phone_prefixes: ['61', '77'], categories_count: 1, status: 'active' });
    expect(shown.body.data.logo).toMatch(/^\/storage\/providers\//);
    const bad = await h
      .http()
      .post('/api/v1/internet-providers')
      .set(bearer(root))
      .send({ name: 'Somtel', code: 'SOMTEL', phone_prefixes: ['62', '6a5'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ phone_prefixes: ['Each prefix is 1 to 4 digits, such as 61'] });
    const taken = await h.http().post('/api/v1/internet-providers').set(bearer(root)).send({ name: 'Again', code: 'HORMUUD' });
    expect(taken.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { code: ['The code has already been taken.'] },
    });
  });

  it('gives a number prefix to one operator only: equal, longer or shorter clashes are 422s, also when two admins save at once', async () => {
    for (const prefixes of [['61'], ['615'], ['6'], ['62', '77']]) {
      const res = await h
        .http()
        .post('/api/v1/internet-providers')
        .set(bearer(root))
        .send({ name: 'Clash', code: `CLASH${prefixes.join('')}`, phone_prefixes: prefixes });
      expect(res.status).toBe(422);
      expect(res.body.errors.phone_prefixes[0]).toMatch(/is already a prefix of Hormuud: a number must belong to one operator\.$/);
    }
    const somtel = await h
      .http()
      .post('/api/v1/internet-providers')
      .set(bearer(root))
      .send({ name: 'Somtel', code: 'SOMTEL', phone_prefixes: ['62', '65'] });
    expect(somtel.status).toBe(201);
    const moved = await h
      .http()
      .patch(`/api/v1/internet-providers/${somtel.body.data.id}`)
      .set(bearer(root))
      .send({ phone_prefixes: ['62', '77'] });
    expect(moved.status).toBe(422);
    expect(moved.body.errors.phone_prefixes).toEqual(['77 is already a prefix of Hormuud: a number must belong to one operator.']);
    // Its own prefixes are not a clash with itself.
    expect(
      (
        await h
          .http()
          .patch(`/api/v1/internet-providers/${somtel.body.data.id}`)
          .set(bearer(root))
          .send({ phone_prefixes: ['62', '65', '66'] })
      ).status,
    ).toBe(200);
    // Two admins give 90 to two new operators at once: one wins.
    const both = await Promise.all(
      ['GOLIS', 'GOLIS2'].map((code) =>
        h
          .http()
          .post('/api/v1/internet-providers')
          .set(bearer(root))
          .send({ name: code, code, phone_prefixes: ['90'] }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(await h.knex('providers').whereIn('code', ['GOLIS', 'GOLIS2']).count({ n: '*' }).first()).toMatchObject({ n: 1 });
  });

  it('cannot be deleted for good while it has categories (409), only trashed', async () => {
    const res = await h.http().delete(`/api/v1/internet-providers/${providerId}/force`).set(bearer(root));
    expect(res.status).toBe(409);
    expect((await h.http().get(`/api/v1/internet-providers/${providerId}`).set(bearer(root))).status).toBe(200);
  });
});

describe('categories', () => {
  it('belong to a live operator and list by provider_id', async () => {
    const orphan = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: 999999, name: 'Weekly' });
    expect(orphan.body.errors).toEqual({ provider_id: ['The selected operator does not exist.'] });
    const missing = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ name: 'Weekly' });
    expect(missing.body.errors).toEqual({ provider_id: ['Choose the operator'] });
    const list = await h.http().get(`/api/v1/internet-categories?provider_id=${providerId}`).set(bearer(root));
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Daily']);
    expect(list.body.data[0].provider).toMatchObject({ id: providerId, name: 'Hormuud' });
  });
});

describe('bundles', () => {
  let bundleId: number;

  it('take prices as "12.50" or numbers, keep them in cents and answer them with two decimals', async () => {
    const res = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, cost_price: '0.4', selling_price: 0.5 });
    expect(res.status).toBe(201);
    bundleId = res.body.data.id;
    expect(res.body.data).toMatchObject({ cost_price: '0.40', selling_price: '0.50', provider: { name: 'Hormuud' }, category: { name: 'Daily' } });
    const row = await h.knex('bundles').where('id', bundleId).first();
    expect([Number(row.cost_price), Number(row.selling_price)]).toEqual([40, 50]);
    const bad = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name: 'X', validity_days: 0, cost_price: '1.005', selling_price: 'free' });
    expect(bad.body.errors).toEqual({
      validity_days: ['Validity is a whole number of days from 1 to 366'],
      cost_price: ['Enter a price of 0 or more with at most two decimals, such as 1.50'],
      selling_price: ['Enter a price of 0 or more with at most two decimals, such as 1.50'],
    });
  });

  it('never sells below cost, on create and on a later price change', async () => {
    const below = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name: 'Loss', validity_days: 1, cost_price: '1.00', selling_price: '0.90' });
    expect(below.body.errors).toEqual({ selling_price: ['The selling price may not be below the cost price.'] });
    const change = await h.http().patch(`/api/v1/bundles/${bundleId}`).set(bearer(root)).send({ selling_price: '0.30' });
    expect(change.status).toBe(422);
    expect(change.body.errors).toEqual({ selling_price: ['The selling price may not be below the cost price.'] });
  });

  it('shows the cost only to holders of "view bundles prices", in lists and records alike', async () => {
    const viewer = await h.userWith(['view bundles']);
    const list = await h.http().get(`/api/v1/bundles?category_id=${categoryId}`).set(bearer(viewer.token));
    expect(list.status).toBe(200);
    expect(list.body.data[0]).not.toHaveProperty('cost_price');
    expect(list.body.data[0].selling_price).toBe('0.50');
    expect((await h.http().get(`/api/v1/bundles/${bundleId}`).set(bearer(viewer.token))).body.data).not.toHaveProperty('cost_price');
    const pricer = await h.userWith(['view bundles', 'view bundles prices']);
    expect((await h.http().get(`/api/v1/bundles/${bundleId}`).set(bearer(pricer.token))).body.data.cost_price).toBe('0.40');
    const byProvider = await h.http().get(`/api/v1/bundles?provider_id=${providerId}`).set(bearer(pricer.token));
    expect(byProvider.body.data.map((b: { id: number }) => b.id)).toContain(bundleId);
  });

  it('says which shops a cost raise takes the bundle off, before the save (a count) and with the saved bundle', async () => {
    const made = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: categoryId, name: '5 GB Weekly', validity_days: 7, cost_price: '1.00', selling_price: '1.50' });
    const id: number = made.body.data.id;
    expect(made.body.data.off_sale_shops).toEqual([]);
    const now = new Date();
    const shop = async (name: string, code: string, price: number | null, status = 'active') => {
      const dealer = await h.insertUser({ name, email: `${code.toLowerCase()}@shops.test`, user_type: 'dealer', dealer_code: code });
      await h
        .knex('dealer_bundles')
        .insert({ dealer_id: dealer, bundle_id: id, status, selling_price: price, sort_order: 0, created_at: now, updated_at: now });
      return dealer;
    };
    const cheap = await shop('Cheap Shop', 'CHEAP', 120);
    await shop('Default Shop', 'DEFAULT', null);
    await shop('Dear Shop', 'DEAR', 200);
    await shop('Off Shop', 'OFFSHOP', 110, 'inactive');

    // Asked before saving: at 1.30 the shop at 1.20 stops selling; with a suggested price of 1.25, the shop that has none too.
    const ask = (query: string) => h.http().get(`/api/v1/bundles/${id}/shops-below-cost?${query}`).set(bearer(root));
    const at130 = await ask('cost_price=1.30');
    expect(at130.status).toBe(200);
    expect(at130.body.data).toEqual({
      count: 1,
      shops: [{ id: cheap, h_id: expect.any(String), name: 'Cheap Shop', dealer_code: 'CHEAP', selling_price: '1.20' }],
    });
    const withSuggested = await ask('cost_price=1.30&selling_price=1.25');
    expect(withSuggested.body.data.shops.map((s: { name: string; selling_price: string }) => [s.name, s.selling_price])).toEqual([
      ['Cheap Shop', '1.20'],
      ['Default Shop', '1.25'],
    ]);
    expect((await ask('cost_price=1.10')).body.data).toEqual({ count: 0, shops: [] });
    expect((await ask('cost_price=abc')).body.errors).toEqual({ cost_price: ['Enter a price of 0 or more with at most two decimals, such as 1.50'] });
    // Other shops' prices are for those who edit bundles and see their cost.
    const viewer = await h.userWith(['view bundles', 'update bundles']);
    expect((await ask('cost_price=1.30').set(bearer(viewer.token))).status).toBe(403);

    // The save answers the bundle with the shops it took it off, and so does every later read.
    const saved = await h.http().patch(`/api/v1/bundles/${id}`).set(bearer(root)).send({ cost_price: '1.30' });
    expect(saved.status).toBe(200);
    expect(saved.body.data.off_sale_shops).toEqual([{ id: cheap, h_id: expect.any(String), name: 'Cheap Shop', dealer_code: 'CHEAP', selling_price: '1.20' }]);
    const listed = await h.http().get(`/api/v1/bundles?category_id=${categoryId}`).set(bearer(root));
    expect(listed.body.data.find((b: { id: number }) => b.id === id).off_sale_shops.map((s: { name: string }) => s.name)).toEqual(['Cheap Shop']);
    // Without the cost there is nothing to compare: no shops either.
    const noCost = await h.userWith(['view bundles']);
    expect((await h.http().get(`/api/v1/bundles/${id}`).set(bearer(noCost.token))).body.data).not.toHaveProperty('off_sale_shops');
    // A shop in the trash sells nothing.
    await h.knex('users').where('id', cheap).update({ deleted_at: now });
    expect((await h.http().get(`/api/v1/bundles/${id}`).set(bearer(root))).body.data.off_sale_shops).toEqual([]);
  });
});
