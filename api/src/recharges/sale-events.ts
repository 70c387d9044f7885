import { activityRow, type ActivityAction } from '../activity-log/activity-log.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { enqueueRechargeEvent } from '../webhooks/webhook-events.ts';
import { noticeLowBalance } from '../wallets/low-balance.ts';
import { enqueueReceipt } from '../sms/sms-receipts.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * What a sale's change sets off (docs/architecture.md, "Sale events"). The code that changes a sale
 * raises one event in the change's transaction; what follows is written here, once, by event type:
 *
 * - in the transaction: the activity-log line and, for an outcome the dealer hears of, the
 *   webhook outbox row, and the customer's SMS receipt row (so they exist exactly when the change committed);
 * - after the commit: the dealer's low-balance alert.
 *
 * A sale changes no storefront page and no one's access, so it clears no cache and bumps no access
 * version (recordActivity does those for catalogue and user changes; a sale never goes through it).
 */
export type SaleEventType =
  | 'sale.created'
  | 'sale.completed'
  | 'sale.failed'
  | 'sale.refunded'
  | 'sale.money_returned'
  | 'sale.needs_review'
  | 'sale.resumed'
  | 'sale.retried'
  | 'sale.settled_in_review'
  | 'sale.refunded_by_hand'
  | 'sale.paid_back_by_hand'
  | 'sale.payment_reconciled';

export interface SaleEvent {
  type: SaleEventType;
  rechargeId: number;
  /** For the log line. */
  before?: unknown;
  after?: unknown;
  /** Overrides the table's webhook rule (a refund by hand of a sale the dealer was already told was refunded). */
  webhook?: boolean;
  /** A debit left this wallet under its alert threshold, not yet told (low-balance.ts). */
  lowBalanceWallet?: number | null;
}

interface Effects {
  log: ActivityAction;
  /** The dealer's webhook hears of it (webhook-events.ts maps the sale event to its webhook events). */
  webhook?: boolean;
}

/** The table: each event's log action and its effects. */
const EFFECTS: Record<SaleEventType, Effects> = {
  'sale.created': { log: 'recharge_created' },
  'sale.completed': { log: 'recharge_completed', webhook: true },
  'sale.failed': { log: 'recharge_failed', webhook: true },
  'sale.refunded': { log: 'recharge_refunded', webhook: true },
  /** A failed sale becomes refunded: the gateway confirmed (or a person recorded) the customer's money back. */
  'sale.money_returned': { log: 'recharge_refunded', webhook: true },
  'sale.needs_review': { log: 'recharge_needs_review', webhook: true },
  'sale.resumed': { log: 'recharge_resumed' },
  'sale.retried': { log: 'recharge_retried' },
  'sale.settled_in_review': { log: 'recharge_settled_in_review' },
  'sale.refunded_by_hand': { log: 'recharge_refunded_by_hand', webhook: true },
  'sale.paid_back_by_hand': { log: 'recharge_paid_back_by_hand' },
  'sale.payment_reconciled': { log: 'recharge_payment_reconciled' },
};

/** The log row of a sale event (sale-batches.ts writes a group's many at once). */
export function saleLogRow(ctx: Pick<ServiceContext, 'actor' | 'ip' | 'userAgent'>, event: SaleEvent) {
  return activityRow(ctx, { action: EFFECTS[event.type].log, subjectType: 'recharge', subjectId: event.rechargeId, before: event.before, after: event.after });
}

/** Raises a sale event inside the change's transaction (`ctx.db`). */
export async function raiseSaleEvent(ctx: ServiceContext, event: SaleEvent): Promise<void> {
  await ctx.db('activity_log').insert(saleLogRow(ctx, event));
  if (event.webhook ?? EFFECTS[event.type].webhook) await enqueueRechargeEvent(ctx.db, event.rechargeId, event.type);
  // The customer's SMS receipt of a delivery or a failure (sms/sms-receipts.ts; nothing while SMS is off).
  await enqueueReceipt(ctx.db, event.rechargeId, event.type);
  afterSaleCommit(ctx, event);
}

/** The effects outside the database, once the change is committed (at once when no transaction is open). */
export function afterSaleCommit(ctx: ServiceContext, event: SaleEvent): void {
  const wallet = event.lowBalanceWallet;
  // noticeLowBalance reads through the root connection once ctx.db's transaction is over.
  if (wallet) onCommit(() => noticeLowBalance(ctx, wallet));
}
