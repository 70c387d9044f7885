import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { findStorefrontDealer, storefrontDealer, storefrontProviders, type StorefrontDealerRow } from './storefront.service.ts';
import { shopCacheKey, storefrontCache } from './storefront-cache.ts';
import { pickLanguage } from '../i18n/server-i18n.ts';
import { dealerIcon, dealerOgImage, OG_HEIGHT, OG_WIDTH } from './dealer-icons.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { rootKnex as rootDb } from '../database/unit-of-work.ts';

/**
 * The storefront's pages (README.md, "Storefront"), served by the API process: /dealer/{code}/... answer
 * the built app with the dealer's title, description and Open Graph tags written into the HTML (a
 * link shared in WhatsApp previews with the shop's name and logo), a manifest and icons per dealer
 * so each shop installs as its own app, and the service worker at /customer-sw.js.
 */
export const STOREFRONT_DIST = path.join(PROJECT_ROOT, 'storefront', 'dist');
const DEFAULT_THEME = '#3B82F6';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The dealer code of a storefront URL: trimmed; an empty one is ignored (docs/product.md section 5). */
const codeOf = (req: Request) => decodeURIComponent(String(req.params.code ?? '')).trim();

export function storefrontPages(db: Knex, storage: FileStorage, opts: { cacheTemplate: boolean }): Router {
  const router = express.Router();
  let template: string | null = null;
  const page = () => {
    // Read once in production; again on each request while developing (a fresh build shows at once).
    if (template === null || !opts.cacheTemplate) {
      const file = path.join(STOREFRONT_DIST, 'index.html');
      template = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    }
    return template;
  };
  const origin = (req: Request) => `${req.protocol}://${req.get('host')}`;
  const display = (d: StorefrontDealerRow) => d.company_name || d.name;

  // Scripts and styles as the build compressed them (storefront/vite.config.ts: name.js.br, name.js.gz),
  // in the encoding the browser takes; else express.static below answers the plain file.
  router.get('/storefront/assets/:file', (req, res, next) => {
    const name = String(req.params.file);
    const type = /^[\w.-]+\.(js|css|svg)$/.exec(name)?.[1];
    if (!type) return next();
    res.vary('Accept-Encoding');
    const encoding = encodingOf(req);
    const file = encoding && path.join(STOREFRONT_DIST, 'assets', `${name}.${encoding === 'br' ? 'br' : 'gz'}`);
    if (!file || !fs.existsSync(file)) return next();
    res.setHeader('Content-Encoding', encoding);
    res.type(type).sendFile(file, { immutable: true, maxAge: '1y' });
  });
  router.use('/storefront', express.static(STOREFRONT_DIST, { index: false, immutable: true, maxAge: '1y' }), (_req, res) => res.status(404).end());

  // The service worker: never cached by the browser's HTTP cache, so an update is seen at once.
  router.get('/customer-sw.js', (req, res) => {
    const file = path.join(STOREFRONT_DIST, 'customer-sw.js');
    if (!fs.existsSync(file)) return res.status(404).type('text').send('Not found');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Service-Worker-Allowed', '/dealer/');
    sendCompressed(req, res.type('application/javascript'), fs.readFileSync(file));
  });

  router.get('/dealer/:code/manifest.webmanifest', async (req, res: Response) => {
    let dealer: StorefrontDealerRow;
    try {
      dealer = await findStorefrontDealer(db, codeOf(req));
    } catch {
      return res.status(404).json({ success: false, message: 'Not found' });
    }
    const base = `/dealer/${encodeURIComponent(dealer.dealer_code)}`;
    const theme = dealer.brand_color && /^#[0-9a-f]{6}$/i.test(dealer.brand_color) ? dealer.brand_color : DEFAULT_THEME;
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/manifest+json').send(
      JSON.stringify({
        id: base,
        // docs/product.md section 3: '{dealer name} - Internet Services'.
        name: `${dealer.name} - Internet Services`,
        short_name: display(dealer).slice(0, 24),
        description: dealer.description ?? `${display(dealer)}: data bundles for every network`,
        start_url: base,
        scope: base,
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: theme,
        icons: [
          { src: `${base}/icon-192.png`, sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: `${base}/icon-512.png`, sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: `${base}/icon-512.png`, sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
        shortcuts: [
          { name: 'Bundles', url: `${base}#bundles`, icons: [{ src: `${base}/icon-192.png`, sizes: '192x192', type: 'image/png' }] },
          { name: 'Categories', url: `${base}#categories`, icons: [{ src: `${base}/icon-192.png`, sizes: '192x192', type: 'image/png' }] },
        ],
      }),
    );
  });

  router.get('/dealer/:code/icon-:size.png', async (req, res) => {
    const size = Number(req.params.size);
    if (size !== 192 && size !== 512) return res.status(404).end();
    let dealer: StorefrontDealerRow;
    try {
      dealer = await findStorefrontDealer(db, codeOf(req));
    } catch {
      return res.status(404).end();
    }
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('image/png').send(await dealerIcon(dealer, size, storage));
  });

  // The picture of a shared link (og:image): the logo, or the initials, above the shop's name on its colour.
  router.get('/dealer/:code/og.png', async (req, res) => {
    let dealer: StorefrontDealerRow;
    try {
      dealer = await findStorefrontDealer(db, codeOf(req));
    } catch {
      return res.status(404).end();
    }
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('image/png').send(await dealerOgImage(dealer, storage));
  });

  // Every storefront page: the app, with this dealer's head.
  router.get(['/dealer/:code', '/dealer/:code/{*rest}'], async (req, res) => {
    const html = page();
    if (!html) return res.status(503).type('text').send('The storefront is not built yet: run npm run build.');
    const code = codeOf(req);
    let dealer: StorefrontDealerRow | null = null;
    try {
      if (code) dealer = await findStorefrontDealer(db, code);
    } catch {
      dealer = null;
    }
    // /dealer/qaran is the shop saved as QARAN: one address per shop (its offline data, its installed app).
    if (dealer && code !== dealer.dealer_code) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const rest = ([] as string[])
        .concat(req.params.rest ?? [])
        .map(encodeURIComponent)
        .join('/');
      return res.redirect(301, `/dealer/${encodeURIComponent(dealer.dealer_code)}${rest ? `/${rest}` : ''}${query}`);
    }
    const cookieLng = /(?:^|;\s*)i18next=([a-z]{2})/.exec(req.get('cookie') ?? '')?.[1];
    const lng = pickLanguage(req.query.lng ?? cookieLng, req.get('accept-language'));
    // An order's page (/dealer/{code}/order/{reference}): its own title, kept out of search engines.
    // The order itself is not looked up here: a shared link's preview says no more than its URL.
    const rest = ([] as string[]).concat(req.params.rest ?? []);
    const order = dealer && rest.length === 2 && rest[0] === 'order' && /^[A-Za-z0-9]{1,40}$/.test(rest[1]) ? rest[1].toUpperCase() : null;
    // The first screen's data and words come inside the page: a phone on a slow network starts
    // drawing without waiting for three more round trips (README, Benchmarks: Lighthouse).
    const boot = dealer ? await bootData(dealer, lng) : null;
    const title = !dealer ? notFoundWords(lng).title : order ? orderTitle(lng, order, display(dealer)) : shopTitle(lng, dealer.name);
    // The shared link's preview in the visitor's language: the shop's description as translated, else our words.
    const description = boot ? describe(lng, boot.dealer as BootDealer) : notFoundWords(lng).text;
    const base = dealer ? `/dealer/${encodeURIComponent(dealer.dealer_code)}` : null;
    // Every shop has a picture for its shared links: its logo, or its initials, with its name (og.png).
    const image = base ? `${origin(req)}${base}/og.png` : null;
    const brand = dealer?.brand_color && /^#[0-9a-f]{3,8}$/i.test(dealer.brand_color) ? dealer.brand_color : null;
    const firstBanner = (boot?.dealer as { banners?: { image: string }[] } | undefined)?.banners?.[0]?.image;
    const head = [
      `<title>${escapeHtml(title)}</title>`,
      `<meta name="description" content="${escapeHtml(description)}">`,
      `<meta property="og:type" content="website">`,
      `<meta property="og:title" content="${escapeHtml(title)}">`,
      `<meta property="og:description" content="${escapeHtml(description)}">`,
      `<meta property="og:url" content="${escapeHtml(`${origin(req)}${req.originalUrl.split('?')[0]}`)}">`,
      image ? `<meta property="og:image" content="${escapeHtml(image)}">` : '',
      image ? `<meta property="og:image:type" content="image/png">` : '',
      image ? `<meta property="og:image:width" content="${OG_WIDTH}">` : '',
      image ? `<meta property="og:image:height" content="${OG_HEIGHT}">` : '',
      image ? `<meta property="og:image:alt" content="${escapeHtml(display(dealer!))}">` : '',
      `<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">`,
      order ? `<meta name="robots" content="noindex">` : '',
      `<meta name="theme-color" content="${escapeHtml(dealer?.brand_color || DEFAULT_THEME)}">`,
      base ? `<link rel="manifest" href="${base}/manifest.webmanifest">` : '',
      base ? `<link rel="apple-touch-icon" href="${base}/icon-192.png">` : '',
      base ? `<link rel="icon" type="image/png" sizes="192x192" href="${base}/icon-192.png">` : '',
      // The shop's colour from the first paint (the app sets the same variable).
      brand ? `<style>html:root{--brand:${brand}}</style>` : '',
      firstBanner && !req.params.rest ? `<link rel="preload" as="image" href="${escapeHtml(firstBanner)}" fetchpriority="high">` : '',
      // JSON, not script: never executed, so the strict CSP stays as it is.
      boot ? `<script id="storefront-boot" type="application/json">${JSON.stringify(boot).replace(/</g, '\\u003c')}</script>` : '',
    ]
      .filter(Boolean)
      .join('\n    ');
    res.setHeader('Cache-Control', 'no-cache');
    // The page's language and direction from the first paint (Arabic right to left), as the app sets them.
    const root = `<html lang="${lng === 'ae' ? 'ar' : lng}" dir="${lng === 'ae' ? 'rtl' : 'ltr'}">`;
    const body = html
      .replace(/<html[^>]*>/, root)
      .replace(/<title>[^<]*<\/title>/, '')
      .replace('<!--storefront-head-->', () => head);
    // Compressed: the page carries the first screen's data and words (a third of the bytes on a slow network).
    sendCompressed(req, res.status(dealer ? 200 : 404).type('html'), body);
  });
  return router;
}

