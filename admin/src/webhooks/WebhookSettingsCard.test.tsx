import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore, Notification } from 'react-admin';
import type { WebhookEndpointResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { WebhookSettingsCard } from './WebhookSettingsCard';
import { serveRoutes, type RoutedCall } from '../test/fetchMock';

const SECRET = `whsec_${'A1b2C3d4E5f6G7h8J9k0'.repeat(2)}wxYZ`;
const ROTATED = `whsec_${'Z9y8X7w6V5u4T3s2R1q0'.repeat(2)}nEw1`;
const RECEIVER = 'http://127.0.0.1:8787/hooks/bundles';

const endpoint = (over: Partial<WebhookEndpointResponse> = {}): WebhookEndpointResponse => ({
  id: 4,
  dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
  url: RECEIVER,
  secret_hint: `…${SECRET.slice(-4)}`,
  previous_secret_expires_at: null,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-11-26T09:00:00.000Z',
  updated_at: '2026-11-26T09:00:00.000Z',
  ...over,
});

async function renderCard(props: { dealerId?: number | null; canManage?: boolean } = {}) {
  const i18nProvider = await testI18nProvider();
  const onSent = vi.fn();
  render(
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      <WebhookSettingsCard dealerId={props.dealerId ?? null} canManage={props.canManage ?? true} onSent={onSent} />
      <Notification />
    </AdminContext>,
  );
  return { onSent };
}

const urlField = () => screen.getByLabelText('Webhook URL') as HTMLInputElement;
const writes = (calls: RoutedCall[]) => calls.filter((c) => c.method !== 'GET');

describe('the webhook settings card', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sets the URL, then shows the whole secret once with a copy button, and only its end afterwards', async () => {
    let saved: WebhookEndpointResponse | null = null;
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: saved } }),
      'PUT /api/v1/dealer/webhook': (c) => {
        saved = endpoint({ url: (c.body as { url: string }).url });
        return { status: 201, body: { success: true, message: 'Webhook set.', data: { ...saved, secret: SECRET } } };
      },
    });
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    await renderCard();
    await screen.findByText(/No webhook is set/);
    expect(screen.queryByRole('button', { name: 'Send a test event' })).toBeNull();

    // Spaces around a pasted address are trimmed by the shared schema before it is sent.
    fireEvent.change(urlField(), { target: { value: `  ${RECEIVER}  ` } });
    fireEvent.click(screen.getByRole('button', { name: 'Set webhook' }));

    const shown = await screen.findByRole('dialog', { name: 'Your signing secret' });
    expect(writes(calls)).toEqual([expect.objectContaining({ method: 'PUT', path: '/api/v1/dealer/webhook', body: { url: RECEIVER } })]);
    // A dealer names no dealer: the API takes the signed-in one.
    expect(writes(calls)[0].query.has('dealer_id')).toBe(false);
    expect((within(shown).getByLabelText('Signing secret') as HTMLTextAreaElement).value).toBe(SECRET);
    expect(within(shown).getByRole('alert').textContent).toContain('You will not see it again');
    fireEvent.click(within(shown).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(SECRET));
    expect(await screen.findByText('Secret copied')).toBeTruthy();
    // Neither Cancel nor the backdrop closes it: only "I have copied it".
    expect(within(shown).queryByRole('button', { name: 'Cancel' })).toBeNull();
    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Your signing secret' })).toBeNull());

    // Afterwards the secret itself is nowhere on the page, only its end.
    expect(await screen.findByText(`whsec_…${SECRET.slice(-4)}`)).toBeTruthy();
    expect(document.body.textContent).not.toContain(SECRET);
    expect(Array.from(document.querySelectorAll('input, textarea')).some((el) => (el as HTMLInputElement).value === SECRET)).toBe(false);
    // How to check an event: the three Standard Webhooks headers, names kept left-to-right in Arabic.
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
      expect(screen.getByText(header, { selector: 'code' }).getAttribute('dir')).toBe('ltr');
    expect(screen.getByRole('button', { name: 'Send a test event' })).toBeTruthy();
    expect(urlField().value).toBe(RECEIVER);
    // The address is code: it stays left-to-right in Arabic.
    expect(urlField().getAttribute('dir')).toBe('ltr');
  });

  it('shows an endpoint a 410 disabled, with when and why; "Enable again" saves its address and the warning goes', async () => {
    let saved = endpoint({ disabled_at: '2026-11-27T10:15:00.000Z', disabled_reason: 'gone' });
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: saved } }),
      'PUT /api/v1/dealer/webhook': () => {
        saved = endpoint({ disabled_at: null, disabled_reason: null });
        return { body: { success: true, message: 'Webhook address saved.', data: saved } };
      },
    });
    await renderCard();
    const warning = await screen.findByText(/^Disabled /);
    const alert = warning.closest('[role="alert"]') as HTMLElement;
    expect(alert.textContent).toContain('410 Gone');
    expect(alert.textContent).toContain('Save the address');
    // No test event while disabled: it would not be sent.
    expect((screen.getByRole('button', { name: 'Send a test event' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(alert).getByRole('button', { name: 'Enable again' }));
    await waitFor(() => expect(screen.queryByText(/^Disabled /)).toBeNull());
    expect(writes(calls)).toEqual([expect.objectContaining({ method: 'PUT', path: '/api/v1/dealer/webhook', body: { url: RECEIVER } })]);
    expect((screen.getByRole('button', { name: 'Send a test event' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('a user who may only look sees the disabled state without the button', async () => {
    serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: endpoint({ disabled_at: '2026-11-27T10:15:00.000Z', disabled_reason: 'gone' }) } }),
    });
    await renderCard({ canManage: false });
    const alert = (await screen.findByText(/^Disabled /)).closest('[role="alert"]') as HTMLElement;
    expect(within(alert).queryByRole('button')).toBeNull();
  });

  it('checks the address with the shared schema before sending anything', async () => {
    const calls = serveRoutes({ 'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: null } }) });
    await renderCard();
    await screen.findByText(/No webhook is set/);
    const set = screen.getByRole('button', { name: 'Set webhook' });

    const cases: Array<[string, RegExp]> = [
      ['http://shop.example.so/hooks', /must start with https:\/\//],
      ['https://ali:pw@shop.example.so/hooks', /may not contain a user name or password/],
      ['shop.example.so/hooks', /Enter a full web address/],
      ['ftp://shop.example.so/hooks', /Enter a full web address/],
      [`https://shop.example.so/${'a'.repeat(500)}`, /at most 500 characters/],
    ];
    for (const [value, message] of cases) {
      fireEvent.change(urlField(), { target: { value } });
      fireEvent.click(set);
      expect(await screen.findByText(message)).toBeTruthy();
      expect(urlField().getAttribute('aria-invalid')).toBe('true');
    }
    expect(writes(calls)).toHaveLength(0);
  });

  it('shows the API’s field error under the address and no secret', async () => {
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: null } }),
      'PUT /api/v1/dealer/webhook': () => ({
        status: 422,
        body: {
          success: false,
          message: 'Validation failed. Please check your inputs.',
          errors: { url: ['Addresses on this server itself are not allowed here.'] },
        },
      }),
    });
    await renderCard();
    await screen.findByText(/No webhook is set/);
    fireEvent.change(urlField(), { target: { value: 'https://shop.example.so/hooks' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set webhook' }));
    expect(await screen.findByText('Addresses on this server itself are not allowed here.')).toBeTruthy();
    expect(urlField().getAttribute('aria-invalid')).toBe('true');
    expect(writes(calls)).toHaveLength(1);
    expect(screen.queryByRole('dialog', { name: 'Your signing secret' })).toBeNull();
  });

  it('changes the URL without a secret dialog (the secret stays as it was)', async () => {
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: endpoint() } }),
      'PUT /api/v1/dealer/webhook': (c) => ({ body: { success: true, message: 'Webhook updated.', data: endpoint({ url: (c.body as { url: string }).url }) } }),
    });
    await renderCard();
    await waitFor(() => expect(urlField().value).toBe(RECEIVER));
    // Unchanged: nothing to save.
    expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(urlField(), { target: { value: 'https://shop.example.so/hooks' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Webhook updated.')).toBeTruthy();
    expect(writes(calls)).toEqual([expect.objectContaining({ method: 'PUT', body: { url: 'https://shop.example.so/hooks' } })]);
    expect(screen.queryByRole('dialog', { name: 'Your signing secret' })).toBeNull();
  });

  it('rotates only after a confirmation that says the old secret keeps signing 24 hours, then shows the new one once', async () => {
    let current = endpoint();
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: current } }),
      'POST /api/v1/dealer/webhook/rotate-secret': () => {
        current = endpoint({ secret_hint: `…${ROTATED.slice(-4)}`, previous_secret_expires_at: '2026-11-27T09:00:00.000Z' });
        return { body: { success: true, message: 'Secret rotated.', data: { ...current, secret: ROTATED } } };
      },
    });
    await renderCard({ dealerId: 3 });
    fireEvent.click(await screen.findByRole('button', { name: 'Rotate secret' }));
    const confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(confirm.textContent).toContain('24 hours');
    // Cancel changes nothing.
    fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Rotate the signing secret?' })).toBeNull());
    expect(writes(calls)).toHaveLength(0);

    fireEvent.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const again = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' });
    fireEvent.click(within(again).getByRole('button', { name: 'Rotate secret' }));
    const shown = await screen.findByRole('dialog', { name: 'Your signing secret' });
    expect((within(shown).getByLabelText('Signing secret') as HTMLTextAreaElement).value).toBe(ROTATED);
    expect(within(shown).getByRole('alert').textContent).toContain('The previous secret keeps signing for 24 hours');
    // An admin acting for a dealer names it.
    expect(writes(calls)).toEqual([expect.objectContaining({ method: 'POST', path: '/api/v1/dealer/webhook/rotate-secret' })]);
    expect(writes(calls)[0].query.get('dealer_id')).toBe('3');

    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    expect(await screen.findByText(/The previous secret also signs every event until/)).toBeTruthy();
    expect(screen.getByText(`whsec_…${ROTATED.slice(-4)}`)).toBeTruthy();
    expect(document.body.textContent).not.toContain(ROTATED);
  });

  it('sends a test event and removes the webhook after a confirmation', async () => {
    let current: WebhookEndpointResponse | null = endpoint();
    const calls = serveRoutes({
      'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: current } }),
      'POST /api/v1/dealer/webhook/test': () => ({ status: 201, body: { success: true, message: 'Test event queued.', data: {} } }),
      'DELETE /api/v1/dealer/webhook': () => {
        current = null;
        return { body: { success: true, message: 'Webhook removed.', data: null } };
      },
    });
    const { onSent } = await renderCard();
    fireEvent.click(await screen.findByRole('button', { name: 'Send a test event' }));
    expect(await screen.findByText('Test event queued.')).toBeTruthy();
    // The log below is told, so the new event shows at once.
    expect(onSent).toHaveBeenCalledTimes(1);

    fireEvent.click(screen.getByRole('button', { name: 'Remove webhook' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove the webhook?' });
    expect(confirm.textContent).toContain('No more events are sent');
    fireEvent.click(within(confirm).getByRole('button', { name: 'Remove webhook' }));
    expect(await screen.findByText('Webhook removed.')).toBeTruthy();
    expect(await screen.findByText(/No webhook is set/)).toBeTruthy();
    expect(urlField().value).toBe('');
    expect(writes(calls).map((c) => `${c.method} ${c.path}`)).toEqual(['POST /api/v1/dealer/webhook/test', 'DELETE /api/v1/dealer/webhook']);
  });

  it('shows the API’s refusal of an action as a message, and a load failure with a retry', async () => {
    let fail = true;
    serveRoutes({
      'GET /api/v1/dealer/webhook': () =>
        fail ? { status: 500, body: { success: false, message: 'Server error. Please try again later.' } } : { body: { success: true, data: endpoint() } },
      'POST /api/v1/dealer/webhook/test': () => ({ status: 404, body: { success: false, message: 'No webhook is set.' } }),
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await renderCard();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This page could not be loaded');
    expect(alert.textContent).toContain('Server error. Please try again later.');
    expect(screen.queryByLabelText('Webhook URL')).toBeNull();
    fail = false;
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Send a test event' }));
    // The server's own words (translated by it), as a notification.
    expect(await screen.findByText('No webhook is set.')).toBeTruthy();
  });

  it('without "manage webhooks": the address and the secret’s end, no button that changes anything', async () => {
    serveRoutes({ 'GET /api/v1/dealer/webhook': () => ({ body: { success: true, data: endpoint() } }) });
    await renderCard({ canManage: false });
    expect(await screen.findByText(`whsec_…${SECRET.slice(-4)}`)).toBeTruthy();
    expect(urlField().value).toBe(RECEIVER);
    expect(urlField().disabled).toBe(true);
    for (const name of ['Save', 'Set webhook', 'Send a test event', 'Rotate secret', 'Remove webhook'])
      expect(screen.queryByRole('button', { name })).toBeNull();
  });
});
