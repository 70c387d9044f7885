import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import WalletList from './WalletList';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';

const request = {
  id: 4,
  h_id: 'r4',
  wallet_id: 2,
  dealer: { id: 7, h_id: 'd7', name: 'Hodan Shop', dealer_code: 'HODAN' },
  amount: '250.00',
  reference: 'TU-0004',
  note: null,
  receipt: null,
  status: 'pending',
  reason: null,
  reviewed_by: null,
  reviewed_at: null,
  wallet_transaction_id: null,
  created_at: '2026-11-20T08:00:00Z',
  updated_at: null,
};

describe('approving a top-up request', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('asks first, naming the amount and the dealer; only Approve in the question credits the wallet', async () => {
    const calls = serveRoutes({
      'GET /api/v1/wallets': () => page([]),
      'GET /api/v1/wallet-top-up-requests': () => page([request]),
      'POST /api/v1/wallet-top-up-requests/4/approve': () => ok(request, 'Top-up approved: 250.00 credited'),
    });
    await renderScreen(<WalletList />, { path: '/wallets', url: '/wallets', permissions: ['view wallets', 'review wallet top-ups'] });
    fireEvent.click(await screen.findByRole('button', { name: 'Approve' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Approve .250\.00 USD. for Hodan Shop\?/)).toBeTruthy();
    expect(within(dialog).getByText(/250\.00 USD. is credited to the wallet of Hodan Shop at once \(request .?TU-0004.?\)/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/v1/wallet-top-up-requests/4/approve']));
    expect(await screen.findByText('Top-up approved: 250.00 credited')).toBeTruthy();
  });
});
