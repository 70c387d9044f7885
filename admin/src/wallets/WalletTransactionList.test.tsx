import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { AdminContext, memoryStore, useLocation as useAdminLocation, type AuthProvider } from 'react-admin';
import type { WalletTransactionResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';
import WalletTransactionList from './WalletTransactionList';
import { stubPhoneWidth } from '../test/phoneWidth';

/**
 * The ledger on a phone has no column headers: a "Sort" button offers the Date column's sort
 * (newest first on the first pick, oldest first on the second), asked of the API as
 * sort=created_at and kept in the list's URL as the desktop header keeps it.
 */
const authProvider: AuthProvider = {
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => ['view wallets'],
};

const movement = (id: number, reference: string, created_at: string) =>
  ({
    id,
    wallet_id: 1,
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    type: 'credit',
    kind: 'top_up',
    amount: '10.00',
    balance_before: '0.00',
    balance_after: '10.00',
    reference,
    note: null,
    recharge_id: null,
    actor: null,
    created_at,
  }) as WalletTransactionResponse;

// Ids against dates (a movement entered later for an earlier day): by id and by date differ.
const rows = [
  movement(7, 'OLDEST-DAY', '2026-11-20T08:00:00.000Z'),
  movement(9, 'MIDDLE-DAY', '2026-11-24T08:00:00.000Z'),
  movement(8, 'NEWEST-DAY', '2026-11-26T08:00:00.000Z'),
];

const page = (list: WalletTransactionResponse[]) => ({
  body: { success: true, data: list, meta: { current_page: 1, per_page: 25, total: list.length, last_page: 1 } },
});

/** As the API: sort=id|created_at, order=asc|desc. */
function sorted(c: RoutedCall) {
  const key = c.query.get('sort') === 'created_at' ? (t: WalletTransactionResponse) => t.created_at : (t: WalletTransactionResponse) => String(t.id);
  const asc = [...rows].sort((a, b) => key(a).localeCompare(key(b)));
  return page(c.query.get('order') === 'asc' ? asc : asc.reverse());
}

const phoneWidth = () => stubPhoneWidth();

/** The list's query string as react-admin's router sees it (under vitest it keeps a router of its own). */
function Search() {
  return <pre data-testid="search">{useAdminLocation().search}</pre>;
}

async function renderLedger(lang = 'en') {
  window.history.replaceState(null, '', '/');
  const i18nProvider = await testI18nProvider(lang);
  const calls = serveRoutes({
    'GET /api/v1/user-options': () => page([]),
    'GET /api/v1/wallet-transactions': sorted,
  });
  render(
    <MemoryRouter initialEntries={['/wallet-transactions']}>
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route
            path="/wallet-transactions/*"
            element={
              <>
                <WalletTransactionList />
                <Search />
              </>
            }
          />
        </Routes>
      </AdminContext>
    </MemoryRouter>,
  );
  return calls;
}

const ledgerCalls = (calls: RoutedCall[]) => calls.filter((c) => c.path === '/api/v1/wallet-transactions');
const shown = () => screen.getAllByRole('listitem').map((li) => ['OLDEST-DAY', 'MIDDLE-DAY', 'NEWEST-DAY'].find((r) => li.textContent?.includes(r)));

describe('the ledger on a phone: sorted by date', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('"ترتيب" -> التاريخ: newest first, then oldest first, asked of the API and kept in the URL', async () => {
    phoneWidth();
    const calls = await renderLedger('ae');
    await screen.findByText(/NEWEST-DAY/);
    expect(screen.queryByRole('table')).toBeNull();
    // By id at first (the list's default): 9, 8, 7.
    expect(shown()).toEqual(['MIDDLE-DAY', 'NEWEST-DAY', 'OLDEST-DAY']);

    const sortBy = async () => {
      fireEvent.click(screen.getByRole('button', { name: /ترتيب/ }));
      fireEvent.click(await screen.findByRole('menuitem', { name: /التاريخ/ }));
      await waitFor(() => expect(screen.queryByRole('menu')).toBeNull());
    };
    await sortBy();
    await waitFor(() => expect(shown()).toEqual(['NEWEST-DAY', 'MIDDLE-DAY', 'OLDEST-DAY']));
    const first = ledgerCalls(calls).at(-1)!;
    expect([first.query.get('sort'), first.query.get('order')]).toEqual(['created_at', 'desc']);
    expect(screen.getByTestId('search').textContent).toMatch(/sort=created_at/);
    // The button says what the list is sorted by.
    expect(screen.getByRole('button', { name: /ترتيب/ }).textContent).toContain('التاريخ');

    await sortBy();
    await waitFor(() => expect(shown()).toEqual(['OLDEST-DAY', 'MIDDLE-DAY', 'NEWEST-DAY']));
    expect(ledgerCalls(calls).at(-1)!.query.get('order')).toBe('asc');
    expect(screen.getByTestId('search').textContent).toContain('order=ASC');
  });

  it('a desktop keeps its Date column header and shows no Sort button', async () => {
    await renderLedger();
    await screen.findByText('NEWEST-DAY');
    expect(screen.getByRole('columnheader', { name: 'Date' })).toBeTruthy();
    // The only sort control is the header's own.
    expect(screen.getAllByRole('button', { name: /Sort/ }).every((b) => b.closest('th'))).toBe(true);
  });
});
