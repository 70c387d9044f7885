import { consoleFetch } from '../providers/rest';

export const searchCalls = {
  /** GET /search: the header's global search, grouped. */
  async globalSearch<T = unknown>(params: { q: string }): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/search', { query: { q: params.q } })).data };
  },
};
