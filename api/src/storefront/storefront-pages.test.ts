import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { buy, fastWorker, makeShop, type Shop } from '../recharges/recharge-fixtures.ts';
import { STOREFRONT_DIST } from './storefront-pages.ts';

/**
 * The storefront as the server delivers it: each shop URL with its own title and Open Graph tags,
 * a clear 404 page, a manifest and icons per dealer, the service worker, and the customer's
 * session (its purchases, its CSRF token).
 */
let h: Harness;
let root: string;
let shop: Shop;

beforeAll(async () => {
  if (!fs.existsSync(path.join(STOREFRONT_DIST, 'index.html')))
    execFileSync('npm', ['run', 'build', '--silent', '-w', 'storefront'], { cwd: PROJECT_ROOT, stdio: 'ignore' });
  h = await createHarness();
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '5' });
  await h.knex('users').where({ id: shop.dealerId }).update({ name: 'Xamar & Sons' });
  await h.knex('dealer_details').where({ user_id: shop.dealerId }).update({ brand_color: '#0A7D32', description: 'Bundles in "Hodan"' });
});
afterAll(() => h.close());

const pngSize = (b: Buffer) => [b.readUInt32BE(16), b.readUInt32BE(20)];

describe('shop pages', () => {
  it("write the dealer's title, description and Open Graph tags into the page (escaped)", async () => {
    const res = await h.http().get(`/dealer/${shop.code}/provider/1`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<title>Xamar &amp; Sons - Internet Services</title>');
    expect(res.text).toContain('<meta property="og:title" content="Xamar &amp; Sons - Internet Services">');
    expect(res.text).toContain('<meta name="description" content="Bundles in &quot;Hodan&quot;">');
    expect(res.text).toMatch(new RegExp(`<meta property="og:image" content="http://127\\.0\\.0\\.1:\\d+/dealer/${shop.code}/og\\.png">`));
    expect(res.text).toContain('<meta property="og:image:width" content="1200">');
    expect(res.text).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(res.text).toContain(`<link rel="manifest" href="/dealer/${shop.code}/manifest.webmanifest">`);
    expect(res.text).toContain('<meta name="theme-color" content="#0A7D32">');
    expect(res.text).toMatch(/<script type="module"[^>]+src="\/storefront\/assets\//);
  });

  it("give an order's page its own title, kept out of search engines, in the visitor's language", async () => {
    const res = await h.http().get(`/dealer/${shop.code}/order/rc7k3m9q2xpa`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<title>Order RC7K3M9Q2XPA – Xamar &amp; Sons</title>');
    expect(res.text).toContain('<meta property="og:title" content="Order RC7K3M9Q2XPA – Xamar &amp; Sons">');
    expect(res.text).toContain('<meta name="robots" content="noindex">');
    // The app and the shop's first screen come with it (the order is looked up by the app: a 404 there says "not found").
    expect(res.text).toContain('id="storefront-boot"');
    expect(res.text).toMatch(/<script type="module"[^>]+src="\/storefront\/assets\//);
    const ar = await h.http().get(`/dealer/${shop.code}/order/RC7K3M9Q2XPA?lng=ae`);
    expect(ar.text).toContain('<title>الطلب RC7K3M9Q2XPA – Xamar &amp; Sons</title>');
    // Shop pages stay indexable; an unknown shop's order link is the shop's 404 page.
    expect((await h.http().get(`/dealer/${shop.code}`)).text).not.toContain('noindex');
    const unknown = await h.http().get('/dealer/NOSUCHSHOP/order/RC7K3M9Q2XPA');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('<title>Shop not found</title>');
  });

  it('answer an unknown or inactive code with a 404 page, not a blank one', async () => {
    const res = await h.http().get('/dealer/NOSUCHSHOP');
    expect(res.status).toBe(404);
    expect(res.text).toContain('<title>Shop not found</title>');
    expect(res.text).not.toContain('rel="manifest"');
  });
});

describe('installable per dealer', () => {
  it('serves a manifest with the fields of the specification', async () => {
    const res = await h.http().get(`/dealer/${shop.code}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/manifest\+json/);
    const m = JSON.parse(res.text);
    expect(m).toMatchObject({
      name: 'Xamar & Sons - Internet Services',
      start_url: `/dealer/${shop.code}`,
      scope: `/dealer/${shop.code}`,
      display: 'standalone',
      theme_color: '#0A7D32',
    });
    expect(m.shortcuts.map((s: { name: string }) => s.name)).toEqual(['Bundles', 'Categories']);
    expect(m.icons.map((i: { sizes: string }) => i.sizes)).toEqual(['192x192', '512x512', '512x512']);
    expect((await h.http().get('/dealer/NOSUCHSHOP/manifest.webmanifest')).status).toBe(404);
  });

  it('makes square PNG icons from the logo at 192 and 512 px', async () => {
    for (const size of [192, 512]) {
      const res = await h.http().get(`/dealer/${shop.code}/icon-${size}.png`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(pngSize(res.body as Buffer)).toEqual([size, size]);
    }
  });

  it('draws a shop without a logo as its initials on its brand colour (icons), cached an hour', async () => {
    const { default: sharp } = await import('sharp');
    const bare = await makeShop(h, root, 'profit');
    await h.knex('dealer_details').where({ user_id: bare.dealerId }).update({ logo_path: null, brand_color: '#7C2D12', company_name: 'Hodan Data' });
    for (const size of [192, 512]) {
      const res = await h.http().get(`/dealer/${bare.code}/icon-${size}.png`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      const png = res.body as Buffer;
      expect(pngSize(png)).toEqual([size, size]);
      // The corner is the brand colour; the middle has the (white) letters: not a plain square.
      const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([...data.subarray(0, 3)]).toEqual([0x7c, 0x2d, 0x12]);
      let light = 0;
      for (let i = 0; i < data.length; i += info.channels) if (data[i] > 200 && data[i + 1] > 200 && data[i + 2] > 200) light++;
      expect(light / (size * size)).toBeGreaterThan(0.02);
    }
  });

  it('serves a 1200x630 Open Graph picture per shop (logo or initials, with the name), cached an hour; 404 for an unknown shop', async () => {
    const { default: sharp } = await import('sharp');
    const bare = await makeShop(h, root, 'profit');
    await h.knex('dealer_details').where({ user_id: bare.dealerId }).update({ logo_path: null, brand_color: '#0A7D32' });
    for (const code of [shop.code, bare.code]) {
      const res = await h.http().get(`/dealer/${code}/og.png`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(pngSize(res.body as Buffer)).toEqual([1200, 630]);
      const stats = await sharp(res.body as Buffer).stats();
      expect(stats.isOpaque).toBe(true);
      expect(stats.channels[0].stdev).toBeGreaterThan(5); // more than a plain colour
    }
    const page = await h.http().get(`/dealer/${bare.code}`);
    expect(page.text).toContain(`/dealer/${bare.code}/og.png">`);
    expect((await h.http().get('/dealer/NOSUCHSHOP/og.png')).status).toBe(404);
  });

  it('writes the Arabic page right to left from the first paint, with its title in Arabic', async () => {
    const res = await h.http().get(`/dealer/${shop.code}?lng=ae`);
    expect(res.text).toContain('<html lang="ar" dir="rtl">');
    expect(res.text).toContain('<title>Xamar &amp; Sons - خدمات الإنترنت</title>');
    expect((await h.http().get(`/dealer/${shop.code}`)).text).toContain('<html lang="en" dir="ltr">');
  });

  it('serves the service worker uncached at /customer-sw.js', async () => {
    const res = await h.http().get('/customer-sw.js?dealer=DEMO');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toContain('DEALER_INFO');
  });

  it('defaults the theme colour to #3B82F6', async () => {
    const other = await makeShop(h, root, 'profit');
    await h.knex('dealer_details').where({ user_id: other.dealerId }).update({ brand_color: '' });
    const m = JSON.parse((await h.http().get(`/dealer/${other.code}/manifest.webmanifest`)).text);
    expect(m.theme_color).toBe('#3B82F6');
  });
});

describe("the customer's session", () => {
  it('lists the purchases made from this browser, kept in the database, and checks the CSRF token', async () => {
    const agent = h.agent();
    const session = await agent.get('/api/v1/client/session').set('dealer_code', shop.code);
    expect(session.status).toBe(200);
    expect(session.headers['set-cookie'][0]).toMatch(/^storefront\.sid=.*HttpOnly; SameSite=Lax/);
    const token = session.body.data.csrf_token as string;
    const body = {
      bundle_id: shop.bundleId,
      payment_method_id: shop.methodId,
      phone: '0615123456',
      payer_phone: '0617000021',
      idempotency_key: 'session-key-0001',
    };
    const noToken = await agent.post('/api/v1/client/recharge').set('dealer_code', shop.code).send(body);
    expect(noToken.status).toBe(403);
    expect(noToken.body.message).toBe('The page expired. Reload it and try again.');
    const bought = await agent.post('/api/v1/client/recharge').set('dealer_code', shop.code).set('X-CSRF-Token', token).send(body);
    expect(bought.status).toBe(201);
    const mine = await agent.get('/api/v1/client/recharges').set('dealer_code', shop.code);
    expect(mine.body.data.map((r: { id: number }) => r.id)).toEqual([bought.body.data.id]);
    // Another browser (no cookie) sees none of them.
    expect((await h.http().get('/api/v1/client/recharges').set('dealer_code', shop.code)).body.data).toEqual([]);
    expect(Number((await h.knex('customer_sessions').count({ n: '*' }).first())!.n)).toBeGreaterThanOrEqual(1);
    // Without any cookie (an API client) a purchase needs no token.
    expect((await buy(h, shop)).status).toBe(201);
    await fastWorker(h).drain();
    const settled = await agent.get('/api/v1/client/recharges').set('dealer_code', shop.code);
    expect(settled.body.data[0].status).toBe('completed');
    expect((await h.http().get(`/api/v1/recharges/${bought.body.data.id}`).set(bearer(root))).status).toBe(200);
  });

  it('lets a purchase be read by its reference, or by id only from the session that made it: a stranger walking ids gets 404s', async () => {
    const agent = h.agent();
    const token = (await agent.get('/api/v1/client/session').set('dealer_code', shop.code)).body.data.csrf_token as string;
    const body = {
      bundle_id: shop.bundleId,
      payment_method_id: shop.methodId,
      phone: '0615123457',
      payer_phone: '0617000021',
      idempotency_key: 'privacy-key-0001',
    };
    const bought = await agent.post('/api/v1/client/recharge').set('dealer_code', shop.code).set('X-CSRF-Token', token).send(body);
    expect(bought.status).toBe(201);
    const { id, h_id: hId, reference } = bought.body.data as { id: number; h_id: string; reference: string };
    // The buyer's browser: by id, h_id and reference.
    for (const key of [id, hId, reference]) expect((await agent.get(`/api/v1/client/recharge/${key}`).set('dealer_code', shop.code)).status).toBe(200);
    // A stranger (no cookie, or another browser's session): ids and h_ids are 404, like an unknown purchase.
    const other = h.agent();
    await other.get('/api/v1/client/session').set('dealer_code', shop.code);
    const walked = await Promise.all(
      Array.from({ length: Math.max(id, 5) }, (_, i) => i + 1).flatMap((n) => [
        h.http().get(`/api/v1/client/recharge/${n}`).set('dealer_code', shop.code),
        other.get(`/api/v1/client/recharge/${n}`).set('dealer_code', shop.code),
      ]),
    );
    expect(walked.map((r) => r.status).filter((s) => s !== 404)).toEqual([]);
    expect(walked[0].body.message).toBe('This purchase was not found in this shop.');
    expect((await h.http().get(`/api/v1/client/recharge/${hId}`).set('dealer_code', shop.code)).status).toBe(404);
    // The reference is the proof: the order page's link works from any phone, in any case.
    const byRef = await h.http().get(`/api/v1/client/recharge/${reference.toLowerCase()}`).set('dealer_code', shop.code);
    expect(byRef.status).toBe(200);
    expect(byRef.body.data.reference).toBe(reference);
  });
});
