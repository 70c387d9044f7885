import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { reactRouterProvider, useLocation } from 'react-admin';
import { AdminContext, memoryStore, TestMemoryRouter, testDataProvider } from 'react-admin';

const { Routes, Route } = reactRouterProvider;
import { AuthGuard } from './AuthGuard';
import { PageGuard } from './PageGuard';
import { authProvider } from '../providers/authProvider';
import { clearSession, setLocked, startSession } from '../providers/session';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

function Where() {
  const l = useLocation();
  return <div data-testid="where">{`${l.pathname}${l.search}`}</div>;
}

/** The page at `path` behind the sign-in check and the page's own access (`page`: its pattern in console/areas.ts). */
async function renderAt(path: string, page = '/admin') {
  const i18nProvider = await testI18nProvider();
  return render(
    <TestMemoryRouter initialEntries={[path]}>
      <AdminContext dataProvider={testDataProvider()} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()}>
        <Routes>
          <Route
            path={path.split('?')[0]}
            element={
              <AuthGuard>
                <PageGuard path={page}>
                  <div>admin list</div>
                </PageGuard>
              </AuthGuard>
            }
          />
          <Route path="*" element={<Where />} />
        </Routes>
      </AdminContext>
    </TestMemoryRouter>,
  );
}

const user = { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'view admins' }] };
const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });

describe('auth guard (docs/product.md section 4)', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('not signed in: /auth/login?redirect=<path and query>', async () => {
    await renderAt('/admin?page=2');
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/auth/login?redirect=%2Fadmin%3Fpage%3D2'));
  });

  it('signed in: loads the user, checks the lock, then renders the page', async () => {
    startSession('t', user, false);
    const calls = mockFetch([ok({ user }), ok({ is_locked: false })]);
    await renderAt('/admin');
    expect(await screen.findByText('admin list')).toBeTruthy();
    expect(calls.map((c) => c.url).sort()).toEqual(['/api/v1/auth/check-lock', '/api/v1/auth/me']);
  });

  it('locked (stored flag or server answer): the lock screen', async () => {
    startSession('t', user, false);
    setLocked(true);
    mockFetch([ok({ user }), ok({ is_locked: true })]);
    await renderAt('/admin');
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/auth/lock-screen'));
  });

  it("missing a page's permission (its area's access, through canAccess): /unauthorized", async () => {
    startSession('t', user, false);
    mockFetch([ok({ user }), ok({ is_locked: false })]);
    await renderAt('/settings/roles', '/settings/roles');
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/unauthorized'));
  });

  it("a page for another kind of user (a dealer's My wallet for an admin): /unauthorized", async () => {
    startSession('t', { ...user, user_type: 'admin', permissions: [{ name: 'view own wallet' }] }, false);
    mockFetch([ok({ user: { ...user, user_type: 'admin', permissions: [{ name: 'view own wallet' }] } }), ok({ is_locked: false })]);
    await renderAt('/my-wallet', '/my-wallet');
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/unauthorized'));
  });

  it('a 401 on the current-user query clears the session and goes to sign-in', async () => {
    startSession('t', user, false);
    mockFetch([{ status: 401, body: { success: false, message: 'Unauthenticated.' } }, ok({ is_locked: false })]);
    await renderAt('/admin');
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/auth/login?redirect=%2Fadmin'));
  });
});
