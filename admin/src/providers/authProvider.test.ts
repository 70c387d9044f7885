import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider, loginRedirect } from './authProvider';
import {
  clearSession,
  forgetSessionEnd,
  getStoredUser,
  getToken,
  isLocked,
  LOCK_KEY,
  rehydrate,
  sessionEnd,
  setLocked,
  startSession,
  TOKEN_COOKIE,
  USER_KEY,
} from './session';
import { mockFetch } from '../test/fetchMock';
import { authRetry } from '../auth/retry';
import { authErrorText } from './errors';

const user = { id: 1, name: 'Super Admin', email: 'admin@example.com', permissions: [{ name: 'view users' }] };

describe('session and authProvider (docs/product.md sections 4 and 9)', () => {
  afterEach(() => {
    clearSession();
    forgetSessionEnd();
    vi.unstubAllGlobals();
  });

  it('login stores the token cookie, the user and an unlocked flag', async () => {
    const calls = mockFetch([{ status: 200, body: { success: true, data: { user, token: 'jwt-1' } } }]);
    const cookieSpy = vi.spyOn(document, 'cookie', 'set');
    await authProvider.login({ email: 'admin@example.com', password: 'Admin@12345', rememberMe: true });
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: '/api/v1/auth/admin/login',
      body: { email: 'admin@example.com', password: 'Admin@12345', rememberMe: true },
    });
    expect(getToken()).toBe('jwt-1');
    expect(getStoredUser()?.name).toBe('Super Admin');
    expect(localStorage.getItem(LOCK_KEY)).toBe('false');
    const set = cookieSpy.mock.calls.map((c) => c[0]).find((c) => c.startsWith(`${TOKEN_COOKIE}=jwt-1`))!;
    const days = (Date.parse(set.match(/expires=([^;]+)/)![1]) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(JSON.parse(localStorage.getItem(USER_KEY)!).expires).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    cookieSpy.mockRestore();
  });

  it('without remember me the cookie lasts 1 day and the stored user does not expire', () => {
    const cookieSpy = vi.spyOn(document, 'cookie', 'set');
    startSession('t', user, false);
    const set = cookieSpy.mock.calls.map((c) => c[0]).find((c) => c.startsWith(`${TOKEN_COOKIE}=t`))!;
    expect(Math.round((Date.parse(set.match(/expires=([^;]+)/)![1]) - Date.now()) / 86_400_000)).toBe(1);
    expect(JSON.parse(localStorage.getItem(USER_KEY)!).expires).toBeNull();
    cookieSpy.mockRestore();
  });

  it('rehydrating without both token and stored user clears the session', () => {
    startSession('t', user, false);
    localStorage.removeItem(USER_KEY);
    expect(rehydrate()).toBeNull();
    expect(getToken()).toBeNull();
    startSession('t', user, false);
    expect(rehydrate()).toMatchObject({ token: 't' });
  });

  it('logout clears token, user and lock flag even when the call fails', async () => {
    startSession('t', user, false);
    setLocked(true);
    mockFetch([new TypeError('offline')]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(authProvider.logout({})).resolves.toBe('/auth/login');
    expect(getToken()).toBeNull();
    expect(getStoredUser()).toBeNull();
    expect(localStorage.getItem(LOCK_KEY)).toBeNull();
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });

  it('checkError: 401 ends the session and goes to the login page; 423 goes to the lock screen without logout; 403 stays', async () => {
    startSession('t', user, false);
    await expect(authProvider.checkError({ status: 423 })).rejects.toMatchObject({ redirectTo: '/auth/lock-screen', logoutUser: false });
    expect(isLocked()).toBe(true);
    await expect(authProvider.checkError({ status: 403 })).resolves.toBeUndefined();
    // The sign-in page says why (a toast would be skipped once the token is gone), and comes back here.
    await expect(authProvider.checkError({ status: 401 })).rejects.toEqual({ redirectTo: '/auth/login', message: false });
    expect(sessionEnd()).toBe('expired');
    // react-admin then logs out, which clears the session.
    mockFetch([{ status: 401, body: { success: false, message: 'Unauthenticated.' } }]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await authProvider.logout({});
    warn.mockRestore();
    expect(getToken()).toBeNull();
  });

  it('checkAuth rejects with a redirect (never loops) when signed out', async () => {
    await expect(authProvider.checkAuth({})).rejects.toMatchObject({ redirectTo: '/auth/login' });
    // Signed out by the user: nothing to explain on the sign-in page.
    expect(sessionEnd()).toBeNull();
  });

  describe('a session that ends without signing out', () => {
    afterEach(() => window.history.replaceState(null, '', '/'));

    it('sign-in keeps the page to return to: ?redirect= its path and query, kept when the guard got there first', () => {
      expect(loginRedirect({ pathname: '/recharges', search: '?status=failed' })).toBe('/auth/login?redirect=%2Frecharges%3Fstatus%3Dfailed');
      expect(loginRedirect({ pathname: '/auth/login', search: '?redirect=%2Frecharges' })).toBe('/auth/login?redirect=%2Frecharges');
      expect(loginRedirect({ pathname: '/auth/lock-screen', search: '' })).toBe('/auth/login');
      expect(loginRedirect({ pathname: '/', search: '' })).toBe('/auth/login');
    });

    it('a 401 on /recharges (token refused): sign-in with ?redirect=%2Frecharges, and the reason "expired"', async () => {
      window.history.replaceState(null, '', '/recharges');
      startSession('t', user, false);
      await expect(authProvider.checkError({ status: 401 })).rejects.toEqual({ redirectTo: '/auth/login?redirect=%2Frecharges', message: false });
      expect(sessionEnd()).toBe('expired');
      // Signing in again forgets it.
      startSession('t2', user, false);
      expect(sessionEnd()).toBeNull();
    });

    it('the token cookie deleted: checkAuth and a 401 both end the session with the reason "ended"', async () => {
      window.history.replaceState(null, '', '/recharges?page=2');
      startSession('t', user, false);
      document.cookie = `${TOKEN_COOKIE}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
      await expect(authProvider.checkAuth({})).rejects.toEqual({ redirectTo: '/auth/login?redirect=%2Frecharges%3Fpage%3D2', message: false });
      expect(sessionEnd()).toBe('ended');
      expect(getStoredUser()).toBeNull();

      forgetSessionEnd();
      startSession('t', user, false);
      document.cookie = `${TOKEN_COOKIE}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
      await expect(authProvider.checkError({ status: 401 })).rejects.toMatchObject({ redirectTo: '/auth/login?redirect=%2Frecharges%3Fpage%3D2' });
      expect(sessionEnd()).toBe('ended');
    });

    it('a 401 to a call outside react-admin ends the session at once, with its reason', async () => {
      startSession('t', user, false);
      mockFetch([{ status: 401, body: { success: false, message: 'Unauthenticated.' } }]);
      await expect(authProvider.me()).rejects.toMatchObject({ status: 401 });
      expect(getToken()).toBeNull();
      expect(sessionEnd()).toBe('expired');
    });
  });

  it('lock and unlock post the password and keep the flag; check-lock reads data.is_locked', async () => {
    startSession('t', user, false);
    const calls = mockFetch([
      { status: 200, body: { success: true, data: { is_locked: true } } },
      { status: 200, body: { success: true, data: { is_locked: false } } },
      { status: 200, body: { success: true, data: { is_locked: true } } },
    ]);
    await authProvider.lock('Admin@12345');
    expect(isLocked()).toBe(true);
    await authProvider.unlock('Admin@12345');
    expect(isLocked()).toBe(false);
    expect(await authProvider.checkLock()).toBe(true);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/v1/auth/lock', 'POST /api/v1/auth/unlock', 'GET /api/v1/auth/check-lock']);
    expect(calls[0].body).toEqual({ password: 'Admin@12345' });
  });

  it('permissions come from the stored user', async () => {
    startSession('t', user, false);
    expect(await authProvider.getPermissions?.({})).toEqual(['view users']);
    expect(await authProvider.canAccess?.({ resource: 'users', action: 'list' })).toBe(true);
    expect(await authProvider.canAccess?.({ resource: 'roles', action: 'list' })).toBe(false);
  });

  it('current-user and lock-check queries: no retry on 401/403, else at most 2 retries', () => {
    expect(authRetry(0, { status: 401 })).toBe(false);
    expect(authRetry(0, { status: 403 })).toBe(false);
    expect(authRetry(0, { status: 500 })).toBe(true);
    expect(authRetry(1, { status: 0 })).toBe(true);
    expect(authRetry(2, { status: 500 })).toBe(false);
  });

  it('auth error text: message, else errors.auth[0], else the generic text', () => {
    expect(authErrorText({ message: 'Invalid email or password.' })).toBe('Invalid email or password.');
    expect(authErrorText({ body: { errors: { auth: ['Account inactive'] } } })).toBe('Account inactive');
    expect(authErrorText({})).toBe('An error occurred. Please try again.');
  });
});

describe('image resolution (docs/product.md section 3)', () => {
  beforeEach(() => undefined);
  it('falls back, keeps absolute URLs and resolves the rest against the origin', async () => {
    const { resolveImage } = await import('../common/image');
    expect(resolveImage(null, 'https://a.so')).toBe('https://a.so/assets/images/default-user.svg');
    expect(resolveImage('https://cdn.so/x.png', 'https://a.so')).toBe('https://cdn.so/x.png');
    expect(resolveImage('http://cdn.so/x.png', 'https://a.so')).toBe('http://cdn.so/x.png');
    expect(resolveImage('/storage/p/1.png', 'https://a.so')).toBe('https://a.so/storage/p/1.png');
  });
});
