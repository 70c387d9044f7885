import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

  it("reads the rows behind a list of ids in one call (react-admin getMany: the sales list's Operator filter)", async () => {
    const byIds = await h.http().get(`/api/v1/dealer-providers?ids=${providerId},999999`).set(bearer(dealerA.token));
    expect(byIds.status).toBe(200);
    expect(byIds.body.data.map((p: { id: number }) => p.id)).toEqual([providerId]);
    const bundles = await h.http().get(`/api/v1/dealer-bundles?category_id=${categoryId}&ids=${bundleIds[1]}`).set(bearer(dealerA.token));
    expect(bundles.body.data.map((b: { id: number }) => b.id)).toEqual([bundleIds[1]]);
    expect((await h.http().get('/api/v1/dealer-providers?ids=nonsense').set(bearer(dealerA.token))).body.data).toEqual([]);
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

  it("answers names in the reader's language where translated, as typed elsewhere, and still finds them by the typed name", async () => {
    const translate = (path: string, translations: object) => h.http().patch(path).set(bearer(root)).send({ translations });
    expect((await translate(`/api/v1/internet-providers/${providerId}`, { ae: { name: 'هرمود' }, so: { name: 'Hormuud Telecom' } })).status).toBe(200);
    expect((await translate(`/api/v1/internet-categories/${categoryId}`, { ae: { name: 'يومي', description: 'يوم واحد' } })).status).toBe(200);
    expect((await translate(`/api/v1/bundles/${bundleIds[1]}`, { ae: { name: '1 غيغابايت' } })).status).toBe(200);
    try {
      const ar = await h.http().get(`/api/v1/dealer-bundles?category_id=${categoryId}&lng=ae`).set(bearer(dealerA.token));
      expect(ar.status).toBe(200);
      const oneGb = ar.body.data.find((b: { id: number }) => b.id === bundleIds[1]);
      expect(oneGb).toMatchObject({ name: '1 غيغابايت', category: { name: 'يومي' }, provider: { name: 'هرمود' } });
      // Not translated: as typed.
      expect(ar.body.data.find((b: { id: number }) => b.id === bundleIds[0]).name).toBe('500 MB');
      const categories = await h.http().get(`/api/v1/dealer-categories?provider_id=${providerId}`).set(bearer(dealerA.token)).set('Accept-Language', 'ar');
      expect(categories.body.data[0]).toMatchObject({ name: 'يومي', description: 'يوم واحد', provider: { name: 'هرمود' } });
      const so = await h.http().get('/api/v1/dealer-providers?lng=so').set(bearer(dealerA.token));
      expect(so.body.data[0].name).toBe('Hormuud Telecom');
      const en = await h.http().get('/api/v1/dealer-providers?lng=en').set(bearer(dealerA.token));
      expect(en.body.data[0].name).toBe('Hormuud');
      // The search reads the name as typed, whatever the reader's language.
      const found = await h.http().get('/api/v1/dealer-providers?q=hormuud&lng=ae').set(bearer(dealerA.token));
      expect(found.body.data.map((p: { name: string }) => p.name)).toEqual(['هرمود']);
    } finally {
      await translate(`/api/v1/internet-providers/${providerId}`, null as unknown as object);
      await translate(`/api/v1/internet-categories/${categoryId}`, null as unknown as object);
      await translate(`/api/v1/bundles/${bundleIds[1]}`, null as unknown as object);
    }
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

describe('a percentage markup over the cost', () => {
  let dealerC: { id: number; token: string };
  let dealerD: { id: number; token: string };
  let markupCategory: number;
  /** Costs 0.70, 1.00, 0.03, 123.45 and 0.00 (a free bundle). */
  let ids: number[];
  const INVALID = 'Enter a markup above 0% and at most 1000%, with at most 2 decimals (e.g. 12.5)';
  const ONE_WAY = 'Set a markup percentage alone, not with a selling price or a profit';
  const ownPrice = async (dealerId: number, bundleId: number) =>
    (await h.knex('dealer_bundles').where({ dealer_id: dealerId, bundle_id: bundleId }).first())?.selling_price ?? null;

  beforeAll(async () => {
    dealerC = await dealer('DCC');
    dealerD = await dealer('DCD', 'profit');
    const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: providerId, name: 'Markup' });
    markupCategory = c.body.data.id;
    ids = [];
    for (const [name, cost] of [
      ['A', '0.70'],
      ['B', '1.00'],
      ['C', '0.03'],
      ['D', '123.45'],
      ['E', '0.00'],
    ]) {
      const b = await h
        .http()
        .post('/api/v1/bundles')
        .set(bearer(root))
        .send({ category_id: markupCategory, name, validity_days: 1, cost_price: cost, selling_price: cost });
      expect(b.status).toBe(201);
      ids.push(b.body.data.id);
    }
  });

  it('prices one bundle at cost + percent, rounded half up to the cent, and logs the markup used', async () => {
    const res = await h.http().patch(`/api/v1/dealer-bundles/${ids[0]}`).set(bearer(dealerC.token)).send({ markup_percent: 12.5 });
    expect(res.status).toBe(200);
    // 0.70 × 12.5% = 0.0875 -> 0.09.
    expect(res.body.data).toMatchObject({ selling_price: '0.79', custom_price: '0.79', cost_price: '0.70', profit: '0.09', below_cost: false });
    const ten = await h.http().patch(`/api/v1/dealer-bundles/${ids[1]}`).set(bearer(dealerC.token)).send({ status: 'active', markup_percent: '10' });
    expect(ten.body.data).toMatchObject({ selling_price: '1.10', enabled: true });
    expect(await ownPrice(dealerC.id, ids[1])).toBe(110);
    const log = await h.knex('activity_log').where({ subject_type: 'dealer_bundle', subject_id: ids[0] }).orderBy('id', 'desc').first();
    expect(JSON.parse(log.before)).toEqual({ status: 'inactive', selling_price: null });
    expect(JSON.parse(log.after)).toEqual({ status: 'inactive', selling_price: 79, markup_percent: 12.5 });
  });

  it('keeps the price fixed when the cost changes later, like a fixed profit', async () => {
    await h.http().patch(`/api/v1/dealer-bundles/${ids[3]}`).set(bearer(dealerC.token)).send({ markup_percent: '0.01' });
    // 123.45 × 0.01% = 0.012345 -> 0.01.
    expect(await ownPrice(dealerC.id, ids[3])).toBe(12346);
    const raised = await h.http().patch(`/api/v1/bundles/${ids[3]}`).set(bearer(root)).send({ cost_price: '200.00', selling_price: '200.00' });
    expect(raised.status).toBe(200);
    const shown = await h.http().get(`/api/v1/dealer-bundles/${ids[3]}`).set(bearer(dealerC.token));
    expect(shown.body.data).toMatchObject({ selling_price: '123.46', cost_price: '200.00', below_cost: true });
    await h.http().patch(`/api/v1/bundles/${ids[3]}`).set(bearer(root)).send({ cost_price: '123.45', selling_price: '123.45' });
  });

  it('prices every bundle of a category at its own cost + percent in one call, logged once with the markup', async () => {
    const res = await h
      .http()
      .post('/api/v1/dealer-bundles/bulk')
      .set(bearer(dealerD.token))
      .send({ category_id: markupCategory, status: 'active', markup_percent: '33.33' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ affected: 5 });
    const list = await h.http().get(`/api/v1/dealer-bundles?category_id=${markupCategory}`).set(bearer(dealerD.token));
    // 0.70 -> 0.233310 -> 0.23; 1.00 -> 0.3333 -> 0.33; 0.03 -> 0.009999 -> 0.01; 123.45 -> 41.145885 -> 41.15; 0 -> 0.
    expect(list.body.data.map((b: { name: string; selling_price: string; enabled: boolean }) => [b.name, b.selling_price, b.enabled])).toEqual([
      ['A', '0.93', true],
      ['B', '1.33', true],
      ['C', '0.04', true],
      ['D', '164.60', true],
      ['E', '0.00', true],
    ]);
    const log = await h.knex('activity_log').where({ subject_type: 'dealer_bundle', action: 'catalogue_changed' }).orderBy('id', 'desc').first();
    expect(JSON.parse(log.after)).toMatchObject({ markup_percent: 33.33, status: 'active', dealer_id: dealerD.id, affected: 5 });
    // Dealer C's prices are its own.
    expect(await ownPrice(dealerC.id, ids[0])).toBe(79);
  });

  it('takes exactly one way of setting the price: two at once is a 422 on the markup that changes nothing', async () => {
    for (const body of [
      { markup_percent: 5, profit: '0.10' },
      { markup_percent: 5, selling_price: '2.00' },
      { markup_percent: 5, selling_price: null },
    ]) {
      const res = await h.http().patch(`/api/v1/dealer-bundles/${ids[0]}`).set(bearer(dealerC.token)).send(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors).toEqual({ markup_percent: [ONE_WAY] });
    }
    const bulk = await h
      .http()
      .post('/api/v1/dealer-bundles/bulk')
      .set(bearer(dealerC.token))
      .send({ category_id: markupCategory, markup_percent: 5, profit: '0.10' });
    expect(bulk.status).toBe(422);
    expect(bulk.body.errors).toEqual({ markup_percent: [ONE_WAY] });
    expect(await ownPrice(dealerC.id, ids[0])).toBe(79);
    expect(await ownPrice(dealerC.id, ids[2])).toBeNull();
  });

  it('refuses a markup of 0, below 0, over 1000, with 3 decimals or not a number, and changes nothing', async () => {
    const rowsBefore = await h.knex('dealer_bundles').where({ dealer_id: dealerC.id }).orderBy('bundle_id').select('bundle_id', 'selling_price', 'status');
    const logsBefore = (await h.knex('activity_log').count({ n: '*' }).first())!.n;
    for (const markup of [0, '0.00', -5, '-5', 1000.5, '1000.01', 12.345, '12.345', 'abc', '12%', '', true, null, [12]]) {
      const one = await h.http().patch(`/api/v1/dealer-bundles/${ids[0]}`).set(bearer(dealerC.token)).send({ status: 'active', markup_percent: markup });
      expect(one.status, JSON.stringify(markup)).toBe(422);
      expect(one.body.errors, JSON.stringify(markup)).toEqual({ markup_percent: [INVALID] });
      const bulk = await h
        .http()
        .post('/api/v1/dealer-bundles/bulk')
        .set(bearer(dealerC.token))
        .send({ category_id: markupCategory, status: 'active', markup_percent: markup });
      expect(bulk.status, JSON.stringify(markup)).toBe(422);
      expect(bulk.body.errors, JSON.stringify(markup)).toEqual({ markup_percent: [INVALID] });
    }
    expect(await h.knex('dealer_bundles').where({ dealer_id: dealerC.id }).orderBy('bundle_id').select('bundle_id', 'selling_price', 'status')).toEqual(
      rowsBefore,
    );
    expect((await h.knex('activity_log').count({ n: '*' }).first())!.n).toBe(logsBefore);
  });

  it('takes 1000% (ten times the cost added) as the most, and says what it answers in Arabic', async () => {
    const most = await h.http().patch(`/api/v1/dealer-bundles/${ids[2]}`).set(bearer(dealerC.token)).send({ markup_percent: 1000 });
    expect(most.body.data.selling_price).toBe('0.33');
    const ar = await h.http().patch(`/api/v1/dealer-bundles/${ids[2]}`).set(bearer(dealerC.token)).set('Accept-Language', 'ar').send({ markup_percent: 1001 });
    expect(ar.status).toBe(422);
    expect(ar.body.errors.markup_percent[0]).toBe('أدخل نسبة هامش أكبر من 0% وحتى 1000%، بمنزلتين عشريتين على الأكثر (مثل 12.5)');
  });

  it('refuses a markup whose price a number cannot hold exactly (a 422 on markup_percent, nothing saved)', async () => {
    const cost = await h.knex('bundles').where({ id: ids[2] }).first('cost_price');
    const before = await h.knex('dealer_bundles').where({ dealer_id: dealerC.id, bundle_id: ids[2] }).first('selling_price');
    // 9,000,000,000,000.00 + 1000% is above 2^53 - 1 minor units.
    await h.knex('bundles').where({ id: ids[2] }).update({ cost_price: 900_000_000_000_000 });
    try {
      const res = await h.http().patch(`/api/v1/dealer-bundles/${ids[2]}`).set(bearer(dealerC.token)).send({ markup_percent: 1000 });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ markup_percent: ['This markup gives a price too large to store: choose a smaller markup.'] });
      const so = await h.http().patch(`/api/v1/dealer-bundles/${ids[2]}`).set(bearer(dealerC.token)).query({ lng: 'so' }).send({ markup_percent: 1000 });
      expect(so.body.errors.markup_percent[0]).toBe('Kordhintani waxay keenaysaa qiime aad u weyn oo aan la kaydin karin: dooro kordhin ka yar.');
      expect(await h.knex('dealer_bundles').where({ dealer_id: dealerC.id, bundle_id: ids[2] }).first('selling_price')).toEqual(before);
    } finally {
      await h.knex('bundles').where({ id: ids[2] }).update({ cost_price: cost!.cost_price });
    }
  });

  it("never prices another dealer's catalogue: a dealer_id of another dealer is ignored, one bundle or bulk", async () => {
    const before = await h.knex('dealer_bundles').where({ dealer_id: dealerD.id }).orderBy('bundle_id').select('bundle_id', 'selling_price');
    const one = await h.http().patch(`/api/v1/dealer-bundles/${ids[4]}`).set(bearer(dealerC.token)).send({ dealer_id: dealerD.id, markup_percent: 50 });
    expect(one.status).toBe(200);
    expect(one.body.data.dealer_id).toBe(dealerC.id);
    const bulk = await h
      .http()
      .post('/api/v1/dealer-bundles/bulk')
      .set(bearer(dealerC.token))
      .send({ dealer_id: dealerD.id, category_id: markupCategory, markup_percent: 50 });
    expect(bulk.status).toBe(200);
    expect(await h.knex('dealer_bundles').where({ dealer_id: dealerD.id }).orderBy('bundle_id').select('bundle_id', 'selling_price')).toEqual(before);
    expect(await ownPrice(dealerC.id, ids[1])).toBe(150);
    // An admin names the dealer and prices its catalogue.
    const admin = await h.http().patch(`/api/v1/dealer-bundles/${ids[1]}`).set(bearer(root)).send({ dealer_id: dealerD.id, markup_percent: 20 });
    expect(admin.body.data).toMatchObject({ dealer_id: dealerD.id, selling_price: '1.20' });
  });

  it('for any cost and markup, the price is at least the cost and equals cost + round half up(cost × percent)', async () => {
    const cases = fc.sample(fc.tuple(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 1, max: 100_000 })), { numRuns: 12, seed: 28 });
    cases.push([1, 5000], [3, 1667], [99_999_999, 100_000], [70, 1250]);
    for (const [cost, basisPoints] of cases) {
      const percent = `${Math.floor(basisPoints / 100)}.${String(basisPoints % 100).padStart(2, '0')}`;
      const costText = `${Math.floor(cost / 100)}.${String(cost % 100).padStart(2, '0')}`;
      const changed = await h.http().patch(`/api/v1/bundles/${ids[4]}`).set(bearer(root)).send({ cost_price: costText, selling_price: costText });
      expect(changed.status).toBe(200);
      const res = await h.http().patch(`/api/v1/dealer-bundles/${ids[4]}`).set(bearer(dealerC.token)).send({ markup_percent: percent });
      expect(res.status, `${costText} + ${percent}%`).toBe(200);
      const price = await ownPrice(dealerC.id, ids[4]);
      expect(Number(price), `${costText} + ${percent}%`).toBe(cost + Math.floor((cost * basisPoints + 5000) / 10000));
      expect(Number(price)).toBeGreaterThanOrEqual(cost);
    }
  });
});
