import { afterEach, describe, expect, it, vi } from 'vitest';
import { authProvider, isChallenge } from './authProvider';
import { dataProvider } from './dataProvider';
import { clearSession, getStoredUser, getToken, mustEnrolTwoFactor, startSession } from './session';
import { mockFetch } from '../test/fetchMock';
import { accountCalls } from '../profile/accountCalls';

const user = { id: 1, name: 'Hodan', email: 'hodan@example.com', permissions: [{ name: 'view users' }], two_factor_enabled: true, two_factor_required: false };

describe('two-factor sign-in in the console', () => {
  afterEach(() => {
    clearSession();
    vi.unstubAllGlobals();
  });

  it('a right password with two-factor on answers a challenge and opens no session; the code opens it', async () => {
    const calls = mockFetch([
      { status: 200, body: { success: true, data: { two_factor_required: true, challenge: 'ch-1', challenge_expires_at: '2026-11-26T10:05:00Z' } } },
      { status: 200, body: { success: true, message: 'Welcome back, Hodan!', data: { user, token: 'jwt-2' } } },
    ]);
    const outcome = await authProvider.login({ email: 'hodan@example.com', password: 'Secret@1234', rememberMe: true });
    expect(isChallenge(outcome)).toBe(true);
    expect(getToken()).toBeNull();
    const done = await authProvider.verifyTwoFactor({ challenge: 'ch-1', rememberMe: true, code: '123456', remember_device: true });
    expect(calls[1]).toMatchObject({
      method: 'POST',
      url: '/api/v1/auth/two-factor/verify',
      body: { challenge: 'ch-1', code: '123456', remember_device: true },
    });
    expect(done.message).toBe('Welcome back, Hodan!');
    expect(getToken()).toBe('jwt-2');
    expect(getStoredUser()?.two_factor_enabled).toBe(true);
  });

  it('sends a recovery code instead of a code, and keeps the 401 of an expired challenge as a sign-in error', async () => {
    const calls = mockFetch([{ status: 401, body: { success: false, message: 'Your sign-in has expired. Enter your email and password again.' } }]);
    const failed = authProvider.verifyTwoFactor({ challenge: 'old', rememberMe: false, recovery_code: 'ABCDE-23456', remember_device: false });
    await expect(failed).rejects.toMatchObject({ status: 401, message: 'Your sign-in has expired. Enter your email and password again.' });
    expect(calls[0].body).toEqual({ challenge: 'old', recovery_code: 'ABCDE-23456', remember_device: false });
  });

  it('a 403 "set up two-factor first" marks the session, so the guard sends the user to the setup page', async () => {
    startSession('t', { ...user, two_factor_enabled: false }, false);
    expect(mustEnrolTwoFactor(getStoredUser())).toBe(false);
    mockFetch([
      {
        status: 403,
        body: { success: false, message: 'Your role requires two-factor sign-in. Set it up to continue.', code: 'auth.two_factor_enrolment_required' },
      },
    ]);
    await expect(
      dataProvider.getList('users', { pagination: { page: 1, perPage: 10 }, sort: { field: 'id', order: 'ASC' }, filter: {} }),
    ).rejects.toMatchObject({
      status: 403,
      body: { code: 'auth.two_factor_enrolment_required' },
    });
    expect(mustEnrolTwoFactor(getStoredUser())).toBe(true);
    // Confirming the setup lets the user in again.
    mockFetch([{ status: 200, body: { success: true, data: { recovery_codes: ['AAAAA-BBBBB'], status: { enabled: true } } } }]);
    await accountCalls.confirmTwoFactor({ code: '123456', password: 'Secret@1234' });
    expect(mustEnrolTwoFactor(getStoredUser())).toBe(false);
  });

  it('calls the role requirement and the admin reset on their paths', async () => {
    const calls = mockFetch([
      { status: 200, body: { success: true, message: 'Members of this role now sign in with two-factor.', data: { id: 4, requires_two_factor: true } } },
      { status: 200, body: { success: true, message: 'Two-factor sign-in was reset.', data: { id: 9 } } },
    ]);
    expect((await dataProvider.setRoleTwoFactor({ id: 4, required: true })).message).toBe('Members of this role now sign in with two-factor.');
    await dataProvider.resetTwoFactor({ id: 9 });
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['PUT', '/api/v1/roles/4/two-factor', { required: true }],
      ['POST', '/api/v1/users/9/two-factor/reset', undefined],
    ]);
  });
});
