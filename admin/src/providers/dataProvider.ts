import { HttpError, useDataProvider, type DataProvider, type GetListParams, type Identifier, type RaRecord } from 'react-admin';
import { apiFetch as rawFetch, buildUrl, requestHeaders, type Query, type RequestOptions } from './http';
import { errorText, messageForStatus } from './errors';
import type { ConnectorMode } from '@app/contracts';

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
  /** PUT /roles/{id}/two-factor: the role's users must sign in with a second factor (or no longer). */
  setRoleTwoFactor(params: { id: Identifier; required: boolean }): Promise<Said<Rec>>;
  /** POST /users/{id}/two-factor/reset: a lost phone; the user sets it up again. */
  resetTwoFactor(params: { id: Identifier }): Promise<Said<Rec>>;
  uploadDealerLogo(params: { id: Identifier | 'me'; file: File }): Promise<{ data: Rec }>;
  deleteDealerLogo(params: { id: Identifier | 'me' }): Promise<{ data: Rec }>;
  /** POST /dealer-bundles/bulk: turn on/off or price at cost + profit all bundles of a category (or operator). */
  dealerBundlesBulk(body: Record<string, unknown>): Promise<{ data: { affected: number }; message?: string }>;
  /** POST /{resource}/reorder: the rows in their new order, numbered from `start` (one call, one transaction). */
  reorder(resource: string, params: { ids: Identifier[]; start: number }): Promise<Said<{ affected: number }>>;

  // The console's calls beyond a resource's records, answered with the server's message where it has one.
  /** GET /my-wallet: the signed-in dealer's wallet, last days, transactions. */
  myWallet<T = unknown>(): Promise<{ data: T }>;
  /** PUT /my-wallet/low-balance-alert (`id` 'me') or /wallets/{id}/low-balance-alert. */
  setLowBalanceAlert(params: { id: Identifier | 'me'; threshold: string | null }): Promise<Said>;
  /** POST /wallets/{id}/top-up and /adjust, with the Idempotency-Key of the dialog's opening. */
  topUp(params: { id: Identifier; data: Record<string, unknown>; idempotencyKey: string }): Promise<Said>;
  adjustWallet(params: { id: Identifier; data: Record<string, unknown>; idempotencyKey: string }): Promise<Said>;
  /** POST /wallet-top-up-requests (multipart when a receipt is attached). */
  requestTopUp(params: { data: Record<string, unknown> }): Promise<Said>;
  approveTopUp(params: { id: Identifier }): Promise<Said>;
  /** POST /wallet-top-up-requests/payout: a "Profit Only" dealer asks for its profit (amount, phone, note). */
  requestPayout(params: { data: Record<string, unknown> }): Promise<Said>;
  /** GET /wallet-top-up-requests/payment-details: where a dealer pays a top-up in. */
  topUpPaymentDetails<T = unknown>(): Promise<{ data: T }>;
  /** GET /wallet-top-up-requests/pending-count: top-ups and payouts waiting (the Wallets menu badge). */
  pendingTopUpCount(): Promise<{ data: number }>;
  /** GET /wallets/below-alert-count: live wallets under their low-balance alert (the Wallets menu's red badge). */
  belowAlertCount(): Promise<{ data: number }>;
  /** GET and PATCH /my-shop: the signed-in dealer's own shop. */
  myShop<T = unknown>(): Promise<{ data: T }>;
  saveMyShop<T = unknown>(params: { data: Record<string, unknown> }): Promise<Said<T>>;
  rejectTopUp(params: { id: Identifier; data: { reason: string } }): Promise<Said>;
  /** POST /recharges/{id}/retry | refund | settle | paid-back. */
  rechargeAction(params: { id: Identifier; action: 'retry' | 'refund' | 'settle' | 'paid-back'; data?: Record<string, unknown> }): Promise<Said>;
  /** GET /recharges/review-count. */
  reviewCount(): Promise<{ data: number }>;
  /** GET /reports/{name} (sales, dealer-profit, margins) with its filters. */
  report<T = unknown>(name: 'sales' | 'dealer-profit' | 'margins', params: { filter: Query }): Promise<{ data: T }>;
  /** GET /dashboard. */
  dashboard<T = unknown>(): Promise<{ data: T }>;
  /** GET /search: the header's global search, grouped. */
  globalSearch<T = unknown>(params: { q: string }): Promise<{ data: T }>;
  /** GET /settings/public (no sign-in needed): company name, logo, currency, time zone, footer. */
  publicSettings<T = unknown>(): Promise<{ data: T | null }>;
  /** GET and PUT /settings/{group}. */
  getSettings<T = unknown>(group: string): Promise<{ data: T }>;
  saveSettings<T = unknown>(group: string, params: { data: Record<string, unknown> | FormData }): Promise<Said<T>>;
  /** POST /settings/mail/test. */
  testMail(params: { to: string }): Promise<Said>;
  /** A CSV endpoint with its query, as a file. */
  exportCsv(params: { path: string; query: Query }): Promise<{ data: Blob }>;
  /** A file endpoint (CSV, PDF) with its query, downloaded with the session's headers. */
  exportFile(params: { path: string; query: Query; accept: string }): Promise<{ data: Blob }>;
  /** GET /daily-close/{date}: a company day's figures, vendors, differences and corrections. */
  dailyClose<T = unknown>(params: { date: string }): Promise<{ data: T }>;
  /** POST /daily-close/{date}/refresh | close. */
  dailyCloseAction<T = unknown>(params: { date: string; action: 'refresh' | 'close' }): Promise<Said<T>>;
  /** POST /daily-close/{date}/differences/{id}/resolve: re-ask, settle, adjust or accept, with a note. */
  resolveDifference<T = unknown>(params: { date: string; id: Identifier; data: Record<string, unknown> }): Promise<Said<T>>;
  /** GET /aggregators: each aggregator's float (balance, threshold, days left). */
  aggregatorFloats<T = unknown>(): Promise<{ data: T }>;
  /** PUT /aggregators/{name}: the float's alert threshold (null: none). */
  setAggregatorThreshold<T = unknown>(params: { name: string; threshold: string | null }): Promise<Said<T>>;
  /** POST /aggregators/{name}/check: read the balance now. */
  checkAggregator<T = unknown>(params: { name: string }): Promise<Said<T>>;
  /** GET /wallets/{id}/statement (json): a period's opening and closing balances, lines (paginated) and totals. */
  walletStatement<T = unknown>(params: { id: Identifier; query: Query }): Promise<{ data: T; total: number }>;
  /** POST /dealer/api-keys (an admin names the dealer): the new key, whole, this once. */
  createApiKey<T = unknown>(params: { dealerId?: Identifier | null; data: Record<string, unknown> }): Promise<Said<T>>;
  /**
   * /dealer/webhook (an admin names the dealer): GET the endpoint (null: none), PUT its URL, DELETE it,
   * POST rotate-secret or test.
   */
  webhook<T = unknown>(params: {
    dealerId?: Identifier | null;
    method: 'GET' | 'PUT' | 'DELETE' | 'POST';
    action?: 'rotate-secret' | 'test';
    data?: Record<string, unknown>;
  }): Promise<Said<T>>;
  /** POST /webhook-deliveries/{id}/resend: the event again now, same id and body. */
  resendWebhook<T = unknown>(params: { id: Identifier }): Promise<Said<T>>;
  /** GET /internet-providers/{id}/routes: the operator's delivery routes, their health, and each bundle's deliverability. */
  providerRoutes<T = unknown>(params: { id: Identifier }): Promise<{ data: T }>;
  /** PUT /internet-providers/{id}/routes: the whole ordered list (an empty list: back to the operator's own adapter). */
  saveProviderRoutes<T = unknown>(params: { id: Identifier; routes: Record<string, unknown>[] }): Promise<Said<T>>;
  /** POST /aggregators/sync: every aggregator's catalogue now (or the ones named). */
  syncAggregators<T = unknown>(params?: { aggregators?: string[] }): Promise<Said<T>>;
  /** GET /connectors: the gateways and aggregators this server talks to. */
  connectors<T = unknown>(): Promise<{ data: T }>;
  /** GET /connectors/mode: whether payments, deliveries and SMS are live or sandbox (the top bar's chip). */
  connectorMode(): Promise<{ data: ConnectorMode }>;
}

