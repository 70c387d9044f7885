import type { Request, Response } from 'express';
import { z } from 'zod';
import { dateParam, rechargeResponseSchema, RECHARGE_STATUSES, walletTransactionResponseSchema } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { sendCsv } from '../http/csv.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { decodeId } from '../http/ids.ts';
import { AppError, notFound } from '../http/errors.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE } from '../http/list-query.ts';
import { fromDbTime, startOfZonedDay, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { presentTransaction, transactionQuery } from '../wallets/wallet.service.ts';
import { failRecharge, presentRecharge, rechargeQuery } from './recharge.service.ts';

const listQuery = z.object({
  dealer_id: z.string().optional(),
  provider_id: z.string().optional(),
  status: z.enum(RECHARGE_STATUSES, { message: 'validation:recharge_status_invalid' }).optional(),
  from: dateParam,
  to: dateParam,
  phone: z.string().max(32).optional(),
  q: z.string().max(64).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
});

const timelineSchema = z.object({
  recharge: rechargeResponseSchema,
  timeline: z.array(z.object({ at: z.string(), event: z.string(), detail: z.string().nullable() })),
  transactions: z.array(walletTransactionResponseSchema),
});

/** A recharge is stuck when it has been pending or processing for this long. */
const STUCK_AFTER_MS = 15 * 60_000;

/** /recharges: the console's list (dealers: their own), detail with timeline, manual retry and refund, CSV. */
export function rechargeRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/recharges', 'Recharges');

  const filtered = async (req: Request, ctx: ServiceContext) => {
    const f = req.query as Record<string, string | undefined>;
    const { timezone } = await readCompanySettings(ctx.db);
    const qb = rechargeQuery(ctx.db);
    if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
    if (f.dealer_id) qb.where('recharges.dealer_id', decodeId(f.dealer_id) ?? 0);
    if (f.provider_id) qb.where('recharges.provider_id', decodeId(f.provider_id) ?? 0);
    if (f.status) qb.where('recharges.status', f.status);
    if (f.from) qb.where('recharges.created_at', '>=', toDbTime(startOfZonedDay(f.from, timezone)));
    if (f.to) qb.where('recharges.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timezone).getTime() + 86_400_000)));
    const phone = (f.phone ?? '').replace(/\D/g, '').replace(/^(?:00252|252|0)/, '');
    if (phone) qb.where('recharges.phone', 'like', `%${phone}%`);
    if (f.q) qb.where((w) => w.where('recharges.reference', f.q!.trim().toUpperCase()).orWhere('recharges.payment_reference', f.q!.trim()).orWhere('recharges.operator_reference', f.q!.trim()));
    return { qb };
  };
  const seesCost = (ctx: ServiceContext) => ctx.actor.permissions.has('view bundles prices');
  const one = async (ctx: ServiceContext, raw: string) => {
    const id = decodeId(raw);
    const qb = rechargeQuery(ctx.db).where('recharges.id', id ?? 0);
    if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
    const row = id ? await qb.first() : undefined;
    if (!row) throw notFound();
    return row as Record<string, any>;
  };

  api.get('/export', { summary: 'The filtered recharges as CSV (up to 50,000 rows)', permission: 'view recharges', query: listQuery, response: null }, async (req, ctx, res: Response) => {
    const rows = (await (await filtered(req, ctx)).qb.orderBy('recharges.id', 'desc').limit(50_000)).map((r: Record<string, any>) => presentRecharge(r, seesCost(ctx)));
    const cost = seesCost(ctx);
    const header = ['id', 'reference', 'created_at', 'dealer', 'provider', 'bundle', 'phone', 'status', 'amount', ...(cost ? ['cost', 'profit'] : []), 'currency', 'payment_reference', 'operator_reference', 'failure_reason'];
    const lines = rows.map((r) => [r.id, r.reference, r.created_at, r.dealer.name, r.provider_name, r.bundle_name, r.phone, r.status, r.amount, ...(cost ? [r.cost, r.profit] : []), r.currency, r.payment_reference, r.operator_reference, r.failure_reason]);
    sendCsv(res, `recharges-${new Date().toISOString().slice(0, 10)}.csv`, header, lines);
  });

  api.get('/', { summary: 'Recharges: filter dealer_id, provider_id, status, from, to (days), phone, q (a reference)', permission: 'view recharges', query: listQuery, list: true, response: rechargeResponseSchema }, async (req, ctx) => {
    const { qb } = await filtered(req, ctx);
    const q = req.query as Record<string, string | undefined>;
    const page = Math.min(1_000_000, Math.max(1, Math.floor(Number(q.page) || 1)));
    const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(q.per_page) || DEFAULT_PER_PAGE)));
    const order = (q.order ?? 'desc').toLowerCase() === 'asc' ? 'asc' : 'desc';
    const countRow = await qb.clone().clearSelect().clearOrder().count({ n: '*' }).first();
    const total = Number((countRow as { n: number | string } | undefined)?.n ?? 0);
    const rows = await qb.orderBy('recharges.id', order).limit(perPage).offset((page - 1) * perPage);
    return { data: rows.map((r: Record<string, any>) => presentRecharge(r, seesCost(ctx))), meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) } };
  });

  api.get('/:id', { summary: 'One recharge with its timeline and wallet transactions', permission: 'view recharges', response: timelineSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    const log = await ctx.db('activity_log').where({ subject_type: 'recharge', subject_id: row.id }).orderBy('id').select('action', 'created_at', 'after');
    const transactions = await transactionQuery(ctx.db).where('wallet_transactions.recharge_id', row.id).orderBy('wallet_transactions.id');
    const timeline = log.map((l: { action: string; created_at: string; after: string | null }) => ({ at: fromDbTime(l.created_at)!, event: l.action, detail: l.after }));
    return { data: { recharge: presentRecharge(row, seesCost(ctx)), timeline, transactions: transactions.map(presentTransaction) } };
  });

  /** A failed recharge that moved no money is asked again (the payer is prompted again). */
  api.post('/:id/retry', { summary: 'Try a failed recharge again (only one that moved no money)', permission: 'retry recharges', response: rechargeResponseSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    await transact(ctx, async (tctx) => {
      const moved = await tctx.db('wallet_transactions').where({ recharge_id: row.id }).first('id');
      if (moved || row.payment_reference) throw new AppError(409, 'api:recharges.retry_not_possible');
      const won = await tctx.db('recharges').where({ id: row.id, status: 'failed' }).update({ status: 'pending', attempts: 0, next_attempt_at: null, failure_reason: null, failed_at: null, updated_at: toDbTime() });
      if (!won) throw new AppError(409, 'api:recharges.retry_not_possible');
      await recordActivity(tctx, { action: 'recharge_retried', subjectType: 'recharge', subjectId: row.id });
    });
    return { message: 'api:recharges.retried', data: presentRecharge(await one(ctx, String(row.id)), seesCost(ctx)) };
  });

  /** A recharge stuck in pending or processing (or failed without its refund) is settled as refunded: once. */
  api.post('/:id/refund', { summary: 'Refund a stuck recharge (pending or processing for 15 minutes, or failed): credits back what was debited, once', permission: 'refund recharges', response: rechargeResponseSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    const age = Date.now() - new Date(fromDbTime(row.processing_started_at ?? row.created_at)!).getTime();
    const stuck = (row.status === 'pending' || row.status === 'processing') && age >= STUCK_AFTER_MS;
    if (!stuck && row.status !== 'failed') throw new AppError(409, 'api:recharges.refund_not_possible');
    const done = await failRecharge(ctx, row.id, `Refunded by hand by ${ctx.actor.user?.name ?? 'an admin'}.`, { from: [row.status] as ('pending' | 'processing' | 'failed')[] });
    if (!done) throw new AppError(409, 'api:recharges.refund_not_possible');
    return { message: 'api:recharges.refunded', data: presentRecharge(await one(ctx, String(row.id)), seesCost(ctx)) };
  });

  return api;
}
