import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore, Notification, type AuthProvider } from 'react-admin';
import type { WebhookDeliveryResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { DeliveryDrawer, WebhookDeliveryLog } from './WebhookDeliveryLog';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';

const dealer = { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' };
const testBody = JSON.stringify({ id: 'evt_test1', type: 'webhook.test', created_at: '2026-11-26T09:00:00.000Z', data: { message: 'hello' } });

const delivery = (over: Partial<WebhookDeliveryResponse> = {}): WebhookDeliveryResponse => ({
  id: 7,
  h_id: 'dLv7',
  event_id: 'evt_test1',
  dealer,
  type: 'webhook.test',
  mode: 'live',
  status: 'pending',
  attempts: 1,
  next_attempt_at: '2026-11-26T09:01:00.000Z',
  last_attempt_at: '2026-11-26T09:00:01.000Z',
  last_status_code: 500,
  last_answer: 'receiver down for maintenance',
  delivered_at: null,
  created_at: '2026-11-26T09:00:00.000Z',
  body: testBody,
  ...over,
});

const page = (rows: WebhookDeliveryResponse[], total = rows.length) => ({
  body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total, last_page: Math.max(1, Math.ceil(total / 25)) } },
});

const authAs = (permissions: string[]): AuthProvider => ({
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => permissions,
});

async function renderLog(permissions: string[], showDealer = false) {
  const i18nProvider = await testI18nProvider();
  render(
    <AdminContext dataProvider={dataProvider} authProvider={authAs(permissions)} i18nProvider={i18nProvider} store={memoryStore()}>
      <WebhookDeliveryLog showDealer={showDealer} path={(id) => `/webhooks/${id}`} />
      <Notification />
    </AdminContext>,
  );
}

const lists = (calls: RoutedCall[]) => calls.filter((c) => c.method === 'GET' && c.path === '/api/v1/webhook-deliveries');
const MANAGE = ['view webhooks', 'manage webhooks'];

