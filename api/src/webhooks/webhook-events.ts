import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { formatMinor, type WebhookEventType } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import type { RechargeRow } from '../recharges/recharge-rows.ts';

/**
 * The webhook outbox (docs/api-conventions.md, "Webhooks"): an event is a row of webhook_events
 * written in the transaction of the change it reports, so it exists exactly when the change
 * committed, and is delivered at least once afterwards by the dispatcher (webhook-dispatcher.ts).
 * Nothing here calls out: a sale or a settlement never waits for a receiver.
 */
type Db = Knex | Knex.Transaction;

/** Wakes the dispatcher of this process after an event was committed (server.ts sets it). */
let wakeDispatcher: () => void = () => undefined;
export function onWebhookEvent(wake: () => void): void {
  wakeDispatcher = wake;
}
export const wakeWebhooks = () => wakeDispatcher();

export const newEventId = () => `evt_${crypto.randomBytes(16).toString('hex')}`;
export const newWebhookSecret = () => `whsec_${crypto.randomBytes(24).toString('base64url')}`;

/** v1=<hex HMAC-SHA256 of "timestamp.body">, one per secret (the current one first). */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`).join(',');
}

/**
 * Writes the event for the dealer when it has an endpoint (else nothing: a dealer without a
 * webhook has no outbox). Call inside the change's transaction.
 */
export async function enqueueWebhookEvent(db: Db, dealerId: number, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
  if (await db('webhook_endpoints').where({ dealer_id: dealerId }).first('id')) await writeEvent(db, dealerId, type, data);
}

async function writeEvent(db: Db, dealerId: number, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
  const now = toDbTime();
  const eventId = newEventId();
  const body = JSON.stringify({ id: eventId, type, created_at: fromDbTime(now), data });
  await db('webhook_events').insert({
    event_id: eventId,
    dealer_id: dealerId,
    type,
    body,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
  onCommit(() => wakeDispatcher());
}

/** What a recharge event says: the sale as the dealer knows it (its cost included: the dealer is the receiver). */
export function rechargeEventData(r: RechargeRow): Record<string, unknown> {
  return {
    reference: r.reference,
    status: r.status,
    phone: r.phone,
    operator: r.provider_name,
    bundle_name: r.bundle_name,
    data_volume_mb: r.data_volume_mb ?? null,
    validity_days: r.validity_days ?? null,
    amount: formatMinor(Number(r.amount)),
    cost: formatMinor(Number(r.cost)),
    currency: r.currency,
    payment: r.payment_flow === 'wallet' ? 'wallet' : 'mobile_money',
    operator_reference: r.operator_reference ?? null,
    failure_reason: r.failure_reason ?? null,
    review_reason: r.review_reason ?? null,
    created_at: fromDbTime(r.created_at),
    completed_at: fromDbTime(r.completed_at),
    failed_at: fromDbTime(r.failed_at),
    refunded_at: fromDbTime(r.refunded_at),
  };
}

const RECHARGE_EVENTS: Partial<Record<string, WebhookEventType>> = {
  completed: 'recharge.completed',
  failed: 'recharge.failed',
  refunded: 'recharge.failed',
  needs_review: 'recharge.needs_review',
};

/** After a recharge's status changed (in that transaction): its event, read as it now is. */
export async function enqueueRechargeEvent(db: Db, rechargeId: number): Promise<void> {
  // One read, and none of the recharge at all when its dealer has no endpoint.
  const r: RechargeRow | undefined = await db('recharges')
    .join('webhook_endpoints', 'webhook_endpoints.dealer_id', 'recharges.dealer_id')
    .where('recharges.id', rechargeId)
    .first('recharges.*');
  const type = r && RECHARGE_EVENTS[r.status];
  if (r && type) await writeEvent(db, r.dealer_id, type, rechargeEventData(r));
}
