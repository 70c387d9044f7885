import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  csvExportParams,
  dateParam,
  listParams,
  myWalletResponseSchema,
  payoutRequestSchema,
  TOP_UP_REQUEST_KINDS,
  topUpPaymentDetailsSchema,
  rejectTopUpSchema,
  topUpRequestResponseSchema,
  topUpRequestSchema,
  TOP_UP_REQUEST_STATUSES,
  TRANSACTION_KINDS,
  TRANSACTION_TYPES,
  walletAdjustSchema,
  walletResponseSchema,
  walletTopUpSchema,
  walletTransactionResponseSchema,
  lowBalanceAlertSchema,
  missedSaleResponseSchema,
  walletStatementQuery,
  walletStatementResponseSchema,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { csvColumns, csvWord, sendCsv, type CsvHeaders } from '../http/csv.ts';
import { zonedDay } from '../database/time.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import {
  adjustOnce,
  exportTransactions,
  belowAlertCount,
  findWallet,
  listTransactions,
  listWallets,
  presentTransaction,
  setLowBalanceThreshold,
  topUpOnce,
  transactionQuery,
  type MoneyOutcome,
  type TransactionFilters,
  type WalletListFilters,
} from './wallet.service.ts';
import {
  approveRequestOnce,
  findRequest,
  listRequests,
  pendingRequestCount,
  rejectRequest,
  requestPayout,
  submitRequest,
  type TopUpRequestFilters,
} from './top-up-requests.ts';
import { topUpPaymentDetails } from './top-up-payment-details.ts';
import { myWallet, setOwnLowBalanceThreshold } from './my-wallet.service.ts';
import { noticeLowBalance } from './low-balance.ts';
import { exportMissedSales, listMissedSales, type MissedSaleFilters } from './missed-sales.ts';
import type { WalletTransactionListRow } from './wallet-rows.ts';
import type { PageRequest } from '../http/list-query.ts';
import { sendStatementCsv, sendStatementPdf, statementPage, statementWallet, type StatementQuery } from './statement.service.ts';

/** The query string as the services take it (checked against the route's query schema by the router). */
const queryOf = <F>(req: Request) => req.query as F & PageRequest;

const walletListQuery = z.object({
  below_alert: z
    .enum(['true', 'false'], { message: 'validation:true_or_false' })
    .optional()
    .describe('true: only the wallets under their low-balance alert (a threshold set, the balance below it); false or absent: every wallet'),
  ...listParams({ sort: ['balance', 'dealer', 'updated_at', 'id'], defaultSort: 'dealer', q: "The dealer's name or code (contains, any case)" }),
});
const transactionListQuery = z.object({
  wallet_id: z.string().optional(),
  dealer_id: z.string().optional(),
  type: z.enum(TRANSACTION_TYPES, { message: 'validation:transaction_type_invalid' }).optional(),
  kind: z.enum(TRANSACTION_KINDS, { message: 'validation:transaction_kind_invalid' }).optional(),
  from: dateParam,
  to: dateParam,
  recharge_id: z.string().optional(),
  // By id (the order the rows were written in) or by date (created_at, then id): the same order, either way round.
  ...listParams({ sort: ['id', 'created_at'], q: 'Part of the reference', qMax: 128 }),
});
const requestListQuery = z.object({
  status: z.enum(TOP_UP_REQUEST_STATUSES, { message: 'validation:status_invalid' }).optional(),
  kind: z.enum(TOP_UP_REQUEST_KINDS, { message: 'validation:request_kind_invalid' }).optional(),
  dealer_id: z.string().optional(),
  ...listParams({ sort: ['id'] }),
});
const missedListQuery = z.object({
  dealer_id: z.string().optional(),
  from: dateParam,
  to: dateParam,
  // By when they were missed (created_at, then id): the order they were recorded in, so `id` names the same order.
  ...listParams({ sort: ['id', 'created_at'] }),
});
const postedSchema = z.object({
  wallet: walletResponseSchema,
  transaction: walletTransactionResponseSchema,
  replayed: z
    .boolean()
    .describe(
      'True when this answers an earlier request with the same idempotency key (also the header Idempotent-Replayed: true); nothing was credited again',
    ),
});

const EXPORT_LIMIT = 50_000;

/**
 * /wallets, /my-wallet, /wallet-transactions (+ /export), /wallet-top-up-requests and
 * /missed-sales (+ /export): reading balances and the ledger, the money actions, the low-balance
 * alert, and the sales an empty wallet refused. The ledger has no update or delete route.
 */
