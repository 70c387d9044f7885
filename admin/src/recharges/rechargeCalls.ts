import type { DataProvider, Identifier } from 'react-admin';
import { consoleFetch, idOf, restProvider, said, type Rec, type Said } from '../providers/rest';

/** Sales: their actions (retry, refund, settle, paid back) and the review queue's count. */
export const rechargeCalls = {
  /** POST /recharges/{id}/retry | refund | settle | paid-back. */
  async rechargeAction(params: { id: Identifier; action: 'retry' | 'refund' | 'settle' | 'paid-back'; data?: Record<string, unknown> }): Promise<Said> {
    return said(await consoleFetch(`/recharges/${idOf(params.id)}/${params.action}`, { method: 'POST', body: params.data }));
  },
  /** GET /recharges/review-count. */
  async reviewCount(): Promise<{ data: number }> {
    return { data: Number((await consoleFetch<{ count: number }>('/recharges/review-count')).data?.count ?? 0) };
  },
};

/** The resource `recharges`: GET /recharges/{id} answers the sale with its timeline, transactions and remote calls, read as one record. */
export const rechargeRecords: Partial<DataProvider> = {
  async getOne(resource, params) {
    const { data } = await restProvider.getOne<Rec>(resource, params);
    if (data && 'recharge' in data) {
      const { recharge, ...rest } = data as unknown as { recharge: Rec };
      return { data: { ...recharge, ...rest } as never };
    }
    return { data: data as never };
  },
};
