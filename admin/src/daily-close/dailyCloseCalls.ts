import type { DataProvider, Identifier } from 'react-admin';
import { consoleFetch, idOf, restProvider, said, type Said } from '../providers/rest';

/** The daily close: a day's figures, its refresh and close, and each difference's resolution. */
export const dailyCloseCalls = {
  /** GET /daily-close/{date}: a company day's figures, vendors, differences and corrections. */
  async dailyClose<T = unknown>(params: { date: string }): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>(`/daily-close/${idOf(params.date)}`)).data };
  },
  /** POST /daily-close/{date}/refresh | close. */
  async dailyCloseAction<T = unknown>(params: { date: string; action: 'refresh' | 'close' }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/daily-close/${idOf(params.date)}/${params.action}`, { method: 'POST' }));
  },
  /** POST /daily-close/{date}/differences/{id}/resolve: re-ask, settle, adjust or accept, with a note. */
  async resolveDifference<T = unknown>(params: { date: string; id: Identifier; data: Record<string, unknown> }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/daily-close/${idOf(params.date)}/differences/${idOf(params.id)}/resolve`, { method: 'POST', body: params.data }));
  },
};

/** The resource 'daily-close': a closed or open day is known by its date, react-admin's id. */
export const dailyCloseRecords: Partial<DataProvider> = {
  async getList(resource, params) {
    const res = await restProvider.getList(resource, params);
    return { ...res, data: res.data.map((d) => ({ ...d, id: (d as { date?: string }).date ?? d.id })) as never[] };
  },
};