export function walletRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  const wallets = new ApiRouter(registry, '/wallets', 'Wallets');
  const mine = new ApiRouter(registry, '/my-wallet', 'Wallets');
  const ledger = new ApiRouter(registry, '/wallet-transactions', 'Wallets');
  const requests = new ApiRouter(registry, '/wallet-top-up-requests', 'Wallets');
  const missed = new ApiRouter(registry, '/missed-sales', 'Wallets');

  const posted = async (ctx: ServiceContext, walletId: number, transactionId: number) => ({
    wallet: await findWallet(ctx, walletId),
    transaction: presentTransaction((await transactionQuery(ctx.db).where('wallet_transactions.id', transactionId).first()) as WalletTransactionListRow),
  });

  wallets.get(
    '/',
    { summary: "Every dealer's wallet and balance", permission: 'view wallets', query: walletListQuery, list: true, response: walletResponseSchema },
    async (req, ctx) => {
      const q = queryOf<WalletListFilters>(req);
      return listWallets(ctx, q, q);
    },
  );
  // Literal path before /:id.
  wallets.get(
    '/below-alert-count',
    {
      summary: 'How many live wallets are under their low-balance alert (the Wallets menu badge, the dashboard card)',
      permission: 'view wallets',
      response: z.object({ count: z.number().int() }),
    },
    async (_req, ctx) => ({ data: { count: await belowAlertCount(ctx) } }),
  );
  wallets.get('/:id', { summary: 'One wallet', permission: 'view wallets', response: walletResponseSchema }, async (req, ctx) => ({
    data: await findWallet(ctx, String(req.params.id)),
  }));
  wallets.get(
    '/:id/statement',
    {
      summary:
        "A wallet's statement for company days from..to (included, at most 366; default this month): opening and closing balances, totals per kind and the lines, oldest first (JSON: a page of lines; format=csv or pdf: every line). Staff with view wallets: any wallet; a dealer: its own (another's is a 404)",
      anyPermission: ['view wallets', 'view own wallet'],
      query: walletStatementQuery,
      response: walletStatementResponseSchema,
      downloads: ['text/csv', 'application/pdf'],
      errors: { 422: 'A date that is not a day, from after to, or a period over 366 days' },
    },
    async (req, ctx, res) => {
      const wallet = await statementWallet(ctx, String(req.params.id));
      const q = req.query as StatementQuery & { format?: string };
      if (q.format === 'csv') return sendStatementCsv(ctx, res, wallet, q);
      if (q.format === 'pdf') return sendStatementPdf(ctx, res, wallet, q);
      return statementPage(ctx, wallet, q);
    },
  );
  // The first answer and every replay of it are the same body: the ledger row, the message from
  // its balance_after, the wallet as it is now; a replay says so (replayed, Idempotent-Replayed).
  const answer = async (ctx: ServiceContext, res: Response, outcome: MoneyOutcome, message: string) => {
    const data = await posted(ctx, outcome.walletId, outcome.transactionId);
    if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return {
      message,
      messageVars: { amount: data.transaction.amount, balance: data.transaction.balance_after },
      data: { ...data, replayed: outcome.replayed },
    };
  };
  const keyHeader = (req: Request) => req.get('idempotency-key') ?? null;

  wallets.post(
    '/:id/top-up',
    {
      summary:
        "Credit a dealer's wallet with money it paid in. Idempotent: by the Idempotency-Key header when sent, else by the reference (per wallet); a repeat answers the first result with replayed: true, a different request under a used key is a 422 (a reused reference without the key a 409), and a bank reference already credited to the wallet (under any key, or by an approved request) is a 409",
      permission: 'top up wallets',
      body: walletTopUpSchema,
      response: postedSchema,
      headers: [{ name: 'Idempotency-Key', description: 'Optional: the request\u2019s key (else the reference); send it again on a retry' }],
      errors: {
        409: 'A reference used before for another request, or a bank reference already credited to the wallet',
        422: 'Another request under the same Idempotency-Key (idempotency.key_reused), or invalid input',
      },
    },
    async (req, ctx, res) => answer(ctx, res, await topUpOnce(ctx, String(req.params.id), req.body, keyHeader(req)), 'api:wallets.topped_up'),
  );
  wallets.post(
    '/:id/adjust',
    {
      summary: 'Correct a balance with a credit or a debit (never below zero), with its reason. Idempotent like a top-up',
      permission: 'adjust wallets',
      body: walletAdjustSchema,
      response: postedSchema,
      headers: [{ name: 'Idempotency-Key', description: 'Optional: the request\u2019s key (else the reference); send it again on a retry' }],
      errors: {
        409: 'A reference used before for another request',
        422: 'Another request under the same Idempotency-Key (idempotency.key_reused), or invalid input',
      },
    },
    async (req, ctx, res) => {
      const outcome = await adjustOnce(ctx, String(req.params.id), req.body, keyHeader(req));
      // After the commit, never awaited: the alert's email must not hold up the answer.
      if (!outcome.replayed && req.body.type === 'debit') void noticeLowBalance(ctx, outcome.walletId);
      return answer(ctx, res, outcome, 'api:wallets.adjusted');
    },
  );
  wallets.put(
    '/:id/low-balance-alert',
    {
      summary: "Set (or with null clear) a dealer's low-balance alert: one email when a sale leaves the balance below the threshold",
      permission: 'adjust wallets',
      body: lowBalanceAlertSchema,
      response: walletResponseSchema,
    },
    async (req, ctx) => {
      const { threshold } = req.body as { threshold: number | null };
      await transact(ctx, (tctx) => setLowBalanceThreshold(tctx, String(req.params.id), threshold));
      return {
        message: threshold === null ? 'api:wallets.low_balance_alert_cleared' : 'api:wallets.low_balance_alert_saved',
        data: await findWallet(ctx, String(req.params.id)),
      };
    },
  );

  mine.put(
    '/low-balance-alert',
    {
      summary: 'The signed-in dealer sets (or with null clears) its low-balance alert',
      permission: 'view own wallet',
      body: lowBalanceAlertSchema,
      response: walletResponseSchema,
      errors: { 404: 'The dealer has no wallet yet' },
    },
    async (req, ctx) => {
      const { threshold } = req.body as { threshold: number | null };
      const wallet = await setOwnLowBalanceThreshold(ctx, threshold);
      return { message: threshold === null ? 'api:wallets.low_balance_alert_cleared' : 'api:wallets.low_balance_alert_saved', data: wallet };
    },
  );
  mine.get(
    '/',
    {
      summary: "The signed-in dealer's wallet, latest transactions and last 30 days",
      permission: 'view own wallet',
      response: myWalletResponseSchema,
      errors: { 404: 'The dealer has no wallet yet' },
    },
    async (_req, ctx) => ({ data: await myWallet(ctx) }),
  );

  // Literal path before any parameter.
  ledger.get(
    '/export',
    {
      summary: 'The filtered ledger as CSV (up to 50,000 rows)',
      permission: 'view wallet transactions',
      query: transactionListQuery.extend(csvExportParams),
      response: null,
      downloads: ['text/csv'],
    },
    async (req, ctx, res: Response) => {
      const { rows, timezone } = await exportTransactions(ctx, queryOf<TransactionFilters>(req), EXPORT_LIMIT);
      const header = csvColumns(ctx.t, [
        'id',
        'created_at',
        'dealer',
        'dealer_code',
        'type',
        'kind',
        'amount',
        'balance_before',
        'balance_after',
        'reference',
        'note',
        'recharge_id',
        'actor',
      ]);
      const lines = rows.map((t) => [
        t.id,
        t.created_at,
        t.dealer.name,
        t.dealer.dealer_code,
        csvWord(ctx.t, 'types', t.type),
        csvWord(ctx.t, 'kinds', t.kind),
        t.amount,
        t.balance_before,
        t.balance_after,
        t.reference,
        t.note,
        t.recharge_id,
        t.actor?.name,
      ]);
      sendCsv(res, `wallet-transactions-${zonedDay(new Date(), timezone)}.csv`, header, lines, {
        timeZone: timezone,
        headers: (req.query as { headers?: CsvHeaders }).headers,
      });
    },
  );
  ledger.get(
    '/',
    {
      summary: 'The ledger: filter by wallet_id, dealer_id, type, kind, from, to (days), recharge_id, q (reference)',
      permission: 'view wallet transactions',
      query: transactionListQuery,
      list: true,
      response: walletTransactionResponseSchema,
    },
    async (req, ctx) => {
      const q = queryOf<TransactionFilters>(req);
      return listTransactions(ctx, q, q);
    },
  );

  requests.get(
    '/',
    {
      summary: 'Top-up requests (a dealer: its own)',
      anyPermission: ['request wallet top-ups', 'review wallet top-ups'],
      query: requestListQuery,
      list: true,
      response: topUpRequestResponseSchema,
    },
    async (req, ctx) => {
      const q = queryOf<TopUpRequestFilters>(req);
      return listRequests(ctx, q, q);
    },
  );
  requests.post(
    '/',
    {
      summary:
        'A dealer asks for a top-up (multipart with an optional receipt image). A 409 when the bank reference was already credited to its wallet or is in a pending request of it',
      permission: 'request wallet top-ups',
      body: topUpRequestSchema,
      upload: imageUpload('receipt'),
      files: ['receipt'],
      status: 201,
      response: topUpRequestResponseSchema,
      errors: { 409: 'The bank reference was already credited to the wallet, or is in a pending request' },
    },
    async (req, ctx) => ({ message: 'api:wallets.request_sent', data: await submitRequest(ctx, storage, req.body, await checkedImage(req, 'receipt')) }),
  );
  // Literal paths before /:id.
  requests.get(
    '/pending-count',
    {
      summary: 'How many top-up and payout requests wait for a decision (the Wallets menu badge)',
      permission: 'review wallet top-ups',
      response: z.object({ count: z.number().int() }),
    },
    async (_req, ctx) => ({ data: { count: await pendingRequestCount(ctx) } }),
  );
  requests.get(
    '/payment-details',
    {
      summary:
        "Where a dealer pays a top-up in: the company's active payment methods with an account number or instructions (names, numbers, instructions), and the company's phone",
      permission: 'request wallet top-ups',
      response: topUpPaymentDetailsSchema,
    },
    async (_req, ctx) => ({ data: await topUpPaymentDetails(ctx) }),
  );
  requests.post(
    '/payout',
    {
      summary:
        'A "Profit Only" dealer asks for its profit to be paid out to a mobile number: at most its balance less its pending payouts. Approved like a top-up request, which debits the wallet (a payout ledger row)',
      permission: 'request wallet top-ups',
      body: payoutRequestSchema,
      status: 201,
      response: topUpRequestResponseSchema,
      errors: { 422: 'Not a "Profit Only" dealer, an amount above what the wallet holds, or an invalid mobile number' },
    },
    async (req, ctx) => ({ message: 'api:wallets.payout_sent', data: await requestPayout(ctx, req.body) }),
  );
  requests.get(
    '/:id',
    { summary: 'One top-up request', anyPermission: ['request wallet top-ups', 'review wallet top-ups'], response: topUpRequestResponseSchema },
    async (req, ctx) => ({ data: await findRequest(ctx, String(req.params.id)) }),
  );
  requests.post(
    '/:id/approve',
    {
      summary:
        'Approve: credit the wallet once (a payout: debit it once, a 422 when the balance is short). A 409 when the request was already decided, or when its bank reference was credited to the wallet meanwhile (the request stays pending)',
      permission: 'review wallet top-ups',
      response: topUpRequestResponseSchema,
      errors: { 409: 'The request was already decided, or its bank reference was credited meanwhile' },
    },
    async (req, ctx) => {
      await approveRequestOnce(ctx, String(req.params.id));
      const decided = await findRequest(ctx, String(req.params.id));
      // A payout takes the money out: its toast must not say "credited".
      return { message: decided.kind === 'payout' ? 'api:wallets.payout_approved' : 'api:wallets.request_approved', data: decided };
    },
  );
  requests.post(
    '/:id/reject',
    {
      summary: 'Reject with a reason',
      permission: 'review wallet top-ups',
      body: rejectTopUpSchema,
      response: topUpRequestResponseSchema,
      errors: { 409: 'The request was already decided' },
    },
    async (req, ctx) => {
      await transact(ctx, (tctx) => rejectRequest(tctx, String(req.params.id), req.body.reason));
      const decided = await findRequest(ctx, String(req.params.id));
      return { message: decided.kind === 'payout' ? 'api:wallets.payout_rejected' : 'api:wallets.request_rejected', data: decided };
    },
  );

  missed.get(
    '/export',
    {
      summary: 'The filtered missed sales as CSV (up to 50,000 rows)',
      permission: 'view recharges',
      query: missedListQuery.extend(csvExportParams),
      response: null,
      downloads: ['text/csv'],
    },
    async (req, ctx, res: Response) => {
      const { rows, seesCost, timezone } = await exportMissedSales(ctx, queryOf<MissedSaleFilters>(req), EXPORT_LIMIT);
      const header = csvColumns(ctx.t, ['id', 'created_at', 'dealer', 'dealer_code', 'bundle_id', 'bundle', 'amount', ...(seesCost ? ['cost'] : [])]);
      const lines = rows.map((m) => [
        m.id,
        m.created_at,
        m.dealer.name,
        m.dealer.dealer_code,
        m.bundle_id,
        m.bundle_name,
        m.amount,
        ...(seesCost ? [m.cost] : []),
      ]);
      sendCsv(res, `missed-sales-${zonedDay(new Date(), timezone)}.csv`, header, lines, {
        timeZone: timezone,
        headers: (req.query as { headers?: CsvHeaders }).headers,
      });
    },
  );
  missed.get(
    '/',
    {
      summary:
        'Sales refused because the wallet could not pay their cost, newest first: filter by dealer_id, from, to (days in the company time zone); a dealer sees its own',
      permission: 'view recharges',
      query: missedListQuery,
      list: true,
      response: missedSaleResponseSchema,
    },
    async (req, ctx) => {
      const q = queryOf<MissedSaleFilters>(req);
      return listMissedSales(ctx, q, q);
    },
  );

  return { wallets, mine, ledger, requests, missed };
}
