import { useEffect, useReducer, useRef } from 'react';

/**
 * The dealer queries' rules (docs/product.md section 9): fresh for 5 minutes, kept 10 minutes after the
 * last screen using them, 3 retries 1 s apart when online and none offline. A tiny cache instead
 * of a query library keeps the storefront's first load small.
 */
export const STALE_MS = 5 * 60_000;
export const KEEP_MS = 10 * 60_000;
export const RETRIES = 3;
export const RETRY_DELAY_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn`, retrying up to RETRIES times RETRY_DELAY_MS apart while online; never when offline or for a 4xx. */
export async function withRetries<T>(
  fn: () => Promise<T>,
  isOnline: () => boolean = () => navigator.onLine,
  delay: (ms: number) => Promise<unknown> = sleep,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const status = (err as { status?: number }).status ?? 0;
      const clientError = status >= 400 && status < 500;
      if (clientError || !isOnline() || attempt >= RETRIES) throw err;
      await delay(RETRY_DELAY_MS);
    }
  }
}

interface Entry<T> {
  data?: T;
  error?: unknown;
  fetchedAt: number;
  promise?: Promise<void>;
  users: number;
  gc?: ReturnType<typeof setTimeout>;
  listeners: Set<() => void>;
}
const entries = new Map<string, Entry<unknown>>();

function entry<T>(key: string): Entry<T> {
  let e = entries.get(key) as Entry<T> | undefined;
  if (!e) {
    e = { fetchedAt: 0, users: 0, listeners: new Set() };
    entries.set(key, e as Entry<unknown>);
  }
  return e;
}

function load<T>(key: string, fn: () => Promise<T>, force = false) {
  const e = entry<T>(key);
  if (e.promise) return e.promise;
  if (!force && e.data !== undefined && Date.now() - e.fetchedAt < STALE_MS) return Promise.resolve();
  e.promise = withRetries(fn)
    .then((data) => {
      e.data = data;
      e.error = undefined;
      e.fetchedAt = Date.now();
    })
    .catch((err) => {
      e.error = err;
    })
    .finally(() => {
      e.promise = undefined;
      e.listeners.forEach((l) => l());
    });
  e.listeners.forEach((l) => l());
  return e.promise;
}

/** Data the page arrived with, shown at once: fresh as if just fetched, or (`fetchedAt` 0) asked again at once. */
export function prime<T>(key: string, data: T, fetchedAt = Date.now()): void {
  const e = entry<T>(key);
  if (e.data === undefined) {
    e.data = data;
    e.fetchedAt = fetchedAt;
  }
}

/** A cached query: `initial` (e.g. from local storage) shows at once while it loads; offline, nothing is fetched. */
export function useQuery<T>(key: string | null, fn: () => Promise<T>, initial?: T) {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    if (!key) return;
    const e = entry<T>(key);
    e.users += 1;
    if (e.gc) clearTimeout(e.gc);
    e.listeners.add(rerender);
    if (navigator.onLine) void load(key, () => fnRef.current());
    const online = () => void load(key, () => fnRef.current(), true);
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      e.listeners.delete(rerender);
      e.users -= 1;
      if (e.users === 0) e.gc = setTimeout(() => entries.delete(key), KEEP_MS);
    };
  }, [key]);
  const e = key ? (entries.get(key) as Entry<T> | undefined) : undefined;
  return {
    data: (e?.data ?? initial) as T | undefined,
    error: e?.error,
    loading: !!e?.promise && e?.data === undefined && initial === undefined,
    refetch: () => (key ? load(key, () => fnRef.current(), true) : Promise.resolve()),
  };
}
