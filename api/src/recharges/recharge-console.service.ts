import type { SaleMode } from '../platform/sale-mode.ts';
import {
  nationalNumber,
  type PaidBackInput,
  type RechargeListSort,
  type PaymentState,
  formatMinor,
  type RechargeResponse,
  type RechargeStatus,
  type RemoteCallResponse,
  type SettleRechargeInput,
  type WalletTransactionResponse,
} from '@app/contracts';
import type { Knex } from 'knex';
import { decodeId } from '../http/ids.ts';
import { AppError, fieldError, notFound } from '../http/errors.ts';
import { pageParams, type Page } from '../http/list-query.ts';
import { fromDbTime, startOfZonedDay, toDbTime } from '../database/time.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { presentTransaction, transactionQuery } from '../wallets/wallet.service.ts';
import { credit, debit } from '../wallets/ledger.ts';
import type { WalletTransactionListRow } from '../wallets/wallet-rows.ts';
import { presentRecharge, rechargeQuery, SANDBOX } from './recharge.service.ts';
import { presentRemoteCall } from './remote-calls.ts';
import type { RechargeListRow, RechargeRow, RemoteCallRow } from './recharge-rows.ts';
import type { PaymentAdapter, PaymentFlow } from '../connectors/payments/payment-adapter.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';
import { raiseSaleEvent } from './sale-events.ts';
import { paymentAwaitsCheck } from './fulfilment/sale-checks.ts';
import { seesMargin } from '../reports/margins.service.ts';

/**
 * What the console does with sales (GET/POST /recharges): find and list them (a dealer only its
 * own), show one with its timeline, and the people's money actions: retry, refund by hand, settle
 * a sale in review. Routes, the CLI and tests call these with a service context, never a request.
 */

/** What the money actions need from the running process: the gateway (manual refunds) and the worker. */
export interface RechargeMoney {
  /** The gateway new sales use, or every gateway this process knows: a refund goes through the sale's own. */
  payment?: PaymentAdapter | PaymentGateways;
  wake?: () => void;
}

export interface RechargeFilters {
  /** live (the default: the console's lists are live money's) or test (a test key's sandbox sales). */
  mode?: SaleMode;
  dealer_id?: string;
  provider_id?: string;
  /** One status, or any of several. */
  status?: RechargeStatus | readonly RechargeStatus[];
  /** Where the customer's payment stands, e.g. `refund_due`: money to pay back by hand. */
  payment_state?: PaymentState;
  /** Days (YYYY-MM-DD) in the company's time zone. */
  from?: string;
  to?: string;
  phone?: string;
  /** A reference: ours, the gateway's or the operator's. */
  q?: string;
  /** The number topped up, exactly (national form, 615123456): the reseller's `phone`. */
  national_phone?: string;
  /** The integrator's own reference, exactly. */
  client_reference?: string;
  /** The reseller's `q`: the sale's reference, its phone or its client_reference, each exactly. */
  match?: string;
}

/** The orders a list of sales offers; `id` (the console's default) is the order they were made in. */
export const RECHARGE_SORT_COLUMNS: Record<RechargeSort, string> = {
  id: 'recharges.id',
  created_at: 'recharges.created_at',
  amount: 'recharges.amount',
  status: 'recharges.status',
  completed_at: 'recharges.completed_at',
};
export type RechargeSort = RechargeListSort | 'id';
export const RECHARGE_SORTS = Object.keys(RECHARGE_SORT_COLUMNS) as [RechargeSort, ...RechargeSort[]];

export interface RechargePageRequest {
  page?: string;
  per_page?: string;
  /** One of RECHARGE_SORTS (default id); ties are broken by id in the same direction, so pages never overlap. */
  sort?: string;
  order?: string;
}

export interface RechargeDetail {
  recharge: RechargeResponse;
  timeline: { at: string; event: string; detail: string | null }[];
  transactions: WalletTransactionResponse[];
  remote_calls: RemoteCallResponse[];
}

