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
