import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  dateParam,
  myWalletResponseSchema,
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
  formatMinor,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { sendCsv } from '../http/csv.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId } from '../http/ids.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE, likePattern } from '../http/list-query.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { adjust, applyTransactionFilters, dailySeries, findWallet, noWallet, presentTransaction, presentWallet, topUp, transactionQuery, walletOfDealer, walletQuery, type TransactionFilters } from './wallet.service.ts';
import { approveRequest, createRequest, findRequest, presentRequest, rejectRequest, requestQuery } from './top-up-requests.ts';

const page = (req: Request) => {
  const q = req.query as Record<string, string | undefined>;
  return {
    page: Math.min(1_000_000, Math.max(1, Math.floor(Number(q.page) || 1))),
    perPage: Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(q.per_page) || DEFAULT_PER_PAGE))),
    order: (q.order ?? '').toLowerCase() === 'asc' ? ('asc' as const) : ('desc' as const),
  };
};

async function paged<T>(qb: import('knex').Knex.QueryBuilder, req: Request, sortColumn: string, present: (r: Record<string, any>) => T, tieBreak: string) {
  const p = page(req);
  const countRow = await qb.clone().clearSelect().clearOrder().count({ n: '*' }).first();
  const total = Number((countRow as { n: number | string } | undefined)?.n ?? 0);
  const rows = await qb.orderBy(sortColumn, p.order).orderBy(tieBreak, p.order).limit(p.perPage).offset((p.page - 1) * p.perPage);
  return { data: rows.map(present), meta: { current_page: p.page, per_page: p.perPage, total, last_page: Math.max(1, Math.ceil(total / p.perPage)) } };
}

const walletListQuery = z.object({
  q: z.string().max(191).optional(),
  sort: z.enum(['balance', 'dealer', 'updated_at', 'id'], { message: 'api:errors.sort_invalid_wallets' }).optional(),
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
});
const transactionListQuery = z.object({
  wallet_id: z.string().optional(),
  dealer_id: z.string().optional(),
  type: z.enum(TRANSACTION_TYPES, { message: 'validation:transaction_type_invalid' }).optional(),
  kind: z.enum(TRANSACTION_KINDS, { message: 'validation:transaction_kind_invalid' }).optional(),
  from: dateParam,
  to: dateParam,
  recharge_id: z.string().optional(),
  q: z.string().max(128).optional(),
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
});
const requestListQuery = z.object({
  status: z.enum(TOP_UP_REQUEST_STATUSES, { message: 'validation:status_invalid' }).optional(),
  dealer_id: z.string().optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
});
const postedSchema = z.object({ wallet: walletResponseSchema, transaction: walletTransactionResponseSchema });

const EXPORT_LIMIT = 50_000;

/**
 * /wallets, /my-wallet, /wallet-transactions (+ /export) and /wallet-top-up-requests: reading
 * balances and the ledger, and the money actions. The ledger has no update or delete route.
 */
