import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, memoryStore } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';
import { CreateApiKeyDialog } from './CreateApiKeyDialog';

const KEY = `rk_live_Ab12Cd34Ef56_${'x'.repeat(40)}`;
const created = {
  status: 201,
  body: {
    success: true,
    message: 'API key created. Copy it now: it will not be shown again.',
    data: {
      key: KEY,
      api_key: {
        id: 9,
        h_id: 'kVzPqjRa',
        dealer: { id: 3, h_id: 'x', name: 'Demo Dealer', dealer_code: 'DEMO' },
        name: 'Till 1',
        prefix: 'rk_live_Ab12Cd34Ef56',
        mode: 'live',
        scopes: ['catalogue:read', 'recharges:write'],
        ip_allowlist: ['203.0.113.7'],
        last_used_at: null,
        last_used_ip: null,
        created_by: null,
        created_at: '2026-11-26T09:00:00.000Z',
        revoked_at: null,
        revoked_by: null,
      },
    },
  },
};

async function wrap(ui: React.ReactNode) {
  const i18nProvider = await testI18nProvider();
  return (
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      {ui}
    </AdminContext>
  );
}

describe('the new API key dialog', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends name, scopes and allow-list, then shows the whole key once with a copy button and a plain warning', async () => {
    const calls = mockFetch([created]);
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const onDone = vi.fn();
    const onClose = vi.fn();
    render(await wrap(<CreateApiKeyDialog open pickDealer={false} onClose={onClose} onDone={onDone} />));
    const dialog = screen.getByRole('dialog', { name: 'New API key' });
    fireEvent.change(within(dialog).getByLabelText(/^Name/), { target: { value: 'Till 1' } });
    // Every scope starts ticked: untick the two the till does not need.
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Read sales/ }));
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Read the wallet/ }));
    fireEvent.change(within(dialog).getByLabelText(/^IP allow-list/), { target: { value: '203.0.113.7' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create key' }));

    const shown = await screen.findByRole('dialog', { name: 'Your new API key' });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/api/v1/dealer/api-keys', method: 'POST' });
    // Live unless Test is chosen.
    expect(calls[0].body).toEqual({ name: 'Till 1', scopes: ['catalogue:read', 'recharges:write'], ip_allowlist: '203.0.113.7', mode: 'live' });
    expect(onDone).toHaveBeenCalledTimes(1);
    expect((within(shown).getByLabelText('API key') as HTMLTextAreaElement).value).toBe(KEY);
    expect(within(shown).getByRole('alert').textContent).toContain('You will not see it again');
    expect(within(shown).getByRole('alert').textContent).toContain('rk_live_Ab12Cd34Ef56');
    expect(within(shown).queryByText(/This is a test key/)).toBeNull();
    fireEvent.click(within(shown).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(KEY));
    // No Cancel, no closing by the backdrop: only "I have copied it" leaves.
    expect(within(shown).queryByRole('button', { name: 'Cancel' })).toBeNull();
    fireEvent.click(within(shown).getByRole('button', { name: 'I have copied it' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('offers Live (the default) or Test, each with what it means; Test sends mode test and the rk_test_ key is shown once, marked', async () => {
    const TEST_KEY = `rk_test_Zz98Yy76Xx54_${'y'.repeat(40)}`;
    const calls = mockFetch([
      {
        status: 201,
        body: {
          ...created.body,
          data: { key: TEST_KEY, api_key: { ...created.body.data.api_key, name: 'Sandbox till', prefix: 'rk_test_Zz98Yy76Xx54', mode: 'test' } },
        },
      },
    ]);
    render(await wrap(<CreateApiKeyDialog open pickDealer={false} onClose={() => undefined} onDone={() => undefined} />));
    const dialog = screen.getByRole('dialog', { name: 'New API key' });
    const live = within(dialog).getByRole('radio', { name: /^Live/ }) as HTMLInputElement;
    const test = within(dialog).getByRole('radio', { name: /^Test/ }) as HTMLInputElement;
    expect(live.checked).toBe(true);
    expect(test.checked).toBe(false);
    expect(within(dialog).getByText('Sandbox: the stand-ins and a separate test wallet; never live money.')).toBeTruthy();
    expect(within(dialog).getByText(/Sells for real/)).toBeTruthy();

    fireEvent.change(within(dialog).getByLabelText(/^Name/), { target: { value: 'Sandbox till' } });
    fireEvent.click(test);
    expect(test.checked).toBe(true);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create key' }));

    const shown = await screen.findByRole('dialog', { name: 'Your new API key' });
    expect(calls[0].body).toMatchObject({ name: 'Sandbox till', mode: 'test' });
    expect((within(shown).getByLabelText('API key') as HTMLTextAreaElement).value).toBe(TEST_KEY);
    expect(within(shown).getByRole('alert').textContent).toContain('rk_test_Zz98Yy76Xx54');
    const note = within(shown).getByRole('note');
    expect(note.textContent).toContain('This is a test key');
    expect(within(note).getByText('Test')).toBeTruthy();
    expect(within(shown).getByRole('button', { name: 'I have copied it' })).toBeTruthy();
  });

  it('offers the webhook scope by its label, unticked: a key manages the webhook only when asked to', async () => {
    mockFetch([]);
    render(await wrap(<CreateApiKeyDialog open pickDealer={false} onClose={() => undefined} onDone={() => undefined} />));
    const dialog = screen.getByRole('dialog', { name: 'New API key' });
    expect((within(dialog).getByRole('checkbox', { name: /Manage the webhook/ }) as HTMLInputElement).checked).toBe(false);
    expect((within(dialog).getByRole('checkbox', { name: /Sell bundles/ }) as HTMLInputElement).checked).toBe(true);
  });

  it('checks the form with the shared schema before sending: a name, a scope, valid addresses', async () => {
    const calls = mockFetch([]);
    render(await wrap(<CreateApiKeyDialog open pickDealer onClose={() => undefined} onDone={() => undefined} />));
    const dialog = screen.getByRole('dialog', { name: 'New API key' });
    for (const scope of [/Read the catalogue/, /Sell bundles/, /Read sales/, /Read the wallet/])
      fireEvent.click(within(dialog).getByRole('checkbox', { name: scope }));
    fireEvent.change(within(dialog).getByLabelText(/^IP allow-list/), { target: { value: '10.0.0.300' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create key' }));
    expect(await within(dialog).findByText('Name is required')).toBeTruthy();
    expect(within(dialog).getByText('Choose at least one scope.')).toBeTruthy();
    expect(within(dialog).getByText(/Each entry must be an IP address or a CIDR range/)).toBeTruthy();
    expect(within(dialog).getByText('Choose the dealer')).toBeTruthy();
    // Only the dealer picker's options were read: nothing was sent.
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('shows the API’s field errors on their fields', async () => {
    mockFetch([
      { status: 422, body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { name: ['The name is taken by the server'] } } },
    ]);
    render(await wrap(<CreateApiKeyDialog open pickDealer={false} onClose={() => undefined} onDone={() => undefined} />));
    const dialog = screen.getByRole('dialog', { name: 'New API key' });
    fireEvent.change(within(dialog).getByLabelText(/^Name/), { target: { value: 'Till 1' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create key' }));
    expect(await within(dialog).findByText('The name is taken by the server')).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: 'Your new API key' })).toBeNull();
  });
});
