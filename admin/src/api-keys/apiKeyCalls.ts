import type { Identifier } from 'react-admin';
import type { Query } from '../providers/http';
import { consoleFetch, said, type Said } from '../providers/rest';

export const apiKeyCalls = {
  /** POST /dealer/api-keys (an admin names the dealer): the new key, whole, this once. */
  async createApiKey<T = unknown>(params: { dealerId?: Identifier | null; data: Record<string, unknown> }): Promise<Said<T>> {
    const query: Query = params.dealerId ? { dealer_id: String(params.dealerId) } : {};
    return said(await consoleFetch<T>('/dealer/api-keys', { method: 'POST', body: params.data, query }));
  },
};
