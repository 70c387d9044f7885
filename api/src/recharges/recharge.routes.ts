import type { Request, Response } from 'express';
import { z } from 'zod';
import { dateParam, rechargeResponseSchema, remoteCallResponseSchema, RECHARGE_STATUSES, settleRechargeSchema, walletTransactionResponseSchema, type SettleRechargeInput } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { sendCsv } from '../http/csv.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { decodeId } from '../http/ids.ts';
import { AppError, notFound } from '../http/errors.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE } from '../http/list-query.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { presentTransaction, transactionQuery } from '../wallets/wallet.service.ts';
import { credit } from '../wallets/ledger.ts';
import { presentRecharge, rechargeQuery } from './recharge.service.ts';
import { presentRemoteCall } from './remote-calls.ts';
import type { PaymentAdapter, PaymentFlow } from './adapters/payment-adapter.ts';

/** What the money routes need from the running process: the gateway (manual refunds) and the worker. */
export interface RechargeMoney {
  payment?: PaymentAdapter;
  wake?: () => void;
}

const listQuery = z.object({
  dealer_id: z.string().optional(),
  provider_id: z.string().optional(),
  status: z.enum(RECHARGE_STATUSES, { message: 'validation:recharge_status_invalid' }).optional(),
  from: dateParam,
  to: dateParam,
  // Digits with the usual separators: anything else would be stripped to nothing and filter nothing.
  phone: z.string().max(32).regex(/^[\d\s+().-]*$/, { message: 'validation:phone_filter_invalid' }).optional(),
  q: z.string().max(64).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
  order: z.enum(['asc', 'desc', 'ASC', 'DESC'], { message: 'api:errors.order_invalid' }).optional(),
});

const timelineSchema = z.object({
  recharge: rechargeResponseSchema,
  timeline: z.array(z.object({ at: z.string(), event: z.string(), detail: z.string().nullable() })),
  transactions: z.array(walletTransactionResponseSchema),
  remote_calls: z.array(remoteCallResponseSchema).describe('Every request to the gateway and the aggregator for this sale (empty for dealers)'),
});

