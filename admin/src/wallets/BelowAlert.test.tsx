import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { IconCount, MenuCount, badgeOf } from '../layout/MenuBadge';
import { MENU } from '../layout/menuItems';
import DashboardPage from '../dashboard/DashboardPage';
import WalletList from './WalletList';
import { BELOW_ALERT_PATH } from './walletPaths';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';

/**
 * Dealers under their low-balance alert and money requests waiting, as staff see them: the Wallets
 * menu item's two pills, the dashboard's cards, and the Wallets list's filter and red mark. Against
 * the console's real dataProvider (fetch mocked).
 */
afterEach(() => {
  cleanup();
  clearSession();
  window.history.replaceState(null, '', '/');
});

/**
 * react-admin's own router (a HashRouter here: under vitest it does not see the test's
 * MemoryRouter) is where a list keeps its filters, as the console's router does.
 */
const listUrl = () => decodeURIComponent(window.location.hash);

const BOTH = ['view wallets', 'review wallet top-ups'];
const counts = (pending: number, below: number) => ({
  'GET /api/v1/wallet-top-up-requests/pending-count': () => ok({ count: pending }),
  'GET /api/v1/wallets/below-alert-count': () => ok({ count: below }),
});

describe('the Wallets menu item', () => {
  it('carries both kinds, and a closed group shows its children’s', () => {
    const group = MENU.flatMap((s) => s.items).find((i) => i.key === 'wallets-group')!;
    expect(badgeOf(group.children!.find((c) => c.key === 'wallets')!)).toEqual(['money_requests', 'below_alert']);
    expect(badgeOf(group)).toEqual(['money_requests', 'below_alert']);
    expect(badgeOf(group.children!.find((c) => c.key === 'wallet-transactions')!)).toBeUndefined();
  });

  it('shows the requests waiting (warning) and the dealers under their alert (red), each labelled', async () => {
    serveRoutes(counts(2, 3));
    await renderScreen(<MenuCount kind={['money_requests', 'below_alert']} />, { path: '/', url: '/', permissions: BOTH });
    await waitFor(() => expect(screen.getAllByRole('status')).toHaveLength(2));
    const [waiting, below] = screen.getAllByRole('status');
    expect([waiting.textContent, waiting.getAttribute('aria-label')]).toEqual(['2', '2 waiting']);
    expect([below.textContent, below.getAttribute('aria-label')]).toEqual(['3', '3 dealers under their low-balance alert']);
    // Different colours: the red one reads apart from the warning one.
    expect(getComputedStyle(below).backgroundColor).not.toBe(getComputedStyle(waiting).backgroundColor);
    expect(getComputedStyle(below).backgroundColor).toBe('rgb(211, 47, 47)');
  });

  it('in Arabic, with its plural form', async () => {
    serveRoutes(counts(0, 1));
    await renderScreen(<MenuCount kind={['money_requests', 'below_alert']} />, { path: '/', url: '/', permissions: BOTH, lng: 'ae' });
    const pill = await screen.findByRole('status', {}, { timeout: 5000 });
    expect(pill.getAttribute('aria-label')).toBe('وكيل واحد تحت حد تنبيه انخفاض الرصيد');
    // No requests waiting: no warning pill.
    expect(screen.getAllByRole('status')).toHaveLength(1);
  });

  it('polls only what the user may see: no pending-count call without "review wallet top-ups"', async () => {
    const calls = serveRoutes(counts(5, 4));
    await renderScreen(<MenuCount kind={['money_requests', 'below_alert']} />, { path: '/', url: '/', permissions: ['view wallets'] });
    expect((await screen.findByRole('status', {}, { timeout: 5000 })).textContent).toBe('4');
    expect(calls.map((c) => c.path).filter((p) => p !== '/api/v1/settings/public')).toEqual(['/api/v1/wallets/below-alert-count']);
    cleanup();
    clearSession();
    const none = serveRoutes(counts(5, 4));
    await renderScreen(<MenuCount kind={['money_requests', 'below_alert']} />, { path: '/', url: '/', permissions: ['view dashboard'] });
    await new Promise((r) => setTimeout(r, 100));
    expect(screen.queryByRole('status')).toBeNull();
    expect(none.filter((c) => c.path !== '/api/v1/settings/public')).toHaveLength(0);
  });

  it('over the icon of the collapsed sidebar, both counts', async () => {
    serveRoutes(counts(1, 120));
    const { container } = await renderScreen(
      <IconCount kind={['money_requests', 'below_alert']}>
        <svg data-testid="icon" />
      </IconCount>,
      { path: '/', url: '/', permissions: BOTH },
    );
    await waitFor(() => expect(container.querySelector('[aria-label="120 dealers under their low-balance alert"]')?.textContent).toBe('99+'));
    expect(container.querySelector('[aria-label="1 waiting"]')?.textContent).toBe('1');
    expect(screen.getByTestId('icon')).toBeTruthy();
  });
});

const figures = { count: 0, revenue: '0.00', profit: '0.00', pending: 0, failed: 0, success_rate: null };
const dashboard = (attention?: unknown) => ({
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
      missed_sales: { today_count: 0, today_amount: '0.00', by_dealer: [] },
      ...(attention === undefined ? {} : { attention }),
    }),
});

