import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReactElement } from 'react';
import { cleanup, screen } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import ReportsPage from './ReportsPage';
import DealerProfitPage from './DealerProfitPage';
import MarginsPage from './MarginsPage';

/**
 * The export buttons of the report pages (the daily close's: DailyClose.test.tsx) follow 'export reports' (the API refuses a report's CSV
 * or PDF without it): hidden from a reader without it, offered to one with it.
 */
const figures = { count: 1, revenue: '1.00', profit: '0.20' };
const marginFigures = { count: 1, revenue: '1.00', list_profit: '0.20', gateway_charges: '0.01', aggregator_cost: '0.70', margin: '0.29', unknown_cost: 0 };
const routes = {
  'GET /api/v1/reports/sales': () =>
    ok({ from: '2026-11-01', to: '2026-11-26', group_by: 'day', rows: [{ key: '2026-11-26', label: '2026-11-26', ...figures }], totals: figures }),
  'GET /api/v1/reports/dealer-profit': () => ok({ from: '2026-11-01', to: '2026-11-26', rows: [], totals: figures }),
  'GET /api/v1/reports/margins': () =>
    ok({ from: '2026-11-01', to: '2026-11-26', group_by: 'day', rows: [{ key: '2026-11-26', label: '2026-11-26', ...marginFigures }], totals: marginFigures }),
  'GET /api/v1/user-options': () => ok([]),
  'GET /api/v1/internet-providers': () => ok([]),
  'GET /api/v1/payment-methods': () => ok([]),
};

// Each page, where it is, what it needs to be read, and its table's name (shown once the figures came).
const pages: [string, () => ReactElement, string, string, string[], string][] = [
  ['sales', () => <ReportsPage />, '/reports', '/reports', ['view reports'], 'Sales report'],
  ['dealer profit', () => <DealerProfitPage />, '/reports/dealer-profit', '/reports/dealer-profit', ['view dealer profit report'], 'Dealer profit report'],
  ['margins', () => <MarginsPage />, '/reports/margins', '/reports/margins', ['view reports', 'view bundles prices'], 'Margins'],
];

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe("the reports' export buttons", () => {
  it.each(pages)("%s: hidden without 'export reports'", async (_name, element, path, url, permissions, table) => {
    serveRoutes(routes);
    await renderScreen(element(), { path, url, permissions });
    // The figures are shown, and no download is offered.
    await screen.findByRole('table', { name: table });
    expect(screen.queryByRole('button', { name: /^Export/ })).toBeNull();
  });

  it.each(pages)("%s: offered with 'export reports'", async (_name, element, path, url, permissions, table) => {
    serveRoutes(routes);
    await renderScreen(element(), { path, url, permissions: [...permissions, 'export reports'] });
    await screen.findByRole('table', { name: table });
    expect(await screen.findByRole('button', { name: 'Export CSV' })).toBeTruthy();
  });
});
