import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { AdminContext, memoryStore } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { authProvider } from '../providers/authProvider';
import { clearSession, getToken, startSession } from '../providers/session';
import { ErrorBoundary } from '../layout/ErrorBoundary';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import MyWalletPage from './MyWalletPage';

function ShowLocation() {
  const location = useLocation();
  return <pre data-testid="location">{location.pathname + location.search}</pre>;
}

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const refused = () => ({ status: 401, body: { success: false, message: 'Your session has expired. Please login again.' } });

/**
 * A dealer's session ends while My wallet is open: the API answers 401, react-admin's dataProvider
 * wrapper logs out and answers `{}` instead of failing; the page must not read a balance out of it
 * (a TypeError the error boundary turns into the "Internal Server Error" page) but leave for the
 * sign-in page, which keeps where the dealer was (?redirect=) and says the session ended.
 */
describe('My wallet when the session ends', () => {
  it('ends the session for the sign-in page, never showing the error page', async () => {
    const dealer = { id: 3, name: 'Demo', email: 'd@x.so', user_type: 'dealer', permissions: [{ name: 'view own wallet' }] };
    serveRoutes({
      'GET /api/v1/auth/me': () => ({ body: { success: true, data: { user: dealer } } }),
      'GET /api/v1/auth/check-lock': () => ({ body: { success: true, data: { is_locked: false } } }),
      'GET /api/v1/my-wallet': refused,
      'GET /api/v1/wallet-top-up-requests': refused,
    });
    // The browser is on /my-wallet (the sign-in redirect is read from window.location).
    window.history.pushState({}, '', '/my-wallet');
    startSession('t', dealer as never, false);
    const i18nProvider = await testI18nProvider('so');
    render(
      <MemoryRouter initialEntries={['/my-wallet']}>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
          <Routes>
            <Route
              path="/my-wallet"
              element={
                <ErrorBoundary fallback={<p>ERROR PAGE</p>}>
                  <MyWalletPage />
                </ErrorBoundary>
              }
            />
            <Route path="*" element={<ShowLocation />} />
          </Routes>
        </AdminContext>
      </MemoryRouter>,
    );
    // The session ends (the sign-in page reads why from the session-end note) and the page waits
    // for the auth guard's redirect (/auth/login?redirect=, admin/src/auth/AuthGuard.tsx) instead
    // of failing: react-admin's logout is still on its way when the page renders the `{}`.
    await waitFor(() => expect(getToken()).toBeNull(), { timeout: 8000 });
    expect(sessionStorage.getItem('session_end')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 500));
    expect(screen.queryByText('ERROR PAGE')).toBeNull();
  });
});
