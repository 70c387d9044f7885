import { beforeEach, describe, expect, it } from 'vitest';
import { loadShop, OFFLINE_CACHE_KEY, saveShop, shopKey } from './offline-cache';

/** The offline copy: one local storage key per dealer code, plus the offline cache key. */
describe('the offline cache', () => {
  beforeEach(() => localStorage.clear());

  it('keeps each shop under its own key and lists it in the offline cache key', () => {
    saveShop('DEMO', { providers: [{ id: 1, h_id: 'a', name: 'Hormuud', code: 'H', logo: null, phone_prefixes: ['61'], categories: [] }], currency: 'USD' });
    saveShop('DEMO', { contacts: [{ id: 1, type: 'phone', label: null, value: '+252 61 5000000' }] });
    saveShop('OTHER', { contacts: [] });
    const demo = loadShop('DEMO')!;
    expect(demo.providers?.[0].name).toBe('Hormuud');
    expect(demo.contacts?.[0].value).toBe('+252 61 5000000');
    expect(loadShop('OTHER')?.providers).toBeUndefined();
    expect(Object.keys(JSON.parse(localStorage.getItem(OFFLINE_CACHE_KEY)!))).toEqual(['DEMO', 'OTHER']);
    expect(localStorage.getItem(shopKey('DEMO'))).toContain('Hormuud');
  });

  it('finds a shop saved in another letter case (offline, no server redirects /dealer/demo to /dealer/DEMO)', () => {
    saveShop('DEMO', { currency: 'USD' });
    expect(loadShop('demo')?.currency).toBe('USD');
    expect(loadShop('Demo')?.currency).toBe('USD');
  });

  it('reads nothing from a missing or damaged entry', () => {
    expect(loadShop('NONE')).toBeNull();
    localStorage.setItem(shopKey('BAD'), '{not json');
    expect(loadShop('BAD')).toBeNull();
  });
});
