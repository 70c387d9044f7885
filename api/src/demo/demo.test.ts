import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { seedDemoData, DEMO_DEALER } from './demo-data.ts';
import { seedDemoCatalogue } from './demo-catalogue.ts';
import { seedDemoStorefront } from './demo-storefront.ts';
import { seedDemoHistory, SECOND_DEALER } from './demo-history.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { localDiskStorage } from '../uploads/storage.ts';
import path from 'node:path';

/** The demo data a new user sees first, made by the same services as the console, and idempotent. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('demo data', () => {
  it('makes the demo sign-ins and a Somali catalogue once, through the services', async () => {
    for (let run = 0; run < 2; run++) {
      await seedDemoData(h.knex);
      await seedDemoCatalogue(h.knex);
      await seedDemoStorefront(h.knex, localDiskStorage(path.join(h.dataDir, 'storage')));
    }
    const dealer = await h.knex('users').where({ email: DEMO_DEALER.email }).first();
    expect(dealer).toMatchObject({ user_type: 'dealer', dealer_code: 'DEMO' });
    expect(await h.knex('wallets').where({ dealer_id: dealer.id })).toHaveLength(1);
    expect(await h.knex('dealer_details').where({ user_id: dealer.id }).first()).toMatchObject({ pricing_model: 'cost', company_name: 'Demo Telecom Dealer' });
    const providers = await h.knex('providers').orderBy('sort_order').pluck('code');
    expect(providers).toEqual(['HORMUUD', 'SOMTEL', 'GOLIS', 'TELESOM']);
    const token = await h.login('admin@example.com', 'Admin@12345');
    const hormuud = (await h.http().get('/api/v1/internet-providers?q=HORMUUD').set(bearer(token))).body.data[0];
    expect(hormuud.phone_prefixes).toEqual(['61', '77']);
    const bundles = await h.http().get(`/api/v1/bundles?provider_id=${hormuud.id}&per_page=100`).set(bearer(token));
    expect(bundles.body.meta.total).toBe(8);
    expect(bundles.body.data.find((b: { name: string }) => b.name === '1 GB Daily')).toMatchObject({
      cost_price: '0.40',
      selling_price: '0.50',
      data_volume_mb: 1024,
      validity_days: 1,
    });
    expect(bundles.body.data.find((b: { name: string }) => b.name === 'Unlimited 30 days').data_volume_mb).toBeNull();
  });

  it('opens a working DEMO storefront: three operators, prices over cost, banners, payment methods and contacts', async () => {
    const shop = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'DEMO');
    expect(shop.body.data.providers.map((p: { code: string }) => p.code)).toEqual(['HORMUUD', 'SOMTEL', 'GOLIS']);
    const hormuud = shop.body.data.providers[0];
    expect(hormuud.categories.map((c: { name: string }) => c.name)).toEqual(['Daily', 'Weekly', 'Monthly', 'Unlimited']);
    const prices = Object.fromEntries(
      hormuud.categories.flatMap((c: { bundles: { name: string; price: string }[] }) => c.bundles.map((b) => [b.name, b.price])),
    );
    expect(prices).toMatchObject({ '1 GB Daily': '0.50', '10 GB Monthly': '5.75', 'Unlimited 30 days': '25.10' });
    const profile = await h.http().get('/api/v1/client/dealer').set('dealer_code', 'DEMO');
    expect(profile.body.data.banners).toHaveLength(3);
    const banner = await h.http().get(profile.body.data.banners[0].image);
    expect(banner.status).toBe(200);
    expect(banner.headers['content-type']).toBe('image/png');
    expect(profile.body.data.dealer.contacts.map((c: { type: string }) => c.type)).toEqual(['whatsapp', 'phone', 'email', 'address', 'email']);
    const pay = await h.http().get('/api/v1/client/payment-methods').set('dealer_code', 'DEMO');
    expect(pay.body.data.map((m: { type: string }) => m.type)).toEqual(['evc_plus', 'edahab']);
    expect((await h.knex('areas').where({ type: 'region' })).length).toBe(4);
  });

  it('speaks Arabic and Somali on the DEMO storefront: names, banners, description, contacts and payment instructions', async () => {
    const ar = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'DEMO').set('Accept-Language', 'ar');
    expect(ar.body.data.providers[0].name).toBe('هرمود');
    expect(ar.body.data.providers[0].categories[0]).toMatchObject({ name: 'يومي' });
    expect(ar.body.data.providers[0].categories[0].bundles.map((b: { name: string }) => b.name)).toContain('1 جيجابايت يومي');
    const so = await h.http().get('/api/v1/client/dealer').set('dealer_code', 'DEMO').set('Accept-Language', 'so');
    expect(so.body.data.dealer.description).toMatch(/^Xirmooyin internet/);
    expect(so.body.data.dealer.contacts[0].label).toBe('Dalabaadka WhatsApp');
    expect(so.body.data.banners[0].title).toBe('Xog labanlaaban Jimce kasta');
    const pay = await h.http().get('/api/v1/client/payment-methods').set('dealer_code', 'DEMO').set('Accept-Language', 'ar');
    expect(pay.body.data[0].instructions).toMatch(/^اطلب \*712\*/);
  });

  it('writes three weeks of sales for DEMO and HODAN through the sale services, ledgers right, dated in the past', async () => {
    for (let run = 0; run < 2; run++) await seedDemoHistory(h.knex);
    const hodan = await h.knex('users').where({ email: SECOND_DEALER.email }).first();
    expect(await h.knex('dealer_details').where({ user_id: hodan.id }).first()).toMatchObject({ pricing_model: 'profit' });
    const recharges = await h.knex('recharges');
    expect(recharges.length).toBeGreaterThan(60);
    expect(new Set(recharges.map((r: { dealer_id: number }) => r.dealer_id)).size).toBe(2);
    // Declined and refused by the operator: nothing taken from the customer, so Failed (never Refunded).
    expect(new Set(recharges.map((r: { status: string }) => r.status))).toEqual(new Set(['completed', 'failed']));
    const oldest = Math.min(...recharges.map((r: { created_at: string }) => Date.parse(`${r.created_at.replace(' ', 'T')}Z`)));
    expect(Date.now() - oldest).toBeGreaterThan(20 * 86_400_000);
    expect(Math.max(...recharges.map((r: { created_at: string }) => Date.parse(`${r.created_at.replace(' ', 'T')}Z`)))).toBeLessThan(Date.now());
    for (const w of await h.knex('wallets')) expect(await ledgerSum(h.knex, w.id)).toBe(Number(w.balance));
    const token = await h.login('admin@example.com', 'Admin@12345');
    const report = await h.http().get('/api/v1/reports/sales?group_by=dealer').set(bearer(token));
    expect(report.body.data.rows.map((r: { label: string }) => r.label).sort()).toEqual(['Demo Dealer', 'Hodan Data']);
    expect(report.body.data.totals.count).toBe(recharges.filter((r: { status: string }) => r.status === 'completed').length);
  });
});
