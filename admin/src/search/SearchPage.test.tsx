import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { renderScreen, ok } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import SearchPage from './SearchPage';

/**
 * The header search's results read in the user's language: a sale's status is a word of the
 * console ("refunded" reads "مستردة"/"Lacag celin"), its amount carries the company's currency.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const results = {
  users: [],
  dealers: [],
  providers: [],
  bundles: [{ id: 4, title: '1 GB Daily', subtitle: 'Hormuud · Daily · 0.50', provider_id: 1, category_id: 2 }],
  recharges: [{ id: 41, title: 'RC7Q2M4K8P1Z · 615559999', subtitle: '1 GB Daily · 0.50 · refunded' }],
};

describe('search results', () => {
  it.each(['ae', 'so', 'en'])('show a sale status in words and amounts with the currency (%s)', async (lng) => {
    serveRoutes({ 'GET /api/v1/search': () => ok(results) });
    const { testI18nProvider } = await import('../test/i18n');
    const i18n = await testI18nProvider(lng);
    const refunded = i18n.translate('recharges.status.refunded');
    // react-admin's router (its own hash router in tests) carries the query the page reads.
    window.history.replaceState({}, '', '/#/search?q=615');
    await renderScreen(<SearchPage />, { path: '/search', url: '/search?q=615', permissions: ['view recharges', 'view bundles'], lng });
    await waitFor(() => expect(document.body.textContent).toContain('RC7Q2M4K8P1Z'));
    const text = document.body.textContent ?? '';
    // Each name isolated in its own direction (FSI … PDI), the amount left to right (LRI … PDI).
    expect(text).toContain(`\u20681 GB Daily\u2069 · \u20660.50 USD\u2069 · ${refunded}`);
    expect(text).toContain('\u2068Hormuud\u2069 · \u2068Daily\u2069 · \u20660.50 USD\u2069');
    if (lng !== 'en') expect(text).not.toMatch(/\brefunded\b/);
    expect(screen.getByText('1 GB Daily')).toBeTruthy();
  });
});
