import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { AdminContext, memoryStore, Notification, type AuthProvider } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { QueryClient } from '@tanstack/react-query';
import { getStoredUser, startSession } from '../providers/session';
import { identityOf } from '../providers/authProvider';
import { followSession } from '../auth/sessionQueries';
import { canAccessLocally } from '../permissions/permissions';
import { testI18nProvider } from './i18n';

/** Where a link or navigation went (a catch-all route's text). */
function ShowLocation() {
  const location = useLocation();
  return <pre data-testid="location">{location.pathname + location.search}</pre>;
}

/**
 * A screen at `url` (matched by `path`) against the console's real dataProvider (fetch mocked with
 * serveRoutes), signed in as a user of `userType` holding `permissions`: the session and react-admin's
 * authProvider answer them, its identity and permissions already in the query cache as in the console.
 */
export async function renderScreen(
  element: ReactElement,
  { path, url, permissions, userType = 'admin', lng = 'en' }: { path: string; url: string; permissions: string[]; userType?: 'admin' | 'dealer'; lng?: string },
) {
  startSession('t', { id: 1, name: 'Amina', email: 'a@x.so', user_type: userType, permissions: permissions.map((name) => ({ name })) } as never, false);
  const authProvider: AuthProvider = {
    login: async () => undefined,
    logout: async () => undefined,
    checkAuth: async () => undefined,
    checkError: async () => undefined,
    getPermissions: async () => permissions,
    getIdentity: async () => identityOf(getStoredUser()!),
    canAccess: async ({ action, resource }) => canAccessLocally(permissions, { action, resource }),
  };
  const i18nProvider = await testI18nProvider(lng);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  followSession(queryClient);
  return render(
    <MemoryRouter initialEntries={[url]}>
      <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} store={memoryStore()} queryClient={queryClient}>
        <Routes>
          <Route path={path} element={element} />
          <Route path="*" element={<ShowLocation />} />
        </Routes>
        <Notification />
      </AdminContext>
    </MemoryRouter>,
  );
}

/** The envelope of a paginated list. */
export const page = (rows: unknown[], meta: Partial<{ current_page: number; per_page: number; total: number; last_page: number }> = {}) => ({
  body: { success: true, data: rows, meta: { current_page: 1, per_page: 25, total: rows.length, last_page: 1, ...meta } },
});

/** The envelope of one answer. */
export const ok = (data: unknown, message?: string) => ({ body: { success: true, ...(message ? { message } : {}), data } });
