import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { AdminContext, memoryStore, Notification, type AuthProvider } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';
import DeliveryRoutesPage from './DeliveryRoutesPage';
import type { AggregatorProduct, ProviderRoutes } from './types';

/**
 * The delivery routes screen against the console's real dataProvider, fetch answered by path: what
 * it shows of the routes, their health and the bundles; the PUT it sends after a product is typed,
 * picked from the aggregator's catalogue and a route moved; where the API's field errors land; and
 * what a reader without 'manage delivery routes' sees of an operator with no routes set.
 */
const authProvider = (permissions: string[]): AuthProvider => ({
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => permissions,
});

const MANAGE = ['view internet providers', 'view delivery routes', 'manage delivery routes'];

const healthy = { state: 'healthy' as const, failures: 0, skipped_until: null, last_failure: null, last_failure_at: null };
const resting = {
  state: 'skipped' as const,
  failures: 3,
  skipped_until: '2026-11-26T10:05:00.000Z',
  last_failure: 'The aggregator did not answer in time.',
  last_failure_at: '2026-11-26T10:00:00.000Z',
};

const configured: ProviderRoutes = {
  provider_id: 7,
  configured: true,
  routes: [
    { position: 1, aggregator: 'dtone', operator_id: '2701', products: { '11': '91001' }, health: healthy },
    { position: 2, aggregator: 'sandbox', operator_id: '1650', products: { '11': '0.40', '12': '1.50' }, health: resting },
  ],
  bundles: [
    { id: 11, name: '1 GB Daily', cost: 40, operator_product_code: null, deliverable: true, reason: null },
    {
      id: 12,
      name: '5 GB Weekly',
      cost: 150,
      operator_product_code: null,
      deliverable: false,
      reason: 'No product is set for this bundle on the dtone route. sandbox does not sell product 1.50 for operator 1650.',
    },
  ],
};

const product = (over: Partial<AggregatorProduct>) => ({
  aggregator: 'dtone',
  operator_id: '2701',
  operator_name: 'Hormuud Somalia',
  product_id: '91001',
  name: 'Hormuud 1GB Daily',
  description: null,
  amount: 50,
  currency: 'USD',
  wholesale: 38,
  status: 'active',
  change: null,
  previous_amount: null,
  previous_wholesale: null,
  first_seen_at: '2026-11-20T08:00:00.000Z',
  last_seen_at: '2026-11-26T08:00:00.000Z',
  withdrawn_at: null,
  ...over,
});
const dtoneProducts = [product({}), product({ product_id: '91002', name: 'Hormuud 5GB Weekly', amount: 160, wholesale: 140 })];

function api(routes: ProviderRoutes, extra: Record<string, (c: RoutedCall) => { status?: number; body: unknown }> = {}) {
  return serveRoutes({
    'GET /api/v1/internet-providers/7': () => ({ body: { success: true, data: { id: 7, name: 'Hormuud', adapter_key: 'sandbox' } } }),
    'GET /api/v1/internet-providers/7/routes': () => ({ body: { success: true, data: routes } }),
    'GET /api/v1/aggregators/dtone/products': (c) => ({
      body: {
        success: true,
        data: c.query.get('operator_id') === '2701' ? dtoneProducts : [],
        meta: { current_page: 1, per_page: 100, total: 2, last_page: 1 },
      },
    }),
    'GET /api/v1/aggregators/sandbox/products': () => ({ body: { success: true, data: [], meta: { current_page: 1, per_page: 100, total: 0, last_page: 1 } } }),
    ...extra,
  });
}

async function renderPage(permissions = MANAGE) {
  const i18nProvider = await testI18nProvider();
  render(
    <MemoryRouter initialEntries={['/internet-providers/7/routes']}>
      <AdminContext dataProvider={dataProvider} authProvider={authProvider(permissions)} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path="/internet-providers/:id/routes" element={<DeliveryRoutesPage />} />
          <Route path="*" element={<p>Somewhere else</p>} />
        </Routes>
        <Notification />
      </AdminContext>
    </MemoryRouter>,
  );
  await screen.findByRole('heading', { name: 'Delivery routes of Hormuud', level: 1 });
  await screen.findByRole('list', { name: 'Routes, in order' });
}

/** Text as read, without the Unicode isolates that keep names and amounts in order in Arabic. */
const plainText = (text: string) => (_: string, el: Element | null) =>
  !!el && el.children.length === 0 && el.textContent?.replace(/[\u2066-\u2069]/g, '') === text;

