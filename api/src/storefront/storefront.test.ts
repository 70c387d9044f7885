import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * The storefront reads: public fields only, the dealer's prices and never a cost, 404 for an
 * unknown or inactive dealer, the dealer code from either header or the query, and a cache that
 * any catalogue change invalidates.
 */
let h: Harness;
let root: string;
let dealer: { id: number; token: string };
let bundleId: number;
let categoryId: number;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const email = 'shop@test.example';
  const id = await h.insertUser({ name: 'Xamar Data', email, user_type: 'dealer', dealer_code: 'XAMAR', phone: '+252615000000' }, 'dealer');
  await h.knex('dealer_details').insert({
    user_id: id,
    brand_color: '#0A7D32',
    company_name: 'Xamar Data Ltd',
    description: 'Bundles in Hodan',
    pricing_model: 'cost',
    contact_email: 'owner@xamar.so',
    created_at: '2026-01-01 00:00:00.000',
    updated_at: '2026-01-01 00:00:00.000',
  });
  dealer = { id, token: await h.login(email) };
  const p = await h
    .http()
    .post('/api/v1/internet-providers')
    .set(bearer(root))
    .send({ name: 'Hormuud', code: 'HOR', phone_prefixes: ['61', '77'] });
  const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: p.body.data.id, name: 'Daily' });
  categoryId = c.body.data.id;
  const b = await h
    .http()
    .post('/api/v1/bundles')
    .set(bearer(root))
    .send({ category_id: categoryId, name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, cost_price: '0.40', selling_price: '0.50' });
  bundleId = b.body.data.id;
  await h
    .http()
    .post('/api/v1/bundles')
    .set(bearer(root))
    .send({ category_id: categoryId, name: 'Not offered', validity_days: 1, cost_price: '0.40', selling_price: '0.50' });
  expect((await h.http().patch(`/api/v1/dealer-bundles/${bundleId}`).set(bearer(dealer.token)).send({ status: 'active', selling_price: '0.55' })).status).toBe(
    200,
  );
  await h.http().post('/api/v1/banners').set(bearer(dealer.token)).field('title', 'Weekend offer').attach('image', PNG_1PX, 'b.png');
  await h.http().post('/api/v1/banners').set(bearer(root)).field('title', 'For every shop').attach('image', PNG_1PX, 'b.png');
  await h.http().post('/api/v1/contacts').set(bearer(dealer.token)).send({ type: 'whatsapp', label: 'Orders', value: '+252 61 5000000' });
  await h.http().post('/api/v1/payment-methods').set(bearer(dealer.token)).send({ name: 'EVC Plus', type: 'evc_plus', account_number: '615000000' });
  await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Company Zaad', type: 'zaad', account_number: '634000000' });
});
afterAll(() => h.close());

describe('GET /client/dealer', () => {
  it('answers the public profile, contacts and banners, and nothing private', async () => {
    const res = await h.http().get('/api/v1/client/dealer').set('dealer_code', 'XAMAR');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.dealer).toEqual({
      code: 'XAMAR',
      name: 'Xamar Data',
      company_name: 'Xamar Data Ltd',
      logo: null,
      brand_color: '#0A7D32',
      description: 'Bundles in Hodan',
      website: null,
      // The shop's contact email (My shop, "What customers see") first, then its contact entries.
      contacts: [
        { type: 'email', label: null, value: 'owner@xamar.so' },
        { type: 'whatsapp', label: 'Orders', value: '+252 61 5000000' },
      ],
      currency: 'USD',
    });
    expect(res.body.data.banners.map((b: { title: string }) => b.title).sort()).toEqual(['For every shop', 'Weekend offer']);
    expect(JSON.stringify(res.body)).not.toMatch(/shop@test|pricing_model|615000000"/);
  });

  it('takes the code from X-Dealer-Code or the query too, and says 404 for an unknown or inactive dealer', async () => {
    expect((await h.http().get('/api/v1/client/dealer').set('X-Dealer-Code', 'XAMAR')).status).toBe(200);
    expect((await h.http().get('/api/v1/client/dealer?dealer_code=XAMAR')).status).toBe(200);
    const unknown = await h.http().get('/api/v1/client/dealer').set('dealer_code', 'NOPE');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      code: 'storefront.dealer_not_found',
      message: 'This shop was not found or is closed. Check the dealer code.',
    });
    const missing = await h.http().get('/api/v1/client/dealer');
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ dealer_code: ['The dealer code is missing. Open the shop from its link.'] });
    // Deactivating the dealer closes its shop on the next read (the change clears the cache).
    expect((await h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).send({ status: 'inactive' })).status).toBe(200);
    expect((await h.http().get('/api/v1/client/dealer').set('dealer_code', 'XAMAR')).status).toBe(404);
    expect((await h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).send({ status: 'active' })).status).toBe(200);
    expect((await h.http().get('/api/v1/client/dealer').set('dealer_code', 'XAMAR')).status).toBe(200);
    // Deactivation ended the dealer's sessions.
    dealer.token = await h.login('shop@test.example');
  });
});

