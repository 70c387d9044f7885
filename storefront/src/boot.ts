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
}

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
