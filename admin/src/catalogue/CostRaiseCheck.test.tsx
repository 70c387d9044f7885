import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import BundleList from './BundleList';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';

const PERMISSIONS = ['view bundles', 'update bundles', 'view bundles prices', 'view internet providers'];
const shop = (id: number, name: string, code: string, price: string) => ({ id, h_id: `d${id}`, name, dealer_code: code, selling_price: price });
const bundle = (extra: Record<string, unknown> = {}) => ({
  id: 5,
  h_id: 'b5',
  category_id: 2,
  category: { id: 2, h_id: 'c2', name: 'Daily' },
  provider: { id: 1, h_id: 'p1', name: 'Hormuud' },
  name: '5 GB Weekly',
  data_volume_mb: 5120,
  validity_days: 7,
  cost_price: '1.00',
  selling_price: '1.50',
  operator_product_code: null,
  status: 'active',
  sort_order: 0,
  translations: null,
  off_sale_shops: [],
  created_at: null,
  updated_at: null,
  deleted_at: null,
  ...extra,
});

function serve(belowCost: ReturnType<typeof shop>[]) {
  return serveRoutes({
    'GET /api/v1/internet-providers/1': () => ok({ id: 1, h_id: 'p1', name: 'Hormuud' }),
    'GET /api/v1/internet-categories/2': () => ok({ id: 2, h_id: 'c2', name: 'Daily' }),
    'GET /api/v1/bundles': () => page([bundle()]),
    'GET /api/v1/bundles/5': () => ok(bundle()),
    'GET /api/v1/bundles/b5/shops-below-cost': () => ok({ count: belowCost.length, shops: belowCost }),
    'PATCH /api/v1/bundles/b5': (c) => ok(bundle({ cost_price: (c.body as { cost_price: string }).cost_price, off_sale_shops: belowCost })),
  });
}
const open = () =>
  renderScreen(<BundleList />, {
    path: '/internet-providers/:id/categories/:categoryId/bundles/*',
    url: '/internet-providers/1/categories/2/bundles/5',
    permissions: PERMISSIONS,
  });
async function raiseCostTo(value: string) {
  const cost = (await screen.findByLabelText(/^Cost price/)) as HTMLInputElement;
  await waitFor(() => expect(cost.value).toBe('1.00'));
  fireEvent.change(cost, { target: { value } });
  fireEvent.click(screen.getByRole('button', { name: 'Update' }));
}

describe('raising a bundle’s cost above some shops’ prices', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('asks first, naming the shops and their prices; Cancel saves nothing', async () => {
    const calls = serve([shop(8, 'Cheap Shop', 'CHEAP', '1.20'), shop(9, 'Corner', 'CRN', '1.25')]);
    await open();
    await raiseCostTo('1.30');
    const dialog = await screen.findByRole('dialog', { name: 'Take this bundle off 2 shops?' });
    expect(within(dialog).getByText(/2 shops sell this bundle below cost/)).toBeTruthy();
    expect(within(dialog).getByText(/Cheap Shop \(.CHEAP.\) at .1\.20./)).toBeTruthy();
    expect(within(dialog).getByText(/Corner \(.CRN.\) at .1\.25./)).toBeTruthy();
    const asked = calls.find((c) => c.path.endsWith('/shops-below-cost'))!;
    expect([asked.query.get('cost_price'), asked.query.get('selling_price')]).toEqual(['1.30', '1.50']);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /Take this bundle off/ })).toBeNull());
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);
  });

  it('saves once confirmed and then says plainly where the bundle is off sale', async () => {
    const calls = serve([shop(8, 'Cheap Shop', 'CHEAP', '1.20')]);
    await open();
    await raiseCostTo('1.30');
    const dialog = await screen.findByRole('dialog', { name: 'Take this bundle off 1 shop?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save the new cost' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PATCH')!.body).toMatchObject({ cost_price: '1.30' });
    expect(
      await screen.findByText(/This bundle is now off sale in 1 shop that priced it below the new cost: Cheap Shop \(.CHEAP.\) at .1\.20.\./),
    ).toBeTruthy();
  });

  it('saves at once when no shop is below the new cost, and when the cost goes down', async () => {
    const calls = serve([]);
    await open();
    await raiseCostTo('1.10');
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(1));
    expect(screen.queryByRole('dialog', { name: /Take this bundle off/ })).toBeNull();
    expect(screen.queryByText(/off sale in/)).toBeNull();
  });
});
