import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore, type AuthProvider } from 'react-admin';
import type { WebhookDeliveryResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { WebhookDeliveryLog } from './WebhookDeliveryLog';
import { WebhookSettingsCard } from './WebhookSettingsCard';

/**
 * The webhooks screen's parts against the console's real dataProvider, with fetch answered by
 * path (the company settings every date needs are read too): what the delivery log shows of each
 * delivery and what "Resend" sends; the endpoint card's checks before sending, the secret shown
 * once, and rotation only after a confirmation.
 */
interface Call {
  url: string;
  method: string;
  body: unknown;
}

type Route = (call: Call) => { status?: number; body: unknown } | undefined;

function stubApi(route: Route) {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const call = { url, method: init.method ?? 'GET', body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body };
      calls.push(call);
      const answer = url.startsWith('/api/v1/settings/public')
        ? { body: { success: true, data: { company_name: 'Test', currency: 'USD', timezone: 'UTC', footer_text: null } } }
        : (route(call) ?? { status: 404, body: { success: false, message: 'Not found' } });
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 });
    }),
  );
  return calls.filter.bind(calls) as typeof calls.filter;
}

const authProvider = (permissions: string[]): AuthProvider => ({
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => permissions,
});

async function wrap(ui: React.ReactNode, permissions = ['view webhooks', 'manage webhooks']) {
  const i18nProvider = await testI18nProvider();
  return (
    <AdminContext dataProvider={dataProvider} authProvider={authProvider(permissions)} i18nProvider={i18nProvider} store={memoryStore()}>
      {ui}
    </AdminContext>
  );
}

const dealer = { id: 3, h_id: 'dEm0', name: 'Demo Dealer', dealer_code: 'DEMO' };
const delivery = (over: Partial<WebhookDeliveryResponse>): WebhookDeliveryResponse => ({
  id: 1,
  h_id: 'aBcD',
  event_id: 'evt_0001',
  dealer,
  type: 'recharge.delivered',
  mode: 'live',
  status: 'delivered',
  attempts: 1,
  next_attempt_at: null,
  last_attempt_at: '2026-11-26T09:00:01.000Z',
  last_status_code: 200,
  last_answer: '{"ok":true}',
  delivered_at: '2026-11-26T09:00:01.000Z',
  created_at: '2026-11-26T09:00:00.000Z',
  body: '{"type":"recharge.delivered","timestamp":"2026-11-26T09:00:00.000Z","data":{}}',
  ...over,
});

const retrying = delivery({
  id: 2,
  h_id: 'xYzW',
  event_id: 'evt_0002',
  type: 'wallet.low_balance',
  status: 'pending',
  attempts: 3,
  next_attempt_at: '2026-11-26T09:04:00.000Z',
  last_status_code: 503,
  last_answer: `Service Unavailable: ${'the receiver is being deployed, '.repeat(5)}`,
  delivered_at: null,
});

const page = (rows: WebhookDeliveryResponse[]) => ({
  body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total: rows.length, last_page: 1 } },
});

describe('the webhook delivery log', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows each delivery’s event, status, attempts, next attempt and last answer, and resends one', async () => {
    const calls = stubApi((c) => {
      if (c.url.startsWith('/api/v1/webhook-deliveries?')) return page([retrying, delivery({})]);
      if (c.url === '/api/v1/webhook-deliveries/xYzW/resend') return { body: { success: true, message: 'The event will be sent again now.', data: retrying } };
    });
    render(await wrap(<WebhookDeliveryLog showDealer path={(id) => `/webhooks/${id}`} />));
    const row = (await screen.findByText('Low wallet balance')).closest('tr')!;
    expect(within(row).getByText('wallet.low_balance')).toBeTruthy();
    expect(within(row).getByText('Retrying')).toBeTruthy();
    expect(within(row).getByText('3')).toBeTruthy();
    expect(within(row).getByText('503')).toBeTruthy();
    // The answer's start, shortened in the row.
    expect(
      within(row)
        .getByText(/^Service Unavailable: the receiver is being deployed/)
        .textContent!.endsWith('…'),
    ).toBe(true);
    expect(within(row).getByText('Demo Dealer')).toBeTruthy();
    // Created, and the next attempt (times in the company's zone).
    expect(within(row).getAllByText(/Nov 26, 2026, 9:0[04] AM/)).toHaveLength(2);

    const done = screen.getByText('Sale delivered').closest('tr')!;
    expect(within(done).getByText('Delivered')).toBeTruthy();
    expect(within(done).getByText('200')).toBeTruthy();
    expect(within(done).getByText('—')).toBeTruthy();

    const list = calls((c) => c.url.startsWith('/api/v1/webhook-deliveries?'));
    expect(list[0].url).toContain('page=1');
    expect(list[0].url).toContain('per_page=25');
    expect(list[0].url).toContain('order=desc');

    fireEvent.click(within(row).getByRole('button', { name: 'Resend evt_0002' }));
    await waitFor(() => expect(calls((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls((c) => c.method === 'POST')[0].url).toBe('/api/v1/webhook-deliveries/xYzW/resend');
    // The list is read again after the resend.
    await waitFor(() => expect(calls((c) => c.url.startsWith('/api/v1/webhook-deliveries?')).length).toBeGreaterThan(1));
  });

  it('has no resend button without manage webhooks, and no dealer column for a dealer', async () => {
    stubApi((c) => (c.url.startsWith('/api/v1/webhook-deliveries?') ? page([retrying]) : undefined));
    render(await wrap(<WebhookDeliveryLog showDealer={false} path={(id) => `/webhooks/${id}`} />, ['view webhooks']));
    await screen.findByText('Low wallet balance');
    expect(screen.queryByRole('button', { name: /^Resend/ })).toBeNull();
    expect(screen.queryByText('Demo Dealer')).toBeNull();
  });

  it('says why it could not load, in the server’s words', async () => {
    stubApi((c) =>
      c.url.startsWith('/api/v1/webhook-deliveries?') ? { status: 403, body: { success: false, message: 'You may not see these deliveries.' } } : undefined,
    );
    render(await wrap(<WebhookDeliveryLog showDealer path={(id) => `/webhooks/${id}`} />));
    expect(await screen.findByText('You may not see these deliveries.')).toBeTruthy();
  });
});

