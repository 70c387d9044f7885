import { consoleFetch, said, type Said } from '../providers/rest';

/** The settings groups (company, money, mail ...), the public ones and the mail test. */
export const settingsCalls = {
  /** GET /settings/public (no sign-in needed): company name, logo, currency, time zone, footer. */
  async publicSettings<T = unknown>(): Promise<{ data: T | null }> {
    return { data: ((await consoleFetch<T>('/settings/public')).data ?? null) as T | null };
  },
  /** GET /settings/{group}. */
  async getSettings<T = unknown>(group: string): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>(`/settings/${group}`)).data };
  },
  /** PUT /settings/{group}. */
  async saveSettings<T = unknown>(group: string, params: { data: Record<string, unknown> | FormData }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/settings/${group}`, { method: 'PUT', body: params.data }));
  },
  /** POST /settings/mail/test. */
  async testMail(params: { to: string }): Promise<Said> {
    return said(await consoleFetch('/settings/mail/test', { method: 'POST', body: { to: params.to } }));
  },
};
