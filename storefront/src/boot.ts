import type { Banner, Provider, StoreDealer } from './api';

/**
 * What the server writes into the page for the first screen (api/src/storefront/storefront-pages.ts):
 * the shop's data and the words of the visitor's language, so the first paint needs no more round trips.
 */
export interface Boot {
  code: string;
  lng: string;
  words: Record<string, unknown>;
  dealer: { dealer: StoreDealer; banners: Banner[] };
  providers: { currency: string; providers: Provider[] };
  /** When the server wrote the page (ms). A page the service worker kept from an earlier visit is older. */
  at?: number;
}

/**
 * Within this of the phone's clock the page's data is the server's word of now; an older page (kept
 * by the service worker for a slow or absent network) shows at once but is asked again, so a shop
 * closed since is not shown open. A phone clock this far off only costs one more read.
 */
export const BOOT_FRESH_MS = 60_000;
export const bootIsFresh = (boot: Pick<Boot, 'at'>, now = Date.now()) => typeof boot.at === 'number' && Math.abs(now - boot.at) < BOOT_FRESH_MS;

let cached: Boot | null | undefined;
export function readBoot(): Boot | null {
  if (cached !== undefined) return cached;
  try {
    const el = document.getElementById('storefront-boot');
    cached = el?.textContent ? (JSON.parse(el.textContent) as Boot) : null;
  } catch {
    cached = null;
  }
  return cached;
}
