import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ListBase, RecordContextProvider, ResourceContextProvider } from 'react-admin';
import { renderScreen, page } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { UserTrashButton } from './UserTrashButton';

/**
 * A delete the server refuses by a rule (403 users.cannot_delete_self) shows the server's words,
 * in the user's language, not the generic "You do not have permission"; a missing permission
 * (auth.forbidden) still reads the catalogue's text.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function deleteSelf(answer: { code: string; message: string }, lng: string) {
  const calls = serveRoutes({
    'GET /api/v1/users': () => page([]),
    'DELETE /api/v1/users/1': () => ({ status: 403, body: { success: false, ...answer } }),
  });
  await renderScreen(
    <ResourceContextProvider value="users">
      <ListBase resource="users">
        <RecordContextProvider value={{ id: 1, name: 'Amina', user_type: 'admin' }}>
          <UserTrashButton />
        </RecordContextProvider>
      </ListBase>
    </ResourceContextProvider>,
    { path: '/admin/*', url: '/admin', permissions: ['view admins', 'delete users'], lng },
  );
  fireEvent.click(await screen.findByRole('button'));
  const dialog = await screen.findByRole('dialog');
  fireEvent.click(within(dialog).getAllByRole('button').at(-1)!);
  await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
}

describe('a refused delete', () => {
  it.each([
    ['ae', 'لا يمكنك حذف حسابك.'],
    ['so', 'Ma tirtiri kartid akoonkaaga.'],
    ['en', 'You cannot delete your own account.'],
  ])("shows the server's reason (%s)", async (lng, message) => {
    await deleteSelf({ code: 'users.cannot_delete_self', message }, lng);
    expect(await screen.findByText(message)).toBeTruthy();
    expect(document.body.textContent).not.toContain('You do not have permission');
  });

  it('a missing permission keeps the catalogue text', async () => {
    await deleteSelf({ code: 'auth.forbidden', message: 'Forbidden by the server' }, 'en');
    expect(await screen.findByText('You do not have permission to perform this action.')).toBeTruthy();
  });
});
