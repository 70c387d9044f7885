import type { AuthProvider } from 'react-admin';
import { apiFetch } from './http';
import { clearSession, getStoredUser, getToken, permissionNames, rehydrate, setLocked, startSession, storeUser, type SessionUser } from './session';
import { errorText } from './errors';
import { canAccessLocally } from '../permissions/permissions';
import { resolveImage } from '../common/image';

export const LOGIN_PATH = '/auth/login';
export const LOCK_PATH = '/auth/lock-screen';

export interface LoginParams {
  email: string;
  password: string;
  rememberMe?: boolean;
}

/**
 * Session rules of docs/product.md sections 4 and 9 on react-admin's authProvider contract.
 * A locked session is not a failed checkAuth: that would make react-admin log out and wipe its
 * caches (admin/README.md); the auth guard and checkError send it to the lock screen instead.
 */
export interface ConsoleAuthProvider extends AuthProvider {
  login(params: LoginParams): Promise<SessionUser>;
  me(): Promise<SessionUser>;
  checkLock(): Promise<boolean>;
  lock(password: string): Promise<void>;
  unlock(password: string): Promise<void>;
  updateProfile(data: Record<string, unknown>): Promise<SessionUser>;
  uploadProfilePicture(file: File): Promise<SessionUser>;
  changePassword(data: { current_password: string; password: string; password_confirmation: string }): Promise<void>;
}

export const authProvider: ConsoleAuthProvider = {
  async login({ email, password, rememberMe = false }) {
    const res = await apiFetch<{ user: SessionUser; token: string }>('/auth/admin/login', {
      method: 'POST',
      body: { email, password, rememberMe },
      isLogin: true,
    });
    startSession(res.data.token, res.data.user, rememberMe);
    return res.data.user;
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
    if (!rehydrate()) throw { redirectTo: LOGIN_PATH, message: false };
  },

  async checkError(error) {
    const status = (error as { status?: number })?.status;
    if (status === 401) {
      // react-admin shows the message while the session still exists, then logs out
      // (logout() clears the session), so it is not cleared here.
      throw { redirectTo: LOGIN_PATH, message: errorText('session_expired') };
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
    return { id: user.id, fullName: user.name, avatar: resolveImage(user.profile_image), email: user.email, user };
  },

  async getPermissions() {
    return permissionNames(getStoredUser()) ?? [];
  },

  async canAccess(params) {
    return canAccessLocally(permissionNames(getStoredUser()), params);
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

  async updateProfile(data) {
    const res = await apiFetch<{ user: SessionUser }>('/auth/profile', { method: 'PUT', body: data });
    storeUser(res.data.user);
    return res.data.user;
  },

  async uploadProfilePicture(file) {
    const fd = new FormData();
    fd.append('profile_image', file);
    const res = await apiFetch<{ user: SessionUser }>('/auth/profile-picture', { method: 'POST', body: fd });
    storeUser(res.data.user);
    return res.data.user;
  },

  async changePassword(data) {
    await apiFetch('/auth/change-password', { method: 'POST', body: data });
  },
};
