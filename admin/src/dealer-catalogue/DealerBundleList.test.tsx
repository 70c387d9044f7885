import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import DealerBundleList from './DealerBundleList';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';

const row = (id: number, name: string, extra: Record<string, unknown>) => ({
  id,
  h_id: `b${id}`,
  dealer_id: 1,
  name,
  category_id: 2,
  category: { id: 2, h_id: 'c2', name: 'Daily' },
  provider: { id: 1, h_id: 'p1', name: 'Hormuud' },
  data_volume_mb: 1024,
  validity_days: 1,
  available: true,
  enabled: true,
  status: 'active',
  sort_order: id,
  selling_price: '1.20',
  custom_price: '1.20',
  default_selling_price: '1.50',
  cost_price: '1.00',
  profit: '0.20',
  below_cost: false,
  ...extra,
});

describe("the dealer's bundles", () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('shows a bundle switched on but priced below its new cost as not on sale, not as a switch that says on', async () => {
    serveRoutes({
      'GET /api/v1/dealer-providers/1': () => ok({ id: 1, h_id: 'p1', name: 'Hormuud' }),
      'GET /api/v1/dealer-categories/2': () => ok({ id: 2, h_id: 'c2', name: 'Daily' }),
      'GET /api/v1/dealer-bundles': () =>
        page([
          row(1, '1 GB Daily', {}),
          row(2, '5 GB Weekly', { cost_price: '1.30', profit: '-0.10', below_cost: true }),
          row(3, '2 GB Daily', { enabled: false, status: 'inactive' }),
        ]),
    });
    await renderScreen(<DealerBundleList />, {
      path: '/dealer-providers/:id/categories/:categoryId/bundles',
      url: '/dealer-providers/1/categories/2/bundles',
      permissions: ['view dealer bundles', 'update dealer bundles', 'view bundles prices'],
      userType: 'dealer',
    });
    const offSale = (await screen.findByText('5 GB Weekly')).closest('tr')!;
    expect(within(offSale).getByText('Not on sale: priced below cost')).toBeTruthy();
    expect(within(offSale).queryByRole('switch')).toBeNull();
    expect(within(offSale).queryByRole('checkbox')).toBeNull();
    expect(await within(offSale).findByRole('button', { name: 'Stop offering 5 GB Weekly' }, { timeout: 5000 })).toBeTruthy();
    const selling = screen.getByText('1 GB Daily').closest('tr')!;
    expect((within(selling).getByRole('switch', { name: 'Stop offering 1 GB Daily' }) as HTMLInputElement).checked).toBe(true);
    expect(within(selling).queryByText('Not on sale: priced below cost')).toBeNull();
    const off = screen.getByText('2 GB Daily').closest('tr')!;
    expect((within(off).getByRole('switch', { name: 'Offer 2 GB Daily' }) as HTMLInputElement).checked).toBe(false);
  });
});
