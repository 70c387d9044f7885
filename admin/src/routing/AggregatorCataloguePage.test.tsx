import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { AdminContext, memoryStore, Notification, type AuthProvider } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import AggregatorCataloguePage from './AggregatorCataloguePage';
import { canAccessLocally } from '../permissions/permissions';
import type { AggregatorProduct } from './types';

/**
 * The aggregator catalogue page against the console's real dataProvider, fetch answered by path:
 * the products of one aggregator with what the last sync saw change, the filters as the API's
 * query, "Sync now" and its summary, and "Create bundle" opening the bundle form of the chosen
 * category filled in from the product.
 */
const authProvider = (permissions: string[]): AuthProvider => ({
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => permissions,
  canAccess: async ({ action, resource }) => canAccessLocally(permissions, { action, resource }),
});

const product = (over: Partial<AggregatorProduct>) => ({
  aggregator: 'dtone',
  operator_id: '2701',
  operator_name: 'Hormuud Somalia',
  product_id: '91001',
  name: 'Hormuud 1GB Daily',
  description: '1 GB for 24 hours',
  amount: 50,
  currency: 'USD',
  wholesale: 38,
  status: 'active',
  change: 'new',
  previous_amount: null,
  previous_wholesale: null,
  first_seen_at: '2026-11-26T08:00:00.000Z',
  last_seen_at: '2026-11-26T08:00:00.000Z',
  withdrawn_at: null,
  ...over,
});

const products = [
  product({}),
  product({ product_id: '91002', name: 'Hormuud 5GB Weekly', description: null, amount: 120, previous_amount: 100, wholesale: null, change: 'price' }),
  product({
    product_id: '91003',
    name: 'Hormuud Night',
    description: null,
    status: 'withdrawn',
    change: 'withdrawn',
    withdrawn_at: '2026-11-26T08:00:00.000Z',
  }),
];

const page = (rows: unknown[]) => ({ body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total: rows.length, last_page: 1 } } });

function ShowLocation() {
  const location = useLocation();
  return <pre data-testid="location">{JSON.stringify({ path: location.pathname, state: location.state })}</pre>;
}

async function renderPage(permissions: string[]) {
  const i18nProvider = await testI18nProvider();
  render(
    <MemoryRouter initialEntries={['/aggregator-catalogue/dtone']}>
      <AdminContext dataProvider={dataProvider} authProvider={authProvider(permissions)} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path="/aggregator-catalogue/*" element={<AggregatorCataloguePage />} />
          <Route path="*" element={<ShowLocation />} />
        </Routes>
        <Notification />
      </AdminContext>
    </MemoryRouter>,
  );
  await screen.findByRole('heading', { name: 'Aggregator catalogue', level: 1 });
}

const ALL = ['view internet providers', 'view internet categories', 'create bundles', 'view delivery routes', 'manage delivery routes'];