describe('the webhook delivery log', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('lists type, status, attempts, next attempt and last answer, newest first, a page at a time', async () => {
    const calls = serveRoutes({
      'GET /api/v1/webhook-deliveries': () =>
        page(
          [
            delivery(),
            delivery({
              id: 6,
              h_id: 'dLv6',
              event_id: 'evt_sale1',
              type: 'recharge.delivered',
              status: 'delivered',
              attempts: 1,
              next_attempt_at: null,
              last_status_code: 200,
              last_answer: '{"ok":true}',
              delivered_at: '2026-11-26T08:00:02.000Z',
            }),
            delivery({
              id: 5,
              h_id: 'dLv5',
              event_id: 'evt_low1',
              type: 'wallet.low_balance',
              status: 'failed',
              attempts: 14,
              next_attempt_at: null,
              last_status_code: null,
              last_answer: 'connect ECONNREFUSED 127.0.0.1:9',
            }),
            ...(
              ['recharge.created', 'recharge.payment_approved', 'recharge.refunded', 'wallet.credited', 'wallet.debited', 'recharge_batch.completed'] as const
            ).map((type, i) => delivery({ id: 40 + i, h_id: `dLv4${i}`, event_id: `evt_t${i}`, type, status: 'delivered', last_status_code: 200 })),
            delivery({
              id: 4,
              h_id: 'dLv4',
              event_id: 'evt_new1',
              type: 'recharge.failed',
              attempts: 0,
              last_attempt_at: null,
              last_status_code: null,
              last_answer: null,
            }),
          ],
          60,
        ),
    });
    await renderLog(MANAGE);
    const retrying = (await screen.findByText('Test event')).closest('tr')!;
    expect(within(retrying).getByText('Retrying')).toBeTruthy();
    expect(within(retrying).getByText('500')).toBeTruthy();
    expect(within(retrying).getByText('receiver down for maintenance')).toBeTruthy();
    expect(within(retrying).getByText('webhook.test')).toBeTruthy();

    const delivered = screen.getByText('Sale delivered').closest('tr')!;
    expect(within(delivered).getByText('Delivered')).toBeTruthy();
    expect(within(delivered).getByText('200')).toBeTruthy();
    // A delivered event has no next attempt.
    expect(within(delivered).getByText('—')).toBeTruthy();

    const failed = screen.getByText('Low wallet balance').closest('tr')!;
    expect(within(failed).getByText('Failed')).toBeTruthy();
    expect(within(failed).getByText('14')).toBeTruthy();
    expect(within(failed).getByText('No answer')).toBeTruthy();

    const waiting = screen.getByText('Sale failed').closest('tr')!;
    expect(within(waiting).getByText('Pending')).toBeTruthy();
    expect(within(waiting).getByText('Not tried yet')).toBeTruthy();
    // The newer event types have their own words.
    for (const [type, label] of [
      ['recharge.created', 'Sale accepted'],
      ['recharge.payment_approved', 'Payment approved'],
      ['recharge.refunded', 'Sale refunded'],
      ['wallet.credited', 'Wallet credited'],
      ['wallet.debited', 'Wallet debited'],
      ['recharge_batch.completed', 'Bulk sale finished'],
    ])
      expect(screen.getByText(label).closest('tr')!.textContent, type).toContain(type);

    // A dealer's own log has no dealer column; the pages say how many there are.
    expect(screen.queryByRole('columnheader', { name: 'Dealer' })).toBeNull();
    expect(screen.getByText(/1-25 of 60/)).toBeTruthy();
    const first = lists(calls)[0];
    expect(Object.fromEntries(first.query)).toEqual({ page: '1', per_page: '25', sort: 'id', order: 'desc' });
  });

  it('resends a row: the server’s message, and the row read again', async () => {
    let status: WebhookDeliveryResponse['status'] = 'pending';
    const calls = serveRoutes({
      'GET /api/v1/webhook-deliveries': () =>
        page([
          status === 'pending'
            ? delivery()
            : delivery({
                status: 'delivered',
                attempts: 2,
                next_attempt_at: null,
                last_status_code: 200,
                last_answer: '{"ok":true}',
                delivered_at: '2026-11-26T09:02:00.000Z',
              }),
        ]),
      'POST /api/v1/webhook-deliveries/dLv7/resend': () => {
        status = 'delivered';
        return { body: { success: true, message: 'The event will be sent again now.', data: delivery({ attempts: 1 }) } };
      },
    });
    await renderLog(MANAGE);
    const row = (await screen.findByText('Test event')).closest('tr')!;
    const before = lists(calls).length;
    fireEvent.click(within(row).getByRole('button', { name: 'Resend evt_test1' }));
    expect(await screen.findByText('The event will be sent again now.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/v1/webhook-deliveries/dLv7/resend']);
    await waitFor(() => expect(within(screen.getByText('Test event').closest('tr')!).getByText('Delivered')).toBeTruthy());
    expect(lists(calls).length).toBeGreaterThan(before);
    expect(within(screen.getByText('Test event').closest('tr')!).getByText('2')).toBeTruthy();
  });

  it('says why a resend is refused (an attempt under way) and changes nothing', async () => {
    const calls = serveRoutes({
      'GET /api/v1/webhook-deliveries': () => page([delivery()]),
      'POST /api/v1/webhook-deliveries/dLv7/resend': () => ({
        status: 409,
        body: { success: false, message: 'This event is being sent right now. Try again in a moment.' },
      }),
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await renderLog(MANAGE);
    const row = (await screen.findByText('Test event')).closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: 'Resend evt_test1' }));
    expect(await screen.findByText('This event is being sent right now. Try again in a moment.')).toBeTruthy();
    expect(within(row).getByText('Retrying')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    // The button works again after the refusal.
    await waitFor(() => expect((within(row).getByRole('button', { name: 'Resend evt_test1' }) as HTMLButtonElement).disabled).toBe(false));
  });

  it('without "manage webhooks" there is no Resend', async () => {
    serveRoutes({ 'GET /api/v1/webhook-deliveries': () => page([delivery()]) });
    await renderLog(['view webhooks']);
    await screen.findByText('Test event');
    expect(screen.getByText('Retrying')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Resend/ })).toBeNull();
  });

  it('for an admin: a dealer column, and a plain sentence when there is nothing yet', async () => {
    serveRoutes({ 'GET /api/v1/webhook-deliveries': () => page([delivery()]) });
    await renderLog(MANAGE, true);
    expect(await screen.findByRole('columnheader', { name: 'Dealer' })).toBeTruthy();
    expect(within(screen.getByText('Test event').closest('tr')!).getByText('Demo Dealer')).toBeTruthy();
    cleanup();

    serveRoutes({ 'GET /api/v1/webhook-deliveries': () => page([]) });
    await renderLog(MANAGE, true);
    expect(await screen.findByText(/No events yet/)).toBeTruthy();
  });

  it('filters by status and event type through the API’s parameters', async () => {
    const calls = serveRoutes({
      'GET /api/v1/webhook-deliveries': (c) => page(c.query.get('status') === 'failed' ? [] : [delivery()], c.query.get('status') === 'failed' ? 0 : 1),
    });
    await renderLog(MANAGE);
    await screen.findByText('Test event');
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Status' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Failed' }));
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('status') === 'failed')).toBe(true));
    expect(await screen.findByText('No events match these filters.')).toBeTruthy();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Event' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Low wallet balance' }));
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('status') === 'failed' && c.query.get('type') === 'wallet.low_balance')).toBe(true));
  });
});