/** /recharges: the console's list (dealers: their own), detail with timeline, manual retry and refund, CSV. */
export function rechargeRoutes(registry: OpenApiRegistry, money: RechargeMoney = {}) {
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
    return { qb, timezone };
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
    const { qb, timezone } = await filtered(req, ctx);
    const rows = (await qb.orderBy('recharges.id', 'desc').limit(50_000)).map((r: Record<string, any>) => presentRecharge(r, seesCost(ctx)));
    const cost = seesCost(ctx);
    const header = ['id', 'reference', 'created_at', 'dealer', 'provider', 'bundle', 'phone', 'status', 'amount', ...(cost ? ['cost', 'profit'] : []), 'currency', 'payment_reference', 'operator_reference', 'failure_reason'];
    const lines = rows.map((r) => [r.id, r.reference, r.created_at, r.dealer.name, r.provider_name, r.bundle_name, r.phone, r.status, r.amount, ...(cost ? [r.cost, r.profit] : []), r.currency, r.payment_reference, r.operator_reference, r.failure_reason]);
    sendCsv(res, `recharges-${zonedDay(new Date(), timezone)}.csv`, header, lines, { timeZone: timezone });
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

  api.get('/review-count', { summary: 'How many sales wait for review (the console badge)', permission: 'review recharges', response: z.object({ count: z.number().int() }) }, async (_req, ctx) => {
    const row = await ctx.db('recharges').where('status', 'needs_review').count({ n: '*' }).first();
    return { data: { count: Number((row as { n: number | string }).n) } };
  });

  api.get('/:id', { summary: 'One recharge with its timeline, wallet transactions and (staff) the remote-call trail', permission: 'view recharges', response: timelineSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    const log = await ctx.db('activity_log').where({ subject_type: 'recharge', subject_id: row.id }).orderBy('id').select('action', 'created_at', 'after');
    const transactions = await transactionQuery(ctx.db).where('wallet_transactions.recharge_id', row.id).orderBy('wallet_transactions.id');
    const timeline = log.map((l: { action: string; created_at: string; after: string | null }) => ({ at: fromDbTime(l.created_at)!, event: l.action, detail: l.after }));
    // The gateway's and the aggregator's traffic is the company's: dealers see their sale, not it.
    const calls = isDealer(ctx.actor) ? [] : await ctx.db('remote_calls').where('recharge_id', row.id).orderBy('id').limit(500);
    return { data: { recharge: presentRecharge(row, seesCost(ctx)), timeline, transactions: transactions.map(presentTransaction), remote_calls: calls.map(presentRemoteCall) } };
  });

  /** A failed recharge that reached neither the gateway nor the operator is tried again (the payer is prompted again). */
  api.post('/:id/retry', { summary: 'Try a failed recharge again (only one that reached neither the gateway nor the operator)', permission: 'retry recharges', response: rechargeResponseSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    await transact(ctx, async (tctx) => {
      const moved = await tctx.db('wallet_transactions').where({ recharge_id: row.id }).first('id');
      if (moved || !['none', 'absent'].includes(row.payment_state) || row.delivery_state !== 'none') throw new AppError(409, 'api:recharges.retry_not_possible');
      const won = await tctx.db('recharges').where({ id: row.id, status: 'failed' }).whereIn('payment_state', ['none', 'absent'])// A new try: an earlier review's decision is about the old one, not this.
        .update({ status: 'pending', payment_state: 'none', attempts: 0, crashes: 0, unsure_since: null, next_attempt_at: null, failure_reason: null, failed_at: null, review_outcome: null, reviewed_by: null, reviewed_at: null, review_reason: null, needs_review_at: null, updated_at: toDbTime() });
      if (!won) throw new AppError(409, 'api:recharges.retry_not_possible');
      await recordActivity(tctx, { action: 'recharge_retried', subjectType: 'recharge', subjectId: row.id });
    });
    money.wake?.();
    return { message: 'api:recharges.retried', data: presentRecharge(await one(ctx, String(row.id)), seesCost(ctx)) };
  });

  /**
   * A failed sale whose money is not all back: the dealer's debit is credited back and the
   * customer's payment let go (a reserve) or reversed (a purchase) through the gateway, each once;
   * the original reason stays. 409 when nothing is left to refund. Ten at once: one refund.
   */
  api.post('/:id/refund', { summary: "Refund a failed sale by hand: the dealer's debit and the customer's payment, whatever is not back yet (409 when nothing is)", permission: 'refund recharges', response: rechargeResponseSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    const { releasePayment } = await transact(ctx, async (tctx) => {
      const r = await tctx.db('recharges').where({ id: row.id }).forUpdate().first();
      if (r.status !== 'failed' && r.status !== 'refunded') throw new AppError(409, 'api:recharges.refund_not_possible');
      const debited = await tctx.db('wallet_transactions').where({ recharge_id: r.id, kind: 'recharge_debit' }).first('amount', 'wallet_id');
      const debitBack = debited ? Boolean(await tctx.db('wallet_transactions').where({ recharge_id: r.id, kind: 'recharge_refund' }).first('id')) : true;
      const paymentHeld = r.payment_state === 'reserved' || r.payment_state === 'collected';
      if (debitBack && !paymentHeld) throw new AppError(409, 'api:recharges.nothing_to_refund');
      const now = toDbTime();
      if (!debitBack) await credit(tctx, debited.wallet_id, { kind: 'recharge_refund', amount: Number(debited.amount), rechargeId: r.id, reference: r.reference, note: 'Refunded by hand' });
      if (paymentHeld) await tctx.db('recharges').where({ id: r.id, payment_state: r.payment_state }).update({ payment_state: 'releasing' });
      await tctx.db('recharges').where({ id: r.id }).update({ status: 'refunded', refunded_at: r.refunded_at ?? now, updated_at: now });
      await recordActivity(tctx, { action: 'recharge_refunded_by_hand', subjectType: 'recharge', subjectId: r.id, before: { status: r.status, payment_state: r.payment_state }, after: { dealer_debit_returned: debitBack ? null : Number(debited.amount), payment: paymentHeld ? 'releasing' : r.payment_state } });
      return { releasePayment: paymentHeld ? { transactionId: r.payment_reference as string, flow: (r.payment_flow ?? 'purchase') as PaymentFlow, reference: r.reference as string } : null };
    });
    let message = 'api:recharges.refunded';
    if (releasePayment) {
      // Outside the transaction: the gateway's answer may take seconds. Unconfirmed, it stays
      // `releasing` and the reconciliation asks again.
      const done = money.payment ? await money.payment.release({ referenceId: releasePayment.reference, transactionId: releasePayment.transactionId, flow: releasePayment.flow }, { rechargeId: row.id }) : null;
      if (done?.status === 'done') await ctx.db('recharges').where({ id: row.id, payment_state: 'releasing' }).update({ payment_state: 'released', updated_at: toDbTime() });
      else message = 'api:recharges.payment_return_pending';
    }
    return { message, data: presentRecharge(await one(ctx, String(row.id)), seesCost(ctx)) };
  });

  /**
   * A sale in review settled by a person: the decision is recorded and the worker carries it out
   * (commits or lets go the customer's payment, settles the ledger), each step logged.
   */
  api.post('/:id/settle', { summary: 'Settle a sale in review as delivered or not delivered', permission: 'review recharges', body: settleRechargeSchema, response: rechargeResponseSchema }, async (req, ctx) => {
    const row = await one(ctx, String(req.params.id));
    const input = req.body as SettleRechargeInput;
    await transact(ctx, async (tctx) => {
      const now = toDbTime();
      const won = await tctx.db('recharges')
        .where({ id: row.id, status: 'needs_review' })
        .update({ status: 'pending', review_outcome: input.outcome, reviewed_by: ctx.actor.id, reviewed_at: now, next_attempt_at: null, unsure_since: null, crashes: 0, updated_at: now });
      if (!won) throw new AppError(409, 'api:recharges.settle_not_possible');
      await recordActivity(tctx, { action: 'recharge_settled_in_review', subjectType: 'recharge', subjectId: row.id, before: { status: 'needs_review', review_reason: row.review_reason }, after: { outcome: input.outcome, note: input.note } });
    });
    money.wake?.();
    return { message: `api:recharges.settled_${input.outcome}`, data: presentRecharge(await one(ctx, String(row.id)), seesCost(ctx)) };
  });

  return api;
}
