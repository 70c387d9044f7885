import { consoleFetch } from '../providers/rest';

export const dealerCatalogueCalls = {
  /** POST /dealer-bundles/bulk: turn on/off, or price (profit or markup) all bundles of a category (or operator). */
  async dealerBundlesBulk(body: Record<string, unknown>): Promise<{ data: { affected: number }; message?: string }> {
    const res = await consoleFetch<{ affected: number }>('/dealer-bundles/bulk', { method: 'POST', body });
    return { data: res.data ?? { affected: 0 }, message: res.message };
  },
};
