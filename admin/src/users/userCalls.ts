import type { DataProvider, Identifier } from 'react-admin';
import { consoleFetch, idOf, restProvider, said, type Rec, type Said } from '../providers/rest';

/** Users beyond their records: a dealer's logo and a lost second factor. */
export const userCalls = {
  /** POST /users/{id}/two-factor/reset: a lost phone; the user sets it up again. */
  async resetTwoFactor(params: { id: Identifier }): Promise<Said<Rec>> {
    return said(await consoleFetch<Rec>(`/users/${idOf(params.id)}/two-factor/reset`, { method: 'POST' }));
  },
  /** POST /users/{id}/dealer-logo, or /users/dealer/logo for the signed-in dealer (`id` 'me'): multipart field `logo`. */
  async uploadDealerLogo(params: { id: Identifier | 'me'; file: File }): Promise<{ data: Rec }> {
    const fd = new FormData();
    fd.append('logo', params.file);
    const path = params.id === 'me' ? '/users/dealer/logo' : `/users/${idOf(params.id)}/dealer-logo`;
    return { data: (await consoleFetch<Rec>(path, { method: 'POST', body: fd })).data };
  },
  async deleteDealerLogo(params: { id: Identifier | 'me' }): Promise<{ data: Rec }> {
    const path = params.id === 'me' ? '/users/dealer/logo' : `/users/${idOf(params.id)}/dealer-logo`;
    return { data: (await consoleFetch<Rec>(path, { method: 'DELETE' })).data };
  },
};

/** The resource 'users': a status change of many is one call (PATCH /users/bulk/status). */
export const userRecords: Partial<DataProvider> = {
  async updateMany(resource, params) {
    const data = params.data as Record<string, unknown>;
    if (Object.keys(data).length === 1 && 'status' in data) {
      await consoleFetch('/users/bulk/status', { method: 'PATCH', body: { ids: params.ids, status: data.status } });
      return { data: params.ids };
    }
    return restProvider.updateMany(resource, params);
  },
};
