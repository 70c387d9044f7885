import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { renderScreen, ok } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { RoleFormDialog } from './RoleFormDialog';

/**
 * The role form in the user's language: each permission the server lists ("view dashboard")
 * reads as a translated label, its name still the value sent; "Guard name: web" is not shown.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const available = [
  { id: 1, name: 'view dashboard', group: 'dashboard' },
  { id: 2, name: 'delete users', group: 'users' },
  { id: 3, name: 'something brand new', group: 'users' },
];

describe('role form words', () => {
  it.each([
    ['ae', ['عرض لوحة التحكم', 'نقل إلى سلة المحذوفات: المستخدمين'], 'Guard', 'حفظ'],
    ['so', ['Eeg shaashadda guud', 'U rar qashinka: isticmaalayaasha'], 'Guard', 'Kaydi'],
    ['en', ['View dashboard', 'Move to the trash: users'], 'Guard name', 'Save'],
  ])('labels permissions in words and hides the guard (%s)', async (lng, labels, guard, save) => {
    const calls = serveRoutes({
      'GET /api/v1/roles/permissions/available': () => ok(available),
      'POST /api/v1/roles': () => ok({ id: 9, name: 'Support', guard_name: 'web', description: null, permissions: [] }),
    });
    await renderScreen(<RoleFormDialog open record={null} onClose={() => undefined} />, {
      path: '/settings/roles/*',
      url: '/settings/roles/create',
      permissions: ['view roles', 'create roles', 'assign permissions'],
      lng,
    });
    for (const label of labels) expect(await screen.findByText(label)).toBeTruthy();
    // A permission the console has no words for yet keeps its name.
    expect(screen.getByText('something brand new')).toBeTruthy();
    expect(screen.queryByText('view dashboard')).toBeNull();
    expect(document.body.textContent).not.toContain(guard);
    expect(screen.queryByDisplayValue('web')).toBeNull();
    // The checkbox still carries the permission's name to the API.
    fireEvent.change(screen.getAllByRole('textbox')[0], { target: { value: 'Support' } });
    fireEvent.click(screen.getByText(labels[0]));
    fireEvent.click(screen.getByRole('button', { name: save }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ name: 'Support', permissions: ['view dashboard'] }));
  });
});

describe('the role form', () => {
  const open = async (post: () => { status?: number; body: unknown }) => {
    const calls = serveRoutes({ 'GET /api/v1/roles/permissions/available': () => ok(available), 'POST /api/v1/roles': post });
    await renderScreen(<RoleFormDialog open record={null} onClose={() => undefined} />, {
      path: '/settings/roles/*',
      url: '/settings/roles/create',
      permissions: ['view roles', 'create roles', 'assign permissions'],
    });
    await screen.findByText('View dashboard');
    return calls;
  };
  const helper = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';

  it('refuses a role without a name before sending, on the name field', async () => {
    const calls = await open(() => ok({}));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(helper(screen.getByLabelText(/^Name/))).toContain('Name is required'));
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('puts the API’s refusal of the name on the name field', async () => {
    const calls = await open(() => ({
      status: 422,
      body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { name: ['The name has already been taken.'] } },
    }));
    fireEvent.change(screen.getByLabelText(/^Name/), { target: { value: 'Dealer' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(helper(screen.getByLabelText(/^Name/))).toContain('The name has already been taken.'));
    // Sent as before: the guard, an empty description as an empty text, no permissions.
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Dealer', guard_name: 'web', description: '', permissions: [] });
  });
});