/** Cost and profit are shown only to those who may see the company's cost prices. */
const seesCost = (ctx: ServiceContext) => ctx.actor.permissions.has('view bundles prices');
/** The aggregator's cost and the real margin are the company's: staff only (a dealer never), each with its permissions. */
const companyView = (ctx: ServiceContext) => ({ cost: seesCost(ctx) && !isDealer(ctx.actor), margin: seesMargin(ctx.actor) });

/** The filtered sales the caller may see, and the company's time zone they were read in. */
async function filtered(ctx: ServiceContext, f: RechargeFilters) {
  const { timezone } = await readCompanySettings(ctx.db);
  const qb = rechargeQuery(ctx.db).where('recharges.mode', f.mode ?? 'live');
  if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
  if (f.dealer_id) qb.where('recharges.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.provider_id) qb.where('recharges.provider_id', decodeId(f.provider_id) ?? 0);
  if (typeof f.status === 'string') qb.where('recharges.status', f.status);
  else if (f.status?.length) qb.whereIn('recharges.status', [...f.status]);
  if (f.payment_state) qb.where('recharges.payment_state', f.payment_state);
  if (f.from) qb.where('recharges.created_at', '>=', toDbTime(startOfZonedDay(f.from, timezone)));
  if (f.to) qb.where('recharges.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timezone).getTime() + 86_400_000)));
  const phone = (f.phone ?? '').replace(/\D/g, '').replace(/^(?:00252|252|0)/, '');
  if (phone) qb.where('recharges.phone', 'like', `%${phone}%`);
  if (f.national_phone) qb.where('recharges.phone', f.national_phone);
  // An integrator's reference is its own text: INV-1 and inv-1 are two. MariaDB's column collation
  // ignores case, so there the plain equality (which keeps the index) is narrowed byte for byte.
  const sameClientReference = (w: Knex.QueryBuilder, value: string) => {
    w.where('recharges.client_reference', value);
    if (ctx.db.client.config.client === 'mysql2') w.whereRaw('BINARY ?? = ?', ['recharges.client_reference', value]);
  };
  if (f.client_reference) sameClientReference(qb, f.client_reference);
  if (f.match) {
    const text = f.match.trim();
    const national = nationalNumber(text);
    qb.where((w) => {
      w.where('recharges.reference', text.toUpperCase()).orWhere((c) => sameClientReference(c, text));
      if (national) w.orWhere('recharges.phone', national);
    });
  }
  if (f.q)
    qb.where((w) =>
      w
        .where('recharges.reference', f.q!.trim().toUpperCase())
        .orWhere('recharges.payment_reference', f.q!.trim())
        .orWhere('recharges.operator_reference', f.q!.trim()),
    );
  // Wrapped: a knex builder is thenable, so returning it from an async function would run it.
  return { qb, timezone };
}

/** One sale the caller may see (a dealer only its own), or 404. */
export async function findRecharge(ctx: ServiceContext, rawId: string | number): Promise<RechargeListRow> {
  const id = decodeId(rawId);
  const qb = rechargeQuery(ctx.db).where('recharges.id', id ?? 0);
  if (isDealer(ctx.actor)) qb.where('recharges.dealer_id', ctx.actor.id!);
  const row: RechargeListRow | undefined = id ? await qb.first() : undefined;
  if (!row) throw notFound();
  return row;
}

const presentOne = async (ctx: ServiceContext, id: number) => presentRecharge(await findRecharge(ctx, id), seesCost(ctx), companyView(ctx), ctx.t);

/** A page of the filtered sales, by `sort` (default id: newest first unless `order` is asc). */
export async function listRecharges(ctx: ServiceContext, f: RechargeFilters, p: RechargePageRequest): Promise<Page<RechargeResponse>> {
  const { qb } = await filtered(ctx, f);
  const { page, perPage } = pageParams({ page: p.page, per_page: p.per_page });
  const order = (p.order ?? 'desc').toLowerCase() === 'asc' ? 'asc' : 'desc';
  const sortColumn = RECHARGE_SORT_COLUMNS[(p.sort ?? 'id') as RechargeSort] ?? RECHARGE_SORT_COLUMNS.id;
  const countRow = await qb.clone().clearSelect().clearOrder().count({ n: '*' }).first();
  const total = Number((countRow as { n: number | string } | undefined)?.n ?? 0);
  // Ties (a status, an amount, no completion yet) are broken by id, so a page never repeats a sale.
  if (sortColumn !== RECHARGE_SORT_COLUMNS.id) qb.orderBy(sortColumn, order);
  const rows: RechargeListRow[] = await qb
    .orderBy('recharges.id', order)
    .limit(perPage)
    .offset((page - 1) * perPage);
  return {
    data: rows.map((r) => presentRecharge(r, seesCost(ctx), companyView(ctx), ctx.t)),
    meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

/** The filtered sales for the CSV, newest first, at most `limit`; with whether cost is shown and the time zone. */
export async function exportRecharges(ctx: ServiceContext, f: RechargeFilters, limit: number) {
  const { qb, timezone } = await filtered(ctx, f);
  const rows: RechargeListRow[] = await qb.orderBy('recharges.id', 'desc').limit(limit);
  const cost = seesCost(ctx);
  return { rows: rows.map((r) => presentRecharge(r, cost, companyView(ctx), ctx.t)), seesCost: cost, timezone };
}

/** How many sales wait for a person (the console's badge). */
export async function reviewCount(ctx: ServiceContext): Promise<number> {
  // Live sales only, as the queue lists them by default (a test sale waits in the test list).
  const row = await ctx.db('recharges').where({ status: 'needs_review', mode: 'live' }).count({ n: '*' }).first();
  return Number((row as { n: number | string }).n);
}

/** One sale with its timeline, its ledger rows and (staff only) the remote-call trail. */
export async function rechargeDetail(ctx: ServiceContext, rawId: string | number): Promise<RechargeDetail> {
  const row = await findRecharge(ctx, rawId);
  const log: { action: string; created_at: string; after: string | null }[] = await ctx
    .db('activity_log')
    .where({ subject_type: 'recharge', subject_id: row.id })
    .orderBy('id')
    .select('action', 'created_at', 'after');
  const transactions: WalletTransactionListRow[] = await transactionQuery(ctx.db)
    .where('wallet_transactions.recharge_id', row.id)
    .orderBy('wallet_transactions.id');
  const timeline = log.map((l) => ({ at: fromDbTime(l.created_at)!, event: l.action, detail: l.after }));
  // The gateway's and the aggregator's traffic is the company's: dealers see their sale, not it.
  const calls: RemoteCallRow[] = isDealer(ctx.actor) ? [] : await ctx.db('remote_calls').where('recharge_id', row.id).orderBy('id').limit(500);
  return {
    recharge: presentRecharge(row, seesCost(ctx), companyView(ctx), ctx.t),
    timeline,
    transactions: transactions.map(presentTransaction),
    remote_calls: calls.map(presentRemoteCall),
  };
}

/** A failed recharge that reached neither the gateway nor the operator is tried again (the payer is prompted again). */
export async function retryRecharge(ctx: ServiceContext, money: RechargeMoney, rawId: string | number): Promise<RechargeResponse> {
  const row = await findRecharge(ctx, rawId);
  await transact(ctx, async (tctx) => {
    const moved = await tctx.db('wallet_transactions').where({ recharge_id: row.id }).first('id');
    if (moved || !['none', 'absent'].includes(row.payment_state) || row.delivery_state !== 'none') throw new AppError(409, 'api:recharges.retry_not_possible');
    // A new try is charged through what its payment method asks for now: never one paid in person.
    const method: { gateway: string } | undefined = row.payment_method_id
      ? await tctx.db('payment_methods').where({ id: row.payment_method_id }).first('gateway')
      : undefined;
    if (method?.gateway === 'manual') throw new AppError(409, 'api:recharges.retry_not_possible');
    const won = await tctx
      .db('recharges')
      .where({ id: row.id, status: 'failed' })
      .whereIn('payment_state', ['none', 'absent']) // A new try: an earlier review's decision is about the old one, not this.
      .update({
        status: 'pending',
        payment_state: 'none',
        // A test sale is tried again in the sandbox only (never through a live gateway).
        payment_adapter: row.payment_flow === 'wallet' ? null : row.mode === 'test' ? SANDBOX : (method?.gateway ?? null),
        attempts: 0,
        crashes: 0,
        unsure_since: null,
        next_attempt_at: null,
        failure_reason: null,
        failed_at: null,
        review_outcome: null,
        reviewed_by: null,
        reviewed_at: null,
        review_reason: null,
        review_code: null,
        needs_review_at: null,
        // A new try: the reconciliation's questions were about the old one.
        next_check_at: null,
        check_leased_until: null,
        checks: 0,
        last_check_note: null,
        updated_at: toDbTime(),
      });
    if (!won) throw new AppError(409, 'api:recharges.retry_not_possible');
    await raiseSaleEvent(tctx, { type: 'sale.retried', rechargeId: row.id });
  });
  money.wake?.();
  return presentOne(ctx, row.id);
}

export interface RefundOutcome {
  recharge: RechargeResponse;
  /** False when the customer's payment is still being let go (the gateway has not confirmed yet). */
  paymentReturned: boolean;
  /** The gateway has no refund: a person pays the customer back by hand (payment refund_due). */
  paidBackByHand: boolean;
}

/**
 * A refund by hand (docs/data-model.md, "Recharges"), once whatever the number of clicks (the sale's
 * row is locked; each ledger kind is unique per sale):
 * - a failed sale whose money is not all back: the dealer's debit is credited back and the
 *   customer's payment let go (a reserve), reversed (a purchase) or refunded (a committed reserve);
 * - a delivered sale (a complaint): the bundle cannot be taken back, so the whole sale is undone in
 *   money: the customer's payment goes back through the gateway, the dealer's debit is credited back
 *   ("Cost + Profit"), a "Profit Only" dealer gives back its profit (`profit_reversal`; refused while
 *   its wallet holds less), and the company bears the bundle's cost.
 * The original reason stays. 409 when nothing is left to refund.
 */
/** How long a refund by hand holds the sale's check lease while it calls the gateway (longer than any call). */
const BY_HAND_LEASE_MS = 120_000;

export async function refundRecharge(ctx: ServiceContext, money: RechargeMoney, rawId: string | number): Promise<RefundOutcome> {
  const row = await findRecharge(ctx, rawId);
  const {
    releasePayment,
    paymentPending,
    byHand: paidBackByHand,
  } = await transact(ctx, async (tctx) => {
    const r: RechargeRow = await tctx.db('recharges').where({ id: row.id }).forUpdate().first();
    if (r.status !== 'failed' && r.status !== 'refunded' && r.status !== 'completed') throw new AppError(409, 'api:recharges.refund_not_possible');
    const delivered = r.status === 'completed';
    const debited: { amount: number; wallet_id: number } | undefined = await tctx
      .db('wallet_transactions')
      .where({ recharge_id: r.id, kind: 'recharge_debit' })
      .first('amount', 'wallet_id');
    const debitBack = debited ? Boolean(await tctx.db('wallet_transactions').where({ recharge_id: r.id, kind: 'recharge_refund' }).first('id')) : true;
    const paymentHeld = r.payment_state === 'reserved' || r.payment_state === 'collected';
    if (!delivered && debitBack && !paymentHeld) throw new AppError(409, 'api:recharges.nothing_to_refund');
    const now = toDbTime();
    // Not back yet, so there was a debit.
    const returned = debitBack ? null : Number(debited!.amount);
    if (returned !== null)
      await credit(tctx, debited!.wallet_id, { kind: 'recharge_refund', amount: returned, rechargeId: r.id, reference: r.reference, note: 'Refunded by hand' });
    let profitReturned: number | null = null;
    if (delivered) {
      // The "Profit Only" dealer was credited its profit for the sale: it gives it back.
      const profit: { amount: number; wallet_id: number } | undefined = await tctx
        .db('wallet_transactions')
        .where({ recharge_id: r.id, kind: 'profit_credit' })
        .first('amount', 'wallet_id');
      if (profit) {
        const wallet = await tctx.db('wallets').where({ id: profit.wallet_id }).forUpdate().first('balance');
        if (Number(wallet.balance) < Number(profit.amount))
          throw new AppError(409, 'api:recharges.refund_profit_short', undefined, {
            profit: formatMinor(Number(profit.amount)),
            balance: formatMinor(Number(wallet.balance)),
          });
        await debit(tctx, profit.wallet_id, {
          kind: 'profit_reversal',
          amount: Number(profit.amount),
          rechargeId: r.id,
          reference: r.reference,
          note: 'Sale refunded by hand',
        });
        profitReturned = Number(profit.amount);
      }
    }
    // The reconciliation follows the payment up until the gateway confirms it is back; one whose
    // outcome is still open (a delivered sale's commit unanswered) is asked about and given back too.
    // The call below is made under the sale's check lease, so no reconciliation sends one beside it;
    // a check already in flight (its lease held) makes the call instead, never both.
    const checkInFlight = Boolean(r.check_leased_until && new Date(fromDbTime(r.check_leased_until)!).getTime() > Date.now());
    const lease = toDbTime(new Date(Date.now() + BY_HAND_LEASE_MS));
    // Taken through a gateway that cannot give money back (eDahab): a person pays it back by hand
    // and records it (paidBack below); nothing is asked of the gateway.
    const gateway = money.payment ? PaymentGateways.from(money.payment).of(r) : undefined;
    const byHand = paymentHeld && r.payment_state === 'collected' && gateway !== undefined && !gateway.capabilities.refundAfterCapture;
    if (byHand) await tctx.db('recharges').where({ id: r.id, payment_state: r.payment_state }).update({ payment_state: 'refund_due' });
    else if (paymentHeld)
      await tctx
        .db('recharges')
        .where({ id: r.id, payment_state: r.payment_state })
        .update(
          checkInFlight
            ? { payment_state: 'releasing', next_check_at: now }
            : { payment_state: 'releasing', next_check_at: lease, checks: 0, check_leased_until: lease },
        );
    else if (delivered && paymentAwaitsCheck({ status: 'refunded', payment_state: r.payment_state }))
      await tctx.db('recharges').where({ id: r.id }).update({ next_check_at: now, checks: 0, check_leased_until: null });
    await tctx
      .db('recharges')
      .where({ id: r.id })
      .update({ status: 'refunded', refunded_at: r.refunded_at ?? now, updated_at: now });
    await raiseSaleEvent(tctx, {
      type: 'sale.refunded_by_hand',
      rechargeId: r.id,
      before: { status: r.status, payment_state: r.payment_state },
      after: {
        dealer_debit_returned: returned,
        ...(delivered ? { delivered: true, dealer_profit_returned: profitReturned } : {}),
        payment: byHand ? 'refund_due' : paymentHeld ? 'releasing' : r.payment_state,
      },
      // The dealer heard of the refund already when the sale was refunded.
      webhook: r.status !== 'refunded',
    });
    return {
      releasePayment:
        paymentHeld && !checkInFlight && !byHand
          ? {
              transactionId: r.payment_reference as string,
              flow: (r.payment_flow === 'preauthorize' ? 'preauthorize' : 'purchase') as PaymentFlow,
              reference: r.reference as string,
              gateway: r.payment_adapter,
              // A committed reserve is given back by a refund of its amount, not a cancel.
              captured: r.payment_state === 'collected' && r.payment_flow === 'preauthorize',
              amount: Number(r.amount),
              lease,
            }
          : null,
      paymentPending: (paymentHeld && checkInFlight) || byHand,
      byHand,
    };
  });
  let paymentReturned = !paymentPending;
  if (releasePayment) {
    // Outside the transaction (the gateway's answer may take seconds), under the check lease taken
    // above. The sale's own gateway; one this process does not know is left to the reconciliation.
    const gateways = money.payment ? PaymentGateways.from(money.payment) : null;
    const gateway = gateways?.of({ payment_adapter: releasePayment.gateway, payment_state: 'releasing' });
    const done = gateway
      ? await gateway.release(
          {
            referenceId: releasePayment.reference,
            transactionId: releasePayment.transactionId,
            flow: releasePayment.flow satisfies PaymentFlow,
            captured: releasePayment.captured,
            amount: releasePayment.amount,
          },
          { rechargeId: row.id, ...(row.mode === 'test' ? { sandbox: true } : {}) },
        )
      : null;
    const mine = { id: row.id, payment_state: 'releasing', check_leased_until: releasePayment.lease };
    if (done?.status === 'done')
      await ctx
        .db('recharges')
        .where(mine)
        .update({ payment_state: releasePayment.captured ? 'refunded' : 'released', next_check_at: null, check_leased_until: null, updated_at: toDbTime() });
    else {
      // Unconfirmed: the lease is let go and the reconciliation asks (and gives it back) from now on.
      await ctx.db('recharges').where(mine).update({ next_check_at: toDbTime(), check_leased_until: null });
      paymentReturned = false;
    }
  }
  return { recharge: await presentOne(ctx, row.id), paymentReturned, paidBackByHand };
}

/**
 * A person records paying a customer back by hand, for a payment taken through a gateway that has
 * no refund (payment_state refund_due): who, when, how and the transfer's reference. Once: ten
 * clicks at once record one (the others answer 409).
 */
export async function recordPaidBack(ctx: ServiceContext, rawId: string | number, input: PaidBackInput): Promise<RechargeResponse> {
  const row = await findRecharge(ctx, rawId);
  await transact(ctx, async (tctx) => {
    const now = toDbTime();
    const won = await tctx
      .db('recharges')
      .where({ id: row.id, payment_state: 'refund_due' })
      .update({
        payment_state: 'paid_back',
        paid_back_by: ctx.actor.id,
        paid_back_at: now,
        paid_back_note: input.note,
        paid_back_reference: input.reference ?? null,
        updated_at: now,
      });
    if (!won) throw new AppError(409, 'api:recharges.not_refund_due');
    await raiseSaleEvent(tctx, {
      type: 'sale.paid_back_by_hand',
      rechargeId: row.id,
      before: { payment_state: 'refund_due' },
      after: { payment_state: 'paid_back', note: input.note, reference: input.reference ?? null },
    });
    // A failed sale whose money was taken is refunded now that the customer has it back.
    const refunded = await tctx.db('recharges').where({ id: row.id, status: 'failed' }).update({ status: 'refunded', refunded_at: now, updated_at: now });
    if (refunded) await raiseSaleEvent(tctx, { type: 'sale.money_returned', rechargeId: row.id, after: { payment_state: 'paid_back' } });
  });
  return presentOne(ctx, row.id);
}

/**
 * A sale in review settled by a person: the decision is recorded and the worker carries it out
 * (commits or lets go the customer's payment, settles the ledger), each step logged.
 */
export async function settleRecharge(ctx: ServiceContext, money: RechargeMoney, rawId: string | number, input: SettleRechargeInput): Promise<RechargeResponse> {
  const row = await findRecharge(ctx, rawId);
  // A payment's outcome from the gateway's portal only while the sale still asks about it.
  if (input.payment && row.payment_state !== 'sent') throw fieldError('payment', 'validation:payment_outcome_known');
  await transact(ctx, async (tctx) => {
    const now = toDbTime();
    const payment = input.payment
      ? input.payment.paid
        ? { payment_state: 'collected', payment_reference: input.payment.reference ?? null }
        : { payment_state: 'absent' }
      : {};
    const won = await tctx
      .db('recharges')
      .where({ id: row.id, status: 'needs_review', ...(input.payment ? { payment_state: 'sent' } : {}) })
      .update({
        ...payment,
        status: 'pending',
        review_outcome: input.outcome,
        reviewed_by: ctx.actor.id,
        reviewed_at: now,
        next_attempt_at: null,
        unsure_since: null,
        crashes: 0,
        // The worker carries the decision out; the reconciliation's questions about it are over.
        next_check_at: null,
        check_leased_until: null,
        checks: 0,
        updated_at: now,
      });
    if (!won) throw new AppError(409, 'api:recharges.settle_not_possible');
    await raiseSaleEvent(tctx, {
      type: 'sale.settled_in_review',
      rechargeId: row.id,
      before: { status: 'needs_review', review_reason: row.review_reason },
      after: { outcome: input.outcome, note: input.note, ...(input.payment ? { payment: input.payment } : {}) },
    });
  });
  money.wake?.();
  return presentOne(ctx, row.id);
}