export function walletRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  const wallets = new ApiRouter(registry, '/wallets', 'Wallets');
  const mine = new ApiRouter(registry, '/my-wallet', 'Wallets');
  const ledger = new ApiRouter(registry, '/wallet-transactions', 'Wallets');
  const requests = new ApiRouter(registry, '/wallet-top-up-requests', 'Wallets');

  const posted = async (ctx: ServiceContext, walletId: number, transactionId: number) => ({
    wallet: await findWallet(ctx, walletId),
    transaction: presentTransaction(await transactionQuery(ctx.db).where('wallet_transactions.id', transactionId).first()),
  });

  wallets.get('/', { summary: "Every dealer's wallet and balance", permission: 'view wallets', query: walletListQuery, list: true, response: walletResponseSchema }, async (req, ctx) => {
    const qb = walletQuery(ctx.db).whereNull('users.deleted_at');
    const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    if (q) qb.where((w) => w.whereRaw("LOWER(users.name) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)]).orWhereRaw("LOWER(users.dealer_code) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)]));
    const sort = { balance: 'wallets.balance', dealer: 'users.name', updated_at: 'wallets.updated_at', id: 'wallets.id' }[String(req.query.sort ?? 'dealer')] ?? 'users.name';
    if (!req.query.order) req.query.order = sort === 'users.name' ? 'asc' : 'desc';
    return paged(qb, req, sort, presentWallet, 'wallets.id');
  });
  wallets.get('/:id', { summary: 'One wallet', permission: 'view wallets', response: walletResponseSchema }, async (req, ctx) => ({ data: await findWallet(ctx, String(req.params.id)) }));
  wallets.post('/:id/top-up', { summary: "Credit a dealer's wallet with money it paid in", permission: 'top up wallets', body: walletTopUpSchema, response: postedSchema }, async (req, ctx) => {
    const result = await transact(ctx, (tctx) => topUp(tctx, String(req.params.id), req.body));
    const data = await posted(ctx, decodeId(String(req.params.id))!, result.id);
    return { message: 'api:wallets.topped_up', messageVars: { amount: formatMinor(req.body.amount), balance: data.wallet.balance }, data };
  });
  wallets.post('/:id/adjust', { summary: 'Correct a balance with a credit or a debit (never below zero), with its reason', permission: 'adjust wallets', body: walletAdjustSchema, response: postedSchema }, async (req, ctx) => {
    const result = await transact(ctx, (tctx) => adjust(tctx, String(req.params.id), req.body));
    const data = await posted(ctx, decodeId(String(req.params.id))!, result.id);
    return { message: 'api:wallets.adjusted', messageVars: { balance: data.wallet.balance }, data };
  });

  mine.get('/', { summary: "The signed-in dealer's wallet, latest transactions and last 30 days", permission: 'view own wallet', response: myWalletResponseSchema }, async (_req, ctx) => {
    if (!isDealer(ctx.actor)) throw noWallet();
    const wallet = await walletOfDealer(ctx.db, ctx.actor.id!);
    if (!wallet) throw noWallet();
    const { timezone } = await readCompanySettings(ctx.db);
    const latest = await transactionQuery(ctx.db).where('wallet_transactions.wallet_id', wallet.id).orderBy('wallet_transactions.id', 'desc').limit(10);
    const pending = await ctx.db('wallet_top_up_requests').where({ wallet_id: wallet.id, status: 'pending' }).count({ n: '*' }).first();
    const balance = Math.round(Number(wallet.balance) * 100);
    return { data: { wallet, transactions: latest.map(presentTransaction), days: await dailySeries(ctx.db, wallet.id, balance, timezone), pending_top_ups: Number((pending as { n: number | string }).n) } };
  });

  const filtered = async (req: Request, ctx: ServiceContext) => {
    const { timezone } = await readCompanySettings(ctx.db);
    const qb = transactionQuery(ctx.db);
    applyTransactionFilters(qb, ctx, req.query as TransactionFilters, timezone);
    // Wrapped: a knex builder is thenable, so returning it from an async function would run it.
    return { qb };
  };
  // Literal path before any parameter.
  ledger.get('/export', { summary: 'The filtered ledger as CSV (up to 50,000 rows)', permission: 'view wallet transactions', query: transactionListQuery, response: null }, async (req, ctx, res: Response) => {
    const rows = await (await filtered(req, ctx)).qb.orderBy('wallet_transactions.id', 'desc').limit(EXPORT_LIMIT);
    const header = ['id', 'created_at', 'dealer', 'dealer_code', 'type', 'kind', 'amount', 'balance_before', 'balance_after', 'reference', 'note', 'recharge_id', 'actor'];
    const lines = rows.map(presentTransaction).map((t) => [t.id, t.created_at, t.dealer.name, t.dealer.dealer_code, t.type, t.kind, t.amount, t.balance_before, t.balance_after, t.reference, t.note, t.recharge_id, t.actor?.name]);
    sendCsv(res, `wallet-transactions-${new Date().toISOString().slice(0, 10)}.csv`, header, lines);
  });
  ledger.get('/', { summary: 'The ledger: filter by wallet_id, dealer_id, type, kind, from, to (days), recharge_id, q (reference)', permission: 'view wallet transactions', query: transactionListQuery, list: true, response: walletTransactionResponseSchema }, async (req, ctx) =>
    paged((await filtered(req, ctx)).qb, req, 'wallet_transactions.id', presentTransaction, 'wallet_transactions.id'),
  );

  requests.get('/', { summary: 'Top-up requests (a dealer: its own)', anyPermission: ['request wallet top-ups', 'review wallet top-ups'], query: requestListQuery, list: true, response: topUpRequestResponseSchema }, async (req, ctx) => {
    const qb = requestQuery(ctx.db);
    if (isDealer(ctx.actor) || !ctx.actor.permissions.has('review wallet top-ups')) qb.where('wallet_top_up_requests.dealer_id', ctx.actor.id ?? 0);
    if (typeof req.query.status === 'string') qb.where('wallet_top_up_requests.status', req.query.status);
    if (typeof req.query.dealer_id === 'string') qb.where('wallet_top_up_requests.dealer_id', decodeId(req.query.dealer_id) ?? 0);
    return paged(qb, req, 'wallet_top_up_requests.id', presentRequest, 'wallet_top_up_requests.id');
  });
  requests.post(
    '/',
    { summary: 'A dealer asks for a top-up (multipart with an optional receipt image)', permission: 'request wallet top-ups', body: topUpRequestSchema, upload: imageUpload('receipt'), files: ['receipt'], status: 201, response: topUpRequestResponseSchema },
    async (req, ctx) => {
      const image = await checkedImage(req, 'receipt');
      const receipt = image ? await storage.put('receipts', image.extension, image.bytes) : null;
      try {
        const id = await transact(ctx, (tctx) => createRequest(tctx, { ...req.body, receipt_path: receipt }));
        return { message: 'api:wallets.request_sent', data: await findRequest(ctx, id) };
      } catch (err) {
        if (receipt) await storage.remove(receipt);
        throw err;
      }
    },
  );
  requests.get('/:id', { summary: 'One top-up request', anyPermission: ['request wallet top-ups', 'review wallet top-ups'], response: topUpRequestResponseSchema }, async (req, ctx) => ({ data: await findRequest(ctx, String(req.params.id)) }));
  requests.post('/:id/approve', { summary: 'Approve: credit the wallet once', permission: 'review wallet top-ups', response: topUpRequestResponseSchema }, async (req, ctx) => {
    await transact(ctx, (tctx) => approveRequest(tctx, String(req.params.id)));
    return { message: 'api:wallets.request_approved', data: await findRequest(ctx, String(req.params.id)) };
  });
  requests.post('/:id/reject', { summary: 'Reject with a reason', permission: 'review wallet top-ups', body: rejectTopUpSchema, response: topUpRequestResponseSchema }, async (req, ctx) => {
    await transact(ctx, (tctx) => rejectRequest(tctx, String(req.params.id), req.body.reason));
    return { message: 'api:wallets.request_rejected', data: await findRequest(ctx, String(req.params.id)) };
  });

  return { wallets, mine, ledger, requests };
}