describe('the webhook endpoint card', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const endpoint = {
    id: 5,
    dealer,
    url: 'https://shop.example.so/hooks',
    secret_hint: '…Ab9z',
    previous_secret_expires_at: null,
    created_at: null,
    updated_at: null,
  };

  it('checks the URL with the shared schema before sending, then shows the secret once', async () => {
    const calls = stubApi((c) => {
      if (c.url === '/api/v1/dealer/webhook' && c.method === 'GET') return { body: { success: true, data: null } };
      if (c.url === '/api/v1/dealer/webhook' && c.method === 'PUT')
        return { status: 201, body: { success: true, message: 'Webhook set.', data: { ...endpoint, secret: 'whsec_theWholeSecretAb9z' } } };
    });
    render(await wrap(<WebhookSettingsCard dealerId={null} canManage onSent={() => undefined} />));
    await screen.findByText(/No webhook is set/);
    const url = screen.getByLabelText('Webhook URL');
    for (const [typed, message] of [
      ['http://shop.example.so/hooks', /must start with https:\/\//],
      ['https://user:pw@shop.example.so/hooks', /may not contain a user name or password/],
      ['not-an-address', /Enter a full web address/],
      ['https://shop.example.so/my hooks', /may not contain spaces or control characters/],
    ] as const) {
      fireEvent.change(url, { target: { value: typed } });
      fireEvent.click(screen.getByRole('button', { name: 'Set webhook' }));
      expect(await screen.findByText(message)).toBeTruthy();
    }
    expect(calls((c) => c.method === 'PUT')).toHaveLength(0);

    fireEvent.change(url, { target: { value: ' https://shop.example.so/hooks ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set webhook' }));
    const shown = await screen.findByRole('dialog', { name: 'Your signing secret' });
    expect(calls((c) => c.method === 'PUT')[0].body).toEqual({ url: 'https://shop.example.so/hooks' });
    expect((within(shown).getByLabelText('Signing secret') as HTMLTextAreaElement).value).toBe('whsec_theWholeSecretAb9z');
    expect(within(shown).getByRole('alert').textContent).toContain('You will not see it again');
    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your signing secret' })).toBeNull());
    // Afterwards only the secret's end is on the page.
    expect(await screen.findByText('whsec_…Ab9z')).toBeTruthy();
    expect(screen.queryByText('whsec_theWholeSecretAb9z')).toBeNull();
  });

  it('rotates only after the confirmation, for the dealer an admin chose, and says the old secret still signs', async () => {
    const until = '2026-11-27T09:00:00.000Z';
    const calls = stubApi((c) => {
      if (c.url === '/api/v1/dealer/webhook?dealer_id=3' && c.method === 'GET') return { body: { success: true, data: endpoint } };
      if (c.url === '/api/v1/dealer/webhook/rotate-secret?dealer_id=3')
        return { body: { success: true, data: { ...endpoint, secret_hint: '…Cd42', previous_secret_expires_at: until, secret: 'whsec_brandNewSecretCd42' } } };
    });
    render(await wrap(<WebhookSettingsCard dealerId={3} canManage onSent={() => undefined} />));
    await screen.findByText('whsec_…Ab9z');
    expect((screen.getByLabelText('Webhook URL') as HTMLInputElement).value).toBe(endpoint.url);
    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(within(confirm).getByText(/For the next 24 hours every event is signed with both/)).toBeTruthy();
    expect(calls((c) => c.method === 'POST')).toHaveLength(0);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Rotate secret' }));
    const shown = await screen.findByRole('dialog', { name: 'Your signing secret' });
    expect((within(shown).getByLabelText('Signing secret') as HTMLTextAreaElement).value).toBe('whsec_brandNewSecretCd42');
    expect(within(shown).getByRole('alert').textContent).toContain('The previous secret keeps signing for 24 hours');
    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    expect(await screen.findByText('whsec_…Cd42')).toBeTruthy();
    expect(screen.getByText(/The previous secret also signs every event until/)).toBeTruthy();
  });

  it('reads only, without manage webhooks', async () => {
    stubApi((c) => (c.url === '/api/v1/dealer/webhook' ? { body: { success: true, data: endpoint } } : undefined));
    render(await wrap(<WebhookSettingsCard dealerId={null} canManage={false} onSent={() => undefined} />, ['view webhooks']));
    await screen.findByText('whsec_…Ab9z');
    expect((screen.getByLabelText('Webhook URL') as HTMLInputElement).disabled).toBe(true);
    for (const name of ['Save', 'Send a test event', 'Rotate secret', 'Remove webhook']) expect(screen.queryByRole('button', { name })).toBeNull();
  });
});
