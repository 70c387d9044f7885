import type { DataProvider, GetListParams, Identifier, RaRecord } from 'react-admin';
import { apiFetch as rawFetch, type Query, type RequestOptions } from './http';

/** Every dataProvider call reaches react-admin's checkError, which handles a 401 (see http.ts). */
const apiFetch = <T>(path: string, opts: RequestOptions = {}) => rawFetch<T>(path, { ...opts, on401: 'checkError' });

/**
 * The console's dataProvider for the /api/v1 generic resource pattern (docs/product.md section 7).
 * Method names follow react-admin (ra-data-simple-rest), the wire format is this API's:
 * page/per_page/sort/order/q plus one query parameter per filter, PATCH for updates, the bulk
 * endpoints for many records, and extra methods for trash, restore, force delete and search.
 * The resource name is the endpoint (users, roles ...).
 */

type Rec = RaRecord & { h_id?: string };

/** Update paths use the hashed id when the record is known (docs/product.md section 3). */
const pathId = (id: Identifier, previous?: Partial<Rec>): string => encodeURIComponent(String(previous?.h_id ?? id));

function toFormData(data: Record<string, unknown>): FormData {
  const fd = new FormData();
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (value instanceof Blob) fd.append(key, value);
    else if (value === null) fd.append(key, '');
    else if (Array.isArray(value)) value.forEach((v) => fd.append(`${key}[]`, String(v)));
    else if (typeof value === 'object') fd.append(key, JSON.stringify(value));
    else fd.append(key, String(value));
  }
  return fd;
}

/** react-admin file inputs hold { rawFile: File }; any File present makes the call multipart. */
function prepareBody(data: Record<string, unknown>): Record<string, unknown> | FormData {
  let hasFile = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data ?? {})) {
    const file = value && typeof value === 'object' && 'rawFile' in value ? (value as { rawFile: unknown }).rawFile : value;
    if (typeof Blob !== 'undefined' && file instanceof Blob) hasFile = true;
    out[key] = file;
  }
  return hasFile ? toFormData(out) : out;
}

export function listQuery(params: Partial<GetListParams>): Query {
  const { pagination, sort, filter = {} } = params;
  const query: Query = {};
  if (pagination) {
    query.page = pagination.page;
    query.per_page = Math.min(pagination.perPage, 100);
  }
  if (sort?.field) {
    query.sort = sort.field;
    query.order = String(sort.order).toLowerCase() === 'desc' ? 'desc' : 'asc';
  }
  for (const [k, v] of Object.entries(filter)) {
    if (v === undefined || v === null || v === '') continue;
    query[k] = Array.isArray(v) ? v.join(',') : (v as string | number | boolean);
  }
  return query;
}

export interface ConsoleDataProvider extends DataProvider {
  restore(resource: string, params: { id: Identifier; previousData?: Partial<Rec> }): Promise<{ data: Rec }>;
  restoreMany(resource: string, params: { ids: Identifier[] }): Promise<{ data: Identifier[] }>;
  forceDelete(resource: string, params: { id: Identifier; previousData?: Partial<Rec> }): Promise<{ data: Rec }>;
  forceDeleteMany(resource: string, params: { ids: Identifier[] }): Promise<{ data: Identifier[] }>;
  search(resource: string, params: { q: string }): Promise<{ data: Rec[] }>;
  createMany(resource: string, params: { data: Record<string, unknown>[] }): Promise<{ data: Rec[] }>;
  getAvailablePermissions(): Promise<{ data: { id: number; name: string; group: string }[] }>;
  assignPermissions(params: { id: Identifier; permissions: string[] }): Promise<{ data: Rec }>;
  uploadDealerLogo(params: { id: Identifier | 'me'; file: File }): Promise<{ data: Rec }>;
  deleteDealerLogo(params: { id: Identifier | 'me' }): Promise<{ data: Rec }>;
  /** POST /dealer-bundles/bulk: turn on/off or price at cost + profit all bundles of a category (or operator). */
  dealerBundlesBulk(body: Record<string, unknown>): Promise<{ data: { affected: number }; message?: string }>;
}

