import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { App } from './App';
import { bootIsFresh, BOOT_FRESH_MS } from './boot';
import { loadShop, saveShop, shopKey } from './offline-cache';
import { useLanguage } from './test-helpers';

/**
 * A shop closed (made inactive) since this phone last saw it open: the API answers 404, and the
 * storefront says "This shop is closed" at once instead of its saved copy, offline too.
 */
const dealer = {
  code: 'SHUT',
  name: 'Shut Shop',
  company_name: null,
  logo: null,
  brand_color: '#0A7D32',
  description: null,
  website: null,
  contacts: [],
  currency: 'USD',
};
const bundle = { id: 9, h_id: 'b', name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.50' };
const providers = [
  {
    id: 1,
    h_id: 'p',
    name: 'Hormuud',
    code: 'HOR',
    logo: null,
    phone_prefixes: ['61'],
    categories: [{ id: 2, h_id: 'c', name: 'Daily', description: null, bundles: [bundle] }],
  },
];

const flush = () =>
  act(async () => {
    for (let i = 0; i < 40; i++) await Promise.resolve();
  });

/** Every shop read answers `status` (404: closed). */
function api(status: number) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = String(url).replace('/api/v1/client', '');
      calls.push(path);
      const data = path === '/dealer' ? { dealer, banners: [] } : path === '/dealer/providers' ? { currency: 'USD', providers } : [];
      const body = status === 200 ? { success: true, data } : { success: false, message: 'This shop was not found or is closed. Check the dealer code.' };
      return { ok: status < 400, status, json: async () => structuredClone(body) } as Response;
    }),
  );
  return calls;
}

const online = (on: boolean) => Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => on });

beforeEach(async () => {
  localStorage.clear();
  history.replaceState(null, '', '/dealer/SHUT');
  online(true);
  await useLanguage('en');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a closed shop', () => {
  it('a returning visitor with the shop saved open: "This shop is closed" at once, the saved copy dropped (orders kept)', async () => {
    saveShop('SHUT', { dealer, banners: [], providers, currency: 'USD' });
    saveShop('SHUT', { orders: { RC7K3M9Q2XPA: { reference: 'RC7K3M9Q2XPA' } as never } });
    const calls = api(404);
    render(<App />);
    await flush();
    expect(calls).toContain('/dealer');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This shop is closed');
    expect(document.body.textContent).not.toContain('Shut Shop');
    expect(document.body.textContent).not.toContain('Choose your operator');
    const saved = loadShop('SHUT')!;
    expect([saved.closed, saved.dealer, saved.providers, Object.keys(saved.orders ?? {})]).toEqual([true, undefined, undefined, ['RC7K3M9Q2XPA']]);
    cleanup();

    // Offline later: still closed, not the old copy.
    online(false);
    render(<App />);
    await flush();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This shop is closed');
  });

  it.each([
    ['ae', 'هذا المتجر مغلق'],
    ['so', 'Dukaankan waa xiran yahay'],
  ] as const)('in %s too', async (lng, title) => {
    localStorage.clear();
    await useLanguage(lng);
    saveShop('SHUT', { dealer, banners: [], providers, currency: 'USD' });
    api(404);
    render(<App />);
    await flush();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(title);
    cleanup();
  });

  it('open again: the saved flag is cleared by the next answer and the shop shows', async () => {
    localStorage.setItem(shopKey('SHUT'), JSON.stringify({ closed: true }));
    api(200);
    render(<App />);
    await flush();
    expect(loadShop('SHUT')?.closed).toBe(false);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Choose your operator');
  });

  it('a code never seen on this phone is "not found", not "closed"', async () => {
    history.replaceState(null, '', '/dealer/NEVER');
    api(404);
    render(<App />);
    await flush();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Shop not found');
  });
});

describe("the page's own data (boot)", () => {
  it("is the server's word of now only when just written: a page the service worker kept is asked again", () => {
    const now = Date.now();
    expect(bootIsFresh({ at: now - 5000 }, now)).toBe(true);
    expect(bootIsFresh({ at: now - BOOT_FRESH_MS - 1 }, now)).toBe(false);
    // A page kept from before pages said when they were written.
    expect(bootIsFresh({}, now)).toBe(false);
  });
});