describe('the aggregator catalogue page', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists the aggregator's products with what changed, and passes the filters to the API", async () => {
    const calls = serveRoutes({
      'GET /api/v1/aggregators/dtone/products': () => page(products),
      'GET /api/v1/connectors': () => ({ body: { success: true, data: [{ name: 'dtone', kind: 'delivery', live: false, capabilities: {} }] } }),
    });
    await renderPage(ALL);
    expect(screen.getByRole('tab', { name: 'DT One', selected: true })).toBeTruthy();
    expect(await screen.findByText('Stand-in (test server)')).toBeTruthy();
    const first = (await screen.findByText('Hormuud 1GB Daily')).closest('tr')!;
    for (const text of ['1 GB for 24 hours', '91001', '0.50 USD', '0.38 USD', 'Active', 'New']) expect(within(first).getByText(text)).toBeTruthy();
    const repriced = screen.getByText('Hormuud 5GB Weekly').closest('tr')!;
    expect(within(repriced).getByText('Price changed from 1.00 USD to 1.20 USD')).toBeTruthy();
    expect(within(repriced).getByText('—')).toBeTruthy();
    const withdrawn = screen.getByText('Hormuud Night').closest('tr')!;
    expect(within(withdrawn).getByText('Withdrawn on Nov 26, 2026, 11:00 AM')).toBeTruthy();
    // Only an active product can become a bundle.
    expect(within(withdrawn).queryByRole('button', { name: /Create/ })).toBeNull();
    expect(within(first).getByRole('button', { name: 'Create a bundle from Hormuud 1GB Daily' })).toBeTruthy();

    const list = () => calls.filter((c) => c.path === '/api/v1/aggregators/dtone/products');
    expect(Object.fromEntries(list()[0].query)).toEqual({ page: '1', per_page: '25' });
    fireEvent.change(screen.getByLabelText('Operator id'), { target: { value: '2701' } });
    await waitFor(() => expect(list().at(-1)!.query.get('operator_id')).toBe('2701'));
    fireEvent.click(screen.getByLabelText('Changed at the last sync'));
    await waitFor(() => expect(list().at(-1)!.query.get('changed')).toBe('true'));
    fireEvent.click(screen.getByLabelText('Changed at the last sync'));
    // Off again is no filter, not "unchanged only".
    await waitFor(() => expect(list().at(-1)!.query.has('changed')).toBe(false));
    expect(list().at(-1)!.query.get('operator_id')).toBe('2701');
  });

  it('syncs every aggregator, says what each found, and reads the list again', async () => {
    const calls = serveRoutes({
      'GET /api/v1/aggregators/dtone/products': () => page(products),
      'GET /api/v1/connectors': () => ({ body: { success: true, data: [] } }),
      'POST /api/v1/aggregators/sync': () => ({
        body: {
          success: true,
          message: 'Some aggregators did not answer: reloadly.',
          data: {
            aggregators: [
              { aggregator: 'dtone', status: 'ok', error: null, products: 4, new: 1, changed: 0, withdrawn: 1 },
              { aggregator: 'reloadly', status: 'unknown', error: 'No answer in time.', products: 0, new: 0, changed: 0, withdrawn: 0 },
            ],
          },
        },
      }),
    });
    await renderPage(ALL);
    await screen.findByText('Hormuud 1GB Daily');
    const reads = calls.filter((c) => c.path === '/api/v1/aggregators/dtone/products').length;
    fireEvent.click(screen.getByRole('button', { name: 'Sync now' }));
    expect(await screen.findByText('Some aggregators did not answer: reloadly.')).toBeTruthy();
    expect(screen.getByText('DT One: 4 products, 1 new, 0 changed, 1 withdrawn')).toBeTruthy();
    expect(screen.getByText('Reloadly did not answer: No answer in time.')).toBeTruthy();
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ path: '/api/v1/aggregators/sync', body: {} });
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/v1/aggregators/dtone/products').length).toBeGreaterThan(reads));
  });

  it("has no Sync now without 'manage delivery routes', and no Create bundle without 'create bundles'", async () => {
    serveRoutes({
      'GET /api/v1/aggregators/dtone/products': () => page(products),
      'GET /api/v1/connectors': () => ({ body: { success: true, data: [] } }),
    });
    await renderPage(['view delivery routes']);
    await screen.findByText('Hormuud 1GB Daily');
    expect(screen.queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Create a bundle/ })).toBeNull();
  });

  it('Create bundle opens the bundle form of the chosen category, filled in from the product', async () => {
    serveRoutes({
      'GET /api/v1/aggregators/dtone/products': () => page(products),
      'GET /api/v1/connectors': () => ({ body: { success: true, data: [] } }),
      'GET /api/v1/internet-providers': () =>
        page([
          { id: 5, name: 'Somtel', external_operator_id: null },
          { id: 7, name: 'Hormuud', external_operator_id: '2701' },
        ]),
      'GET /api/v1/internet-categories': (c) =>
        page(
          c.query.get('provider_id') === '7'
            ? [
                { id: 3, name: 'Daily' },
                { id: 4, name: 'Weekly' },
              ]
            : [],
        ),
    });
    await renderPage(ALL);
    fireEvent.click(await screen.findByRole('button', { name: 'Create a bundle from Hormuud 1GB Daily' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create a bundle from Hormuud 1GB Daily' });
    // The operator whose DT One id is the product's is chosen already.
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: 'Operator' }).textContent).toBe('Hormuud'));
    expect(within(dialog).getByText(/our cost \(0\.38 USD\) and product 91001 as its code/)).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Continue' })).toHaveProperty('disabled', true);
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Category' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Weekly' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    const where = JSON.parse((await screen.findByTestId('location')).textContent!);
    expect(where).toEqual({
      path: '/internet-providers/7/categories/4/bundles/create',
      state: {
        record: { name: 'Hormuud 1GB Daily', cost_price: '0.38', operator_product_code: '91001' },
        routeOffer: { aggregator: 'dtone', operator_id: '2701', product_id: '91001', product_name: 'Hormuud 1GB Daily' },
      },
    });
  });
});
