import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore, Notification, type AuthProvider } from 'react-admin';
import type { RechargeResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import { PaidBackPanel } from './PaidBack';
import { RechargeDetail } from './RechargeDetail';

/**
 * Money taken through a payment service without refunds (eDahab), owed back to the customer: the
 * warning in a sale's detail, "Mark as paid back" and its dialog against the console's real
 * dataProvider (what is POSTed, the API's message, its field errors and its 409), and the line
 * saying who paid it back once recorded.
 */
type Sale = Parameters<typeof PaidBackPanel>[0]['recharge'];
const due: Sale = {
  id: 41,
  reference: 'RC7Q2M4K8P1Z',
  amount: '0.50',
  currency: 'USD',
  phone: '615559999',
  payer_phone: '625552001',
  payment_state: 'refund_due',
  payment_gateway: 'edahab',
  paid_back: null,
};

/** Text as read, without the Unicode isolates that keep phones and amounts in order in Arabic. */
const plain = (text: string | null | undefined) => (text ?? '').replace(/[\u2066-\u2069]/g, '');

async function renderPanel(recharge: Sale = due, canRecord = true, lng = 'en') {
  const onRecorded = vi.fn();
  const i18nProvider = await testI18nProvider(lng);
  render(
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      <PaidBackPanel recharge={recharge} canRecord={canRecord} onRecorded={onRecorded} />
      <Notification />
    </AdminContext>,
  );
  return onRecorded;
}

const answer = (over: Partial<RechargeResponse> = {}) => ({
  body: { success: true, message: 'Recorded: the payment was paid back to the customer by hand.', data: { ...due, payment_state: 'paid_back', ...over } },
});

describe('money to pay back by hand', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('says what is owed, to whom and why, and records it: a note required, the reference optional, the API message as the toast', async () => {
    const calls = serveRoutes({ 'POST /api/v1/recharges/41/paid-back': () => answer() });
    const onRecorded = await renderPanel();
    const alert = screen.getByText('Pay the customer back by hand').closest('.MuiAlert-root')!;
    expect(plain(alert.textContent)).toContain(
      "eDahab has no refund: the customer's payment of 0.50 USD from 625552001 must be paid back to them by hand. Once it is done, mark it as paid back.",
    );
    fireEvent.click(within(alert as HTMLElement).getByRole('button', { name: 'Mark as paid back' }));
    const dialog = await screen.findByRole('dialog', { name: /^Mark .*RC7Q2M4K8P1Z.* as paid back$/ });
    expect(plain(within(dialog).getByText(/It is kept with the sale/).textContent)).toBe(
      'Record how 0.50 USD was paid back to 625552001. It is kept with the sale and cannot be undone.',
    );

    // Nothing goes without a note.
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark as paid back' }));
    expect(await within(dialog).findByText('Say how it was paid back')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

    fireEvent.change(within(dialog).getByLabelText(/^How it was paid back/), { target: { value: '  Sent from the shop eDahab to 062 5552001  ' } });
    fireEvent.change(within(dialog).getByLabelText(/^Transfer reference/), { target: { value: ' TRF-88120 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark as paid back' }));
    await waitFor(() => expect(onRecorded).toHaveBeenCalledTimes(1));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      expect.objectContaining({
        path: '/api/v1/recharges/41/paid-back',
        body: { note: 'Sent from the shop eDahab to 062 5552001', reference: 'TRF-88120' },
      }),
    ]);
    expect(await screen.findByText('Recorded: the payment was paid back to the customer by hand.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('sends no reference when none is given', async () => {
    const calls = serveRoutes({ 'POST /api/v1/recharges/41/paid-back': () => answer() });
    const onRecorded = await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Mark as paid back' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText(/^How it was paid back/), { target: { value: 'Cash at the counter' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark as paid back' }));
    await waitFor(() => expect(onRecorded).toHaveBeenCalled());
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ note: 'Cash at the counter' });
  });

  it("shows the API's field error on the note, and its 409 (someone recorded it first) above the fields", async () => {
    const answers = [
      { status: 422, body: { success: false, message: 'The given data was invalid.', errors: { note: ['This value is too long'] } } },
      { status: 409, body: { success: false, message: 'This sale has no payment waiting to be paid back by hand.' } },
    ];
    serveRoutes({ 'POST /api/v1/recharges/41/paid-back': () => answers.shift()! });
    const onRecorded = await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Mark as paid back' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText(/^How it was paid back/), { target: { value: 'Sent back' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark as paid back' }));
    const note = within(dialog).getByLabelText(/^How it was paid back/);
    await waitFor(() => expect(note.getAttribute('aria-invalid')).toBe('true'));
    expect(within(dialog).getByText('This value is too long')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Mark as paid back' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('This sale has no payment waiting to be paid back by hand.');
    expect(onRecorded).not.toHaveBeenCalled();
  });

  it('offers no button without "refund recharges", and says nothing for a sale with nothing owed', async () => {
    serveRoutes({});
    await renderPanel(due, false);
    expect(screen.getByText('Pay the customer back by hand')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
    cleanup();
    await renderPanel({ ...due, payment_state: 'collected' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByText('Pay the customer back by hand')).toBeNull();
  });

  it('once recorded: who paid it back, when, how and the reference (in Arabic too)', async () => {
    serveRoutes({});
    const paid: Sale = {
      ...due,
      payment_state: 'paid_back',
      paid_back: { by: { id: 2, name: 'Amina Yusuf' }, at: '2026-11-26T09:30:00.000Z', note: 'Sent from the shop eDahab', reference: 'TRF-88120' },
    };
    await renderPanel(paid);
    const line = await screen.findByText(/^Paid back by \u2068Amina Yusuf\u2069 on /);
    await waitFor(() => expect(plain(line.textContent)).toMatch(/^Paid back by Amina Yusuf on .*2026.*: Sent from the shop eDahab \(reference TRF-88120\)$/));
    // The reference in one piece, left to right.
    const reference = within(line).getByText('TRF-88120');
    expect(reference.getAttribute('dir')).toBe('ltr');
    expect(screen.queryByRole('button')).toBeNull();
    cleanup();
    await renderPanel({ ...paid, paid_back: { ...paid.paid_back!, by: null, reference: null } }, true, 'ae');
    const ar = await screen.findByText(/^أعاده /);
    expect(plain(ar.textContent)).toMatch(/: Sent from the shop eDahab$/);
    expect(ar.textContent).not.toContain('المرجع');
  });
});

