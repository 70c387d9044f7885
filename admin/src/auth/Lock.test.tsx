import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderScreen } from '../test/renderScreen';
import { serveRoutes, type RoutedAnswer, type RoutedCall } from '../test/fetchMock';
import { clearSession } from '../providers/session';
import LockSessionDialog from './LockSessionDialog';
import LockScreen from './LockScreen';

/** The lock dialog and the lock screen: react-admin forms on the API's lockSchema. */
const wrong: RoutedAnswer = {
  status: 422,
  body: { success: false, message: 'Validation failed. Please check your inputs.', errors: { password: ['The password is incorrect.'] } },
};
const done: RoutedAnswer = { body: { success: true, data: null } };
const fieldText = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';
const posts = (calls: RoutedCall[], path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Lock Session dialog', () => {
  it('asks for the password before sending, shows a wrong one on the field, then locks, closes and says so', async () => {
    let answer = wrong;
    const calls = serveRoutes({ 'POST /api/v1/auth/lock': () => answer });
    const onClose = vi.fn();
    await renderScreen(<LockSessionDialog open onClose={onClose} />, { path: '/dashboard', url: '/dashboard', permissions: [] });
    const dialog = await screen.findByRole('dialog', { name: 'Lock Session' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Lock Session' }));
    expect(await within(dialog).findByText('Password is required')).toBeTruthy();
    expect(posts(calls, '/api/v1/auth/lock')).toHaveLength(0);

    const password = within(dialog).getByLabelText('Password');
    expect(password.getAttribute('autocomplete')).toBe('current-password');
    fireEvent.change(password, { target: { value: 'Wrong@12345' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Lock Session' }));
    await waitFor(() => expect(fieldText(password)).toContain('The password is incorrect.'));
    expect(onClose).not.toHaveBeenCalled();

    answer = done;
    fireEvent.change(password, { target: { value: 'Admin@12345' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Lock Session' }));
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    expect(posts(calls, '/api/v1/auth/lock').map((c) => c.body)).toEqual([{ password: 'Wrong@12345' }, { password: 'Admin@12345' }]);
    expect(await screen.findByText('Session locked successfully')).toBeTruthy();
  });
});

describe('the lock screen', () => {
  it('asks for the password before sending, shows a wrong one on the field, then unlocks', async () => {
    let answer = wrong;
    const calls = serveRoutes({
      'GET /api/v1/auth/check-lock': () => ({ body: { success: true, data: { is_locked: true } } }),
      'POST /api/v1/auth/unlock': () => answer,
    });
    await renderScreen(<LockScreen />, { path: '/auth/lock-screen', url: '/auth/lock-screen', permissions: ['view admins'] });
    fireEvent.click(await screen.findByRole('button', { name: 'Unlock' }));
    expect(await screen.findByText('Password is required')).toBeTruthy();
    expect(posts(calls, '/api/v1/auth/unlock')).toHaveLength(0);

    const password = screen.getByLabelText('Password');
    fireEvent.change(password, { target: { value: 'Wrong@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Unlock' }));
    await waitFor(() => expect(fieldText(password)).toContain('The password is incorrect.'));

    answer = done;
    fireEvent.change(password, { target: { value: 'Admin@12345' } });
    fireEvent.click(screen.getByRole('button', { name: 'Unlock' }));
    await waitFor(() => expect(posts(calls, '/api/v1/auth/unlock')).toHaveLength(2));
    expect(posts(calls, '/api/v1/auth/unlock').map((c) => c.body)).toEqual([{ password: 'Wrong@12345' }, { password: 'Admin@12345' }]);
    // Unlocked: the refusal is gone and nothing else is said.
    await waitFor(() => expect(fieldText(password)).not.toContain('The password is incorrect.'));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
