import type { AuthProvider } from 'react-admin';
import { apiFetch } from './http';
import {
  clearSession,
  getStoredUser,
  getToken,
  noteSessionRefused,
  permissionNames,
  rehydrate,
  setLocked,
  startSession,
  storeUser,
  type SessionUser,
} from './session';
import { canAccessLocally, canOpen } from '../permissions/permissions';
import { accessOf } from '../console/areas';
import { resolveImage } from '../common/image';

/** react-admin's identity of a signed-in user: its name and picture, and the user as the API sent it. */
export const identityOf = (user: SessionUser) => ({
  id: user.id,
  fullName: user.name,
  avatar: resolveImage(user.profile_image),
  email: user.email,
  user,
});
export type ConsoleIdentity = ReturnType<typeof identityOf>;

export const LOGIN_PATH = '/auth/login';
export const LOCK_PATH = '/auth/lock-screen';

/**
 * The sign-in page with `?redirect=` the page the user was on (docs/product.md section 4), so
 * signing in again returns there. On an /auth/ page already (the guard may have got there first)
 * the sign-in page keeps the redirect it has.
 */
export function loginRedirect(where: { pathname: string; search: string } = window.location): string {
  if (where.pathname === LOGIN_PATH) return `${LOGIN_PATH}${where.search}`;
  if (where.pathname.startsWith('/auth/') || where.pathname === '/') return LOGIN_PATH;
  return `${LOGIN_PATH}?redirect=${encodeURIComponent(`${where.pathname}${where.search}`)}`;
}

export interface LoginParams {
  email: string;
  password: string;
  rememberMe?: boolean;
}

export const TWO_FACTOR_SETUP_PATH = '/auth/two-factor-setup';

/** The password was right and the account has two-factor on: the code is asked next (no session yet). */
export interface TwoFactorChallenge {
  challenge: string;
  rememberMe: boolean;
  /** ISO time the challenge ends (5 minutes after the password). */
  expiresAt: string;
}

// The second step survives a reload or a language switch (which re-mounts the page) in this tab only.
const CHALLENGE_KEY = 'two_factor_challenge';
export function keepChallenge(challenge: TwoFactorChallenge | null): void {
  if (challenge) sessionStorage.setItem(CHALLENGE_KEY, JSON.stringify(challenge));
  else sessionStorage.removeItem(CHALLENGE_KEY);
}
export function keptChallenge(): TwoFactorChallenge | null {
  try {
    const kept = JSON.parse(sessionStorage.getItem(CHALLENGE_KEY) ?? 'null') as TwoFactorChallenge | null;
    return kept && Date.parse(kept.expiresAt) > Date.now() ? kept : null;
  } catch {
    return null;
  }
}
export const isChallenge = (outcome: SessionUser | TwoFactorChallenge): outcome is TwoFactorChallenge => 'challenge' in outcome;

export interface VerifyParams {
  challenge: string;
  rememberMe: boolean;
  code?: string;
  recovery_code?: string;
  remember_device: boolean;
}

/**
 * Session rules of docs/product.md sections 4 and 9 on react-admin's authProvider contract: sign-in
 * (with its second step), lock, permissions and canAccess, redirects. One's own account (profile,
 * password, picture, two-factor set-up) is profile/accountCalls.ts.
 * A locked session is not a failed checkAuth: that would make react-admin log out and wipe its
 * caches (admin/README.md); the auth guard and checkError send it to the lock screen instead.
 */
export interface ConsoleAuthProvider extends AuthProvider {
  login(params: LoginParams): Promise<SessionUser | TwoFactorChallenge>;
  /** The second step: a 6-digit code or a recovery code; opens the session. */
  verifyTwoFactor(params: VerifyParams): Promise<{ user: SessionUser; message?: string }>;
  me(): Promise<SessionUser>;
  checkLock(): Promise<boolean>;
  lock(password: string): Promise<void>;
  unlock(password: string): Promise<void>;
}

export const authProvider: ConsoleAuthProvider = {
  async login({ email, password, rememberMe = false }) {
    const res = await apiFetch<{ user: SessionUser; token: string } | { two_factor_required: true; challenge: string; challenge_expires_at: string }>(
      '/auth/admin/login',
      { method: 'POST', body: { email, password, rememberMe }, isLogin: true },
    );
    if ('challenge' in res.data) return { challenge: res.data.challenge, rememberMe, expiresAt: res.data.challenge_expires_at };
    startSession(res.data.token, res.data.user, rememberMe);
    return res.data.user;
  },

  async verifyTwoFactor({ challenge, rememberMe, code, recovery_code, remember_device }) {
    const res = await apiFetch<{ user: SessionUser; token: string }>('/auth/two-factor/verify', {
      method: 'POST',
      body: { challenge, remember_device, ...(code ? { code } : { recovery_code }) },
      isLogin: true,
    });
    keepChallenge(null);
    startSession(res.data.token, res.data.user, rememberMe);
    return { user: res.data.user, message: res.message };
  },

  async logout() {
    // Logout always ends the local session, even when the call fails (docs/product.md section 4).
    if (getToken()) {
      try {
        await apiFetch('/auth/logout', { method: 'POST' });
      } catch (error) {
        console.warn('Logout call failed', error);
      }
    }
    clearSession();
    return LOGIN_PATH;
  },

  async checkAuth() {
    if (!rehydrate()) throw { redirectTo: loginRedirect(), message: false };
  },

  async checkError(error) {
    const status = (error as { status?: number })?.status;
    if (status === 401) {
      // react-admin then logs out (logout() clears the session) and goes to the sign-in page,
      // which says why (a toast there would repeat it, or be skipped when the token is gone).
      noteSessionRefused();
      throw { redirectTo: loginRedirect(), message: false };
    }
    if (status === 423) {
      setLocked(true);
      throw { redirectTo: LOCK_PATH, logoutUser: false, message: false };
    }
    // 403 and others: the page shows the message, the session stays.
  },

  async getIdentity() {
    const user = getStoredUser();
    if (!user) throw new Error('Not signed in');
    return identityOf(user);
  },

  async getPermissions() {
    return permissionNames(getStoredUser()) ?? [];
  },

  async canAccess(params) {
    const user = getStoredUser();
    // A console page (auth/PageGuard.tsx): who opens it, as its area declares (console/areas.ts).
    // A path the table does not have opens for nobody (a typo must not open a page to everyone).
    if (params.action === 'open') {
      const access = accessOf(params.resource);
      return !!access && canOpen(permissionNames(user), user?.user_type, access);
    }
    return canAccessLocally(permissionNames(user), params);
  },

  async me() {
    const res = await apiFetch<{ user: SessionUser }>('/auth/me');
    storeUser(res.data.user);
    return res.data.user;
  },

  async checkLock() {
    const res = await apiFetch<{ is_locked: boolean }>('/auth/check-lock');
    const locked = !!res.data?.is_locked;
    setLocked(locked);
    return locked;
  },

  async lock(password) {
    await apiFetch('/auth/lock', { method: 'POST', body: { password } });
    setLocked(true);
  },

  async unlock(password) {
    await apiFetch('/auth/unlock', { method: 'POST', body: { password } });
    setLocked(false);
  },
};
