import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { TopUpDialog, AdjustDialog } from './WalletDialogs';
import { LowBalanceAlertForm } from './LowBalanceAlertForm';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const wallet = { id: 7, dealer: { id: 3, h_id: 'x', name: 'Demo Dealer', dealer_code: 'DEMO' }, balance: '0.00', currency: 'USD', low_balance_threshold: null };
const posted = {
  status: 200,
  body: { success: true, message: 'Wallet topped up with 12.50. Balance: 12.50', data: { wallet: { ...wallet, balance: '12.50' } } },
};

async function wrap(ui: React.ReactNode) {
  const i18nProvider = await testI18nProvider();
  return (
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      {ui}
    </AdminContext>
  );
}

function fillTopUp() {
  const dialog = screen.getByRole('dialog', { name: 'Top up Demo Dealer' });
  fireEvent.change(within(dialog).getByLabelText(/^Amount/), { target: { value: '12.5' } });
  fireEvent.change(within(dialog).getByLabelText(/^Reference/), { target: { value: 'EVC-1' } });
  return dialog;
}

describe('wallet money dialogs', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('top-up: a retry after a network error sends the same Idempotency-Key, and the replayed answer is a success', async () => {
    const calls = mockFetch([new TypeError('Failed to fetch'), posted]);
    const onDone = vi.fn();
    render(await wrap(<TopUpDialog wallet={wallet} onClose={() => undefined} onDone={onDone} />));
    const dialog = fillTopUp();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Top up' }));
    expect(await within(dialog).findByText('Network error. Please check your connection.')).toBeTruthy();
    expect(onDone).not.toHaveBeenCalled();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Top up' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(calls).toHaveLength(2);
    const [first, second] = calls.map((c) => c.headers.get('Idempotency-Key'));
    expect(first).toMatch(/^console-[0-9a-f]{32}$/);
    expect(second).toBe(first);
    expect(calls[0].url).toBe('/api/v1/wallets/7/top-up');
    expect(calls[1].body).toEqual({ amount: '12.5', reference: 'EVC-1', note: '' });
  });

  it('top-up: a double click sends one request; a new opening makes a new key', async () => {
    let release!: (r: Response) => void;
    const calls: Headers[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((_url: string, init: RequestInit) => {
        calls.push(new Headers(init.headers));
        return calls.length === 1 ? new Promise<Response>((r) => (release = r)) : Promise.resolve(new Response(JSON.stringify(posted.body)));
      }),
    );
    const onDone = vi.fn();
    const view = render(await wrap(<TopUpDialog wallet={wallet} onClose={() => undefined} onDone={onDone} />));
    const dialog = fillTopUp();
    const button = within(dialog).getByRole('button', { name: 'Top up' });
    fireEvent.click(button);
    fireEvent.click(button);
    // The form checks the values (the shared schema) before it sends: the request leaves a moment later.
    await waitFor(() => expect(calls).toHaveLength(1));
    // A click while it is on its way sends nothing either.
    fireEvent.click(button);
    release(new Response(JSON.stringify(posted.body)));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(calls).toHaveLength(1);

    // Closed and opened again: another operation, another key.
    view.rerender(await wrap(<TopUpDialog open={false} wallet={wallet} onClose={() => undefined} onDone={onDone} />));
    view.rerender(await wrap(<TopUpDialog open wallet={wallet} onClose={() => undefined} onDone={onDone} />));
    fireEvent.click(within(fillTopUp()).getByRole('button', { name: 'Top up' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(2));
    expect(calls).toHaveLength(2);
    expect(calls[1].get('Idempotency-Key')).not.toBe(calls[0].get('Idempotency-Key'));
  });

  it("shows the server's whole message on each field (not its first character), and every message of a field", async () => {
    const ceiling = 'The amount is above the most one operation may move (100000.00).';
    mockFetch([
      {
        status: 422,
        body: {
          success: false,
          message: 'The given data was invalid.',
          errors: {
            amount: [ceiling, 'The balance would go above the highest balance (10000000.00).'],
            note: ['Write down why'],
            idempotency_key: ['The key was used for another request.'],
          },
        },
      },
    ]);
    render(await wrap(<AdjustDialog wallet={wallet} onClose={() => undefined} onDone={() => undefined} />));
    const dialog = screen.getByRole('dialog', { name: 'Adjust the wallet of Demo Dealer' });
    fireEvent.change(within(dialog).getByLabelText(/^Amount/), { target: { value: '200000' } });
    fireEvent.change(within(dialog).getByLabelText(/^Reference/), { target: { value: 'ADJ-1' } });
    fireEvent.change(within(dialog).getByLabelText(/^Reason/), { target: { value: 'Counted twice' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Adjust' }));
    expect(await within(dialog).findByText(`${ceiling} The balance would go above the highest balance (10000000.00).`)).toBeTruthy();
    expect(within(dialog).getByText('Write down why')).toBeTruthy();
    // A field the dialog has no input for shows above the fields.
    expect(within(dialog).getByRole('alert').textContent).toBe('The key was used for another request.');
    expect(
      within(dialog)
        .getByLabelText(/^Amount/)
        .getAttribute('aria-invalid'),
    ).toBe('true');
  });

  it('a transfer already credited (409 on the reference) shows the whole message, naming the first credit, on the reference field', async () => {
    const message =
      'This bank reference was already credited to this wallet on 2026-11-27 10:05 (12.50 USD, ledger entry #41). Check the ledger before crediting the same transfer again.';
    mockFetch([{ status: 409, body: { success: false, message, errors: { reference: [message] } } }]);
    const onDone = vi.fn();
    render(await wrap(<TopUpDialog wallet={wallet} onClose={() => undefined} onDone={onDone} />));
    const dialog = fillTopUp();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Top up' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
    expect(
      within(dialog)
        .getByLabelText(/^Reference/)
        .getAttribute('aria-invalid'),
    ).toBe('true');
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(onDone).not.toHaveBeenCalled();
  });

  it('a 409 without field errors shows the server message', async () => {
    mockFetch([{ status: 409, body: { success: false, message: 'This Idempotency-Key was used for a different top-up.' } }]);
    render(await wrap(<TopUpDialog wallet={wallet} onClose={() => undefined} onDone={() => undefined} />));
    const dialog = fillTopUp();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Top up' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('This Idempotency-Key was used for a different top-up.');
  });
});

describe("the dealer's low-balance alert", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('puts the whole server message on the threshold field, and Remove sends null', async () => {
    const message = 'The alert must be below the highest balance (10000000.00).';
    const calls = mockFetch([
      { status: 422, body: { success: false, message: 'The given data was invalid.', errors: { threshold: [message] } } },
      { status: 200, body: { success: true, message: 'Alert removed', data: {} } },
    ]);
    render(await wrap(<LowBalanceAlertForm wallet={{ low_balance_threshold: '20.00', low_balance: true, currency: 'USD' }} />));
    expect(screen.getByText('The balance is below your alert of 20.00 USD.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Alert below'), { target: { value: '99999999' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(message)).toBeTruthy();
    expect(calls[0]).toMatchObject({ url: '/api/v1/my-wallet/low-balance-alert', method: 'PUT', body: { threshold: '99999999' } });
    fireEvent.click(screen.getByRole('button', { name: 'Remove the alert' }));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1].body).toEqual({ threshold: null });
  });
});
