import { HttpError, type DataProvider, type GetListParams, type Identifier, type RaRecord } from 'react-admin';
import { apiFetch as rawFetch, buildUrl, requestHeaders, type Query, type RequestOptions } from './http';
import { errorText, messageForStatus } from './errors';

/**
 * The generic REST part of the console's dataProvider: the /api/v1 resource pattern
 * (docs/product.md section 7) in react-admin's method names (as ra-data-simple-rest names them),
 * on this API's wire format: page/per_page/sort/order/q plus one query parameter per filter, `ids`
 * for many records by id, PATCH for updates, the bulk endpoints, the trash (list, restore, force
 * delete), search, reorder and file downloads. The resource name is the endpoint (users, roles ...).
 * What is not CRUD lives with its area (wallets/walletCalls.ts ...); dataProvider.ts combines them.
 */

/** Every dataProvider call reaches react-admin's checkError, which handles a 401 (see http.ts). */
export const consoleFetch = <T>(path: string, opts: RequestOptions = {}) => rawFetch<T>(path, { ...opts, on401: 'checkError' });

export type Rec = RaRecord & { h_id?: string };

/** An answer with the server's message (for the toast). */
export interface Said<T = unknown> {
  data: T;
  message?: string;
}
export const said = <T>(res: { data: T; message?: string }): Said<T> => ({ data: res.data, message: res.message });
export const idOf = (id: Identifier) => encodeURIComponent(String(id));

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
export function prepareBody(data: Record<string, unknown>): Record<string, unknown> | FormData {
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
    query.per_page = Math.min(pagination.perPage, MAX_PER_PAGE);
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

/** The API's largest page. */
const MAX_PER_PAGE = 100;

/** A list answer in react-admin's shape: the page, the total and whether pages follow. */
export function listResult<T>(res: { data?: T[]; meta?: { total: number; current_page: number; last_page: number } }, data: T[] = res.data ?? []) {
  return {
    data: data as never[],
    total: res.meta?.total ?? data.length,
    pageInfo: res.meta ? { hasNextPage: res.meta.current_page < res.meta.last_page, hasPreviousPage: res.meta.current_page > 1 } : undefined,
  };
}

/** The pattern's calls beyond react-admin's nine: the trash, search, bulk create, reorder and files. */
export interface RestProvider extends DataProvider {
  restore(resource: string, params: { id: Identifier; previousData?: Partial<Rec> }): Promise<{ data: Rec }>;
  restoreMany(resource: string, params: { ids: Identifier[] }): Promise<{ data: Identifier[] }>;
  forceDelete(resource: string, params: { id: Identifier; previousData?: Partial<Rec> }): Promise<{ data: Rec }>;
  forceDeleteMany(resource: string, params: { ids: Identifier[] }): Promise<{ data: Identifier[] }>;
  search(resource: string, params: { q: string }): Promise<{ data: Rec[] }>;
  createMany(resource: string, params: { data: Record<string, unknown>[] }): Promise<{ data: Rec[] }>;
  /** POST /{resource}/reorder: the rows in their new order, numbered from `start` (one call, one transaction). */
  reorder(resource: string, params: { ids: Identifier[]; start: number }): Promise<Said<{ affected: number }>>;
  /** A CSV endpoint with its query, as a file. */
  exportCsv(params: { path: string; query: Query }): Promise<{ data: Blob }>;
  /** A file endpoint (CSV, PDF) with its query, downloaded with the session's headers. */
  exportFile(params: { path: string; query: Query; accept: string }): Promise<{ data: Blob }>;
}

export const restProvider: RestProvider = {
  async getList(resource, params) {
    const path = params.meta?.trashed ? `/${resource}/trashed/list` : `/${resource}`;
    return listResult(await consoleFetch<Rec[]>(path, { query: listQuery(params) }));
  },

  async getOne(resource, params) {
    // meta.query: extra parameters of the call (the dealer catalogue's dealer_id for admins).
    const res = await consoleFetch<Rec>(params.meta?.trashed ? `/${resource}/${idOf(params.id)}/trashed` : `/${resource}/${idOf(params.id)}`, {
      query: params.meta?.query,
    });
    return { data: res.data as never };
  },

  async getMany(resource, params) {
    // One list call with `ids` (the pattern's lists accept them), a page of at most 100 ids per call.
    const ids = [...new Set(params.ids.map(String))];
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += MAX_PER_PAGE) chunks.push(ids.slice(i, i + MAX_PER_PAGE));
    const answers = await Promise.all(
      chunks.map((chunk) => consoleFetch<Rec[]>(`/${resource}`, { query: { ...params.meta?.query, ids: chunk.join(','), page: 1, per_page: MAX_PER_PAGE } })),
    );
    return { data: answers.flatMap((a) => a.data ?? []) as never[] };
  },

  async getManyReference(resource, params) {
    return this.getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } });
  },

  async create(resource, params) {
    const res = await consoleFetch<Rec>(`/${resource}`, { method: 'POST', body: prepareBody(params.data as Record<string, unknown>) });
    return { data: res.data as never };
  },

  async update(resource, params) {
    const res = await consoleFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}`, {
      method: 'PATCH',
      body: prepareBody(params.data as Record<string, unknown>),
    });
    return { data: res.data as never };
  },

  async updateMany(resource, params) {
    // No bulk update in the pattern: one PATCH per record (users' status has its own, users/userCalls.ts).
    await Promise.all(params.ids.map((id) => this.update(resource, { id, data: params.data, previousData: { id } })));
    return { data: params.ids };
  },

  async delete(resource, params) {
    const res = await consoleFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData as Rec)}`, { method: 'DELETE' });
    return { data: (res.data ?? params.previousData ?? { id: params.id }) as never };
  },

  async deleteMany(resource, params) {
    await consoleFetch(`/${resource}/bulk/delete`, { method: 'DELETE', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async restore(resource, params) {
    const res = await consoleFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}/restore`, { method: 'POST' });
    return { data: res.data ?? ({ id: params.id } as Rec) };
  },

  async restoreMany(resource, params) {
    await consoleFetch(`/${resource}/bulk/restore`, { method: 'POST', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async forceDelete(resource, params) {
    const res = await consoleFetch<Rec>(`/${resource}/${pathId(params.id, params.previousData)}/force`, { method: 'DELETE' });
    return { data: res.data ?? ({ id: params.id } as Rec) };
  },

  async forceDeleteMany(resource, params) {
    await consoleFetch(`/${resource}/bulk/force-delete`, { method: 'DELETE', body: { ids: params.ids } });
    return { data: params.ids };
  },

  async search(resource, params) {
    const res = await consoleFetch<Rec[]>(`/${resource}/search`, { query: { q: params.q } });
    return { data: res.data ?? [] };
  },

  async createMany(resource, params) {
    const res = await consoleFetch<Rec[]>(`/${resource}/bulk`, { method: 'POST', body: params.data });
    return { data: res.data ?? [] };
  },

  async reorder(resource, params) {
    return said(await consoleFetch<{ affected: number }>(`/${resource}/reorder`, { method: 'POST', body: { ids: params.ids, start: params.start } }));
  },

  async exportCsv(params) {
    return restProvider.exportFile({ ...params, accept: 'text/csv' });
  },

  async exportFile(params) {
    const headers = requestHeaders(true);
    headers.set('Accept', params.accept);
    let res: Response;
    try {
      res = await fetch(buildUrl(params.path, params.query), { headers, credentials: 'same-origin' });
    } catch {
      throw new HttpError(errorText('network'), 0, {});
    }
    if (!res.ok) {
      // A refused download (422 period, 403, 409...) says why in a JSON body: keep the server's words.
      let body: { message?: string } = {};
      try {
        const parsed: unknown = JSON.parse(await res.text());
        if (parsed && typeof parsed === 'object') body = parsed as { message?: string };
      } catch {
        body = {};
      }
      const reason = typeof body.message === 'string' && body.message ? body.message : undefined;
      throw new HttpError(reason ?? messageForStatus(res.status, undefined, false), res.status, body);
    }
    return { data: await res.blob() };
  },
};
