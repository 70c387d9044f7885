import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, reactRouterProvider, TestMemoryRouter, testDataProvider, useLocation } from 'react-admin';
import LoginPage from './LoginPage';
import ForgotPasswordPage from './ForgotPasswordPage';
import ResetPasswordPage from './ResetPasswordPage';
import { authProvider } from '../providers/authProvider';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const { Routes, Route } = reactRouterProvider;

/**
 * The forgotten-password pages: "Forgot password?" on the sign-in page, the page that asks for
 * the email and shows the server's one answer, and the page a set-password link opens (the link
 * checked first, the user form's password rules, back to the sign-in when saved).
 */
function Where() {
  const l = useLocation();
  return <div data-testid="where">{`${l.pathname}${l.search}`}</div>;
}

async function renderAt(url: string, lng = 'en') {
  const i18nProvider = await testI18nProvider(lng);
  return render(
    <TestMemoryRouter initialEntries={[url]}>
      <AdminContext dataProvider={testDataProvider()} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path="/auth/login" element={<LoginPage />} />
          <Route path="/auth/forgot-password" element={<ForgotPasswordPage />} />
          <Route path="/auth/reset-password" element={<ResetPasswordPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </AdminContext>
    </TestMemoryRouter>,
  );
}

const SENT = 'If an account exists for this email, a link to set a new password is on its way. It works for 60 minutes.';
const INVALID = 'This link does not work: it is wrong, already used or expired. Ask for a new one.';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('forgot password', () => {
  it('the sign-in page links to it, in Arabic and Somali too', async () => {
    await renderAt('/auth/login');
    fireEvent.click(await screen.findByRole('link', { name: 'Forgot password?' }));
    expect(await screen.findByRole('heading', { name: 'Forgot your password?' })).toBeTruthy();
    cleanup();
    await renderAt('/auth/login', 'ae');
    expect(await screen.findByRole('link', { name: 'نسيت كلمة المرور؟' })).toBeTruthy();
    cleanup();
    await renderAt('/auth/login', 'so');
    expect(await screen.findByRole('link', { name: 'Ma ilowday furaha sirta ah?' })).toBeTruthy();
  });

  it('checks the email, sends it and shows the server’s one answer', async () => {
    await renderAt('/auth/forgot-password');
    fireEvent.click(await screen.findByRole('button', { name: 'Send the link' }));
    expect(await screen.findByText('Email is required', undefined, { timeout: 5000 })).toBeTruthy();
    const calls = mockFetch([{ status: 200, body: { success: true, message: SENT } }]);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'amina@x.so' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toBe(SENT);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/api/v1/auth/forgot-password', method: 'POST', body: { email: 'amina@x.so' } });
    expect(screen.queryByRole('button', { name: 'Send the link' })).toBeNull();
  });

  it('puts the API’s refusal of the email on the email field', async () => {
    await renderAt('/auth/forgot-password');
    const calls = mockFetch([
      {
        status: 422,
        body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { email: ['The email is not accepted here.'] } },
      },
    ]);
    const email = await screen.findByLabelText('Email');
    fireEvent.change(email, { target: { value: 'amina@x.so' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    await waitFor(() => expect(email.closest('.MuiFormControl-root')?.textContent).toContain('The email is not accepted here.'));
    expect(calls).toHaveLength(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says the throttle’s words when asked too often', async () => {
    await renderAt('/auth/forgot-password');
    mockFetch([{ status: 429, body: { success: false, message: 'Too many attempts. Please try again in 600 seconds.' } }]);
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'amina@x.so' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Too many attempts. Please try again in 600 seconds.');
  });
});

describe('the set-password page', () => {
  it('a link that does not work says so and offers a new one', async () => {
    mockFetch([{ status: 422, body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { token: [INVALID] } } }]);
    await renderAt('/auth/reset-password?token=old');
    expect((await screen.findByRole('alert')).textContent).toBe(INVALID);
    fireEvent.click(screen.getByRole('link', { name: 'Ask for a new link' }));
    expect(await screen.findByRole('heading', { name: 'Forgot your password?' })).toBeTruthy();
  });

  it('checks the new password with the user form’s rules (in Somali), saves it and returns to the sign-in', async () => {
    const calls = mockFetch([
      { status: 200, body: { success: true, data: { email: 'amina@x.so', purpose: 'welcome', expires_at: '2030-01-01T00:00:00.000Z' } } },
      { status: 200, body: { success: true, message: 'Saved.' } },
    ]);
    await renderAt('/auth/reset-password?token=tok-1', 'so');
    expect(await screen.findByRole('heading', { name: 'Dooro furahaaga sirta ah' })).toBeTruthy();
    expect(screen.getByText('Koontada amina@x.so.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Furaha sirta ah ee cusub'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Kaydi furaha sirta ah' }));
    expect(await screen.findByText('Furaha sirta ahi waa inuu ahaadaa ugu yaraan 8 xaraf', undefined, { timeout: 5000 })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Furaha sirta ah ee cusub'), { target: { value: 'Fresh#Pass9' } });
    fireEvent.change(screen.getByLabelText('Xaqiiji furaha sirta ah ee cusub'), { target: { value: 'Fresh#Pass8' } });
    fireEvent.click(screen.getByRole('button', { name: 'Kaydi furaha sirta ah' }));
    expect(await screen.findByText('Furayaasha sirta ahi isma waafaqsana')).toBeTruthy();
    expect(calls).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('Xaqiiji furaha sirta ah ee cusub'), { target: { value: 'Fresh#Pass9' } });
    fireEvent.click(screen.getByRole('button', { name: 'Kaydi furaha sirta ah' }));
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]).toMatchObject({
      url: '/api/v1/auth/reset-password',
      method: 'POST',
      body: { token: 'tok-1', password: 'Fresh#Pass9', password_confirmation: 'Fresh#Pass9' },
    });
    expect(await screen.findByRole('button', { name: /Gal|Sign in/ })).toBeTruthy();
  });

  it('shows the server’s refusal on the field (a common password)', async () => {
    mockFetch([
      { status: 200, body: { success: true, data: { email: 'amina@x.so', purpose: 'reset', expires_at: '2030-01-01T00:00:00.000Z' } } },
      {
        status: 422,
        body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { password: ['This password is too common.'] } },
      },
    ]);
    await renderAt('/auth/reset-password?token=tok-2');
    expect(await screen.findByRole('heading', { name: 'Set a new password' })).toBeTruthy();
    fireEvent.change(await screen.findByLabelText('New password'), { target: { value: 'Password@1' } });
    fireEvent.change(screen.getByLabelText('Confirm the new password'), { target: { value: 'Password@1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save the password' }));
    expect(await screen.findByText('This password is too common.')).toBeTruthy();
  });
});
