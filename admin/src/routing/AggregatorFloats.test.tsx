import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import AggregatorsPage from './AggregatorsPage';
import { LowFloatBanner } from './LowFloatBanner';
import DashboardPage from '../dashboard/DashboardPage';
import type { AggregatorFloat } from './types';

/**
 * The aggregators' floats against the console's real dataProvider: the Aggregators page (balance,
 * days left, last check, threshold and Check now for 'manage delivery routes' only), the layout's
 * banner (and no call at all without 'view delivery routes') and the dashboard's cards.
 */
const VIEW = ['view delivery routes'];
const MANAGE = ['view delivery routes', 'manage delivery routes'];

const floats: AggregatorFloat[] = [
  {
    name: 'reloadly',
    label: 'Reloadly',
    live: true,
    balance: '40.00',
    currency: 'USD',
    threshold: '50.00',
    checked_at: '2026-11-27T06:00:00.000Z',
    check_error: null,
    below_threshold: true,
    days_left: 1.5,
    daily_spend: '26.67',
  },
  {
    name: 'dtone',
    label: 'DT One',
    live: false,
    balance: null,
    currency: null,
    threshold: null,
    checked_at: null,
    check_error: 'No answer in time.',
    below_threshold: false,
    days_left: null,
    daily_spend: null,
  },
];

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Aggregators page', () => {
  it('shows each float, how long it lasts, its last check, and saves a threshold and checks now', async () => {
    const calls = serveRoutes({
      'GET /api/v1/aggregators': () => ok(floats),
      'PUT /api/v1/aggregators/reloadly': () => ok({}, 'Threshold saved.'),
      'POST /api/v1/aggregators/dtone/check': () => ok({}, 'DT One answered: 120.00 USD.'),
    });
    await renderScreen(<AggregatorsPage />, { path: '/aggregators', url: '/aggregators', permissions: MANAGE });
    const reloadly = await screen.findByRole('region', { name: 'Reloadly' });
    expect(within(reloadly).getByText('40.00 USD')).toBeTruthy();
    expect(within(reloadly).getByText('Below threshold')).toBeTruthy();
    expect(within(reloadly).getByText('About 1.5 days at the current pace (26.67 USD a day).')).toBeTruthy();
    expect(within(reloadly).getByText(/^Last checked/)).toBeTruthy();
    const dtone = screen.getByRole('region', { name: 'DT One' });
    // The server's words keep their own direction (isolated) inside the sentence.
    expect(within(dtone).getByText('The last check failed: \u2068No answer in time.\u2069')).toBeTruthy();
    expect(within(dtone).getByText('Not checked yet.')).toBeTruthy();

    const field = within(reloadly).getByRole('textbox', { name: 'Warn below' });
    expect((field as HTMLInputElement).value).toBe('50.00');
    fireEvent.change(field, { target: { value: '' } });
    fireEvent.click(within(reloadly).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Threshold saved.')).toBeTruthy();
    // Emptied: no threshold at all.
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/v1/aggregators/reloadly', body: { threshold: null } });
    fireEvent.click(within(dtone).getByRole('button', { name: 'Check DT One now' }));
    expect(await screen.findByText('DT One answered: 120.00 USD.')).toBeTruthy();
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/v1/aggregators').length).toBeGreaterThan(1));
  });

  it('warns with the error when the check got no answer from the aggregator', async () => {
    serveRoutes({
      'GET /api/v1/aggregators': () => ok(floats),
      'POST /api/v1/aggregators/dtone/check': () => ok({ ...floats[1], check_error: 'Connection refused.' }, 'Balance checked.'),
    });
    await renderScreen(<AggregatorsPage />, { path: '/aggregators', url: '/aggregators', permissions: MANAGE });
    const dtone = await screen.findByRole('region', { name: 'DT One' });
    fireEvent.click(within(dtone).getByRole('button', { name: 'Check DT One now' }));
    const warning = await screen.findByText('The last check failed: \u2068Connection refused.\u2069');
    expect(warning.closest('.RaNotification-warning')).toBeTruthy();
    expect(screen.queryByText('Balance checked.')).toBeNull();
  });

  it("has no threshold field or Check now without 'manage delivery routes'", async () => {
    serveRoutes({ 'GET /api/v1/aggregators': () => ok(floats) });
    await renderScreen(<AggregatorsPage />, { path: '/aggregators', url: '/aggregators', permissions: VIEW });
    const reloadly = await screen.findByRole('region', { name: 'Reloadly' });
    expect(within(reloadly).getByText('Warns below 50.00 USD.')).toBeTruthy();
    expect(screen.queryByRole('textbox', { name: 'Warn below' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Check/ })).toBeNull();
  });
});

