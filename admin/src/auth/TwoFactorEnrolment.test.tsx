import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderScreen } from '../test/renderScreen';
import { serveRoutes, type RoutedAnswer, type RoutedCall } from '../test/fetchMock';
import { TwoFactorEnrolment } from './TwoFactorEnrolment';

const SETUP = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  otpauth_url: 'otpauth://totp/Bundles:a%40x.so?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Bundles',
  qr_code: 'data:image/svg+xml;base64,PHN2Zy8+',
  issuer: 'Bundles',
  account: 'a@x.so',
};
const DONE = {
  recovery_codes: ['ABCDE-23456'],
  status: { enabled: true, required: false, enabled_at: '2026-11-28T10:00:00.000Z', pending: false, recovery_codes_left: 10, trusted_devices: 0 },
};

/** The helper text under one input (react-admin's inputs show a field's error there). */
const fieldText = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';
const confirmed = (calls: RoutedCall[]) => calls.filter((c) => c.method === 'POST' && c.path === '/api/v1/auth/two-factor/confirm');

async function open(confirm: () => RoutedAnswer) {
  const calls = serveRoutes({
    'POST /api/v1/auth/two-factor/setup': () => ({ body: { success: true, data: SETUP } }),
    'POST /api/v1/auth/two-factor/confirm': confirm,
  });
  const onDone = vi.fn();
  const onCancel = vi.fn();
  await renderScreen(<TwoFactorEnrolment onDone={onDone} onCancel={onCancel} />, { path: '/auth/profile', url: '/auth/profile', permissions: [] });
  expect((await screen.findByTestId('two-factor-secret')).textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
  return { calls, onDone, onCancel };
}

describe('two-factor enrolment', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('refuses a missing code and password with the shared schema, each on its field, before sending', async () => {
    const { calls, onDone } = await open(() => ({ body: { success: true, data: DONE } }));
    const code = screen.getByLabelText('Authentication code');
    const password = screen.getByLabelText('Your password');
    expect([code.getAttribute('name'), code.getAttribute('autocomplete'), code.getAttribute('inputmode')]).toEqual(['code', 'one-time-code', 'numeric']);
    expect([password.getAttribute('name'), password.getAttribute('autocomplete')]).toEqual(['password', 'current-password']);
    fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() => expect(fieldText(code)).toContain('Enter the 6-digit code or a recovery code.'));
    expect(fieldText(password)).toContain('Password is required');
    fireEvent.change(code, { target: { value: '12 34' } });
    fireEvent.change(password, { target: { value: 'Admin@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() => expect(fieldText(code)).toContain('The code has 6 digits.'));
    expect(confirmed(calls)).toHaveLength(0);
    expect(onDone).not.toHaveBeenCalled();
  });

  it('shows a wrong code on its field; a good one sends the code and password as typed and hands over the recovery codes', async () => {
    let answer: RoutedAnswer = {
      status: 422,
      body: {
        success: false,
        message: 'Validation failed. Please check your inputs.',
        errors: { code: ['The code is not correct. Check your authenticator app and try again.'] },
      },
    };
    const { calls, onDone } = await open(() => answer);
    const code = screen.getByLabelText('Authentication code');
    fireEvent.change(code, { target: { value: '000000' } });
    fireEvent.change(screen.getByLabelText('Your password'), { target: { value: 'Admin@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() => expect(fieldText(code)).toContain('The code is not correct. Check your authenticator app and try again.'));
    expect(onDone).not.toHaveBeenCalled();

    answer = { body: { success: true, data: DONE } };
    fireEvent.change(code, { target: { value: '123 456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    await waitFor(() => expect(onDone).toHaveBeenCalledWith(DONE));
    expect(confirmed(calls).map((c) => c.body)).toEqual([
      { code: '000000', password: 'Admin@12345' },
      { code: '123 456', password: 'Admin@12345' },
    ]);
  });

  it('says another refusal above the form, and cancels', async () => {
    const { onCancel } = await open(() => ({ status: 409, body: { success: false, message: 'Two-factor sign-in is already on.' } }));
    fireEvent.change(screen.getByLabelText('Authentication code'), { target: { value: '123456' } });
    fireEvent.change(screen.getByLabelText('Your password'), { target: { value: 'Admin@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Two-factor sign-in is already on.');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalled();
  });
});
