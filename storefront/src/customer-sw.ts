/// <reference lib="webworker" />
import { precacheAndRoute, cleanupOutdatedCaches, matchPrecache } from 'workbox-precaching';
import { registerRoute, setCatchHandler } from 'workbox-routing';
import { NetworkFirst, StaleWhileRevalidate } from 'workbox-strategies';
import { ExpirationPlugin } from 'workbox-expiration';

/**
 * The storefront's service worker (/customer-sw.js, scope /dealer/): the app shell is precached,
 * pages are network-first with the last copy kept for offline visits, shop images are kept while
 * revalidated. The dealer's data lives in local storage (the app shows it offline); API calls are
 * never answered from here, so a purchase always needs the network.
 */
declare const self: ServiceWorkerGlobalScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

const pages = new NetworkFirst({ cacheName: 'storefront-pages', networkTimeoutSeconds: 4, plugins: [new ExpirationPlugin({ maxEntries: 50 })] });
registerRoute(({ request, url }) => request.mode === 'navigate' && url.pathname.startsWith('/dealer/'), pages);
registerRoute(({ url }) => url.pathname.startsWith('/storage/') || /\/dealer\/[^/]+\/(icon-\d+\.png|manifest\.webmanifest)$/.test(url.pathname) || url.pathname.startsWith('/locales/'), new StaleWhileRevalidate({ cacheName: 'storefront-assets', plugins: [new ExpirationPlugin({ maxEntries: 200, maxAgeSeconds: 30 * 86400 })] }));

// A page never visited before, offline: the app shell, which shows the saved shop or says so.
setCatchHandler(async ({ request }) => {
  if (request.mode === 'navigate') return (await matchPrecache('/storefront/index.html')) ?? Response.error();
  return Response.error();
});

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
  event.waitUntil(Promise.all([keep('storefront-pages', data.startUrl), ...WORDS.map((url) => keep('storefront-assets', url))]));
});

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
