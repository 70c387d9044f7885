import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import MyWalletPage from './MyWalletPage';
import WalletList from './WalletList';
import { MenuCount } from '../layout/MenuBadge';
import { ok, page, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';

const dealerRef = { id: 7, h_id: 'd7', name: 'Hodan Shop', dealer_code: 'HODAN' };
const wallet = (pricing_model: 'cost' | 'profit') => ({
  id: 2,
  h_id: 'w2',
  dealer_id: 7,
  dealer: dealerRef,
  balance: '80.00',
  currency: 'USD',
  pricing_model,
  low_balance_threshold: null,
  low_balance: false,
  created_at: null,
  updated_at: null,
});
const myWallet = (pricing_model: 'cost' | 'profit') => ({
  wallet: wallet(pricing_model),
  transactions: [],
  days: [{ date: '2026-11-27', credits: '0.00', debits: '0.00', balance: '80.00' }],
  pending_top_ups: 0,
  missed_sales_today: { count: 0, amount: '0.00' },
});
const payoutRequest = {
  id: 9,
  h_id: 'r9',
  wallet_id: 2,
  dealer: dealerRef,
  kind: 'payout',
  amount: '30.00',
  reference: '615123456',
  note: null,
  receipt: null,
  status: 'pending',
  reason: null,
  reviewed_by: null,
  reviewed_at: null,
  wallet_transaction_id: null,
  created_at: '2026-11-27T08:00:00Z',
  updated_at: null,
};
const details = {
  company_name: 'Bundles Co',
  phone: '+252 61 0000000',
  methods: [
    { name: 'Salaam Bank', type: 'bank', account_number: 'SO12 3456 7890', instructions: 'Write your dealer code as the reference.' },
    { name: 'EVC Plus', type: 'evc_plus', account_number: '615000111', instructions: null },
  ],
};

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const openMyWallet = (lng = 'en') =>
  renderScreen(<MyWalletPage />, {
    path: '/my-wallet',
    url: '/my-wallet',
    permissions: ['view own wallet', 'request wallet top-ups'],
    userType: 'dealer',
    lng,
  });

describe('a dealer’s money requests', () => {
  it('the top-up dialog says where to pay: the company’s methods, account numbers, instructions and phone', async () => {
    serveRoutes({
      'GET /api/v1/my-wallet': () => ok(myWallet('cost')),
      'GET /api/v1/wallet-top-up-requests': () => page([]),
      'GET /api/v1/wallet-top-up-requests/payment-details': () => ok(details),
    });
    await openMyWallet();
    fireEvent.click(await screen.findByRole('button', { name: 'Request a top-up' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByRole('heading', { name: 'Where to pay' })).toBeTruthy();
    expect(within(dialog).getByText('Salaam Bank')).toBeTruthy();
    expect(within(dialog).getByText('SO12 3456 7890')).toBeTruthy();
    expect(within(dialog).getByText('Write your dealer code as the reference.')).toBeTruthy();
    expect(within(dialog).getByText('615000111')).toBeTruthy();
    expect(within(dialog).getByText(/Questions\? Call .\+252 61 0000000./)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Request a payout' })).toBeNull();
  });

  it('a Profit Only dealer asks for a payout to its number instead of a top-up', async () => {
    const calls = serveRoutes({
      'GET /api/v1/my-wallet': () => ok(myWallet('profit')),
      'GET /api/v1/wallet-top-up-requests': () => page([payoutRequest]),
      'POST /api/v1/wallet-top-up-requests/payout': () => ({
        status: 201,
        body: { success: true, message: 'Payout request sent. An admin will send the money and confirm it.', data: payoutRequest },
      }),
    });
    await openMyWallet();
    expect(await screen.findByRole('button', { name: 'Request a payout' }, { timeout: 5000 })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Request a top-up' })).toBeNull();
    // Its requests list says what each one is.
    expect(await screen.findByText('Top-up and payout requests')).toBeTruthy();
    expect(screen.getAllByText('Payout').length).toBeGreaterThan(0);

    fireEvent.click(screen.getByRole('button', { name: 'Request a payout' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Ask for up to .?80\.00 USD/)).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: '30' } });
    fireEvent.change(within(dialog).getByLabelText('Mobile number to receive the money'), { target: { value: '0615123456' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send the request' }));
    expect(await screen.findByText('Payout request sent. An admin will send the money and confirm it.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({
      path: '/api/v1/wallet-top-up-requests/payout',
      body: { amount: '30', phone: '0615123456' },
    });
  });

  it('an amount above the balance is shown on its field, in Somali', async () => {
    serveRoutes({
      'GET /api/v1/my-wallet': () => ok(myWallet('profit')),
      'GET /api/v1/wallet-top-up-requests': () => page([]),
      'POST /api/v1/wallet-top-up-requests/payout': () => ({
        status: 422,
        body: { success: false, code: 'validation.payout_above_balance', message: 'X', errors: { amount: ['Waxaad codsan kartaa ugu badnaan 80.00 USD'] } },
      }),
    });
    await openMyWallet('so');
    fireEvent.click(await screen.findByRole('button', { name: 'Codso lacag bixin' }, { timeout: 5000 }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText(/^Lacagta/), { target: { value: '500' } });
    fireEvent.change(within(dialog).getByLabelText(/^Lambarka mobilka lacagta qaadanaya/), { target: { value: '0615123456' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /Dir/ }));
    expect(await within(dialog).findByText('Waxaad codsan kartaa ugu badnaan 80.00 USD')).toBeTruthy();
  });
});

describe('staff deciding a payout', () => {
  it('asks first, naming the amount, the dealer and the number to pay; the words follow the kind', async () => {
    const calls = serveRoutes({
      'GET /api/v1/wallets': () => page([]),
      'GET /api/v1/wallet-top-up-requests': () => page([payoutRequest]),
      'GET /api/v1/wallet-top-up-requests/pending-count': () => ok({ count: 1 }),
      'POST /api/v1/wallet-top-up-requests/9/approve': () => ok({ ...payoutRequest, status: 'approved' }, 'Request approved'),
    });
    // With the menu's badge on screen, as in the console.
    await renderScreen(
      <>
        <MenuCount kind="money_requests" />
        <WalletList />
      </>,
      { path: '/wallets', url: '/wallets', permissions: ['view wallets', 'review wallet top-ups'] },
    );
    const counts = () => calls.filter((c) => c.path === '/api/v1/wallet-top-up-requests/pending-count').length;
    expect(await screen.findByText(/Payout · Hodan Shop/, {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByText(/Send to .?615123456/)).toBeTruthy();
    await waitFor(() => expect(counts()).toBe(1));
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Pay out .30\.00 USD. to Hodan Shop\?/)).toBeTruthy();
    expect(within(dialog).getByText(/30\.00 USD.? is taken from the wallet of Hodan Shop at once\. Send it to .?615123456/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/v1/wallet-top-up-requests/9/approve']));
    // The menu's badge is read again after the decision.
    await waitFor(() => expect(counts()).toBeGreaterThan(1));
  });
});

describe('the Wallets menu badge', () => {
  it('shows the requests waiting to a reviewer, and nothing (no call) to others', async () => {
    const calls = serveRoutes({ 'GET /api/v1/wallet-top-up-requests/pending-count': () => ok({ count: 3 }) });
    await renderScreen(<MenuCount kind="money_requests" />, { path: '/', url: '/', permissions: ['view wallets', 'review wallet top-ups'] });
    expect((await screen.findByRole('status', {}, { timeout: 5000 })).textContent).toBe('3');
    cleanup();
    clearSession();
    const none = serveRoutes({ 'GET /api/v1/wallet-top-up-requests/pending-count': () => ok({ count: 3 }) });
    await renderScreen(<MenuCount kind="money_requests" />, { path: '/', url: '/', permissions: ['view wallets'] });
    await new Promise((r) => setTimeout(r, 100));
    expect(screen.queryByRole('status')).toBeNull();
    expect(none).toHaveLength(0);
    expect(calls.length).toBeGreaterThan(0);
  });
});
