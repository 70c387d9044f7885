import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { SettlePanel } from './SettlePanel';
import { RemoteCallTimeline, prettyJson } from './RemoteCallTimeline';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const recharge = { id: 41, reference: 'RC-41', amount: '0.50', currency: 'USD', pricing_model: 'cost' as const };
type Sale = Parameters<typeof SettlePanel>[0]['recharge'];

async function renderPanel(onSettled = vi.fn(), r: Sale = recharge) {
  const i18nProvider = await testI18nProvider();
  render(
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      <SettlePanel recharge={r} onSettled={onSettled} />
    </AdminContext>,
  );
  return onSettled;
}

describe('settle panel (a sale in review)', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('asks for an outcome and a note before anything is sent', async () => {
    const calls = mockFetch([]);
    await renderPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    expect(await screen.findByText('Choose delivered or not delivered')).toBeTruthy();
    expect(screen.getByText('Write down why')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls).toHaveLength(0);
    // A payment whose outcome is known: nothing is asked about the payment service's portal.
    expect(screen.queryByText("What does the payment service's portal show?")).toBeNull();
  });

  it('not delivered: the confirmation says the payment is cancelled and the debit returned, then it posts and refreshes', async () => {
    const calls = mockFetch([
      {
        status: 200,
        body: { success: true, message: "Settled as not delivered: the customer's payment is let go and the dealer's debit returned.", data: {} },
      },
    ]);
    const onSettled = await renderPanel();
    fireEvent.click(screen.getByRole('radio', { name: 'Not delivered' }));
    fireEvent.change(screen.getByLabelText(/^Note/), { target: { value: '  Hormuud says no top-up reached 615123456  ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settle RC-41 as not delivered?' });
    expect(
      within(dialog).getByText(
        "The customer's payment of 0.50 USD is cancelled (or reversed if it was taken), and the dealer's debit for this sale is returned to its wallet.",
      ),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, not delivered' }));
    await waitFor(() => expect(onSettled).toHaveBeenCalledTimes(1));
    expect(calls[0]).toMatchObject({
      url: '/api/v1/recharges/41/settle',
      method: 'POST',
      body: { outcome: 'not_delivered', note: 'Hormuud says no top-up reached 615123456' },
    });
  });

  it('delivered on a Profit Only dealer: the payment is committed and the profit credited', async () => {
    mockFetch([]);
    await renderPanel(vi.fn(), { ...recharge, pricing_model: 'profit' });
    fireEvent.click(screen.getByRole('radio', { name: 'Delivered' }));
    fireEvent.change(screen.getByLabelText(/^Note/), { target: { value: 'Customer confirmed' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settle RC-41 as delivered?' });
    expect(within(dialog).getByText("The customer's payment of 0.50 USD is committed and the sale completes. The dealer's profit is credited.")).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("shows the server's 409 message, and a 422 note message on the note", async () => {
    mockFetch([
      { status: 409, body: { success: false, message: 'Only a sale waiting for review can be settled.' } },
      { status: 422, body: { success: false, message: 'The given data was invalid.', errors: { note: ['This value is too long'] } } },
    ]);
    const onSettled = await renderPanel();
    fireEvent.click(screen.getByRole('radio', { name: 'Delivered' }));
    fireEvent.change(screen.getByLabelText(/^Note/), { target: { value: 'Operator confirmed' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Yes, delivered' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Only a sale waiting for review can be settled.');
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Yes, delivered' }));
    expect(await screen.findByText('This value is too long')).toBeTruthy();
    expect(onSettled).not.toHaveBeenCalled();
  });
});

describe("settle panel: what the payment service's portal shows (a payment whose outcome was never learnt)", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const unknown = { ...recharge, payment_state: 'sent' as const };
  const settled = { status: 200, body: { success: true, message: 'Settled.', data: {} } };
  /** Outcome and note filled, the portal's answer chosen: the confirmation dialog once Settle… is clicked. */
  async function fillAndSettle(outcome: 'Delivered' | 'Not delivered') {
    fireEvent.click(screen.getByRole('radio', { name: outcome }));
    fireEvent.change(screen.getByLabelText(/^Note/), { target: { value: 'Checked the eDahab portal' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    return screen.findByRole('dialog');
  }

  it("left at Don't know: nothing is sent about the payment", async () => {
    const calls = mockFetch([settled]);
    const onSettled = await renderPanel(vi.fn(), unknown);
    const portal = screen.getByRole('group', { name: "What does the payment service's portal show?" });
    expect((within(portal).getByRole('radio', { name: "Don't know" }) as HTMLInputElement).checked).toBe(true);
    const dialog = await fillAndSettle('Not delivered');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, not delivered' }));
    await waitFor(() => expect(onSettled).toHaveBeenCalled());
    expect(calls[0].body).toEqual({ outcome: 'not_delivered', note: 'Checked the eDahab portal' });
  });

  it("paid: the payment service's id is required, then sent as payment {paid: true, reference}, and the confirmation says it is to be given back", async () => {
    const calls = mockFetch([settled]);
    const onSettled = await renderPanel(vi.fn(), unknown);
    fireEvent.click(screen.getByRole('radio', { name: 'Paid' }));
    const id = screen.getByLabelText(/^Payment id in the portal/);
    fireEvent.click(screen.getByRole('radio', { name: 'Not delivered' }));
    fireEvent.change(screen.getByLabelText(/^Note/), { target: { value: 'Checked the eDahab portal' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    expect(await screen.findByText("Enter the gateway's id for the payment (its invoice or transaction id).")).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls).toHaveLength(0);
    fireEvent.change(id, { target: { value: ' 7781203 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settle RC-41 as not delivered?' });
    expect(
      within(dialog).getByText(
        'The payment is recorded as taken: it is given back through the payment service or, if that service has no refund (eDahab), waits to be paid back by hand.',
      ),
    ).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, not delivered' }));
    await waitFor(() => expect(onSettled).toHaveBeenCalled());
    expect(calls[0]).toMatchObject({
      url: '/api/v1/recharges/41/settle',
      body: { outcome: 'not_delivered', note: 'Checked the eDahab portal', payment: { paid: true, reference: '7781203' } },
    });
  });

  it('not paid: sent as payment {paid: false}; delivered then completes without payment, as the confirmation says', async () => {
    const calls = mockFetch([settled]);
    const onSettled = await renderPanel(vi.fn(), unknown);
    fireEvent.click(screen.getByRole('radio', { name: 'Not paid' }));
    expect(screen.queryByLabelText(/^Payment id in the portal/)).toBeNull();
    const dialog = await fillAndSettle('Delivered');
    expect(
      within(dialog).getByText("Nothing was taken from the customer: the sale completes without payment. The dealer's debit for the cost stays."),
    ).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, delivered' }));
    await waitFor(() => expect(onSettled).toHaveBeenCalled());
    expect(calls[0].body).toEqual({ outcome: 'delivered', note: 'Checked the eDahab portal', payment: { paid: false } });
  });

  it("shows the API's 422 on the payment id on its field, and one on the payment on the choice", async () => {
    mockFetch([
      { status: 422, body: { success: false, message: 'The given data was invalid.', errors: { 'payment.reference': ['This value is too long'] } } },
      {
        status: 422,
        body: {
          success: false,
          message: 'The given data was invalid.',
          errors: { payment: ["This sale's payment outcome is already known: settle it without one."] },
        },
      },
    ]);
    const onSettled = await renderPanel(vi.fn(), unknown);
    fireEvent.click(screen.getByRole('radio', { name: 'Paid' }));
    fireEvent.change(screen.getByLabelText(/^Payment id in the portal/), { target: { value: 'X'.repeat(100) } });
    fireEvent.click(within(await fillAndSettle('Delivered')).getByRole('button', { name: 'Yes, delivered' }));
    expect(await screen.findByText('This value is too long')).toBeTruthy();
    expect(screen.getByLabelText(/^Payment id in the portal/).getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    fireEvent.click(screen.getByRole('button', { name: 'Settle…' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Yes, delivered' }));
    expect(await screen.findByText("This sale's payment outcome is already known: settle it without one.")).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(onSettled).not.toHaveBeenCalled();
  });
});

describe('remote-call timeline', () => {
  afterEach(cleanup);

  it('lists each call and opens to its pretty-printed request and answer', async () => {
    const i18nProvider = await testI18nProvider();
    const call = {
      id: 1,
      system: 'waafipay',
      operation: 'API_PREAUTHORIZE',
      method: 'POST',
      url: 'https://api.waafipay.net/asm',
      request: '{"serviceName":"API_PREAUTHORIZE","apiKey":"[redacted]"}',
      response: null,
      http_status: null,
      outcome: 'unknown' as const,
      error: 'No answer in time (timeout)',
      duration_ms: 5000,
      created_at: '2026-11-23T09:00:00.000Z',
    };
    render(
      <AdminContext dataProvider={testDataProvider()} i18nProvider={i18nProvider} store={memoryStore()}>
        <RemoteCallTimeline calls={[call]} />
      </AdminContext>,
    );
    expect(screen.getByText('WaafiPay')).toBeTruthy();
    expect(screen.getByText('Unknown')).toBeTruthy();
    expect(screen.getByText(/no answer · 5 sec/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { expanded: false }));
    const request = await screen.findByText(/"serviceName": "API_PREAUTHORIZE"/);
    expect(request.getAttribute('dir')).toBe('ltr');
    expect(screen.getByText('(empty)')).toBeTruthy();
    expect(prettyJson('not json')).toBe('not json');
  });

  it('shows routing lines readably: Routing, the aggregator, a neutral Skipped and why, with nothing to open', async () => {
    const i18nProvider = await testI18nProvider();
    const line = (id: number, outcome: 'skipped' | 'ok' | 'refused', aggregator: string, error: string) => ({
      id,
      system: 'routing',
      operation: `route ${aggregator}`,
      method: 'ROUTE',
      url: `route:${aggregator}`,
      request: null,
      response: null,
      http_status: null,
      outcome,
      error,
      duration_ms: 0,
      created_at: '2026-11-23T09:00:00.000Z',
    });
    render(
      <AdminContext dataProvider={testDataProvider()} i18nProvider={i18nProvider} store={memoryStore()}>
        <RemoteCallTimeline
          calls={[
            line(1, 'skipped', 'reloadly', 'Reloadly is resting after 3 failures until 12:05.'),
            line(2, 'ok', 'dtone', 'DT One sells product 91001 for operator 2701.'),
            {
              ...line(3, 'ok', 'dtone', ''),
              system: 'dtone',
              operation: 'POST /async/transactions',
              method: 'POST',
              url: 'https://dvs.example/async/transactions',
              http_status: 201,
              error: null,
            },
          ]}
        />
      </AdminContext>,
    );
    const [skipped, taken, call] = screen.getAllByRole('listitem');
    expect(within(skipped).getByText('Routing')).toBeTruthy();
    expect(within(skipped).getByText('Reloadly')).toBeTruthy();
    const chip = within(skipped).getByText('Skipped').closest('.MuiChip-root')!;
    expect(chip.className).toContain('MuiChip-colorDefault');
    expect(within(skipped).getByText('Reloadly is resting after 3 failures until 12:05.')).toBeTruthy();
    expect(within(skipped).queryByRole('button')).toBeNull();
    expect(within(taken).getByText('Chosen')).toBeTruthy();
    expect(within(taken).getByText('DT One')).toBeTruthy();
    expect(within(call).getByText('DT One')).toBeTruthy();
    expect(within(call).getByRole('button', { expanded: false })).toBeTruthy();
  });
});
