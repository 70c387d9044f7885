import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, Notification, testDataProvider } from 'react-admin';
import { UserFormDrawer } from '../users/UserFormDrawer';
import { testI18nProvider } from '../test/i18n';
import { clearSession, startSession } from '../providers/session';
import { mockFetch } from '../test/fetchMock';

/**
 * A new account made in the console gets its welcome email (a link to choose a password): the
 * console asks for it once the account exists and says what the server answered, sent or not.
 */
async function createAdmin() {
  const i18nProvider = await testI18nProvider('en');
  startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'create users' }] }, false);
  const create = vi.fn().mockResolvedValue({ data: { id: 41, name: 'Ali', email: 'ali@x.so' } });
  render(
    <AdminContext
      dataProvider={testDataProvider({ create, getList: async () => ({ data: [{ id: 2, name: 'ops' }], total: 1 }) as never })}
      i18nProvider={i18nProvider}
      store={memoryStore()}
    >
      <UserFormDrawer open userType="admin" record={null} onClose={() => undefined} />
      <Notification />
    </AdminContext>,
  );
  expect(await screen.findByRole('heading', { name: 'New Admin' })).toBeTruthy();
  fireEvent.change(screen.getByLabelText(/^Name/), { target: { value: 'Ali' } });
  fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'ali@x.so' } });
  fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'Abcdef!1' } });
  fireEvent.change(screen.getByLabelText(/^Confirm password/), { target: { value: 'Abcdef!1' } });
  fireEvent.mouseDown(screen.getByRole('combobox', { name: /Role/ }));
  fireEvent.click(await screen.findByRole('option', { name: 'ops' }));
  return create;
}

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the welcome email of a new account', () => {
  it('is asked for after the account is made, and the toast says it was sent', async () => {
    const calls = mockFetch([
      { status: 200, body: { success: true, message: 'A welcome email with a link to choose a password was sent to ali@x.so.', data: { sent: true } } },
    ]);
    const create = await createAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect(
      await screen.findAllByText(
        (_, el) => el?.tagName === 'DIV' && /^A welcome email with a link to choose a password was sent to ali@x\.so/.test(el.textContent ?? ''),
        undefined,
        { timeout: 5000 },
      ),
    ).not.toHaveLength(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/api/v1/users/41/welcome-email', method: 'POST' });
  }, 30_000);

  it('not sent (no mail settings): the toast says so and that the typed password stays', async () => {
    const words = 'The welcome email could not be sent: the mail settings are not saved. The password stays as typed; give it to the user yourself.';
    mockFetch([{ status: 200, body: { success: true, message: words, data: { sent: false, to: null, expires_at: null } } }]);
    await createAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(
      await screen.findAllByText(
        (_, el) =>
          el?.tagName === 'DIV' &&
          (el.textContent ?? '').startsWith('The welcome email could not be sent: the mail settings are not saved. The password stays as typed'),
        undefined,
        { timeout: 5000 },
      ),
    ).not.toHaveLength(0);
  }, 30_000);
});
