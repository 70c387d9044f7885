import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountCalls } from './accountCalls';
import { clearSession, getStoredUser, startSession } from '../providers/session';
import { mockFetch } from '../test/fetchMock';

/** One's own account (profile/accountCalls.ts): each call's request, and the stored user kept in step with the answer. */
const user = { id: 1, name: 'Hodan', email: 'h@x.so', permissions: [] };
const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });

describe('account calls', () => {
  afterEach(() => {
    clearSession();
    vi.unstubAllGlobals();
  });

  it('profile, picture and password: their requests, and the stored user follows the answer', async () => {
    startSession('t', user, false);
    const calls = mockFetch([ok({ user: { ...user, name: 'Hodan A.' } }), ok({ user: { ...user, name: 'Hodan A.', profile_image: '/p.png' } }), ok({})]);
    await accountCalls.updateProfile({ name: 'Hodan A.' });
    expect(getStoredUser()?.name).toBe('Hodan A.');
    await accountCalls.uploadProfilePicture(new File(['x'], 'p.png', { type: 'image/png' }));
    await accountCalls.changePassword({ current_password: 'Old@12345', password: 'New@12345', password_confirmation: 'New@12345' });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'PUT /api/v1/auth/profile',
      'POST /api/v1/auth/profile-picture',
      'POST /api/v1/auth/change-password',
    ]);
    expect((calls[1].body as FormData).get('profile_image')).toBeInstanceOf(File);
  });

  it('two-factor set-up: confirming and turning it off mark the stored user', async () => {
    startSession('t', user, false);
    const calls = mockFetch([ok({ recovery_codes: ['A'], status: { enabled: true } }), ok({ enabled: false })]);
    await accountCalls.confirmTwoFactor({ code: '123456', password: 'Secret@1234' });
    expect(getStoredUser()).toMatchObject({ two_factor_enabled: true });
    await accountCalls.disableTwoFactor('Secret@1234');
    expect(getStoredUser()).toMatchObject({ two_factor_enabled: false });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/v1/auth/two-factor/confirm', 'POST /api/v1/auth/two-factor/disable']);
  });
});
