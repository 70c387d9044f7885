import type { Identifier } from 'react-admin';
import type { Query } from '../providers/http';
import { consoleFetch, idOf, prepareBody, said, type Said } from '../providers/rest';

/** Wallets, top-up and payout requests, a dealer's own wallet and a statement: the wallet area's calls beyond its records. */
export const walletCalls = {
  /** GET /my-wallet: the signed-in dealer's wallet, last days, transactions. */
  async myWallet<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/my-wallet')).data };
  },
  /** PUT /my-wallet/low-balance-alert (`id` 'me') or /wallets/{id}/low-balance-alert. */
  async setLowBalanceAlert(params: { id: Identifier | 'me'; threshold: string | null }): Promise<Said> {
    const path = params.id === 'me' ? '/my-wallet/low-balance-alert' : `/wallets/${idOf(params.id)}/low-balance-alert`;
    return said(await consoleFetch(path, { method: 'PUT', body: { threshold: params.threshold } }));
  },
  /** POST /wallets/{id}/top-up, with the Idempotency-Key of the dialog's opening. */
  async topUp(params: { id: Identifier; data: Record<string, unknown>; idempotencyKey: string }): Promise<Said> {
    return said(
      await consoleFetch(`/wallets/${idOf(params.id)}/top-up`, { method: 'POST', body: params.data, headers: { 'Idempotency-Key': params.idempotencyKey } }),
    );
  },
  /** POST /wallets/{id}/adjust, with the Idempotency-Key of the dialog's opening. */
  async adjustWallet(params: { id: Identifier; data: Record<string, unknown>; idempotencyKey: string }): Promise<Said> {
    return said(
      await consoleFetch(`/wallets/${idOf(params.id)}/adjust`, { method: 'POST', body: params.data, headers: { 'Idempotency-Key': params.idempotencyKey } }),
    );
  },
  /** POST /wallet-top-up-requests (multipart when a receipt is attached). */
  async requestTopUp(params: { data: Record<string, unknown> }): Promise<Said> {
    return said(await consoleFetch('/wallet-top-up-requests', { method: 'POST', body: prepareBody(params.data) }));
  },
  async approveTopUp(params: { id: Identifier }): Promise<Said> {
    return said(await consoleFetch(`/wallet-top-up-requests/${idOf(params.id)}/approve`, { method: 'POST' }));
  },
  async rejectTopUp(params: { id: Identifier; data: { reason: string } }): Promise<Said> {
    return said(await consoleFetch(`/wallet-top-up-requests/${idOf(params.id)}/reject`, { method: 'POST', body: params.data }));
  },
  /** POST /wallet-top-up-requests/payout: a "Profit Only" dealer asks for its profit (amount, phone, note). */
  async requestPayout(params: { data: Record<string, unknown> }): Promise<Said> {
    return said(await consoleFetch('/wallet-top-up-requests/payout', { method: 'POST', body: params.data }));
  },
  /** GET /wallet-top-up-requests/payment-details: where a dealer pays a top-up in. */
  async topUpPaymentDetails<T = unknown>(): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>('/wallet-top-up-requests/payment-details')).data };
  },
  /** GET /wallet-top-up-requests/pending-count: top-ups and payouts waiting (the Wallets menu badge). */
  async pendingTopUpCount(): Promise<{ data: number }> {
    return { data: Number((await consoleFetch<{ count: number }>('/wallet-top-up-requests/pending-count')).data?.count ?? 0) };
  },
  /** GET /wallets/below-alert-count: live wallets under their low-balance alert (the Wallets menu's red badge). */
  async belowAlertCount(): Promise<{ data: number }> {
    return { data: Number((await consoleFetch<{ count: number }>('/wallets/below-alert-count')).data?.count ?? 0) };
  },
  /** GET /wallets/{id}/statement (json): a period's opening and closing balances, lines (paginated) and totals. */
  async walletStatement<T = unknown>(params: { id: Identifier; query: Query }): Promise<{ data: T; total: number }> {
    const res = await consoleFetch<T>(`/wallets/${idOf(params.id)}/statement`, { query: { ...params.query, format: 'json' } });
    return { data: res.data, total: res.meta?.total ?? 0 };
  },
};
