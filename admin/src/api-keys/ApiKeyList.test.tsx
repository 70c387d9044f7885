import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ApiKeyResponse, WalletResponse } from '@app/contracts';
import { clearSession } from '../providers/session';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';
import { ok, page, renderScreen } from '../test/renderScreen';
import ApiKeyList from './ApiKeyList';

/**
 * The API keys page in test mode: each key's mode as a chip (Test marked apart), the mode filter,
 * and the test wallet's card (its balance, "no test key yet", and a reset that asks first).
 */
const VIEW = ['view api keys'];
const MANAGE = ['view api keys', 'manage api keys'];
const dealer = { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' };

const key = (over: Partial<ApiKeyResponse>): ApiKeyResponse => ({
  id: 9,
  h_id: 'k9',
  dealer,
  name: 'Till 1',
  prefix: 'rk_live_Ab12Cd34Ef56',
  mode: 'live',
  scopes: ['catalogue:read', 'recharges:write'],
  ip_allowlist: [],
  last_used_at: null,
  last_used_ip: null,
  created_by: null,
  created_at: '2026-11-26T09:00:00.000Z',
  revoked_at: null,
  revoked_by: null,
  ...over,
});

const testKey = key({ id: 10, h_id: 'k10', name: 'Sandbox till', prefix: 'rk_test_Zz98Yy76Xx54', mode: 'test' });

const wallet = (balance: string): WalletResponse => ({
  id: 21,
  h_id: 'w21',
  dealer_id: 3,
  dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' } as WalletResponse['dealer'],
  balance,
  currency: 'USD',
  pricing_model: 'cost',
  low_balance_threshold: null,
  low_balance: false,
  created_at: '2026-11-26T09:00:00.000Z',
  updated_at: '2026-11-26T09:00:00.000Z',
});

const keyLists = (calls: RoutedCall[]) => calls.filter((c) => c.method === 'GET' && c.path === '/api/v1/dealer/api-keys');
const walletReads = (calls: RoutedCall[]) => calls.filter((c) => c.method === 'GET' && c.path === '/api/v1/dealer/api-keys/test-wallet');

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the API keys page in test mode', () => {
  it('marks each key with its mode, Test apart from Live, and filters by mode through the API', async () => {
    const calls = serveRoutes({
      'GET /api/v1/dealer/api-keys': (c) => page(c.query.get('mode') === 'test' ? [testKey] : [testKey, key({})]),
      'GET /api/v1/dealer/api-keys/test-wallet': () => ok(wallet('987.50')),
    });
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: '/api-keys', permissions: MANAGE, userType: 'dealer' });
    const testRow = (await screen.findByText('Sandbox till')).closest('tr')!;
    const liveRow = screen.getByText('Till 1').closest('tr')!;
    const testChip = within(testRow).getByText('Test').closest('.MuiChip-root')!;
    const liveChip = within(liveRow).getByText('Live').closest('.MuiChip-root')!;
    // Test is the warning colour, with its flask; Live is plain.
    expect(testChip.className).toContain('MuiChip-colorWarning');
    expect(testChip.querySelector('svg')).toBeTruthy();
    expect(liveChip.className).not.toContain('MuiChip-colorWarning');
    expect(within(liveRow).queryByText('Test')).toBeNull();
    expect(screen.getByRole('columnheader', { name: 'Mode' })).toBeTruthy();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Mode' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Test' }));
    await waitFor(() => expect(keyLists(calls).some((c) => c.query.get('mode') === 'test')).toBe(true));
    await waitFor(() => expect(screen.queryByText('Till 1')).toBeNull());
  });

  it('shows the test wallet’s balance; the reset asks first, then calls the API and shows the new balance and the server’s message', async () => {
    let balance = '12.25';
    const calls = serveRoutes({
      'GET /api/v1/dealer/api-keys': () => page([testKey]),
      'GET /api/v1/dealer/api-keys/test-wallet': () => ok(wallet(balance)),
      'POST /api/v1/dealer/api-keys/test-wallet/reset': () => {
        balance = '1000.00';
        return ok(wallet(balance), 'The test wallet is back to its starting balance.');
      },
    });
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: '/api-keys', permissions: MANAGE, userType: 'dealer' });
    const card = await screen.findByRole('region', { name: 'Test wallet' });
    expect((await within(card).findByTestId('test-wallet-balance')).textContent).toBe('12.25 USD');
    // A dealer's own: no dealer named.
    expect(walletReads(calls)[0].query.get('dealer_id')).toBeNull();

    fireEvent.click(within(card).getByRole('button', { name: 'Reset test balance' }));
    const confirm = await screen.findByRole('dialog', { name: 'Reset the test balance?' });
    expect(confirm.textContent).toContain('1000.00 USD');
    expect(confirm.textContent).toContain('the live wallet is not touched');
    // Nothing is sent before the confirmation.
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Reset test balance' }));

    expect(await screen.findByText('The test wallet is back to its starting balance.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/v1/dealer/api-keys/test-wallet/reset']);
    await waitFor(() => expect(within(card).getByTestId('test-wallet-balance').textContent).toBe('1000.00 USD'));
  });

  it('says "no test key yet" when the dealer has no test wallet, and offers no reset without "manage api keys"', async () => {
    serveRoutes({
      'GET /api/v1/dealer/api-keys': () => page([key({})]),
      'GET /api/v1/dealer/api-keys/test-wallet': () => ok(null),
    });
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: '/api-keys', permissions: MANAGE, userType: 'dealer' });
    const card = await screen.findByRole('region', { name: 'Test wallet' });
    expect(await within(card).findByText(/No test key yet/)).toBeTruthy();
    expect(within(card).queryByRole('button', { name: 'Reset test balance' })).toBeNull();
    cleanup();

    serveRoutes({
      'GET /api/v1/dealer/api-keys': () => page([testKey]),
      'GET /api/v1/dealer/api-keys/test-wallet': () => ok(wallet('500.00')),
    });
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: '/api-keys', permissions: VIEW, userType: 'dealer' });
    const viewOnly = await screen.findByRole('region', { name: 'Test wallet' });
    expect((await within(viewOnly).findByTestId('test-wallet-balance')).textContent).toBe('500.00 USD');
    expect(within(viewOnly).queryByRole('button', { name: 'Reset test balance' })).toBeNull();
  });

  it('for an admin: the dealer filtered on names the test wallet (?dealer_id=), and without one the card asks for a dealer', async () => {
    const calls = serveRoutes({
      'GET /api/v1/dealer/api-keys': () => page([testKey]),
      'GET /api/v1/user-options': () => page([{ id: 3, name: 'Demo Dealer' }]),
      'GET /api/v1/user-options/3': () => ok({ id: 3, name: 'Demo Dealer' }),
      'GET /api/v1/dealer/api-keys/test-wallet': () => ok(wallet('640.00')),
      'POST /api/v1/dealer/api-keys/test-wallet/reset': () => ok(wallet('1000.00'), 'The test wallet is back to its starting balance.'),
    });
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: '/api-keys', permissions: MANAGE });
    const card = await screen.findByRole('region', { name: 'Test wallet' });
    expect(within(card).getByText(/Choose a dealer in the Dealer filter/)).toBeTruthy();
    await screen.findByText('Sandbox till');
    expect(walletReads(calls)).toHaveLength(0);
    cleanup();

    const filter = encodeURIComponent(JSON.stringify({ dealer_id: 3 }));
    await renderScreen(<ApiKeyList />, { path: '/api-keys/*', url: `/api-keys?filter=${filter}`, permissions: MANAGE });
    const chosen = await screen.findByRole('region', { name: 'Test wallet' });
    expect((await within(chosen).findByTestId('test-wallet-balance')).textContent).toBe('640.00 USD');
    expect(walletReads(calls).every((c) => c.query.get('dealer_id') === '3')).toBe(true);
    fireEvent.click(within(chosen).getByRole('button', { name: 'Reset test balance' }));
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Reset the test balance?' })).getByRole('button', { name: 'Reset test balance' }));
    await waitFor(() => expect(within(chosen).getByTestId('test-wallet-balance').textContent).toBe('1000.00 USD'));
    const reset = calls.filter((c) => c.method === 'POST');
    expect(reset).toHaveLength(1);
    expect(reset[0].query.get('dealer_id')).toBe('3');
  });
});