describe('the low float banner', () => {
  it('names each aggregator below its threshold, with the days left, and links to the floats', async () => {
    serveRoutes({ 'GET /api/v1/aggregators': () => ok(floats) });
    await renderScreen(<LowFloatBanner />, { path: '/dashboard', url: '/dashboard', permissions: VIEW });
    expect(await screen.findByText('Reloadly float is low: 40.00 USD left, about 1.5 days at the current pace')).toBeTruthy();
    expect(screen.queryByText(/DT One/)).toBeNull();
    // LinkBase (the shell's router link) writes a hash href outside the app's browser router.
    expect(screen.getByRole('link', { name: 'See the floats' }).getAttribute('href')).toMatch(/\/aggregators$/);
  });

  it("makes no call at all without 'view delivery routes'", async () => {
    const calls = serveRoutes({ 'GET /api/v1/aggregators': () => ok(floats) });
    const { container } = await renderScreen(<LowFloatBanner />, { path: '/dashboard', url: '/dashboard', permissions: ['view dashboard'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.some((c) => c.path === '/api/v1/aggregators')).toBe(false);
    expect(container.textContent).toBe('');
  });
});

describe('the dashboard', () => {
  it('shows the real margin beside the profit, and a card per aggregator float', async () => {
    const figures = { count: 3, revenue: '10.00', profit: '2.00', pending: 0, failed: 0, success_rate: 100 };
    serveRoutes({
      'GET /api/v1/dashboard': () =>
        ok({
          currency: 'USD',
          timezone: 'Africa/Mogadishu',
          today: figures,
          month: figures,
          days: [],
          top_bundles: [],
          top_dealers: [],
          latest: [],
          wallet_balance: '100.00',
          low_balance: false,
          margin: { last_30_days: { margin: '1.64', list_profit: '2.00', unknown_cost: 2 } },
          // The API's alert list: only floats already below their threshold, with no below_threshold field.
          floats: floats.map(({ name, label, balance, currency, threshold, days_left }) => ({
            name,
            label,
            balance,
            currency,
            threshold,
            days_left,
          })),
        }),
    });
    await renderScreen(<DashboardPage />, { path: '/dashboard', url: '/dashboard', permissions: ['view dashboard'] });
    const margin = (await screen.findByText('Real margin (30 days)')).closest('a')!;
    expect(margin.getAttribute('href')).toBe('/reports/margins');
    expect(within(margin).getByText('1.64 USD')).toBeTruthy();
    expect(within(margin).getByText('Price-list profit 2.00 USD')).toBeTruthy();
    expect(within(margin).getByText('2 sales whose aggregator cost is not known are left out of the margin.')).toBeTruthy();
    const reloadly = screen.getByText('Reloadly float').closest('a')!;
    expect(reloadly.getAttribute('href')).toBe('/aggregators');
    expect(within(reloadly).getByText('40.00 USD')).toBeTruthy();
    expect(within(reloadly).getByText('About 1.5 days at the current pace')).toBeTruthy();
    expect(within(screen.getByText('DT One float').closest('a')!).getByText('—')).toBeTruthy();
    // Every float the dashboard lists is low.
    expect(within(reloadly).getByText('Below threshold')).toBeTruthy();
    expect(within(screen.getByText('DT One float').closest('a')!).getByText('Below threshold')).toBeTruthy();
  });
});
