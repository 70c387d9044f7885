import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { formatMinor, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import type { RechargeRow } from '../recharges/recharge-rows.ts';
import { modeOf, type SaleMode } from '../platform/sale-mode.ts';

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
/** whsec_ and standard base64 of 32 random bytes (Standard Webhooks: 24 to 64). */
export const newWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;

/**
 * The HMAC key of a secret: the bytes its base64 says. Secrets made before Standard Webhooks were
 * written in the URL-safe alphabet (whsec_ and base64url of 24 bytes); Node's decoder reads both
 * alphabets, so they keep their key (docs/api-conventions.md, "Webhooks": the receiver writes it
 * in the standard alphabet, or rotates).
 */
export const secretKey = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

/** Standard Webhooks' webhook-signature: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret (the current one first), space-separated. */
export function signatureHeader(secrets: string[], eventId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${crypto.createHmac('sha256', secretKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}

/**
 * Whether a wallet's dealer has an endpoint events go to, with what its events need: the wallet's
 * currency and, for a sale's row, the sale's client_reference. One read, before the wallet's row is
 * locked (ledger.ts): null when there is nothing to tell.
 */
export async function walletWebhook(
  db: Db,
  walletId: number,
  rechargeId?: number | null,
): Promise<{ dealerId: number; currency: string; mode: SaleMode; clientReference: string | null } | null> {
  const qb = db('wallets')
    .join('webhook_endpoints', 'webhook_endpoints.dealer_id', 'wallets.dealer_id')
    .where('wallets.id', walletId)
    .whereNull('webhook_endpoints.disabled_at');
  if (rechargeId) qb.leftJoin('recharges', (j) => j.on('recharges.id', '=', db.raw('?', [rechargeId])));
  const row: { dealer_id: number; currency: string; mode: SaleMode; client_reference?: string | null } | undefined = await qb.first(
    'wallets.dealer_id',
    'wallets.currency',
    'wallets.mode',
    ...(rechargeId ? ['recharges.client_reference'] : []),
  );
  return row ? { dealerId: Number(row.dealer_id), currency: row.currency, mode: modeOf(row.mode), clientReference: row.client_reference ?? null } : null;
}

/** Whether the dealer has an endpoint events go to (one that is set and not disabled). */
export async function hasWebhook(db: Db, dealerId: number): Promise<boolean> {
  return Boolean(await db('webhook_endpoints').where({ dealer_id: dealerId }).whereNull('disabled_at').first('id'));
}

/**
 * Writes the event for the dealer when it has an endpoint (else nothing: a dealer without a
 * webhook, or with one disabled, has no outbox). Call inside the change's transaction.
 */
export async function enqueueWebhookEvent(
  db: Db,
  dealerId: number,
  type: WebhookEventType,
  data: Record<string, unknown>,
  mode: SaleMode = 'live',
): Promise<void> {
  if (await hasWebhook(db, dealerId)) await writeEvents(db, [webhookEventRow(dealerId, type, data, { mode })]);
}

/**
 * An outbox row: the body `{type, timestamp, mode, data}` as it will be sent byte for byte (the
 * event's id goes in the webhook-id header, the same on every attempt). `mode` is `test` for what
 * a test key did (docs/api-conventions.md, "Test mode").
 */
export function webhookEventRow(
  dealerId: number,
  type: WebhookEventType,
  data: Record<string, unknown>,
  { at = toDbTime(), mode = 'live' }: { at?: string; mode?: SaleMode } = {},
) {
  return {
    event_id: newEventId(),
    dealer_id: dealerId,
    type,
    mode,
    body: JSON.stringify({ type, timestamp: fromDbTime(at), mode, data }),
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    created_at: at,
    updated_at: at,
  };
}

/** Writes outbox rows (one INSERT however many), for dealers the caller found with an endpoint. */
export async function writeEvents(db: Db, rows: ReturnType<typeof webhookEventRow>[]): Promise<void> {
  if (!rows.length) return;
  await db('webhook_events').insert(rows);
  onCommit(() => wakeDispatcher());
}

/** What a recharge event says: the sale as the dealer knows it (its cost included: the dealer is the receiver). */
export function rechargeEventData(r: RechargeRow): Record<string, unknown> {
  return {
    reference: r.reference,
    client_reference: r.client_reference ?? null,
    status: r.status,
    payment_status: r.payment_state ?? 'none',
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
    review_code: r.review_code ?? null,
    created_at: fromDbTime(r.created_at),
    completed_at: fromDbTime(r.completed_at),
    failed_at: fromDbTime(r.failed_at),
    refunded_at: fromDbTime(r.refunded_at),
  };
}

/** What a wallet.credited / wallet.debited event says: one ledger row, and the sale's references when it is a sale's. */
export function walletEventData(
  row: { kind: string; amount: number; balance_after: number; reference: string | null; created_at: string },
  currency: string,
  clientReference: string | null,
): Record<string, unknown> {
  return {
    kind: row.kind,
    amount: formatMinor(row.amount),
    balance_after: formatMinor(row.balance_after),
    currency,
    reference: row.reference,
    client_reference: clientReference,
    created_at: fromDbTime(row.created_at),
  };
}

/**
 * The events of a sale's change, by the change (sale-events.ts), else by the status it now has. A
 * failed sale whose money came back is told twice, in order: recharge.failed (as it failed) and
 * recharge.refunded; a refund never comes as recharge.failed.
 */
const SALE_EVENTS: Partial<Record<string, WebhookEventType[]>> = {
  'sale.completed': ['recharge.delivered'],
  'sale.failed': ['recharge.failed'],
  'sale.refunded': ['recharge.failed', 'recharge.refunded'],
  'sale.needs_review': ['recharge.needs_review'],
  'sale.refunded_by_hand': ['recharge.refunded'],
  // Told it failed already: only the refund now.
  'sale.money_returned': ['recharge.refunded'],
};
const STATUS_EVENTS: Partial<Record<string, WebhookEventType>> = {
  completed: 'recharge.delivered',
  failed: 'recharge.failed',
  refunded: 'recharge.refunded',
  needs_review: 'recharge.needs_review',
};

/**
 * After a recharge changed (in that transaction): its events, read as it now is. `change` is the
 * sale event (sale-events.ts) or the webhook event itself (recharge.payment_approved).
 */
export async function enqueueRechargeEvent(db: Db, rechargeId: number, change?: string): Promise<void> {
  // One read, and none of the recharge at all when its dealer has no endpoint.
  const r: RechargeRow | undefined = await db('recharges')
    .join('webhook_endpoints', 'webhook_endpoints.dealer_id', 'recharges.dealer_id')
    .where('recharges.id', rechargeId)
    .whereNull('webhook_endpoints.disabled_at')
    .first('recharges.*');
  if (!r) return;
  const byStatus = STATUS_EVENTS[r.status];
  const types: WebhookEventType[] =
    change && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(change)
      ? [change as WebhookEventType]
      : ((change ? SALE_EVENTS[change] : undefined) ?? (byStatus ? [byStatus] : []));
  const at = toDbTime();
  await writeEvents(
    db,
    types.map((type) =>
      webhookEventRow(
        r.dealer_id,
        type,
        // The failure of a sale refunded in the same change, as it was before its money came back.
        type === 'recharge.failed' && r.status === 'refunded' ? { ...rechargeEventData(r), status: 'failed', refunded_at: null } : rechargeEventData(r),
        { at, mode: modeOf(r.mode) },
      ),
    ),
  );
}