describe('the dashboard', () => {
  it('shows a card per count above 0, linking to the requests and to the wallets under their alert', async () => {
    serveRoutes(dashboard({ money_requests: 2, below_alert: 1 }));
    await renderScreen(<DashboardPage />, { path: '/dashboard', url: '/dashboard', permissions: ['view dashboard', ...BOTH] });
    const requests = (await screen.findByText('2 requests waiting', {}, { timeout: 5000 })).closest('a')!;
    expect(requests.getAttribute('href')).toBe('/wallets#money-requests');
    expect(within(requests).getByText('Review requests')).toBeTruthy();
    const below = screen.getByText('1 dealer under their low-balance alert').closest('a')!;
    expect(below.getAttribute('href')).toBe(BELOW_ALERT_PATH);
    expect(decodeURIComponent(BELOW_ALERT_PATH)).toBe('/wallets?filter={"below_alert":true}');
    fireEvent.click(below);
    expect((await screen.findByTestId('location')).textContent).toBe(BELOW_ALERT_PATH);
  });

  it('in Arabic, the plural forms', async () => {
    serveRoutes(dashboard({ money_requests: 2, below_alert: 11 }));
    await renderScreen(<DashboardPage />, { path: '/dashboard', url: '/dashboard', permissions: ['view dashboard', ...BOTH], lng: 'ae' });
    expect(await screen.findByText('طلبان بانتظار القرار', {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByText('11 وكيلًا تحت حد تنبيه انخفاض الرصيد')).toBeTruthy();
  });

  it('shows nothing at 0, for a part the user may not see (null) or without attention (a dealer)', async () => {
    for (const attention of [{ money_requests: 0, below_alert: null }, undefined]) {
      serveRoutes(dashboard(attention));
      await renderScreen(<DashboardPage />, { path: '/dashboard', url: '/dashboard', permissions: ['view dashboard'] });
      expect(await screen.findByText('All dealer wallets', {}, { timeout: 5000 })).toBeTruthy();
      expect(screen.queryByText(/waiting|under their low-balance alert/)).toBeNull();
      cleanup();
      clearSession();
    }
  });
});

const wallet = (id: number, code: string, balance: string, threshold: string | null) => ({
  id,
  h_id: `w${id}`,
  dealer_id: id + 100,
  dealer: { id: id + 100, h_id: `d${id}`, name: `Shop ${code}`, dealer_code: code },
  balance,
  currency: 'USD',
  pricing_model: 'cost',
  low_balance_threshold: threshold,
  low_balance: threshold !== null && Number(balance) < Number(threshold),
  created_at: null,
  updated_at: null,
});

describe('the Wallets list', () => {
  const rows = [wallet(1, 'LOW', '2.00', '10.00'), wallet(2, 'HIGH', '50.00', '10.00'), wallet(3, 'NONE', '0.00', null)];
  const serve = () =>
    serveRoutes({
      'GET /api/v1/wallets': (c) => page(c.query.get('below_alert') === 'true' ? rows.filter((w) => w.low_balance) : rows),
      ...counts(0, 1),
    });

  it('marks a wallet under its alert in red, and filters to those with the switch (kept in the URL)', async () => {
    const calls = serve();
    await renderScreen(<WalletList />, { path: '/wallets', url: '/wallets', permissions: ['view wallets'] });
    expect(await screen.findByText(/^Shop HIGH/, {}, { timeout: 5000 })).toBeTruthy();
    const marks = screen.getAllByText('Below alert');
    expect(marks).toHaveLength(1);
    expect(marks[0].closest('tr')!.textContent).toContain('Shop LOW');
    expect(marks[0].closest('.MuiChip-root')!.className).toContain('MuiChip-colorError');
    const listCalls = () => calls.filter((c) => c.path === '/api/v1/wallets');
    expect(listCalls().every((c) => !c.query.has('below_alert'))).toBe(true);
    fireEvent.click(screen.getByRole('switch', { name: 'Below their alert only' }));
    // react-admin applies a filter change after 500 ms.
    await waitFor(() => expect(screen.queryByText(/^Shop HIGH/)).toBeNull(), { timeout: 5000 });
    expect(screen.getByText(/^Shop LOW/)).toBeTruthy();
    expect(listCalls().at(-1)!.query.get('below_alert')).toBe('true');
    expect(listUrl()).toContain('filter={"below_alert":true}');
    // Off again: no filter at all (not below_alert=false).
    fireEvent.click(screen.getByRole('switch', { name: 'Below their alert only' }));
    expect(await screen.findByText(/^Shop HIGH/, {}, { timeout: 5000 })).toBeTruthy();
    await waitFor(() => expect(listUrl()).not.toContain('below_alert'), { timeout: 5000 });
  });

  it('opens filtered from the dashboard’s link', async () => {
    const calls = serve();
    window.history.replaceState(null, '', `/#${BELOW_ALERT_PATH}`);
    await renderScreen(<WalletList />, { path: '/wallets', url: BELOW_ALERT_PATH, permissions: ['view wallets'] });
    expect(await screen.findByText(/^Shop LOW/, {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.queryByText(/^Shop HIGH/)).toBeNull();
    expect((screen.getByRole('switch', { name: 'Below their alert only' }) as HTMLInputElement).checked).toBe(true);
    expect(calls.filter((c) => c.path === '/api/v1/wallets').every((c) => c.query.get('below_alert') === 'true')).toBe(true);
  });
});
