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
  lowBalanceAlertSchema,
  missedSaleResponseSchema,
  toMinor,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { sendCsv } from '../http/csv.ts';
import { zonedDay } from '../database/time.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { fieldError } from '../http/errors.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE, likePattern } from '../http/list-query.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { adjustOnce, applyTransactionFilters, dailySeries, findWallet, noWallet, presentTransaction, presentWallet, setLowBalanceThreshold, topUpOnce, transactionQuery, walletOfDealer, walletQuery, type MoneyOutcome, type TransactionFilters } from './wallet.service.ts';
import { approveRequest, createRequest, findRequest, presentRequest, rejectRequest, requestQuery } from './top-up-requests.ts';
import { noticeLowBalance } from './low-balance.ts';
import { missedSaleQuery, missedSalesToday, presentMissedSale, type MissedSaleFilters } from './missed-sales.ts';
import { decodeId } from '../http/ids.ts';

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
const missedListQuery = z.object({
  dealer_id: z.string().optional(),
  from: dateParam,
  to: dateParam,
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
});
const postedSchema = z.object({
  wallet: walletResponseSchema,
  transaction: walletTransactionResponseSchema,
  replayed: z.boolean().describe('True when this answers an earlier request with the same idempotency key (also the header Idempotent-Replayed: true); nothing was credited again'),
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
  // The first answer and every replay of it are the same body: the ledger row, the message from
  // its balance_after, the wallet as it is now; a replay says so (replayed, Idempotent-Replayed).
  const answer = async (ctx: ServiceContext, res: Response, outcome: MoneyOutcome, message: string) => {
    const data = await posted(ctx, outcome.walletId, outcome.transactionId);
    if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return { message, messageVars: { amount: data.transaction.amount, balance: data.transaction.balance_after }, data: { ...data, replayed: outcome.replayed } };
  };
  const keyHeader = (req: Request) => req.get('idempotency-key') ?? null;

  wallets.post(
    '/:id/top-up',
    { summary: "Credit a dealer's wallet with money it paid in. Idempotent: by the Idempotency-Key header when sent, else by the reference (per wallet); a repeat answers the first result with replayed: true, a different request under a used key is a 409", permission: 'top up wallets', body: walletTopUpSchema, response: postedSchema },
    async (req, ctx, res) => answer(ctx, res, await topUpOnce(ctx, String(req.params.id), req.body, keyHeader(req)), 'api:wallets.topped_up'),
  );
  wallets.post(
    '/:id/adjust',
    { summary: 'Correct a balance with a credit or a debit (never below zero), with its reason. Idempotent like a top-up', permission: 'adjust wallets', body: walletAdjustSchema, response: postedSchema },
    async (req, ctx, res) => {
      const outcome = await adjustOnce(ctx, String(req.params.id), req.body, keyHeader(req));
      // After the commit, never awaited: the alert's email must not hold up the answer.
      if (!outcome.replayed && req.body.type === 'debit') void noticeLowBalance(ctx, outcome.walletId);
      return answer(ctx, res, outcome, 'api:wallets.adjusted');
    },
  );
  wallets.put(
    '/:id/low-balance-alert',
    { summary: "Set (or with null clear) a dealer's low-balance alert: one email when a sale leaves the balance below the threshold", permission: 'adjust wallets', body: lowBalanceAlertSchema, response: walletResponseSchema },
    async (req, ctx) => {
      const { threshold } = req.body as { threshold: number | null };
      await transact(ctx, (tctx) => setLowBalanceThreshold(tctx, String(req.params.id), threshold));
      return { message: threshold === null ? 'api:wallets.low_balance_alert_cleared' : 'api:wallets.low_balance_alert_saved', data: await findWallet(ctx, String(req.params.id)) };
    },
  );

  mine.put(
    '/low-balance-alert',
    { summary: 'The signed-in dealer sets (or with null clears) its low-balance alert', permission: 'view own wallet', body: lowBalanceAlertSchema, response: walletResponseSchema },
    async (req, ctx) => {
      if (!isDealer(ctx.actor)) throw noWallet();
      const wallet = await walletOfDealer(ctx.db, ctx.actor.id!);
      if (!wallet) throw noWallet();
      const { threshold } = req.body as { threshold: number | null };
      await transact(ctx, (tctx) => setLowBalanceThreshold(tctx, wallet.id, threshold));
      return { message: threshold === null ? 'api:wallets.low_balance_alert_cleared' : 'api:wallets.low_balance_alert_saved', data: await findWallet(ctx, wallet.id) };
    },
  );
  mine.get('/', { summary: "The signed-in dealer's wallet, latest transactions and last 30 days", permission: 'view own wallet', response: myWalletResponseSchema }, async (_req, ctx) => {
    if (!isDealer(ctx.actor)) throw noWallet();
    const wallet = await walletOfDealer(ctx.db, ctx.actor.id!);
    if (!wallet) throw noWallet();
    const { timezone } = await readCompanySettings(ctx.db);
    const latest = await transactionQuery(ctx.db).where('wallet_transactions.wallet_id', wallet.id).orderBy('wallet_transactions.id', 'desc').limit(10);
    const pending = await ctx.db('wallet_top_up_requests').where({ wallet_id: wallet.id, status: 'pending' }).count({ n: '*' }).first();
    const balance = toMinor(wallet.balance) ?? 0;
    return {
      data: {
        wallet,
        transactions: latest.map(presentTransaction),
        days: await dailySeries(ctx.db, wallet.id, balance, timezone),
        pending_top_ups: Number((pending as { n: number | string }).n),
        missed_sales_today: await missedSalesToday(ctx.db, ctx.actor.id!, timezone),
      },
    };
  });

  const filtered = async (req: Request, ctx: ServiceContext) => {
    const { timezone } = await readCompanySettings(ctx.db);
    const qb = transactionQuery(ctx.db);
    applyTransactionFilters(qb, ctx, req.query as TransactionFilters, timezone);
    // Wrapped: a knex builder is thenable, so returning it from an async function would run it.
    return { qb, timezone };
  };
  // Literal path before any parameter.
  ledger.get('/export', { summary: 'The filtered ledger as CSV (up to 50,000 rows)', permission: 'view wallet transactions', query: transactionListQuery, response: null }, async (req, ctx, res: Response) => {
    const { qb, timezone } = await filtered(req, ctx);
    const rows = await qb.orderBy('wallet_transactions.id', 'desc').limit(EXPORT_LIMIT);
    const header = ['id', 'created_at', 'dealer', 'dealer_code', 'type', 'kind', 'amount', 'balance_before', 'balance_after', 'reference', 'note', 'recharge_id', 'actor'];
    const lines = rows.map(presentTransaction).map((t) => [t.id, t.created_at, t.dealer.name, t.dealer.dealer_code, t.type, t.kind, t.amount, t.balance_before, t.balance_after, t.reference, t.note, t.recharge_id, t.actor?.name]);
    sendCsv(res, `wallet-transactions-${zonedDay(new Date(), timezone)}.csv`, header, lines, { timeZone: timezone });
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

  const missedFiltered = async (req: Request, ctx: ServiceContext) => {
    const q = req.query as MissedSaleFilters;
    if (q.from && q.to && q.from > q.to) throw fieldError('from', 'validation:date_range_invalid');
    const { timezone } = await readCompanySettings(ctx.db);
    // Wrapped: a knex builder is thenable (see `filtered`).
    return { qb: missedSaleQuery(ctx, q, timezone), seesCost: ctx.actor.permissions.has('view bundles prices'), timezone };
  };
  missed.get('/export', { summary: 'The filtered missed sales as CSV (up to 50,000 rows)', permission: 'view recharges', query: missedListQuery, response: null }, async (req, ctx, res: Response) => {
    const { qb, seesCost, timezone } = await missedFiltered(req, ctx);
    const rows = (await qb.orderBy('missed_sales.created_at', 'desc').orderBy('missed_sales.id', 'desc').limit(EXPORT_LIMIT)).map((r: Record<string, any>) => presentMissedSale(r, seesCost));
    const header = ['id', 'created_at', 'dealer', 'dealer_code', 'bundle_id', 'bundle', 'amount', ...(seesCost ? ['cost'] : [])];
    const lines = rows.map((m) => [m.id, m.created_at, m.dealer.name, m.dealer.dealer_code, m.bundle_id, m.bundle_name, m.amount, ...(seesCost ? [m.cost] : [])]);
    sendCsv(res, `missed-sales-${zonedDay(new Date(), timezone)}.csv`, header, lines, { timeZone: timezone });
  });
  missed.get(
    '/',
    { summary: 'Sales refused because the wallet could not pay their cost, newest first: filter by dealer_id, from, to (days in the company time zone); a dealer sees its own', permission: 'view recharges', query: missedListQuery, list: true, response: missedSaleResponseSchema },
    async (req, ctx) => {
      const { qb, seesCost } = await missedFiltered(req, ctx);
      return paged(qb, req, 'missed_sales.created_at', (r) => presentMissedSale(r, seesCost), 'missed_sales.id');
    },
  );

  return { wallets, mine, ledger, requests, missed };
}
