import { consoleFetch, said, type Said } from '../providers/rest';

export const myShopCalls = {
  /** GET /my-shop: the signed-in dealer's own shop. */
  async myShop<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/my-shop')).data };
  },
  /** PATCH /my-shop. */
  async saveMyShop<T = unknown>(params: { data: Record<string, unknown> }): Promise<Said<T>> {
    return said(await consoleFetch<T>('/my-shop', { method: 'PATCH', body: params.data }));
  },
};
