import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { AdminContext, memoryStore, type AuthProvider } from 'react-admin';
import type { RechargeResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import RechargeList from './RechargeList';
import { RechargeDetail } from './RechargeDetail';

/**
 * A sale earns its profit only when delivered and kept (issue 28): the list and a sale's page show
 * a completed sale's profit, and a dash with the reason for any other (failed, refunded, under way),
 * never the 0.00 the API answers for them as if it were a profit.
 */
const authProvider: AuthProvider = {
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => ['view recharges', 'view bundles prices'],
};

const sale = (id: number, status: RechargeResponse['status'], profit: string) =>
  ({
    id,
    h_id: `r${id}`,
    reference: `RC00000000${id}`,
    mode: 'live',
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    status,
    provider_name: 'Hormuud',
    category_name: 'Daily',
    bundle_name: '1 GB Daily',
    pricing_model: 'cost',
    phone: '615559999',
    payer_phone: '615552001',
    payment_method: 'EVC Plus',
    amount: '0.55',
    cost: '0.40',
    profit,
    currency: 'USD',
    attempts: 1,
    payment_state: status === 'completed' ? 'collected' : 'none',
    delivery_state: status === 'completed' ? 'delivered' : 'none',
    review_reason: null,
    created_at: '2026-11-26T09:00:00.000Z',
  }) as RechargeResponse;

const completed = sale(40, 'completed', '0.15');
const failed = sale(41, 'failed', '0.00');
const refunded = sale(42, 'refunded', '0.00');
const pending = sale(43, 'pending', '0.00');
const page = (rows: RechargeResponse[]) => ({
  body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total: rows.length, last_page: 1 } },
});
const detail = (r: RechargeResponse) => () => ({ body: { success: true, data: { recharge: r, timeline: [], transactions: [], remote_calls: [] } } });

afterEach(() => cleanup());

describe('the profit of a sale in the console', () => {
  it('the list shows a completed sale’s profit and a dash, with its reason, for the others', async () => {
    serveRoutes({ 'GET /api/v1/user-options': () => page([]), 'GET /api/v1/recharges': () => page([completed, failed, refunded, pending]) });
    render(
      <MemoryRouter initialEntries={['/recharges']}>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={await testI18nProvider()} store={memoryStore()}>
          <Routes>
            <Route path="/recharges/*" element={<RechargeList />} />
          </Routes>
        </AdminContext>
      </MemoryRouter>,
    );
    const rowOf = async (reference: string) => (await screen.findByText(reference)).closest('tr')!;
    const header = [...(await screen.findAllByRole('columnheader'))].map((c) => c.textContent);
    const profitColumn = header.indexOf('Profit');
    expect(profitColumn).toBeGreaterThan(-1);
    const profitCell = async (reference: string) => (await rowOf(reference)).querySelectorAll('td')[profitColumn];

    expect((await profitCell('RC0000000040')).textContent).toBe('0.15');
    for (const [reference, why] of [
      ['RC0000000041', 'No profit: not delivered'],
      ['RC0000000042', 'No profit: the sale was refunded'],
      ['RC0000000043', 'No profit yet: not delivered'],
    ]) {
      const cell = await profitCell(reference);
      expect(cell.textContent).not.toContain('0.00');
      const shown = within(cell).getByTestId('no-profit');
      expect(shown.getAttribute('title')).toBe(why);
      // What is seen is the dash; the reason is read out with it.
      expect(shown.querySelector('[aria-hidden="true"]')!.textContent).toBe('—');
      expect(shown.textContent).toBe(`—${why}`);
    }
  });

  it('a sale’s page says why a sale earned nothing, in Arabic too; a completed one shows its profit', async () => {
    serveRoutes({ 'GET /api/v1/recharges/40': detail(completed), 'GET /api/v1/recharges/42': detail(refunded) });
    const profitRow = async () => {
      const drawer = await screen.findByRole('dialog');
      await within(drawer).findByText(/RC000000004/);
      return within(drawer)
        .getAllByRole('row')
        .find((tr) => tr.querySelector('th, td')?.textContent === 'Profit' || tr.querySelector('th, td')?.textContent === 'الربح')!;
    };

    render(
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={await testI18nProvider()} store={memoryStore()}>
        <RechargeDetail id="40" onClose={() => undefined} />
      </AdminContext>,
    );
    expect((await profitRow()).textContent).toBe('Profit0.15');
    cleanup();

    render(
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={await testI18nProvider()} store={memoryStore()}>
        <RechargeDetail id="42" onClose={() => undefined} />
      </AdminContext>,
    );
    expect((await profitRow()).textContent).toBe('Profit—No profit: the sale was refunded');
    cleanup();

    render(
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={await testI18nProvider('ae')} store={memoryStore()}>
        <RechargeDetail id="42" onClose={() => undefined} />
      </AdminContext>,
    );
    expect((await profitRow()).textContent).toBe('الربح—لا ربح: استُردّت العملية');
  });
});
