import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { stubPhoneWidth } from '../test/phoneWidth';
import { clearSession } from '../providers/session';
import ReportsPage from './ReportsPage';

/**
 * Issue 28 item 10: on a phone the sales report's filters no longer fill the screen before any
 * figure. The period stays in view; Group by, Dealer, Operator ... wait behind "Filters".
 */
const figures = { count: 1, revenue: '1.00', profit: '0.20' };
const routes = {
  'GET /api/v1/reports/sales': () =>
    ok({ from: '2026-11-01', to: '2026-11-26', group_by: 'day', rows: [{ key: '2026-11-26', label: '2026-11-26', ...figures }], totals: figures }),
  'GET /api/v1/user-options': () => ok([]),
  'GET /api/v1/internet-providers': () => ok([]),
  'GET /api/v1/payment-methods': () => ok([]),
};

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the sales report on a phone', () => {
  it('shows the period and the figures; the other filters open behind "Filters" and keep working', async () => {
    stubPhoneWidth();
    serveRoutes(routes);
    await renderScreen(<ReportsPage />, { path: '/reports', url: '/reports', permissions: ['view reports'] });
    await screen.findByRole('table', { name: 'Sales report' });
    expect(screen.getByLabelText('From')).toBeTruthy();
    expect(screen.getByLabelText('To')).toBeTruthy();
    expect(screen.queryByLabelText('Group by')).toBeNull();
    const button = screen.getByRole('button', { name: 'Filters' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(await screen.findByLabelText('Group by')).toBeTruthy();
    fireEvent.click(button);
    await waitFor(() => expect(screen.queryByLabelText('Group by')).toBeNull());
  });

  it('says how many of its filters are set while they are hidden (a shared link with a dealer and an operator)', async () => {
    stubPhoneWidth();
    serveRoutes(routes);
    await renderScreen(<ReportsPage />, { path: '/reports', url: '/reports?dealer_id=7&provider_id=2&group_by=day', permissions: ['view reports'] });
    await screen.findByRole('table', { name: 'Sales report' });
    // group_by=day is the default: two filters set, not three.
    expect(screen.getByRole('button', { name: 'Filters (2)' })).toBeTruthy();
  });
});
