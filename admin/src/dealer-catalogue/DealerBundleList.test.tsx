import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import DealerBundleList from './DealerBundleList';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';
import { stubPhoneWidth } from '../test/phoneWidth';

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

  const screenWith = async (patch: (body: Record<string, unknown>) => { status?: number; body: unknown }) => {
    const calls = serveRoutes({
      'GET /api/v1/dealer-providers/1': () => ok({ id: 1, h_id: 'p1', name: 'Hormuud' }),
      'GET /api/v1/dealer-categories/2': () => ok({ id: 2, h_id: 'c2', name: 'Daily' }),
      'GET /api/v1/dealer-bundles': () => page([row(1, '1 GB Daily', { cost_price: '0.70', custom_price: null, selling_price: '1.50', profit: '0.80' })]),
      'PATCH /api/v1/dealer-bundles/b1': (call) => patch(call.body as Record<string, unknown>),
      'POST /api/v1/dealer-bundles/bulk': () => ok({ affected: 1 }, '1 bundle updated'),
    });
    await renderScreen(<DealerBundleList />, {
      path: '/dealer-providers/:id/categories/:categoryId/bundles',
      url: '/dealer-providers/1/categories/2/bundles',
      permissions: ['view dealer bundles', 'update dealer bundles', 'view bundles prices'],
      userType: 'dealer',
    });
    return calls;
  };

  it('prices a row by a percentage markup: the unit is %, the price it gives shows as typed, and the markup is what is sent', async () => {
    const calls = await screenWith((body) =>
      body.markup_percent === 2000
        ? { status: 422, body: { success: false, message: 'Validation failed.', errors: { markup_percent: ['Enter a markup above 0% and at most 1000%'] } } }
        : ok(row(1, '1 GB Daily', { cost_price: '0.70', custom_price: '0.79', selling_price: '0.79' })),
    );
    const line = (await screen.findByText('1 GB Daily')).closest('tr')!;
    const modes = within(line).getByRole('group', { name: 'How to set the price of 1 GB Daily' });
    expect(within(modes).getByRole('button', { name: 'Price' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(line).getByText('USD')).toBeTruthy();
    fireEvent.click(within(modes).getByRole('button', { name: 'Markup %' }));
    expect(within(modes).getByRole('button', { name: 'Markup %' }).getAttribute('aria-pressed')).toBe('true');
    // Before anything is typed, the price a markup would replace (the row's own price).
    expect(within(line).getByText(/^Price: \d+\.\d{2}$/)).toBeTruthy();
    const field = within(line).getByRole('textbox', { name: 'Markup over the cost for 1 GB Daily, in percent' });
    expect(within(line).getByText('%')).toBeTruthy();
    // 0.70 + 12.5% = 0.7875: 0.79, as the API rounds.
    fireEvent.change(field, { target: { value: '12.5' } });
    expect(within(line).getByText('Price: 0.79')).toBeTruthy();
    fireEvent.change(field, { target: { value: '2000' } });
    expect(within(line).queryByText(/^Price: /)).toBeNull();
    fireEvent.click(within(line).getByRole('button', { name: 'Save the price' }));
    expect(await within(line).findByText('Enter a markup above 0% and at most 1000%')).toBeTruthy();
    fireEvent.change(field, { target: { value: '12.5' } });
    fireEvent.click(within(line).getByRole('button', { name: 'Save the price' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(2));
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([{ markup_percent: 2000 }, { markup_percent: 12.5 }]);
    // Saved: back to the price itself (the field shows the row's price, as refreshed).
    await waitFor(() => expect(within(modes).getByRole('button', { name: 'Price' }).getAttribute('aria-pressed')).toBe('true'));
    expect(within(line).getByRole('textbox', { name: /1 GB Daily/ })).toBeTruthy();
  });

  it('prices a row by a fixed profit, in the currency, with the price it gives', async () => {
    const calls = await screenWith(() => ok(row(1, '1 GB Daily', { cost_price: '0.70' })));
    const line = (await screen.findByText('1 GB Daily')).closest('tr')!;
    fireEvent.click(within(line).getByRole('button', { name: 'Profit' }));
    const field = within(line).getByRole('textbox', { name: 'Profit over the cost for 1 GB Daily' });
    fireEvent.change(field, { target: { value: '0.25' } });
    expect(within(line).getByText('Price: 0.95')).toBeTruthy();
    expect(within(line).getByText('USD')).toBeTruthy();
    fireEvent.keyDown(field, { key: 'Enter' });
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ profit: '0.25' }));
  });

  it('applies a markup to the whole category from the dialog, saying each bundle sells at its cost + N%', async () => {
    const calls = await screenWith(() => ok({}));
    fireEvent.click(await screen.findByRole('button', { name: 'Apply a profit or markup to all' }));
    const dialog = await screen.findByRole('dialog', { name: 'Apply a profit or markup to all' });
    const modes = within(dialog).getByRole('group', { name: 'Set the prices by' });
    expect(within(modes).getByRole('button', { name: 'Fixed profit' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(dialog).getByText('USD')).toBeTruthy();
    fireEvent.click(within(modes).getByRole('button', { name: 'Percentage markup' }));
    const field = within(dialog).getByRole('textbox', { name: 'Markup' });
    expect(within(dialog).getByText('%')).toBeTruthy();
    expect(within(dialog).getByText('Every bundle of this category will sell at its cost plus this percentage of it, e.g. 12.5')).toBeTruthy();
    fireEvent.change(field, { target: { value: '10' } });
    expect(within(dialog).getByText('Each bundle will sell at its own cost + 10%, rounded to the cent (a cost of 1.00 sells at 1.10).')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(calls.find((c) => c.path === '/api/v1/dealer-bundles/bulk')?.body).toEqual({ category_id: '2', markup_percent: 10 }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
  it('on a phone, prices one bundle with the same price, profit or markup editor and keeps its Offered switch', async () => {
    // A phone's width: MUI's useMediaQuery asks matchMedia.
    stubPhoneWidth();
    const calls = serveRoutes({
      'GET /api/v1/dealer-providers/1': () => ok({ id: 1, h_id: 'p1', name: 'Hormuud' }),
      'GET /api/v1/dealer-categories/2': () => ok({ id: 2, h_id: 'c2', name: 'Daily' }),
      'GET /api/v1/dealer-bundles': () =>
        page([
          row(1, '1 GB Daily', { cost_price: '0.70', custom_price: null, selling_price: '1.50', profit: '0.80' }),
          row(2, '5 GB Weekly', { cost_price: '1.30', profit: '-0.10', below_cost: true }),
        ]),
      'PATCH /api/v1/dealer-bundles/b1': () => ok(row(1, '1 GB Daily', { cost_price: '0.70', custom_price: '0.77', selling_price: '0.77', profit: '0.07' })),
    });
    await renderScreen(<DealerBundleList />, {
      path: '/dealer-providers/:id/categories/:categoryId/bundles',
      url: '/dealer-providers/1/categories/2/bundles',
      permissions: ['view dealer bundles', 'update dealer bundles', 'view bundles prices'],
      userType: 'dealer',
    });
    const line = (await screen.findByText('1 GB Daily')).closest('li')!;
    expect(screen.queryByRole('table')).toBeNull();
    expect(line.textContent).toContain('1.50');
    expect(line.textContent).toContain('Profit: 0.80');
    // Offered stays reachable: the switch, and for a bundle below its cost the way to stop offering it.
    expect((within(line).getByRole('switch', { name: 'Stop offering 1 GB Daily' }) as HTMLInputElement).checked).toBe(true);
    const offSale = screen.getByText('5 GB Weekly').closest('li')!;
    expect(await within(offSale).findByRole('button', { name: 'Stop offering 5 GB Weekly' }, { timeout: 5000 })).toBeTruthy();
    // The row's own editor: 10% over a cost of 0.70 gives 0.77, shown as typed, and the markup is sent.
    const modes = within(line).getByRole('group', { name: 'How to set the price of 1 GB Daily' });
    fireEvent.click(within(modes).getByRole('button', { name: 'Markup %' }));
    const field = within(line).getByRole('textbox', { name: 'Markup over the cost for 1 GB Daily, in percent' });
    fireEvent.change(field, { target: { value: '10' } });
    expect(within(line).getByText('Price: 0.77')).toBeTruthy();
    fireEvent.click(within(line).getByRole('button', { name: 'Save the price' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ markup_percent: 10 }));
    expect(await screen.findByText('Price saved')).toBeTruthy();
  });
});
