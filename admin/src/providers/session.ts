/**
 * Client session storage of docs/product.md sections 3, 4 and 9:
 * - token in the cookie `auth_token` (1 day, 30 days with remember me),
 * - user in local storage `auth_user` (expires after 30 days when remembered, else no expiry),
 * - the lock flag in local storage `lock_status`.
 * Listeners hear every change, so the auth guard re-renders on sign-in, 401 and lock.
 */
export const TOKEN_COOKIE = 'auth_token';
export const USER_KEY = 'auth_user';
export const LOCK_KEY = 'lock_status';
export const REMEMBER_KEY = 'auth_remember';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SessionUser {
  id: number;
  h_id?: string;
  name: string;
  email: string;
  phone?: string | null;
  address?: string | null;
  user_type?: 'admin' | 'dealer' | string;
  status?: string;
  dealer_code?: string | null;
  profile_image?: string | null;
  roles?: { id: number; name: string }[];
  permissions?: { name: string }[];
  dealer_details?: object | null;
  two_factor_enabled?: boolean;
  /** A role of the user requires two-factor sign-in: until enabled, the API opens only enrolment. */
  two_factor_required?: boolean;
  [key: string]: unknown;
}

/** The user must set up two-factor sign-in before anything else (the API refuses the rest). */
export const mustEnrolTwoFactor = (user: SessionUser | null | undefined): boolean => !!user?.two_factor_required && !user?.two_factor_enabled;

type Listener = () => void;
const listeners = new Set<Listener>();
export const onSessionChange = (fn: Listener): (() => void) => {
  listeners.add(fn);
  return () => listeners.delete(fn);
};
const emit = () => listeners.forEach((fn) => fn());

export function getToken(): string | null {
  const m = document.cookie.match(new RegExp(`(?:^|; )${TOKEN_COOKIE}=([^;]*)`));
  return m ? decodeURIComponent(m[1]) : null;
}

function setCookie(name: string, value: string, days: number | null): void {
  const expires = days === null ? 'Thu, 01 Jan 1970 00:00:00 GMT' : new Date(Date.now() + days * DAY_MS).toUTCString();
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; expires=${expires}; path=/; SameSite=Lax${secure}`;
}

export function getStoredUser(): SessionUser | null {
  try {
    const raw = localStorage.getItem(USER_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as { value: SessionUser; expires: number | null };
    if (parsed.expires !== null && parsed.expires < Date.now()) {
      localStorage.removeItem(USER_KEY);
      return null;
    }
    return parsed.value ?? null;
  } catch {
    return null;
  }
}

export const isRemembered = (): boolean => localStorage.getItem(REMEMBER_KEY) === 'true';

export function storeUser(user: SessionUser, remember = isRemembered()): void {
  localStorage.setItem(USER_KEY, JSON.stringify({ value: user, expires: remember ? Date.now() + 30 * DAY_MS : null }));
  emit();
}

export function startSession(token: string, user: SessionUser, remember: boolean): void {
  forgetSessionEnd();
  setCookie(TOKEN_COOKIE, token, remember ? 30 : 1);
  localStorage.setItem(REMEMBER_KEY, String(remember));
  localStorage.setItem(LOCK_KEY, 'false');
  storeUser(user, remember);
}

/** The API answered "set up two-factor first" (a role now requires it): the guard takes the user there. */
export function markEnrolmentRequired(): void {
  const user = getStoredUser();
  if (user && !mustEnrolTwoFactor(user)) storeUser({ ...user, two_factor_required: true, two_factor_enabled: false });
}

export function clearSession(): void {
  setCookie(TOKEN_COOKIE, '', null);
  localStorage.removeItem(USER_KEY);
  localStorage.removeItem(LOCK_KEY);
  localStorage.removeItem(REMEMBER_KEY);
  emit();
}

/**
 * Why the last session ended without the user signing out, for the sign-in page to say so:
 * 'expired' (the API refused the token) or 'ended' (the token is gone: its cookie ran out or was
 * deleted). Kept in this tab until the next sign-in.
 */
export type SessionEnd = 'expired' | 'ended';
const SESSION_END_KEY = 'session_end';
export function markSessionEnd(reason: SessionEnd): void {
  sessionStorage.setItem(SESSION_END_KEY, reason);
}
export function sessionEnd(): SessionEnd | null {
  const kept = sessionStorage.getItem(SESSION_END_KEY);
  return kept === 'expired' || kept === 'ended' ? kept : null;
}
export function forgetSessionEnd(): void {
  sessionStorage.removeItem(SESSION_END_KEY);
}

/** The API answered 401 to a signed-in call: notes why, for the sign-in page (nothing when signed out already). */
export function noteSessionRefused(): void {
  if (getToken() || getStoredUser()) markSessionEnd(getToken() ? 'expired' : 'ended');
}

/** The API answered 401 to a signed-in call: the session ends, and the sign-in page says why. */
export function endSessionRefused(): void {
  noteSessionRefused();
  clearSession();
}

export const isLocked = (): boolean => localStorage.getItem(LOCK_KEY) === 'true';
export function setLocked(locked: boolean): void {
  if (isLocked() === locked) return;
  localStorage.setItem(LOCK_KEY, String(locked));
  emit();
}

/**
 * Rehydration rule of docs/product.md section 4: a session needs both the token and the stored user;
 * with only one of them the other is cleared too. Returns the usable session or null.
 */
export function rehydrate(): { token: string; user: SessionUser } | null {
  const token = getToken();
  const user = getStoredUser();
  if (token && user) return { token, user };
  // Half a session: the token's cookie ran out or was deleted (or the user was removed).
  if (token || user) markSessionEnd('ended');
  if (token || user || localStorage.getItem(LOCK_KEY) !== null) clearSession();
  return null;
}

export const permissionNames = (user: SessionUser | null | undefined): string[] | null =>
  user && Array.isArray(user.permissions) ? user.permissions.map((p) => (typeof p === 'string' ? p : p.name)) : null;
