import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderScreen } from '../test/renderScreen';
import { serveRoutes, type RoutedAnswer, type RoutedCall } from '../test/fetchMock';
import ProfilePage from './ProfilePage';

const ME = { id: 1, name: 'Amina', email: 'a@x.so', user_type: 'admin', phone: '', address: '', permissions: [] };
const saved = (over: object = {}): RoutedAnswer => ({ body: { success: true, message: 'Profile updated successfully', data: { user: { ...ME, ...over } } } });
const refused = (errors: Record<string, string>): RoutedAnswer => ({
  status: 422,
  body: { success: false, message: 'Validation failed. Please check your inputs.', errors },
});

/** The helper text under one input (react-admin's inputs show a field's error there). */
const fieldText = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';

async function open(routes: Record<string, () => RoutedAnswer>) {
  const calls = serveRoutes({ 'GET /api/v1/auth/two-factor': () => ({ body: { success: true, data: { enabled: false } } }), ...routes });
  await renderScreen(<ProfilePage />, { path: '/auth/profile', url: '/auth/profile', permissions: [] });
  await screen.findByRole('heading', { name: 'Change password', level: 2 });
  return calls;
}
const sent = (calls: RoutedCall[], method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

describe('the profile page', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('checks the details with the shared schema before sending: an emptied name is refused on its field', async () => {
    const calls = await open({ 'PUT /api/v1/auth/profile': () => saved() });
    const name = await screen.findByLabelText(/^Name/);
    await waitFor(() => expect((name as HTMLInputElement).value).toBe('Amina'));
    fireEvent.change(name, { target: { value: '' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'not-an-email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(fieldText(name)).toContain('Name is required'));
    expect(fieldText(screen.getByLabelText(/^Email/))).toContain('Invalid email format');
    expect(sent(calls, 'PUT', '/api/v1/auth/profile')).toHaveLength(0);
  });

  it('sends the details as typed (an empty field as an empty text) and says so', async () => {
    const calls = await open({ 'PUT /api/v1/auth/profile': () => saved({ phone: '+252615550000' }) });
    const phone = await screen.findByLabelText(/^Phone/);
    fireEvent.change(phone, { target: { value: '+252615550000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Update' }));
    await screen.findByText('Profile updated successfully');
    expect(sent(calls, 'PUT', '/api/v1/auth/profile').map((c) => c.body)).toEqual([{ name: 'Amina', email: 'a@x.so', phone: '+252615550000', address: '' }]);
  });

  it('puts the API’s field error on its field, anything else in the error banner', async () => {
    await open({ 'PUT /api/v1/auth/profile': () => refused({ email: 'The email has already been taken.', other: 'Something else is wrong.' }) });
    const email = await screen.findByLabelText(/^Email/);
    fireEvent.change(email, { target: { value: 'taken@x.so' } });
    fireEvent.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(fieldText(email)).toContain('The email has already been taken.'));
    expect(screen.getByRole('alert').textContent).toContain('Something else is wrong.');
  });

  it('refuses a confirmation that does not match before sending, on the confirmation field', async () => {
    const calls = await open({ 'POST /api/v1/auth/change-password': () => ({ body: { success: true, data: null } }) });
    fireEvent.change(screen.getByLabelText(/^Current password/), { target: { value: 'Old@Pass123' } });
    fireEvent.change(screen.getByLabelText(/^New password/), { target: { value: 'New@Pass2026!' } });
    const confirm = screen.getByLabelText(/^Confirm new password/);
    fireEvent.change(confirm, { target: { value: 'Other@Pass2026!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() => expect(fieldText(confirm)).toContain('Passwords do not match'));
    expect(sent(calls, 'POST', '/api/v1/auth/change-password')).toHaveLength(0);
  });

  it('shows a wrong current password on its field; a good change sends the three fields and empties the form', async () => {
    let answer = refused({ current_password: 'The current password is incorrect.' });
    const calls = await open({ 'POST /api/v1/auth/change-password': () => answer });
    const fill = () => {
      fireEvent.change(screen.getByLabelText(/^Current password/), { target: { value: 'Old@Pass123' } });
      fireEvent.change(screen.getByLabelText(/^New password/), { target: { value: 'New@Pass2026!' } });
      fireEvent.change(screen.getByLabelText(/^Confirm new password/), { target: { value: 'New@Pass2026!' } });
      fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    };
    fill();
    await waitFor(() => expect(fieldText(screen.getByLabelText(/^Current password/))).toContain('The current password is incorrect.'));

    answer = { body: { success: true, message: 'Password changed', data: null } };
    fill();
    await waitFor(() => expect(sent(calls, 'POST', '/api/v1/auth/change-password')).toHaveLength(2));
    expect(sent(calls, 'POST', '/api/v1/auth/change-password')[1].body).toEqual({
      current_password: 'Old@Pass123',
      password: 'New@Pass2026!',
      password_confirmation: 'New@Pass2026!',
    });
    await waitFor(() => expect((screen.getByLabelText(/^Current password/) as HTMLInputElement).value).toBe(''));
    // The show/hide toggle keeps its name.
    expect(
      within(screen.getByLabelText(/^New password/).closest('.MuiFormControl-root') as HTMLElement).getByRole('button', { name: 'Show password' }),
    ).toBeTruthy();
  });
});