/** An answer with the server's message (for the toast). */
export interface Said<T = unknown> {
  data: T;
  message?: string;
}

/** The console's dataProvider with its own methods, for components (react-admin's useDataProvider, typed). */
export const useConsoleDataProvider = () => useDataProvider<ConsoleDataProvider>();

const said = <T>(res: { data: T; message?: string }): Said<T> => ({ data: res.data, message: res.message });
const idOf = (id: Identifier) => encodeURIComponent(String(id));

/**
 * The console's resource 'aggregator-catalogue' is GET /aggregators/{aggregator}/products (the
 * aggregator is the list's permanent filter). A product has no id of its own: its operator and
 * product id make one. The API sorts it itself (operator, product).
 */
const AGGREGATOR_CATALOGUE = 'aggregator-catalogue';

async function aggregatorProducts(params: Partial<GetListParams>) {
  const { aggregator, ...filter } = params.filter ?? {};
  const res = await apiFetch<Array<{ operator_id: string; product_id: string }>>(`/aggregators/${idOf(String(aggregator ?? ''))}/products`, {
    query: listQuery({ pagination: params.pagination, filter }),
  });
  const data = (res.data ?? []).map((p) => ({ ...p, id: `${p.operator_id}:${p.product_id}` }));
  return {
    data: data as never[],
    total: res.meta?.total ?? data.length,
    pageInfo: res.meta ? { hasNextPage: res.meta.current_page < res.meta.last_page, hasPreviousPage: res.meta.current_page > 1 } : undefined,
  };
}