describe("a sale's detail with money to pay back by hand", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const authAs = (permissions: string[]): AuthProvider => ({
    login: async () => undefined,
    logout: async () => undefined,
    checkAuth: async () => undefined,
    checkError: async () => undefined,
    getPermissions: async () => permissions,
  });
  const full = {
    ...due,
    h_id: 'r41',
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    status: 'refunded',
    provider_name: 'Hormuud',
    category_name: 'Daily',
    bundle_name: '1 GB Daily',
    pricing_model: 'cost',
    payment_method: 'eDahab',
    payment_flow: 'purchase',
    delivery_state: 'failed',
    route: 'reloadly',
    attempts: 1,
    created_at: '2026-11-26T09:00:00.000Z',
  };

  async function renderDetail(permissions: string[], timeline: { at: string; event: string; detail: string | null }[] = []) {
    serveRoutes({
      'GET /api/v1/recharges/41': () => ({ body: { success: true, data: { recharge: full, timeline, transactions: [], remote_calls: [] } } }),
    });
    const i18nProvider = await testI18nProvider();
    render(
      <AdminContext dataProvider={dataProvider} authProvider={authAs(permissions)} i18nProvider={i18nProvider} store={memoryStore()}>
        <RechargeDetail id="41" onClose={() => undefined} />
      </AdminContext>,
    );
    return screen.findByRole('dialog', { name: 'Recharge' });
  }

  it('warns and offers "Mark as paid back" to holders of "refund recharges"; names the gateway as its vendor spells it; no Refund', async () => {
    const drawer = await renderDetail(
      ['view recharges', 'refund recharges'],
      [
        {
          at: '2026-11-26T09:30:00.000Z',
          event: 'recharge_paid_back_by_hand',
          detail: JSON.stringify({ payment_state: 'paid_back', note: 'Sent from the shop eDahab', reference: 'TRF-88120' }),
        },
      ],
    );
    expect(await within(drawer).findByText('Pay the customer back by hand')).toBeTruthy();
    expect(within(drawer).getByRole('button', { name: 'Mark as paid back' })).toBeTruthy();
    expect(within(drawer).queryByRole('button', { name: 'Refund' })).toBeNull();
    const gateway = within(drawer).getByRole('rowheader', { name: 'Payment gateway' }).closest('tr')!;
    expect(plain(gateway.textContent)).toBe('Payment gatewayeDahab');
    const payment = within(drawer).getByRole('rowheader', { name: 'Payment' }).closest('tr')!;
    expect(within(payment).getByText('To pay back by hand')).toBeTruthy();
    // The timeline names the event and says how and with which reference.
    expect(within(drawer).getByText(/Paid back by hand$/)).toBeTruthy();
    expect(plain(within(drawer).getByText(/^Note: Sent from the shop eDahab/).textContent)).toBe('Note: Sent from the shop eDahab · Reference: TRF-88120');
  });

  it('without "refund recharges": the warning, no button', async () => {
    const drawer = await renderDetail(['view recharges']);
    expect(await within(drawer).findByText('Pay the customer back by hand')).toBeTruthy();
    expect(within(drawer).queryByRole('button', { name: 'Mark as paid back' })).toBeNull();
  });
});
