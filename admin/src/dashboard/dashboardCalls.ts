import { consoleFetch } from '../providers/rest';

export const dashboardCalls = {
  /** GET /dashboard: the figures, latest sales and what waits for attention. */
  async dashboard<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/dashboard')).data };
  },
};
