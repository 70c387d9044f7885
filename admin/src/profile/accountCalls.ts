import type { TwoFactorSetup, TwoFactorStatus } from '@app/contracts';
import { apiFetch } from '../providers/http';
import { getStoredUser, storeUser, type SessionUser } from '../providers/session';

/**
 * One's own account, for the profile page and two-factor enrolment: the profile, the password, the
 * picture and two-factor set-up (docs/product.md section 4). The signed-in user's record is kept in
 * step with what the server answers. Sign-in, lock and access are the authProvider's.
 */
export interface RecoveryCodes {
  recovery_codes: string[];
  status: TwoFactorStatus;
}

export const accountCalls = {
  async twoFactorStatus(): Promise<TwoFactorStatus> {
    return (await apiFetch<TwoFactorStatus>('/auth/two-factor')).data;
  },

  async startTwoFactorSetup(): Promise<TwoFactorSetup> {
    return (await apiFetch<TwoFactorSetup>('/auth/two-factor/setup', { method: 'POST' })).data;
  },

  async confirmTwoFactor(body: { code: string; password: string }): Promise<RecoveryCodes> {
    const res = await apiFetch<RecoveryCodes>('/auth/two-factor/confirm', { method: 'POST', body });
    // Enabled: the user's own record says so (the guard lets a required role's user in now).
    const user = getStoredUser();
    if (user) storeUser({ ...user, two_factor_enabled: true });
    return res.data;
  },

  async newRecoveryCodes(password: string): Promise<RecoveryCodes> {
    return (await apiFetch<RecoveryCodes>('/auth/two-factor/recovery-codes', { method: 'POST', body: { password } })).data;
  },

  async disableTwoFactor(password: string): Promise<TwoFactorStatus> {
    const res = await apiFetch<TwoFactorStatus>('/auth/two-factor/disable', { method: 'POST', body: { password } });
    const user = getStoredUser();
    if (user) storeUser({ ...user, two_factor_enabled: false });
    return res.data;
  },

  async updateProfile(data: Record<string, unknown>): Promise<SessionUser> {
    const res = await apiFetch<{ user: SessionUser }>('/auth/profile', { method: 'PUT', body: data });
    storeUser(res.data.user);
    return res.data.user;
  },

  async uploadProfilePicture(file: File): Promise<SessionUser> {
    const fd = new FormData();
    fd.append('profile_image', file);
    const res = await apiFetch<{ user: SessionUser }>('/auth/profile-picture', { method: 'POST', body: fd });
    storeUser(res.data.user);
    return res.data.user;
  },

  async changePassword(data: { current_password: string; password: string; password_confirmation: string }): Promise<void> {
    await apiFetch('/auth/change-password', { method: 'POST', body: data });
  },
};

export type AccountCalls = typeof accountCalls;
