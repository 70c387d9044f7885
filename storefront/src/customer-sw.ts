/// <reference lib="webworker" />
import { precacheAndRoute, cleanupOutdatedCaches, matchPrecache } from 'workbox-precaching';
import { NavigationRoute, registerRoute, setCatchHandler } from 'workbox-routing';
import { NetworkFirst, StaleWhileRevalidate } from 'workbox-strategies';
import { ExpirationPlugin } from 'workbox-expiration';

/**
 * The storefront's service worker (/customer-sw.js, scope /dealer/): the app shell is precached,
 * pages are network-first with the last copy kept for offline visits, shop images are kept while
 * revalidated. The dealer's data lives in local storage (the app shows it offline); API calls are
 * never answered from here, so a purchase always needs the network.
 *
 * Every shop route works offline once the app is installed: a page never opened before (a
 * category, an order link) is answered with the app shell, which draws the page from the shop's
 * saved data (or says it has none).
 */
declare const self: ServiceWorkerGlobalScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

const SHELL = '/storefront/index.html';
const PAGES = 'storefront-pages';
/** /dealer/{code} and everything under it: the app's routes (router.ts). */
const SHOP_ROUTE = /^\/dealer\/[^/]+(?:\/.*)?$/;

/** A shop's start page, /dealer/{code}, of any page of it. */
const startOf = (pathname: string) => pathname.split('/').slice(0, 3).join('/');

/**
 * Offline and this page never kept: the precached app shell; failing that (a worker whose precache
 * was cleared), the shop's own start page as last kept (the same app, with the shop's head).
 */
async function offlinePage(url: URL): Promise<Response> {
  const shell = await matchPrecache(SHELL);
  if (shell) return shell;
  const cache = await caches.open(PAGES);
  return (await cache.match(startOf(url.pathname), { ignoreSearch: true })) ?? Response.error();
}

/**
 * A shop's page answered 404: the shop is closed (or gone). Every page of it kept here is dropped, so
 * that no later visit (offline, or a slow network past the timeout) is answered with it open.
 */
const forgetClosedShops = {
  fetchDidSucceed: async ({ request, response }: { request: Request; response: Response }) => {
    if (response.status === 404) {
      const shop = startOf(new URL(request.url).pathname);
      const cache = await caches.open(PAGES);
      for (const kept of await cache.keys()) {
        const path = new URL(kept.url).pathname;
        if (path === shop || path.startsWith(`${shop}/`)) await cache.delete(kept);
      }
    }
    return response;
  },
};

const pages = new NetworkFirst({ cacheName: PAGES, networkTimeoutSeconds: 4, plugins: [new ExpirationPlugin({ maxEntries: 50 }), forgetClosedShops] });
registerRoute(
  new NavigationRoute(
    async (options) => {
      try {
        // The network; else this very page as last kept.
        return await pages.handle(options);
      } catch {
        return offlinePage(options.url);
      }
    },
    { allowlist: [SHOP_ROUTE] },
  ),
);
registerRoute(
  ({ url }) =>
    url.pathname.startsWith('/storage/') ||
    /\/dealer\/[^/]+\/(icon-\d+\.png|og\.png|manifest\.webmanifest)$/.test(url.pathname) ||
    url.pathname.startsWith('/locales/'),
  new StaleWhileRevalidate({ cacheName: 'storefront-assets', plugins: [new ExpirationPlugin({ maxEntries: 200, maxAgeSeconds: 30 * 86400 })] }),
);

// Anything else that fails: a navigation still gets the app (which shows its not-found page).
setCatchHandler(async ({ request, url }) => (request.mode === 'navigate' ? offlinePage(url) : Response.error()));

/** Fetches and keeps a URL in a cache unless it is there already. */
async function keep(cacheName: string, url: string) {
  const cache = await caches.open(cacheName);
  if (await cache.match(url)) return;
  const res = await fetch(url, { credentials: 'same-origin' }).catch(() => null);
  if (res?.ok) await cache.put(url, res);
}

// The words of each language (i18n.ts LANGUAGES). Pages carry their language's words inline, so
// these files are otherwise never fetched; the app shell opened offline (a bookmarked order, say)
// needs them.
const WORDS = ['en', 'ae', 'so'].map((lng) => `/locales/${lng}/storefront.json`);

// DEALER_INFO {dealerCode, startUrl}: keep the shop's start page and the words for the next offline visit.
self.addEventListener('message', (event) => {
  const data = event.data as { type?: string; dealerCode?: string; startUrl?: string } | null;
  if (data?.type !== 'DEALER_INFO' || !data.startUrl?.startsWith('/dealer/')) return;
  event.waitUntil(Promise.all([keep(PAGES, data.startUrl), ...WORDS.map((url) => keep('storefront-assets', url))]));
});

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