describe('the webhook delivery log in test mode', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('marks each event with its mode (Test apart), and filters by mode through the API', async () => {
    const sandbox = delivery({
      id: 8,
      h_id: 'dLv8',
      event_id: 'evt_sbx1',
      type: 'recharge.delivered',
      mode: 'test',
      status: 'delivered',
      last_status_code: 200,
    });
    const calls = serveRoutes({
      'GET /api/v1/webhook-deliveries': (c) => page(c.query.get('mode') === 'test' ? [sandbox] : [sandbox, delivery()]),
    });
    await renderLog(MANAGE);
    const testRow = (await screen.findByText('Sale delivered')).closest('tr')!;
    expect(within(testRow).getByText('Test').closest('.MuiChip-root')!.className).toContain('MuiChip-colorWarning');
    const liveRow = screen.getByText('Test event').closest('tr')!;
    expect(within(liveRow).getByText('Live')).toBeTruthy();
    expect(within(liveRow).queryByText('Test')).toBeNull();
    // Both modes unless one is chosen.
    expect(lists(calls)[0].query.get('mode')).toBeNull();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Mode' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Test' }));
    await waitFor(() => expect(lists(calls).some((c) => c.query.get('mode') === 'test')).toBe(true));
    await waitFor(() => expect(screen.queryByText('Test event')).toBeNull());
  });
});

describe('a delivery’s drawer', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows the body sent, indented and left-to-right, the last answer whole, and resend', async () => {
    const calls = serveRoutes({
      'POST /api/v1/webhook-deliveries/dLv7/resend': () => ({ body: { success: true, message: 'The event will be sent again now.', data: delivery() } }),
    });
    const i18nProvider = await testI18nProvider();
    const onChanged = vi.fn();
    const longAnswer = `<html>${'x'.repeat(300)}</html>`;
    render(
      <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <DeliveryDrawer d={delivery({ last_answer: longAnswer })} open onClose={() => undefined} canManage onChanged={onChanged} />
        <Notification />
      </AdminContext>,
    );
    const drawer = await screen.findByRole('region', { name: 'Test event' });
    const pre = drawer.querySelector('pre')!;
    expect(pre.getAttribute('dir')).toBe('ltr');
    expect(pre.textContent).toBe(JSON.stringify(JSON.parse(testBody), null, 2));
    expect(within(drawer).getByText('evt_test1')).toBeTruthy();
    // The row cuts the answer short; the drawer shows all the server kept.
    expect(within(drawer).getByText(longAnswer)).toBeTruthy();
    fireEvent.click(within(drawer).getByRole('button', { name: 'Resend evt_test1' }));
    expect(await screen.findByText('The event will be sent again now.')).toBeTruthy();
    expect(onChanged).toHaveBeenCalledTimes(1);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
