import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderScreen } from '../test/renderScreen';
import { serveRoutes, type RoutedAnswer, type RoutedCall } from '../test/fetchMock';
import { TwoFactorCard } from './TwoFactorCard';

const STATUS = { enabled: true, required: false, enabled_at: '2026-11-01T10:00:00.000Z', pending: false, recovery_codes_left: 7, trusted_devices: 0 };
const CODES = ['ABCDE-23456', 'FGHJK-78923'];
const wrongPassword: RoutedAnswer = {
  status: 422,
  body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { password: ['The password is not correct.'] } },
};

/** The helper text under one input (react-admin's inputs show a field's error there). */
const fieldText = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';
const sent = (calls: RoutedCall[], path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);

async function open(routes: Record<string, (call: RoutedCall) => RoutedAnswer>) {
  const calls = serveRoutes({ 'GET /api/v1/auth/two-factor': () => ({ body: { success: true, data: STATUS } }), ...routes });
  await renderScreen(<TwoFactorCard />, { path: '/auth/profile', url: '/auth/profile', permissions: [] });
  await screen.findByText('Recovery codes left: 7');
  return calls;
}

/** Opens the password dialog from one of the card's buttons; the dialog and its password input. */
async function ask(button: string) {
  fireEvent.click(screen.getByRole('button', { name: button }));
  const dialog = await screen.findByRole('dialog');
  return { dialog, password: within(dialog).getByLabelText('Password') };
}

describe('the two-factor card’s password dialog', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('refuses an empty password with the shared schema, on the field, before sending', async () => {
    const calls = await open({});
    const { dialog, password } = await ask('New recovery codes');
    expect(password.getAttribute('autocomplete')).toBe('current-password');
    expect(password.getAttribute('name')).toBe('password');
    await waitFor(() => expect(document.activeElement).toBe(password));
    fireEvent.click(within(dialog).getByRole('button', { name: 'New recovery codes' }));
    await waitFor(() => expect(fieldText(password)).toContain('Password is required'));
    expect(sent(calls, '/api/v1/auth/two-factor/recovery-codes')).toHaveLength(0);
  });

  it('shows a wrong password on its field; the right one sends only the password and shows the new codes', async () => {
    let answer = wrongPassword;
    const calls = await open({ 'POST /api/v1/auth/two-factor/recovery-codes': () => answer });
    const { dialog, password } = await ask('New recovery codes');
    fireEvent.change(password, { target: { value: 'Wrong@123' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'New recovery codes' }));
    await waitFor(() => expect(fieldText(password)).toContain('The password is not correct.'));
    expect(screen.getByRole('dialog')).toBeTruthy();

    answer = { body: { success: true, data: { recovery_codes: CODES, status: { ...STATUS, recovery_codes_left: 10 } } } };
    fireEvent.change(password, { target: { value: 'Admin@12345' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'New recovery codes' }));
    await screen.findByText('New recovery codes made.');
    expect(sent(calls, '/api/v1/auth/two-factor/recovery-codes').map((c) => c.body)).toEqual([{ password: 'Wrong@123' }, { password: 'Admin@12345' }]);
    expect(screen.getByTestId('recovery-codes').textContent).toContain('ABCDE-23456');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('turns two-factor off with the password; another refusal is said above the field', async () => {
    let answer: RoutedAnswer = { status: 409, body: { success: false, message: 'A role of yours requires two-factor sign-in.' } };
    const calls = await open({ 'POST /api/v1/auth/two-factor/disable': () => answer });
    const { dialog, password } = await ask('Turn off');
    fireEvent.change(password, { target: { value: 'Admin@12345' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('A role of yours requires two-factor sign-in.');

    answer = { body: { success: true, data: { ...STATUS, enabled: false, enabled_at: null, recovery_codes_left: 0 } } };
    fireEvent.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    await screen.findByText('Two-factor sign-in is off.');
    expect(sent(calls, '/api/v1/auth/two-factor/disable').map((c) => c.body)).toEqual([{ password: 'Admin@12345' }, { password: 'Admin@12345' }]);
  });
});