describe('GET /client/dealer/providers', () => {
  it('answers the offered tree at the dealer price, never the cost', async () => {
    const res = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR');
    expect(res.status).toBe(200);
    expect(res.body.data.providers).toHaveLength(1);
    const [provider] = res.body.data.providers;
    expect(provider).toMatchObject({ name: 'Hormuud', code: 'HOR', phone_prefixes: ['61', '77'] });
    expect(provider.categories).toHaveLength(1);
    expect(provider.categories[0].bundles).toEqual([
      { id: bundleId, h_id: expect.any(String), name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.55' },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/cost/);
  });

  it('is cached with an ETag (304 on a repeat) and shows a price change on the next read', async () => {
    const first = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR');
    expect(first.headers.etag).toBeTruthy();
    expect(first.headers['cache-control']).toBe('public, no-cache');
    const again = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR').set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    expect((await h.http().patch(`/api/v1/dealer-bundles/${bundleId}`).set(bearer(dealer.token)).send({ selling_price: '0.65' })).status).toBe(200);
    const after = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR').set('If-None-Match', first.headers.etag);
    expect(after.status).toBe(200);
    expect(after.body.data.providers[0].categories[0].bundles[0].price).toBe('0.65');
    // A company-side change (the bundle switched off) also shows at once.
    await h.http().patch(`/api/v1/bundles/${bundleId}`).set(bearer(root)).send({ status: 'inactive' });
    const off = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR');
    expect(off.body.data.providers).toEqual([]);
    await h.http().patch(`/api/v1/bundles/${bundleId}`).set(bearer(root)).send({ status: 'active' });
  });

  it('does not offer a bundle whose cost rose above the dealer price', async () => {
    await h.http().patch(`/api/v1/bundles/${bundleId}`).set(bearer(root)).send({ cost_price: '0.70', selling_price: '0.80' });
    const res = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'XAMAR');
    expect(res.body.data.providers).toEqual([]);
    const console = await h.http().get(`/api/v1/dealer-bundles/${bundleId}`).set(bearer(dealer.token));
    expect(console.body.data).toMatchObject({ below_cost: true, selling_price: '0.65', cost_price: '0.70' });
    await h.http().patch(`/api/v1/bundles/${bundleId}`).set(bearer(root)).send({ cost_price: '0.40', selling_price: '0.50' });
  });
});

describe('GET /client/contacts and /client/payment-methods', () => {
  it('list the contacts, and the payment methods the pricing model sends the customer to', async () => {
    const contacts = await h.http().get('/api/v1/client/contacts').set('dealer_code', 'XAMAR');
    expect(contacts.body.data).toEqual([
      { id: -2, type: 'email', label: null, value: 'owner@xamar.so' },
      { id: expect.any(Number), type: 'whatsapp', label: 'Orders', value: '+252 61 5000000' },
    ]);
    // "Cost + Profit": the customer pays the dealer.
    const cost = await h.http().get('/api/v1/client/payment-methods').set('dealer_code', 'XAMAR');
    expect(cost.body.data.map((m: { name: string }) => m.name)).toEqual(['EVC Plus']);
    // "Profit Only": the company collects.
    expect((await h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).send({ pricing_model: 'profit' })).status).toBe(200);
    const profit = await h.http().get('/api/v1/client/payment-methods').set('dealer_code', 'XAMAR');
    // The company's method, by the wallet's own name: "Company Zaad" is the console's label (issue 28 item 8).
    expect(profit.body.data.map((m: { name: string; type: string }) => [m.name, m.type])).toEqual([['Zaad', 'zaad']]);
  });
});
