import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { buy, makeShop, type Shop } from '../recharges/recharge-fixtures.ts';
import { STOREFRONT_DIST } from './storefront-pages.ts';

/**
 * What a customer reads of a shop is in the customer's words (issue 28 items 8 and 9): a purchase's
 * operator and bundle in the reader's language with the bundle to buy again, a payment method by
 * the wallet's own name (never an admin's label such as "EVC Plus (company)"), and a shared link's
 * preview (og:description) in the visitor's language.
 */
let h: Harness;
let root: string;
let shop: Shop;
let profitShop: Shop;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STOREFRONT_DIST, 'index.html')))
    execFileSync('npm', ['run', 'build', '--silent', '-w', 'storefront'], { cwd: PROJECT_ROOT, stdio: 'ignore' });
  h = await createHarness();
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '5' });
  profitShop = await makeShop(h, root, 'profit');
  const bundle = await h
    .knex('bundles')
    .join('categories', 'categories.id', 'bundles.category_id')
    .where('bundles.id', shop.bundleId)
    .first('categories.provider_id');
  await h
    .knex('bundles')
    .where({ id: shop.bundleId })
    .update({ translations: JSON.stringify({ ae: { name: 'باقة 1 جيجابايت' }, so: { name: '1 GB Maalinle' } }) });
  await h
    .knex('providers')
    .where({ id: bundle.provider_id })
    .update({ translations: JSON.stringify({ ae: { name: 'هرمود' } }) });
  // The company's method, named for the console.
  await h
    .knex('payment_methods')
    .where({ id: profitShop.methodId })
    .update({
      name: 'EVC Plus (company)',
      translations: JSON.stringify({ ae: { name: 'EVC Plus (الشركة)' }, so: { name: 'EVC Plus (shirkadda)' } }),
    });
});
afterAll(() => h.close());

describe("a purchase in the reader's language", () => {
  it('names the operator and the bundle in Arabic or Somali when translated, and says which bundle to buy again', async () => {
    const made = await buy(h, shop).set('Accept-Language', 'ar');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ bundle_name: 'باقة 1 جيجابايت', provider_name: 'هرمود', bundle_id: shop.bundleId });
    const ref = made.body.data.reference as string;
    const read = (lang?: string) => {
      const req = h.http().get(`/api/v1/client/recharge/${ref}`).set('dealer_code', shop.code);
      return lang ? req.set('Accept-Language', lang) : req;
    };
    expect((await read('ar')).body.data).toMatchObject({ bundle_name: 'باقة 1 جيجابايت', provider_name: 'هرمود', bundle_id: shop.bundleId });
    // Somali: the bundle translated, the operator as kept (no Somali name).
    expect((await read('so')).body.data).toMatchObject({ bundle_name: '1 GB Maalinle', provider_name: 'Hormuud' });
    expect((await read()).body.data).toMatchObject({ bundle_name: `1 GB ${shop.code}`, provider_name: 'Hormuud', bundle_id: shop.bundleId });
    // ?lng wins, as for every text.
    const byQuery = await h.http().get(`/api/v1/client/recharge/${ref}?lng=ae`).set('dealer_code', shop.code).set('Accept-Language', 'en');
    expect(byQuery.body.data.bundle_name).toBe('باقة 1 جيجابايت');
  });
});

describe('payment methods as customers know them', () => {
  it('shows the wallet by its own name, never the console label, in every language', async () => {
    for (const lang of ['en', 'ar', 'so']) {
      const res = await h.http().get('/api/v1/client/payment-methods').set('dealer_code', profitShop.code).set('Accept-Language', lang);
      expect(res.status).toBe(200);
      const mine = res.body.data.find((m: { id: number }) => m.id === profitShop.methodId);
      expect(mine.name, lang).toBe('EVC Plus');
      expect(JSON.stringify(res.body.data)).not.toMatch(/company|الشركة|shirkadda/);
    }
  });
});

describe("a shared link's preview", () => {
  it("describes the shop in the visitor's language: the dealer's translation, else our words", async () => {
    const en = await h.http().get(`/dealer/${shop.code}`);
    expect(en.text).toContain(`<meta property="og:description" content="Buy data bundles from Shop ${shop.code}.">`);
    const ar = await h.http().get(`/dealer/${shop.code}?lng=ae`);
    expect(ar.text).toContain(`<meta property="og:description" content="اشترِ باقات الإنترنت من Shop ${shop.code}.">`);
    const so = await h.http().get(`/dealer/${shop.code}`).set('Accept-Language', 'so');
    expect(so.text).toContain(`<meta property="og:description" content="Ka iibso xirmooyinka internetka Shop ${shop.code}.">`);
    await h
      .knex('dealer_details')
      .where({ user_id: profitShop.dealerId })
      .update({ description: 'Bundles for every network', translations: JSON.stringify({ ae: { description: 'باقات لكل شبكة' } }) });
    const translated = await h.http().get(`/dealer/${profitShop.code}?lng=ae`);
    expect(translated.text).toContain('<meta property="og:description" content="باقات لكل شبكة">');
    expect(translated.text).toContain('<meta name="description" content="باقات لكل شبكة">');
    expect((await h.http().get(`/dealer/${profitShop.code}`)).text).toContain('<meta property="og:description" content="Bundles for every network">');
    const unknown = await h.http().get('/dealer/NOSUCHSHOP?lng=ae');
    expect(unknown.text).toContain('<title>المتجر غير موجود</title>');
  });
});