const routeCards = () => within(screen.getByRole('list', { name: 'Routes, in order' })).getAllByRole('listitem');
const cell = (bundle: string, route: string) => screen.getByRole('combobox', { name: `${bundle} on ${route}` }) as HTMLInputElement;

describe('the delivery routes screen', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows the routes in order with their health, and the bundles × routes with each product and whether it is deliverable', async () => {
    api(configured);
    await renderPage();
    const [dtone, sandbox] = routeCards();
    expect(within(dtone).getByText('DT One')).toBeTruthy();
    expect(within(dtone).getByText('Healthy')).toBeTruthy();
    expect((within(dtone).getByLabelText('Operator id at DT One') as HTMLInputElement).value).toBe('2701');
    expect(within(sandbox).getByText('Sandbox stand-in')).toBeTruthy();
    // Resting until 13:05 in the company's zone (UTC+3), with the last failure.
    expect(within(sandbox).getByText(/^Resting until Nov 26, 2026, 1:05 PM$/)).toBeTruthy();
    expect(within(sandbox).getByText(plainText('Last failure, Nov 26, 2026, 1:00 PM: The aggregator did not answer in time.'))).toBeTruthy();

    const table = screen.getByRole('table', { name: 'Bundles and their products' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Bundle', 'Our cost', '1DT One', '2Sandbox stand-in', 'Delivery']);
    const daily = within(table).getByRole('rowheader', { name: '1 GB Daily' }).closest('tr')!;
    expect(within(daily).getByText('0.40 USD')).toBeTruthy();
    expect(within(daily).getByText('Deliverable')).toBeTruthy();
    expect(cell('1 GB Daily', 'DT One').value).toBe('91001');
    expect(cell('1 GB Daily', 'Sandbox stand-in').value).toBe('0.40');
    expect(cell('5 GB Weekly', 'DT One').value).toBe('');
    // The product the cell names, from DT One's synced catalogue for operator 2701.
    expect(await within(daily).findByText(plainText('Hormuud 1GB Daily · 0.50 USD · our cost 0.38 USD'))).toBeTruthy();
    const weekly = within(table).getByRole('rowheader', { name: '5 GB Weekly' }).closest('tr')!;
    expect(
      within(weekly).getByText(
        plainText('Unavailable: No product is set for this bundle on the dtone route. sandbox does not sell product 1.50 for operator 1650.'),
      ),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', true);
  });

  it('sends the whole ordered list in one PUT after a product is picked, another typed and a route moved up', async () => {
    const saved: ProviderRoutes = {
      ...configured,
      routes: [
        { ...configured.routes[1], position: 1, products: { '11': '0.40', '12': '1.60' } },
        { ...configured.routes[0], position: 2, products: { '11': '91001', '12': '91002' } },
      ],
      bundles: configured.bundles.map((b) => ({ ...b, deliverable: true, reason: null })),
    };
    const calls = api(configured, {
      'PUT /api/v1/internet-providers/7/routes': () => ({ body: { success: true, message: 'Delivery routes saved.', data: saved } }),
    });
    await renderPage();
    // Picked from DT One's catalogue (searched by name).
    fireEvent.change(cell('5 GB Weekly', 'DT One'), { target: { value: '5GB' } });
    fireEvent.click(await screen.findByRole('option', { name: /Hormuud 5GB Weekly/ }));
    expect(cell('5 GB Weekly', 'DT One').value).toBe('91002');
    // Typed, with spaces the PUT leaves out.
    fireEvent.change(cell('5 GB Weekly', 'Sandbox stand-in'), { target: { value: ' 1.60 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Move the Sandbox stand-in route up' }));
    expect(screen.getByText('You have unsaved changes.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));

    await screen.findByText('Delivery routes saved.');
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts).toHaveLength(1);
    expect(puts[0].path).toBe('/api/v1/internet-providers/7/routes');
    expect(puts[0].body).toEqual({
      routes: [
        { aggregator: 'sandbox', operator_id: '1650', products: { '11': '0.40', '12': '1.60' } },
        { aggregator: 'dtone', operator_id: '2701', products: { '11': '91001', '12': '91002' } },
      ],
    });
    // The answer is what the screen shows now: nothing left to save, every bundle deliverable.
    await waitFor(() => expect(screen.queryByText('You have unsaved changes.')).toBeNull());
    expect(routeCards().map((li) => within(li).getByText(/^(DT One|Sandbox stand-in)$/).textContent)).toEqual(['Sandbox stand-in', 'DT One']);
    expect(screen.getAllByText('Deliverable')).toHaveLength(2);
    expect(screen.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', true);
  });

  it("puts the API's field errors on the route, field and cell they name, and a removed route is not sent", async () => {
    const calls = api(configured, {
      'PUT /api/v1/internet-providers/7/routes': () => ({
        status: 422,
        body: {
          success: false,
          message: 'The given data was invalid.',
          errors: {
            'routes.1.operator_id': ["The operator's id is digits only."],
            'routes.0.products': ['Bundle 99 is not one of the bundles of Hormuud.'],
            'routes.0.products.11': ['A product is letters, digits, dots or dashes.'],
          },
        },
      }),
    });
    await renderPage();
    fireEvent.click(screen.getByRole('button', { name: 'Add route' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Reloadly' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove the Sandbox stand-in route' }));
    fireEvent.change(screen.getByLabelText('Operator id at Reloadly'), { target: { value: '16a' } });
    fireEvent.change(cell('1 GB Daily', 'DT One'), { target: { value: '91 001' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));

    const [dtone, reloadly] = routeCards();
    expect(await within(reloadly).findByText("The operator's id is digits only.")).toBeTruthy();
    expect(within(reloadly).getByText('Not saved yet')).toBeTruthy();
    expect(within(dtone).getByText('Bundle 99 is not one of the bundles of Hormuud.')).toBeTruthy();
    const daily = screen.getByRole('rowheader', { name: '1 GB Daily' }).closest('tr')!;
    expect(within(daily).getByText('A product is letters, digits, dots or dashes.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
      routes: [
        { aggregator: 'dtone', operator_id: '2701', products: { '11': '91 001' } },
        { aggregator: 'reloadly', operator_id: '16a', products: {} },
      ],
    });
    // Still unsaved: the edits are kept for the next try.
    expect(screen.getByText('You have unsaved changes.')).toBeTruthy();
  });

  it('asks before a link leaves unsaved changes, and stays when told no', async () => {
    api(configured);
    await renderPage();
    fireEvent.change(cell('5 GB Weekly', 'DT One'), { target: { value: '91002' } });
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
    fireEvent.click(screen.getByRole('link', { name: 'Internet providers' }));
    expect(confirm).toHaveBeenCalledWith("Some of your changes weren't saved. Are you sure you want to ignore them?");
    expect(screen.queryByText('Somewhere else')).toBeNull();
    expect(cell('5 GB Weekly', 'DT One').value).toBe('91002');
  });

  it("says plainly that an operator with no routes delivers through its own adapter, and reads only without 'manage delivery routes'", async () => {
    api({
      provider_id: 7,
      configured: false,
      routes: [{ position: 1, aggregator: 'sandbox', operator_id: null, products: {}, health: healthy }],
      bundles: [
        { id: 11, name: '1 GB Daily', cost: 40, operator_product_code: null, deliverable: true, reason: null },
        { id: 12, name: '5 GB Weekly', cost: 150, operator_product_code: 'HRM-5GB', deliverable: true, reason: null },
      ],
    });
    await renderPage(['view internet providers', 'view delivery routes']);
    expect(
      screen.getByText(
        "No delivery routes are set for Hormuud: it delivers through its own adapter (Sandbox stand-in) with each bundle's operator product code, or its cost as the amount, as shown below. Saving routes here replaces that.",
      ),
    ).toBeTruthy();
    expect(screen.getByText("Operator's own adapter")).toBeTruthy();
    // The implicit route filled in as it delivers: the product code, else the cost as the amount.
    expect(cell('1 GB Daily', 'Sandbox stand-in').value).toBe('0.40');
    expect(cell('5 GB Weekly', 'Sandbox stand-in').value).toBe('HRM-5GB');
    expect(cell('1 GB Daily', 'Sandbox stand-in').disabled).toBe(true);
    expect((screen.getByLabelText('Operator id at Sandbox stand-in') as HTMLInputElement).disabled).toBe(true);
    for (const name of ['Save', 'Add route', 'Discard changes', /^Move/, /^Remove/]) expect(screen.queryByRole('button', { name })).toBeNull();
  });
});
