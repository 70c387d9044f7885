import type { Banner, Contact, PaymentMethod, Provider, Recharge, StoreDealer } from './api';

/**
 * What a storefront keeps in local storage (docs/product.md section 9): one key per dealer code, plus
 * the offline cache key listing the shops saved on this phone. Offline, the last dealer,
 * providers, banners and contacts come from here, and the last known state of the orders made or
 * opened on this phone (their order pages say it needs a connection to check again).
 */
export interface ShopSnapshot {
  dealer?: StoreDealer;
  banners?: Banner[];
  providers?: Provider[];
  currency?: string;
  contacts?: Contact[];
  paymentMethods?: PaymentMethod[];
  /** By reference, newest last; at most MAX_ORDERS. `checkedAt` is when the API last answered. */
  orders?: Record<string, Recharge & { checkedAt: number }>;
  savedAt?: number;
  /** The API said this shop is closed (or gone): shown closed, offline too, until it answers open. */
  closed?: boolean;
}

export const OFFLINE_CACHE_KEY = 'storefront:offline-cache';
export const shopKey = (code: string) => `storefront:dealer:${code}`;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // private mode, or storage blocked
  }
}

/**
 * The code a shop is saved under: itself, or the same code in another letter case (codes are
 * case-insensitive; offline, /dealer/demo/... has no server to redirect it to /dealer/DEMO/...).
 */
function savedCode(s: Storage, code: string): string {
  if (s.getItem(shopKey(code)) !== null) return code;
  try {
    const index = JSON.parse(s.getItem(OFFLINE_CACHE_KEY) ?? '{}') as Record<string, number>;
    return Object.keys(index).find((c) => c.toUpperCase() === code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

export function loadShop(code: string): ShopSnapshot | null {
  const s = storage();
  const raw = s?.getItem(shopKey(savedCode(s, code)));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as ShopSnapshot;
  } catch {
    return null;
  }
}

export function saveShop(code: string, patch: ShopSnapshot): void {
  const s = storage();
  if (!s) return;
  const next = { ...(loadShop(code) ?? {}), ...patch, savedAt: Date.now() };
  try {
    s.setItem(shopKey(code), JSON.stringify(next));
    const index = JSON.parse(s.getItem(OFFLINE_CACHE_KEY) ?? '{}') as Record<string, number>;
    index[code] = next.savedAt;
    s.setItem(OFFLINE_CACHE_KEY, JSON.stringify(index));
  } catch {
    // Storage full: the shop still works online.
  }
}

/**
 * The shop answered closed: its saved copy (offerings, methods, contacts) is dropped so that no
 * visit shows it open; the orders made here stay, for their receipts.
 */
export function markClosed(code: string): void {
  const s = storage();
  const saved = loadShop(code);
  if (!s || !saved) return;
  try {
    s.setItem(shopKey(savedCode(s, code)), JSON.stringify({ orders: saved.orders, closed: true, savedAt: Date.now() }));
  } catch {
    // Storage full: the page still says closed while it is open.
  }
}

export const MAX_ORDERS = 20;

/** Keeps an order's last known state (the number is already partly hidden by the API). */
export function saveOrder(code: string, recharge: Recharge): void {
  if (!recharge.reference) return;
  const orders = { ...(loadShop(code)?.orders ?? {}) };
  delete orders[recharge.reference];
  orders[recharge.reference] = { ...recharge, checkedAt: Date.now() };
  const refs = Object.keys(orders);
  for (const ref of refs.slice(0, Math.max(0, refs.length - MAX_ORDERS))) delete orders[ref];
  saveShop(code, { orders });
}

export const loadOrder = (code: string, reference: string) => loadShop(code)?.orders?.[reference] ?? null;
