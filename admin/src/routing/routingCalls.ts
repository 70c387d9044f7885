import type { DataProvider, GetListParams, Identifier } from 'react-admin';
import type { ConnectorMode } from '@app/contracts';
import { consoleFetch, idOf, listQuery, listResult, said, type Said } from '../providers/rest';

/** Operators' delivery routes, the aggregators (floats, catalogues, sync) and the connectors this server talks to. */
export const routingCalls = {
  /** GET /internet-providers/{id}/routes: the operator's delivery routes, their health, and each bundle's deliverability. */
  async providerRoutes<T = unknown>(params: { id: Identifier }): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>(`/internet-providers/${idOf(params.id)}/routes`)).data };
  },
  /** PUT /internet-providers/{id}/routes: the whole ordered list (an empty list: back to the operator's own adapter). */
  async saveProviderRoutes<T = unknown>(params: { id: Identifier; routes: Record<string, unknown>[] }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/internet-providers/${idOf(params.id)}/routes`, { method: 'PUT', body: { routes: params.routes } }));
  },
  /** POST /aggregators/sync: every aggregator's catalogue now (or the ones named). */
  async syncAggregators<T = unknown>(params: { aggregators?: string[] } = {}): Promise<Said<T>> {
    return said(await consoleFetch<T>('/aggregators/sync', { method: 'POST', body: params.aggregators ? { aggregators: params.aggregators } : {} }));
  },
  /** GET /aggregators: each aggregator's float (balance, threshold, days left). */
  async aggregatorFloats<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/aggregators')).data };
  },
  /** PUT /aggregators/{name}: the float's alert threshold (null: none). */
  async setAggregatorThreshold<T = unknown>(params: { name: string; threshold: string | null }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/aggregators/${idOf(params.name)}`, { method: 'PUT', body: { threshold: params.threshold } }));
  },
  /** POST /aggregators/{name}/check: read the balance now. */
  async checkAggregator<T = unknown>(params: { name: string }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/aggregators/${idOf(params.name)}/check`, { method: 'POST' }));
  },
  /** GET /connectors: the gateways and aggregators this server talks to. */
  async connectors<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/connectors')).data };
  },
  /** GET /connectors/mode: whether payments, deliveries and SMS are live or sandbox (the top bar's chip). */
  async connectorMode(): Promise<{ data: ConnectorMode }> {
    return { data: (await consoleFetch<ConnectorMode>('/connectors/mode')).data };
  },
};

/**
 * The resource 'aggregator-catalogue' is GET /aggregators/{aggregator}/products (the aggregator is
 * the list's permanent filter). A product has no id of its own: its operator and product id make
 * one. The API sorts it itself (operator, product).
 */
export const aggregatorCatalogueRecords: Partial<DataProvider> = {
  async getList(_resource, params: GetListParams) {
    const { aggregator, ...filter } = params.filter ?? {};
    const res = await consoleFetch<Array<{ operator_id: string; product_id: string }>>(`/aggregators/${idOf(String(aggregator ?? ''))}/products`, {
      query: listQuery({ pagination: params.pagination, filter }),
    });
    return listResult(
      res,
      (res.data ?? []).map((p) => ({ ...p, id: `${p.operator_id}:${p.product_id}` })),
    );
  },
};