/** The better encoding the browser takes (Chromium sends "gzip, deflate, br, zstd"), or none. */
const encodingOf = (req: Request) => (req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : null);

/** A page or script made (or read) per request, compressed quickly in the encoding the browser takes. */
function sendCompressed(req: Request, res: Response, body: string | Buffer) {
  res.vary('Accept-Encoding');
  const encoding = encodingOf(req);
  if (!encoding) return res.send(body);
  res.setHeader('Content-Encoding', encoding);
  res.send(encoding === 'br' ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }) : zlib.gzipSync(body, { level: 6 }));
}

const bundles = new Map<string, unknown>();
/** The storefront's words in one language (locales/{lng}/storefront.json), read once. */
function storefrontWords(lng: string): unknown {
  if (!bundles.has(lng)) {
    const file = path.join(PROJECT_ROOT, 'locales', lng, 'storefront.json');
    bundles.set(lng, fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});
  }
  return bundles.get(lng);
}

/** "Order RC7K3M9Q2XPA – Shop" in the visitor's language (storefront.json order.page_title). */
function orderTitle(lng: string, reference: string, shop: string): string {
  const words = storefrontWords(lng) as { order?: { page_title?: string } };
  const template = words.order?.page_title ?? 'Order {{reference}} – {{shop}}';
  return template.replace('{{reference}}', reference).replace('{{shop}}', shop);
}

