import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import { filterMenu } from '../layout/menu';
import { MENU } from '../layout/menuItems';
import { RechargeDetail } from '../recharges/RechargeDetail';
import MarginsPage from './MarginsPage';

/**
 * The real margin: the Margins report (price-list profit beside the real margin, the sales whose
 * aggregator cost is unknown explained, the filters as the API's query), its menu item (never a
 * dealer's), and a sale's "What the vendors said" (hidden when the answer has none of it).
 */
const figures = { count: 4, revenue: '20.00', list_profit: '4.00', gateway_charges: '0.30', aggregator_cost: '15.90', margin: '3.80', unknown_cost: 0 };

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Margins report', () => {
  it('shows price-list profit beside the real margin per group, the totals, and why some sales are left out', async () => {
    const calls = serveRoutes({
      'GET /api/v1/reports/margins': () =>
        ok({
          rows: [
            { key: '3', label: 'Hodan Shop', ...figures },
            { key: '4', label: 'Bakaro Mobile', ...figures, count: 2, margin: '1.10', unknown_cost: 1 },
          ],
          totals: { ...figures, count: 6, margin: '4.90', unknown_cost: 1 },
        }),
    });
    await renderScreen(<MarginsPage />, { path: '/reports/margins', url: '/reports/margins?group_by=dealer', permissions: ['view reports', 'export reports'] });
    const table = await screen.findByRole('table', { name: 'Margins' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['Dealer', 'Sales', 'Revenue', 'Price-list profit', 'Gateway charges', 'Aggregator cost', 'Real margin', 'Cost unknown']);
    const bakaro = within(table).getByText('Bakaro Mobile').closest('tr')!;
    expect(within(bakaro).getByText('4.00')).toBeTruthy();
    expect(within(bakaro).getByText('1.10')).toBeTruthy();
    expect(within(bakaro).getByText('1')).toBeTruthy();
    expect(within(table).getByText('4.90')).toBeTruthy();
    expect(screen.getByText('1 sale whose aggregator cost is not known is left out of the margin.')).toBeTruthy();
    const query = calls.find((c) => c.path === '/api/v1/reports/margins')!.query;
    expect(query.get('group_by')).toBe('dealer');
    expect(query.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    await waitFor(() =>
      expect(
        calls
          .filter((c) => c.path === '/api/v1/reports/margins')
          .at(-1)!
          .query.get('from'),
      ).toBe('2026-11-01'),
    );
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
  });

  it("names each route by its aggregator as the console does, and the API's none in words", async () => {
    serveRoutes({
      'GET /api/v1/reports/margins': () =>
        ok({
          rows: [
            { key: 'dtone', label: 'dtone', ...figures },
            { key: 'none', label: 'none', ...figures, count: 1 },
          ],
          totals: { ...figures, count: 5 },
        }),
    });
    await renderScreen(<MarginsPage />, { path: '/reports/margins', url: '/reports/margins?group_by=route', permissions: ['view reports'] });
    const table = await screen.findByRole('table', { name: 'Margins' });
    expect(within(table).getByText('DT One')).toBeTruthy();
    expect(within(table).getByText('No aggregator')).toBeTruthy();
    expect(within(table).queryByText('none')).toBeNull();
  });

  it("is in a staff member's Reports menu, never a dealer's", () => {
    const paths = (userType: string) =>
      filterMenu(MENU, ['view reports', 'view daily close'], userType).flatMap((s) => s.items.flatMap((i) => (i.children ?? [i]).map((c) => c.path)));
    // The margins need 'view bundles prices' too (its route does): the menu shows what opens.
    expect(paths('admin')).toEqual(['/reports', '/reports/daily-close']);
    expect(
      filterMenu(MENU, ['view reports', 'view bundles prices', 'view daily close'], 'admin').flatMap((s) =>
        s.items.flatMap((i) => (i.children ?? [i]).map((c) => c.path)),
      ),
    ).toEqual(['/reports', '/reports/margins', '/reports/daily-close']);
    expect(paths('dealer')).not.toContain('/reports/margins');
  });
});

describe("a sale's vendor figures", () => {
  const sale = {
    id: 41,
    h_id: 'r41',
    reference: 'RC-1001',
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    status: 'completed',
    provider_name: 'Hormuud',
    category_name: 'Daily',
    bundle_name: '1 GB Daily',
    phone: '615559999',
    payer_phone: null,
    payment_method: 'WaafiPay',
    amount: '1.50',
    currency: 'USD',
    pricing_model: 'cost',
    payment_state: 'collected',
    delivery_state: 'delivered',
    attempts: 1,
    created_at: '2026-11-26T09:00:00.000Z',
  };
  const renderDetail = (extra: Record<string, unknown>) => {
    serveRoutes({ 'GET /api/v1/recharges/41': () => ok({ recharge: { ...sale, ...extra }, timeline: [], transactions: [], remote_calls: [] }) });
    return renderScreen(<RechargeDetail id="41" onClose={() => undefined} />, { path: '/recharges/*', url: '/recharges/41', permissions: ['view recharges'] });
  };

  it('says what the gateway and the aggregator said', async () => {
    await renderDetail({
      gateway_amount: '1.50',
      gateway_charges: '0.02',
      aggregator_cost: '1.21',
      aggregator_currency: 'USD',
      margin: '0.27',
      delivered_amount: '150',
      delivered_currency: 'SOS',
      fx_rate: '100.00',
    });
    const table = await screen.findByRole('table', { name: 'What the vendors said' });
    const row = (name: string) => within(table).getByRole('rowheader', { name }).closest('tr')!.textContent;
    expect(row('Paid through the gateway')).toBe('Paid through the gateway1.50 USD');
    expect(row('Gateway charges')).toBe('Gateway charges0.02 USD');
    expect(row('Aggregator cost')).toBe('Aggregator cost1.21 USD');
    expect(row('Real margin')).toBe('Real margin0.27 USD');
    expect(row('Delivered')).toBe('Delivered150 SOS');
    expect(row('Exchange rate')).toBe('Exchange rate100.00');
  });

  it('is hidden when the answer has none of it', async () => {
    await renderDetail({ gateway_amount: null, gateway_charges: null, aggregator_cost: null, margin: null });
    await screen.findByText('RC-1001');
    expect(screen.queryByText('What the vendors said')).toBeNull();
  });
});
