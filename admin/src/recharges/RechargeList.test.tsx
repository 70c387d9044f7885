import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { AdminContext, memoryStore, useLocation as useAdminLocation, type AuthProvider } from 'react-admin';
import type { RechargeResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';
import RechargeList from './RechargeList';
import { RechargeDetail } from './RechargeDetail';
import { stubPhoneWidth } from '../test/phoneWidth';

/**
 * The recharges list's payment-state filter: "To pay back by hand" asks the API for
 * payment_state=refund_due (chosen in the list, or from a link's ?payment_state=), and a sale whose
 * money is owed back says so beside its status.
 */
const authProvider: AuthProvider = {
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => ['view recharges', 'refund recharges'],
};

const sale = (over: Partial<RechargeResponse>) =>
  ({
    id: 41,
    h_id: 'r41',
    reference: 'RC7Q2M4K8P1Z',
    mode: 'live',
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    status: 'refunded',
    provider_name: 'Hormuud',
    category_name: 'Daily',
    bundle_name: '1 GB Daily',
    pricing_model: 'cost',
    phone: '615559999',
    payer_phone: '625552001',
    amount: '0.50',
    currency: 'USD',
    payment_state: 'refund_due',
    review_reason: null,
    created_at: '2026-11-26T09:00:00.000Z',
    ...over,
  }) as RechargeResponse;

const page = (rows: RechargeResponse[]) => ({
  body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total: rows.length, last_page: 1 } },
});

async function renderList(path = '/recharges') {
  const i18nProvider = await testI18nProvider();
  const calls = serveRoutes({
    'GET /api/v1/user-options': () => page([]),
    'GET /api/v1/recharges': (c) =>
      page(
        c.query.get('payment_state') === 'refund_due'
          ? [sale({})]
          : [sale({}), sale({ id: 40, h_id: 'r40', reference: 'RC0000000040', status: 'completed', payment_state: 'collected' })],
      ),
  });
  render(
    <MemoryRouter initialEntries={[path]}>
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path="/recharges/*" element={<RechargeList />} />
        </Routes>
      </AdminContext>
    </MemoryRouter>,
  );
  return calls;
}

const lists = (calls: RoutedCall[]) => calls.filter((c) => c.method === 'GET' && c.path === '/api/v1/recharges');

describe('the recharges list: money to pay back by hand', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('filters by payment state through the API, and marks a sale whose money is owed back', async () => {
    const calls = await renderList();
    const owed = (await screen.findByText('RC7Q2M4K8P1Z')).closest('tr')!;
    // Refunded by hand but the money not back with the customer yet: the status says so.
    expect(within(owed).getByText('Refund pending')).toBeTruthy();
    expect(within(owed).queryByText('Refunded')).toBeNull();
    expect(within(owed).getByText('To pay back by hand')).toBeTruthy();
    const paid = screen.getByText('RC0000000040').closest('tr')!;
    expect(within(paid).queryByText('To pay back by hand')).toBeNull();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Payment' }));
    fireEvent.click(await screen.findByRole('option', { name: 'To pay back by hand' }));
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('payment_state') === 'refund_due')).toBe(true));
    await waitFor(() => expect(screen.queryByText('RC0000000040')).toBeNull());
  });

  it('asks for the dealer picker by name, the one order GET /user-options takes (any other sort is a 422)', async () => {
    const calls = await renderList();
    await screen.findByText('RC7Q2M4K8P1Z');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/v1/user-options')).toBe(true));
    for (const c of calls.filter((x) => x.path === '/api/v1/user-options')) {
      expect([c.query.get('sort'), c.query.get('order'), c.query.get('user_type')]).toEqual(['name', 'asc', 'dealer']);
    }
    expect(lists(calls).every((c) => c.query.get('sort') === 'id' && c.query.get('order') === 'desc')).toBe(true);
  });

  it('takes the filter from a link (?payment_state=refund_due)', async () => {
    const calls = await renderList('/recharges?payment_state=refund_due');
    await screen.findByText('RC7Q2M4K8P1Z');
    expect(lists(calls).every((c) => c.query.get('payment_state') === 'refund_due')).toBe(true);
    expect(screen.getByRole('combobox', { name: 'Payment' }).textContent).toBe('To pay back by hand');
  });
});