type BootDealer = { dealer?: { name: string; company_name: string | null; description: string | null } };

/** A shop's description in the visitor's language (translated by the dealer), else "Buy data bundles from {shop}." in it. */
function describe(lng: string, boot: BootDealer): string {
  const d = boot.dealer;
  if (d?.description) return d.description;
  const words = storefrontWords(lng) as { shop?: { meta_description?: string } };
  return (words.shop?.meta_description ?? 'Buy data bundles from {{shop}}.').replace('{{shop}}', d?.company_name || d?.name || '');
}

/** "Shop not found" and why, in the visitor's language. */
function notFoundWords(lng: string): { title: string; text: string } {
  const words = storefrontWords(lng) as { not_found?: { title?: string; text?: string } };
  return { title: words.not_found?.title ?? 'Shop not found', text: words.not_found?.text ?? 'This shop was not found or is closed.' };
}

/** "{dealer name} - Internet Services" (docs/product.md section 3), in the visitor's language as the app writes it. */
function shopTitle(lng: string, name: string): string {
  const words = storefrontWords(lng) as { shop?: { internet_services?: string } };
  return `${name} - ${words.shop?.internet_services ?? 'Internet Services'}`;
}

/** What the first screen needs, from the same cache as the /client reads. */
async function bootData(dealer: StorefrontDealerRow, lng: string) {
  const code = dealer.dealer_code;
  const [dealerAnswer, providersAnswer] = await Promise.all([
    // The same entries as the /client reads in this language (the dealer's texts translated).
    storefrontCache.get(shopCacheKey('dealer', code, lng), async () => ({ success: true, data: await storefrontDealer(rootDb(), dealer, lng) })),
    storefrontCache.get(shopCacheKey('providers', code, lng), async () => ({ success: true, data: await storefrontProviders(rootDb(), dealer.id, lng) })),
  ]);
  // `at`: when this page was written. A copy the service worker keeps is older, and the app asks again
  // (a shop closed since is not shown open).
  return {
    code,
    lng,
    at: Date.now(),
    words: storefrontWords(lng),
    dealer: JSON.parse(dealerAnswer.body).data,
    providers: JSON.parse(providersAnswer.body).data,
  };
}