export const dataProvider: ConsoleDataProvider = {
  async getList(resource, params) {
    const path = params.meta?.trashed ? `/${resource}/trashed/list` : `/${resource}`;
    const res = await apiFetch<Rec[]>(path, { query: listQuery(params) });
    const data = res.data ?? [];
    return {
      data: data as never[],
      total: res.meta?.total ?? data.length,
      pageInfo: res.meta ? { hasNextPage: res.meta.current_page < res.meta.last_page, hasPreviousPage: res.meta.current_page > 1 } : undefined,
    };
  },

  async getOne(resource, params) {
    const id = encodeURIComponent(String(params.id));
    // meta.query: extra parameters of the call (the dealer catalogue's dealer_id for admins).
    const res = await apiFetch<Rec>(params.meta?.trashed ? `/${resource}/${id}/trashed` : `/${resource}/${id}`, { query: params.meta?.query });
    return { data: res.data as never };
  },

  async getMany(resource, params) {
    // The API has no "many by id" call: fetch each record (react-admin batches these per render).
    const data = await Promise.all(params.ids.map((id) => dataProvider.getOne(resource, { id, meta: params.meta }).then((r) => r.data)));
    return { data };
  },

  async getManyReference(resource, params) {
    return dataProvider.getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } });
  },

  async create(resource, params) {
    const res = await apiFetch<Rec>(`/${resource}`, { method: 'POST', body: prepareBody(params.data as Record<string, unknown>) });
    return { data: res.data as never };
  },

  async update(resource, params) {
    // A change of a role's permissions alone is an assignment (protected roles accept only that).
    const keys = Object.keys(params.data ?? {});
    if (resource === 'roles' && keys.length === 0) return { data: (params.previousData ?? { id: params.id }) as never };
    if (resource === 'roles' && keys.length === 1 && keys[0] === 'permissions') {
      return dataProvider.assignPermissions({ id: (params.previousData as Rec | undefined)?.h_id ?? params.id, permissions: (params.data as { permissions: string[] }).permissions }) as never;
    }
    const res = await apiFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}`, {
      method: 'PATCH',
      body: prepareBody(params.data as Record<string, unknown>),
    });
    return { data: res.data as never };
  },

  async updateMany(resource, params) {
    const data = params.data as Record<string, unknown>;
    // Users have a bulk status call; anything else is one PATCH per record.
    if (resource === 'users' && Object.keys(data).length === 1 && 'status' in data) {
      await apiFetch(`/users/bulk/status`, { method: 'PATCH', body: { ids: params.ids, status: data.status } });
      return { data: params.ids };
    }
    await Promise.all(params.ids.map((id) => dataProvider.update(resource, { id, data, previousData: { id } })));
    return { data: params.ids };
  },

  async delete(resource, params) {
    const res = await apiFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData as Rec)}`, { method: 'DELETE' });
    return { data: (res.data ?? params.previousData ?? { id: params.id }) as never };
  },

  async deleteMany(resource, params) {
    await apiFetch(`/${resource}/bulk/delete`, { method: 'DELETE', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async restore(resource, params) {
    const res = await apiFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}/restore`, { method: 'POST' });
    return { data: res.data ?? ({ id: params.id } as Rec) };
  },

  async restoreMany(resource, params) {
    await apiFetch(`/${resource}/bulk/restore`, { method: 'POST', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async forceDelete(resource, params) {
    const res = await apiFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}/force`, { method: 'DELETE' });
    return { data: res.data ?? ({ id: params.id } as Rec) };
  },

  async forceDeleteMany(resource, params) {
    await apiFetch(`/${resource}/bulk/force-delete`, { method: 'DELETE', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async search(resource, params) {
    const res = await apiFetch<Rec[]>(`/${resource}/search`, { query: { q: params.q } });
    return { data: res.data ?? [] };
  },

  async createMany(resource, params) {
    const res = await apiFetch<Rec[]>(`/${resource}/bulk`, { method: 'POST', body: params.data });
    return { data: res.data ?? [] };
  },

  async getAvailablePermissions() {
    const res = await apiFetch<{ id: number; name: string; group: string }[]>('/roles/permissions/available');
    return { data: res.data ?? [] };
  },

  async assignPermissions(params) {
    const res = await apiFetch<Rec>(`/roles/${encodeURIComponent(String(params.id))}/assign-permissions`, {
      method: 'POST',
      body: { permissions: params.permissions },
    });
    return { data: res.data };
  },

  async uploadDealerLogo(params) {
    const fd = new FormData();
    fd.append('logo', params.file);
    const path = params.id === 'me' ? '/users/dealer/logo' : `/users/${encodeURIComponent(String(params.id))}/dealer-logo`;
    const res = await apiFetch<Rec>(path, { method: 'POST', body: fd });
    return { data: res.data };
  },

  async dealerBundlesBulk(body) {
    const res = await apiFetch<{ affected: number }>('/dealer-bundles/bulk', { method: 'POST', body });
    return { data: res.data ?? { affected: 0 }, message: res.message };
  },

  async deleteDealerLogo(params) {
    const path = params.id === 'me' ? '/users/dealer/logo' : `/users/${encodeURIComponent(String(params.id))}/dealer-logo`;
    const res = await apiFetch<Rec>(path, { method: 'DELETE' });
    return { data: res.data };
  },
};
