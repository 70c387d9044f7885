import type { Identifier } from 'react-admin';
import type { Query } from '../providers/http';
import { consoleFetch, idOf, said, type Said } from '../providers/rest';

export const webhookCalls = {
  /**
   * /dealer/webhook (an admin names the dealer): GET the endpoint (null: none), PUT its URL, DELETE it,
   * POST rotate-secret or test.
   */
  async webhook<T = unknown>(params: {
    dealerId?: Identifier | null;
    method: 'GET' | 'PUT' | 'DELETE' | 'POST';
    action?: 'rotate-secret' | 'test';
    data?: Record<string, unknown>;
  }): Promise<Said<T>> {
    const query: Query = params.dealerId ? { dealer_id: String(params.dealerId) } : {};
    return said(await consoleFetch<T>(`/dealer/webhook${params.action ? `/${params.action}` : ''}`, { method: params.method, body: params.data, query }));
  },
  /** POST /webhook-deliveries/{id}/resend: the event again now, same id and body. */
  async resendWebhook<T = unknown>(params: { id: Identifier }): Promise<Said<T>> {
    return said(await consoleFetch<T>(`/webhook-deliveries/${idOf(params.id)}/resend`, { method: 'POST' }));
  },
};