describe('the recharges list: test sales', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const testSale = sale({ id: 50, h_id: 'r50', reference: 'RCTEST000050', mode: 'test', status: 'completed', payment_state: 'collected' });
  const liveSale = sale({ id: 40, h_id: 'r40', reference: 'RC0000000040', status: 'completed', payment_state: 'collected' });

  async function renderModes() {
    const i18nProvider = await testI18nProvider();
    const calls = serveRoutes({
      'GET /api/v1/user-options': () => page([]),
      // As the API: live sales unless mode=test.
      'GET /api/v1/recharges': (c) => page(c.query.get('mode') === 'test' ? [testSale] : [liveSale]),
    });
    render(
      <MemoryRouter initialEntries={['/recharges']}>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
          <Routes>
            <Route path="/recharges/*" element={<RechargeList />} />
          </Routes>
        </AdminContext>
      </MemoryRouter>,
    );
    return calls;
  }

  it('shows live sales under "Live" by default; the Mode filter asks the API for mode=test and marks each test sale', async () => {
    const calls = await renderModes();
    const live = (await screen.findByText('RC0000000040')).closest('tr')!;
    expect(within(live).queryByText('Test')).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Mode' }).textContent).toBe('Live');
    // The default is the API's own (no mode sent): live.
    expect(lists(calls)[0].query.get('mode')).toBeNull();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Mode' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Test' }));
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('mode') === 'test')).toBe(true));
    const test = (await screen.findByText('RCTEST000050')).closest('tr')!;
    const chip = within(test).getByText('Test').closest('.MuiChip-root')!;
    expect(chip.className).toContain('MuiChip-colorWarning');
    expect(within(test).getByText('Completed')).toBeTruthy();
    expect(screen.queryByText('RC0000000040')).toBeNull();
  });

  it('on a phone, a test sale’s line carries the Test chip too', async () => {
    // A phone's width: MUI's useMediaQuery asks matchMedia.
    stubPhoneWidth();
    const i18nProvider = await testI18nProvider();
    serveRoutes({
      'GET /api/v1/user-options': () => page([]),
      'GET /api/v1/recharges': () => page([testSale, liveSale]),
    });
    render(
      <MemoryRouter initialEntries={['/recharges']}>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
          <Routes>
            <Route path="/recharges/*" element={<RechargeList />} />
          </Routes>
        </AdminContext>
      </MemoryRouter>,
    );
    const items = await screen.findAllByRole('listitem');
    expect(screen.queryByRole('table')).toBeNull();
    const withTest = items.filter((li) => within(li).queryByText('Test'));
    expect(withTest).toHaveLength(1);
    expect(withTest[0].textContent).toContain('615559999');
  });

  it('the detail of a test sale says so first: a test sale, on the sandbox, no live money', async () => {
    const i18nProvider = await testI18nProvider();
    serveRoutes({
      'GET /api/v1/recharges/50': () => ({ body: { success: true, data: { recharge: testSale, timeline: [], transactions: [], remote_calls: [] } } }),
      'GET /api/v1/recharges/40': () => ({ body: { success: true, data: { recharge: liveSale, timeline: [], transactions: [], remote_calls: [] } } }),
    });
    render(
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <RechargeDetail id="50" onClose={() => undefined} />
      </AdminContext>,
    );
    const drawer = await screen.findByRole('dialog', { name: 'Recharge' });
    const notice = await within(drawer).findByTestId('test-sale');
    expect(notice.textContent).toContain('Test sale (sandbox: no live money)');
    expect(notice.textContent).toContain('paid from the test wallet');
    cleanup();

    render(
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <RechargeDetail id="40" onClose={() => undefined} />
      </AdminContext>,
    );
    const liveDrawer = await screen.findByRole('dialog', { name: 'Recharge' });
    await within(liveDrawer).findByText('RC0000000040');
    expect(within(liveDrawer).queryByTestId('test-sale')).toBeNull();
    expect(within(liveDrawer).queryByText(/Test sale/)).toBeNull();
  });
});

describe('the recharges list on a phone: sorted by date, each line dated', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  /**
   * Where the list's URL stands (the sort is kept there, as the desktop header keeps it), as react-admin's
   * router sees it (under vitest react-admin keeps a router of its own beside the test's MemoryRouter).
   */
  function Search() {
    return <pre data-testid="search">{useAdminLocation().search}</pre>;
  }

  it('"Kala sooc" -> Taariikhda sorts newest first, a second pick oldest first, in the URL; the line shows the date', async () => {
    stubPhoneWidth();
    window.history.replaceState(null, '', '/');
    const i18nProvider = await testI18nProvider('so');
    const calls = serveRoutes({
      'GET /api/v1/user-options': () => page([]),
      'GET /api/v1/recharges': () => page([sale({ status: 'completed', payment_state: 'collected' })]),
    });
    render(
      <MemoryRouter initialEntries={['/recharges']}>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
          <Routes>
            <Route
              path="/recharges/*"
              element={
                <>
                  <RechargeList />
                  <Search />
                </>
              }
            />
          </Routes>
        </AdminContext>
      </MemoryRouter>,
    );
    const [line] = await screen.findAllByRole('listitem');
    // 09:00 UTC is 12:00 in Mogadishu (the company's zone), in Somali words.
    await waitFor(() => expect(line.textContent).toContain('26 Nofeembar 2026, 12:00'));
    expect(screen.queryByRole('table')).toBeNull();

    const sortBy = async () => {
      fireEvent.click(screen.getByRole('button', { name: /Kala sooc/ }));
      fireEvent.click(await screen.findByRole('menuitem', { name: /Taariikhda/ }));
    };
    await sortBy();
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('sort') === 'created_at' && c.query.get('order') === 'desc')).toBe(true));
    await waitFor(() => expect(screen.getByTestId('search').textContent).toMatch(/sort=created_at.*order=DESC|order=DESC.*sort=created_at/));
    await waitFor(() => expect(screen.queryByRole('menu')).toBeNull());
    await sortBy();
    await waitFor(() => expect(lists(calls).at(-1)!.query.get('order')).toBe('asc'));
    expect(lists(calls).at(-1)!.query.get('sort')).toBe('created_at');
    await waitFor(() => expect(screen.getByTestId('search').textContent).toContain('order=ASC'));
  });
});
