import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, reactRouterProvider, TestMemoryRouter, testDataProvider, useLocation } from 'react-admin';
import LoginPage from './LoginPage';
import { authProvider } from '../providers/authProvider';
import { clearSession, forgetSessionEnd, markSessionEnd, sessionEnd } from '../providers/session';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const { Routes, Route } = reactRouterProvider;

/**
 * The sign-in page after a session ended without signing out: it says why (the token refused, or
 * its cookie gone), and signing in returns to the page of `?redirect=`.
 */
function Where() {
  const l = useLocation();
  return <div data-testid="where">{`${l.pathname}${l.search}`}</div>;
}

async function renderLogin(url: string, lng = 'en') {
  const i18nProvider = await testI18nProvider(lng);
  return render(
    <TestMemoryRouter initialEntries={[url]}>
      <AdminContext dataProvider={testDataProvider()} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route path="/auth/login" element={<LoginPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </AdminContext>
    </TestMemoryRouter>,
  );
}

const user = { id: 1, name: 'Amina', email: 'a@x.so', user_type: 'admin', permissions: [{ name: 'view recharges' }, { name: 'view dashboard' }] };

afterEach(() => {
  cleanup();
  clearSession();
  forgetSessionEnd();
  vi.unstubAllGlobals();
});

describe('the sign-in page after a session ended', () => {
  it('says the session ended when its cookie is gone, and returns to ?redirect= after signing in', async () => {
    markSessionEnd('ended');
    await renderLogin('/auth/login?redirect=%2Frecharges%3Fstatus%3Dfailed');
    expect((await screen.findByRole('status')).textContent).toBe('Your session ended; sign in again.');
    const calls = mockFetch([{ status: 200, body: { success: true, data: { user, token: 'jwt-2' } } }]);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'a@x.so' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Admin@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/recharges?status=failed'), { timeout: 5000 });
    expect(calls[0].url).toBe('/api/v1/auth/admin/login');
    // Signed in again: the reason is forgotten.
    expect(sessionEnd()).toBeNull();
  });

  it('says it expired when the API refused the token, in Arabic and Somali too', async () => {
    markSessionEnd('expired');
    await renderLogin('/auth/login?redirect=%2Frecharges');
    expect((await screen.findByRole('status')).textContent).toBe('Your session has expired. Please login again.');
    cleanup();
    markSessionEnd('ended');
    await renderLogin('/auth/login', 'ae');
    expect((await screen.findByRole('status')).textContent).toBe('انتهت جلستك؛ سجّل الدخول مرة أخرى.');
    cleanup();
    await renderLogin('/auth/login', 'so');
    expect((await screen.findByRole('status')).textContent).toBe('Fadhigaagii wuu dhammaaday; mar kale gal.');
  });

  it('says nothing to a visitor who signed out or never signed in', async () => {
    await renderLogin('/auth/login');
    await screen.findByRole('button', { name: 'Sign in' });
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('the sign-in form', () => {
  it('checks the email and password with the shared schema before sending, each on its field', async () => {
    await renderLogin('/auth/login');
    const calls = mockFetch([]);
    const email = await screen.findByLabelText('Email');
    fireEvent.change(email, { target: { value: 'not-an-email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(email.closest('.MuiFormControl-root')?.textContent).toContain('Invalid email format'));
    expect(screen.getByLabelText('Password').closest('.MuiFormControl-root')?.textContent).toContain('Password is required');
    expect(calls).toHaveLength(0);
  });

  it('sends email, password and "Remember me" as before; a refusal is said above the form', async () => {
    await renderLogin('/auth/login');
    const calls = mockFetch([{ status: 401, body: { success: false, message: 'Invalid credentials' } }]);
    const email = await screen.findByLabelText('Email');
    expect(email.getAttribute('autocomplete')).toBe('username');
    expect(screen.getByLabelText('Password').getAttribute('autocomplete')).toBe('current-password');
    fireEvent.change(email, { target: { value: 'a@x.so' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Wrong@12345' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid credentials');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/api/v1/auth/admin/login', method: 'POST', body: { email: 'a@x.so', password: 'Wrong@12345', rememberMe: true } });
  });
});