export const dataProvider: ConsoleDataProvider = {
  async getList(resource, params) {
    if (resource === AGGREGATOR_CATALOGUE) return aggregatorProducts(params);
    const path = params.meta?.trashed ? `/${resource}/trashed/list` : `/${resource}`;
    const res = await apiFetch<Rec[]>(path, { query: listQuery(params) });
    // A closed or open day (GET /daily-close) is known by its date: react-admin's id.
    const data = resource === 'daily-close' ? (res.data ?? []).map((d) => ({ ...d, id: (d as { date?: string }).date ?? d.id })) : (res.data ?? []);
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
    // GET /recharges/{id} answers the sale with its timeline, transactions and remote calls: one record.
    if (resource === 'recharges' && res.data && 'recharge' in res.data) {
      const { recharge, ...rest } = res.data as unknown as { recharge: Rec };
      return { data: { ...recharge, ...rest } as never };
    }
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
      return dataProvider.assignPermissions({
        id: (params.previousData as Rec | undefined)?.h_id ?? params.id,
        permissions: (params.data as { permissions: string[] }).permissions,
      }) as never;
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

  async setRoleTwoFactor(params) {
    return said(await apiFetch<Rec>(`/roles/${idOf(params.id)}/two-factor`, { method: 'PUT', body: { required: params.required } }));
  },

  async resetTwoFactor(params) {
    return said(await apiFetch<Rec>(`/users/${idOf(params.id)}/two-factor/reset`, { method: 'POST' }));
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

  async reorder(resource, params) {
    return said(await apiFetch<{ affected: number }>(`/${resource}/reorder`, { method: 'POST', body: { ids: params.ids, start: params.start } }));
  },

  async myWallet<T>() {
    return { data: (await apiFetch<T>('/my-wallet')).data };
  },

  async setLowBalanceAlert(params) {
    const path = params.id === 'me' ? '/my-wallet/low-balance-alert' : `/wallets/${idOf(params.id)}/low-balance-alert`;
    return said(await apiFetch(path, { method: 'PUT', body: { threshold: params.threshold } }));
  },

  async topUp(params) {
    return said(
      await apiFetch(`/wallets/${idOf(params.id)}/top-up`, { method: 'POST', body: params.data, headers: { 'Idempotency-Key': params.idempotencyKey } }),
    );
  },

  async adjustWallet(params) {
    return said(
      await apiFetch(`/wallets/${idOf(params.id)}/adjust`, { method: 'POST', body: params.data, headers: { 'Idempotency-Key': params.idempotencyKey } }),
    );
  },

  async requestTopUp(params) {
    return said(await apiFetch('/wallet-top-up-requests', { method: 'POST', body: prepareBody(params.data) }));
  },

  async approveTopUp(params) {
    return said(await apiFetch(`/wallet-top-up-requests/${idOf(params.id)}/approve`, { method: 'POST' }));
  },

  async requestPayout(params) {
    return said(await apiFetch('/wallet-top-up-requests/payout', { method: 'POST', body: params.data }));
  },

  async topUpPaymentDetails<T>() {
    return { data: (await apiFetch<T>('/wallet-top-up-requests/payment-details')).data };
  },

  async pendingTopUpCount() {
    return { data: Number((await apiFetch<{ count: number }>('/wallet-top-up-requests/pending-count')).data?.count ?? 0) };
  },

  async belowAlertCount() {
    return { data: Number((await apiFetch<{ count: number }>('/wallets/below-alert-count')).data?.count ?? 0) };
  },

  async myShop<T>() {
    return { data: (await apiFetch<T>('/my-shop')).data };
  },

  async saveMyShop<T>(params: { data: Record<string, unknown> }) {
    return said(await apiFetch<T>('/my-shop', { method: 'PATCH', body: params.data }));
  },

  async rejectTopUp(params) {
    return said(await apiFetch(`/wallet-top-up-requests/${idOf(params.id)}/reject`, { method: 'POST', body: params.data }));
  },

  async rechargeAction(params) {
    return said(await apiFetch(`/recharges/${idOf(params.id)}/${params.action}`, { method: 'POST', body: params.data }));
  },

  async reviewCount() {
    return { data: Number((await apiFetch<{ count: number }>('/recharges/review-count')).data?.count ?? 0) };
  },

  async report<T>(name: 'sales' | 'dealer-profit' | 'margins', params: { filter: Query }) {
    return { data: (await apiFetch<T>(`/reports/${name}`, { query: params.filter })).data };
  },

  async dashboard<T>() {
    return { data: (await apiFetch<T>('/dashboard')).data };
  },

  async globalSearch<T>(params: { q: string }) {
    return { data: (await apiFetch<T>('/search', { query: { q: params.q } })).data };
  },

  async publicSettings<T>() {
    return { data: ((await apiFetch<T>('/settings/public')).data ?? null) as T | null };
  },

  async getSettings<T>(group: string) {
    return { data: (await apiFetch<T>(`/settings/${group}`)).data };
  },

  async saveSettings<T>(group: string, params: { data: Record<string, unknown> | FormData }) {
    return said(await apiFetch<T>(`/settings/${group}`, { method: 'PUT', body: params.data }));
  },

  async createApiKey<T>(params: { dealerId?: Identifier | null; data: Record<string, unknown> }) {
    const query: Query = params.dealerId ? { dealer_id: String(params.dealerId) } : {};
    return said(await apiFetch<T>('/dealer/api-keys', { method: 'POST', body: params.data, query }));
  },

  async webhook<T>(params: { dealerId?: Identifier | null; method: 'GET' | 'PUT' | 'DELETE' | 'POST'; action?: string; data?: Record<string, unknown> }) {
    const query: Query = params.dealerId ? { dealer_id: String(params.dealerId) } : {};
    return said(await apiFetch<T>(`/dealer/webhook${params.action ? `/${params.action}` : ''}`, { method: params.method, body: params.data, query }));
  },

  async resendWebhook<T>(params: { id: Identifier }) {
    return said(await apiFetch<T>(`/webhook-deliveries/${idOf(params.id)}/resend`, { method: 'POST' }));
  },

  async providerRoutes<T>(params: { id: Identifier }) {
    return { data: (await apiFetch<T>(`/internet-providers/${idOf(params.id)}/routes`)).data };
  },

  async saveProviderRoutes<T>(params: { id: Identifier; routes: Record<string, unknown>[] }) {
    return said(await apiFetch<T>(`/internet-providers/${idOf(params.id)}/routes`, { method: 'PUT', body: { routes: params.routes } }));
  },

  async syncAggregators<T>(params: { aggregators?: string[] } = {}) {
    return said(await apiFetch<T>('/aggregators/sync', { method: 'POST', body: params.aggregators ? { aggregators: params.aggregators } : {} }));
  },

  async connectors<T>() {
    return { data: (await apiFetch<T>('/connectors')).data };
  },

  async connectorMode() {
    return { data: (await apiFetch<ConnectorMode>('/connectors/mode')).data };
  },

  async testMail(params) {
    return said(await apiFetch('/settings/mail/test', { method: 'POST', body: { to: params.to } }));
  },

  async exportCsv(params) {
    return dataProvider.exportFile({ ...params, accept: 'text/csv' });
  },

  async dailyClose<T>(params: { date: string }) {
    return { data: (await apiFetch<T>(`/daily-close/${idOf(params.date)}`)).data };
  },

  async dailyCloseAction<T>(params: { date: string; action: 'refresh' | 'close' }) {
    return said(await apiFetch<T>(`/daily-close/${idOf(params.date)}/${params.action}`, { method: 'POST' }));
  },

  async resolveDifference<T>(params: { date: string; id: Identifier; data: Record<string, unknown> }) {
    return said(await apiFetch<T>(`/daily-close/${idOf(params.date)}/differences/${idOf(params.id)}/resolve`, { method: 'POST', body: params.data }));
  },

  async aggregatorFloats<T>() {
    return { data: (await apiFetch<T>('/aggregators')).data };
  },

  async setAggregatorThreshold<T>(params: { name: string; threshold: string | null }) {
    return said(await apiFetch<T>(`/aggregators/${idOf(params.name)}`, { method: 'PUT', body: { threshold: params.threshold } }));
  },

  async checkAggregator<T>(params: { name: string }) {
    return said(await apiFetch<T>(`/aggregators/${idOf(params.name)}/check`, { method: 'POST' }));
  },

  async walletStatement<T>(params: { id: Identifier; query: Query }) {
    const res = await apiFetch<T>(`/wallets/${idOf(params.id)}/statement`, { query: { ...params.query, format: 'json' } });
    return { data: res.data, total: res.meta?.total ?? 0 };
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
