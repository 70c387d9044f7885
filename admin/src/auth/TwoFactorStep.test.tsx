import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, TestMemoryRouter, testDataProvider } from 'react-admin';
import { TwoFactorStep } from './TwoFactorStep';
import { authProvider } from '../providers/authProvider';
import { clearSession } from '../providers/session';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const user = { id: 1, name: 'Amina', email: 'a@x.so', user_type: 'admin', permissions: [] };
const CHALLENGE = { challenge: 'ch-1', rememberMe: true, expiresAt: '2026-11-28T10:05:00.000Z' };
const refused = (errors: Record<string, string[]>) => ({
  status: 422,
  body: { success: false, message: 'Validation failed. Please check your inputs.', errors },
});

/** The helper text under one input (react-admin's inputs show a field's error there). */
const fieldText = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';

async function renderStep(lng = 'en') {
  const onSignedIn = vi.fn();
  const onRestart = vi.fn();
  const i18nProvider = await testI18nProvider(lng);
  render(
    <TestMemoryRouter initialEntries={['/auth/login']}>
      <AdminContext dataProvider={testDataProvider()} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <TwoFactorStep challenge={CHALLENGE} onSignedIn={onSignedIn} onRestart={onRestart} />
      </AdminContext>
    </TestMemoryRouter>,
  );
  await screen.findByRole('heading', { name: 'Two-step verification' });
  return { onSignedIn, onRestart };
}

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the two-factor step of a sign-in', () => {
  it('refuses a missing or short code with the shared schema, on the field, before sending', async () => {
    const { onSignedIn } = await renderStep();
    const calls = mockFetch([]);
    const code = screen.getByLabelText('Authentication code');
    expect(code.getAttribute('name')).toBe('code');
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(code.getAttribute('inputmode')).toBe('numeric');
    expect(document.activeElement).toBe(code);
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(code)).toContain('Enter the 6-digit code or a recovery code.'));
    fireEvent.change(code, { target: { value: '12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(code)).toContain('The code has 6 digits.'));
    expect(calls).toHaveLength(0);
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it('shows a wrong code on its field; a good one sends the challenge, the code as typed and "remember this device"', async () => {
    const { onSignedIn } = await renderStep();
    const calls = mockFetch([
      refused({ code: ['The code is not correct. Check your authenticator app and try again.'] }),
      { body: { success: true, message: 'Welcome back, Amina!', data: { user, token: 'jwt-2' } } },
    ]);
    const code = screen.getByLabelText('Authentication code');
    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(code)).toContain('The code is not correct. Check your authenticator app and try again.'));

    fireEvent.change(code, { target: { value: '654 321' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Remember this device for 30 days' }));
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(expect.objectContaining({ id: 1 }), 'Welcome back, Amina!'));
    expect(calls.map((c) => [c.url, c.body])).toEqual([
      ['/api/v1/auth/two-factor/verify', { challenge: 'ch-1', code: '123456', remember_device: false }],
      ['/api/v1/auth/two-factor/verify', { challenge: 'ch-1', code: '654 321', remember_device: true }],
    ]);
  });

  it('takes a recovery code instead (checked by the schema, a used one refused on its field), and back to the app', async () => {
    const { onSignedIn } = await renderStep();
    const calls = mockFetch([refused({ recovery_code: ['This recovery code is not valid or has already been used.'] })]);
    fireEvent.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    const recovery = await screen.findByLabelText('Recovery code');
    expect(recovery.getAttribute('name')).toBe('recovery_code');
    expect(fieldText(recovery)).toContain('Like ABCDE-23456');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(recovery)).toContain('Enter the 6-digit code or a recovery code.'));
    fireEvent.change(recovery, { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(recovery)).toContain('A recovery code has 10 letters and digits, like ABCDE-23456.'));
    expect(calls).toHaveLength(0);

    fireEvent.change(recovery, { target: { value: 'abcde-23456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(fieldText(recovery)).toContain('This recovery code is not valid or has already been used.'));
    expect(calls.map((c) => c.body)).toEqual([{ challenge: 'ch-1', recovery_code: 'abcde-23456', remember_device: false }]);
    expect(onSignedIn).not.toHaveBeenCalled();

    // Back to the app: an empty code field, no error left over.
    fireEvent.click(screen.getByRole('button', { name: 'Use the authenticator app' }));
    const code = await screen.findByLabelText('Authentication code');
    expect((code as HTMLInputElement).value).toBe('');
    expect(fieldText(code)).not.toContain('recovery code is not valid');
  });

  it('goes back to the password step with the server’s words when the challenge expired', async () => {
    const { onRestart } = await renderStep();
    mockFetch([{ status: 401, body: { success: false, message: 'Your sign-in has expired. Enter your email and password again.' } }]);
    fireEvent.change(screen.getByLabelText('Authentication code'), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onRestart).toHaveBeenCalledWith('Your sign-in has expired. Enter your email and password again.'));
  });
});
