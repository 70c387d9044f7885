import { modeOf, type SaleMode } from '../platform/sale-mode.ts';
import type { Knex } from 'knex';
import {
  WEBHOOK_PREVIOUS_SECRET_HOURS,
  type WebhookDeliveryResponse,
  type WebhookDeliveryStatus,
  type WebhookEndpointInput,
  type WebhookEndpointResponse,
  type WebhookEndpointWithSecret,
  type WebhookDisabledReason,
  type WebhookEventType,
} from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { AppError, fieldError, notFound } from '../http/errors.ts';
import { pageOf, type Page, type PageRequest } from '../http/list-query.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { resolveDealer } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { openSecret, sealSecret } from '../settings/secret-box.ts';
import { enqueueWebhookEvent, newWebhookSecret, wakeWebhooks } from './webhook-events.ts';
import { hostKind } from './webhook-dispatcher.ts';

/**
 * The console's side of webhooks: a dealer's endpoint (GET/PUT/DELETE /dealer/webhook, admins
 * with ?dealer_id=), its secret's rotation, a test event, and the deliveries with "resend".
 * A dealer only ever reaches its own; every change is logged against the dealer.
 */
type Db = Knex | Knex.Transaction;

interface EndpointRow {
  id: number;
  dealer_id: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_rotated_at: string | null;
  disabled_at: string | null;
  disabled_reason: WebhookDisabledReason | null;
  created_at: string;
  updated_at: string;
  dealer_name: string;
  dealer_code: string | null;
}

const endpointQuery = (db: Db) =>
  db('webhook_endpoints')
    .join('users as dealers', 'dealers.id', 'webhook_endpoints.dealer_id')
    .select('webhook_endpoints.*', 'dealers.name as dealer_name', 'dealers.dealer_code');

function presentEndpoint(r: EndpointRow): WebhookEndpointResponse {
  const secret = openSecret(r.secret);
  const expires = fromDbTime(r.previous_secret_expires_at);
  return {
    id: r.id,
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    url: r.url,
    secret_hint: secret ? `…${secret.slice(-4)}` : '',
    previous_secret_expires_at: r.previous_secret && expires && Date.parse(expires) > Date.now() ? expires : null,
    disabled_at: fromDbTime(r.disabled_at),
    disabled_reason: r.disabled_at ? r.disabled_reason : null,
    created_at: fromDbTime(r.created_at),
    updated_at: fromDbTime(r.updated_at),
  };
}

/** A receiver on this machine is refused unless the server allows it (development); one at a private address always. */
function checkUrl(url: string, allowLoopback: boolean) {
  const kind = hostKind(new URL(url).hostname);
  if (kind === 'loopback' && !allowLoopback) throw fieldError('url', 'validation:webhook_url_loopback');
  if (kind === 'private') throw fieldError('url', 'validation:webhook_url_private');
}

const log = (
  ctx: ServiceContext,
  action: 'webhook_endpoint_set' | 'webhook_endpoint_removed' | 'webhook_secret_rotated' | 'webhook_test_sent' | 'webhook_resent',
  dealerId: number,
  extra: { before?: unknown; after?: unknown; description?: string } = {},
) => recordActivity(ctx, { action, subjectType: 'user', subjectId: dealerId, ...extra });

export async function showEndpoint(ctx: ServiceContext, rawDealer: unknown): Promise<WebhookEndpointResponse | null> {
  const dealer = await resolveDealer(ctx, rawDealer);
  const row: EndpointRow | undefined = await endpointQuery(ctx.db).where('webhook_endpoints.dealer_id', dealer.id).first();
  return row ? presentEndpoint(row) : null;
}

/**
 * Sets the URL: the first time with a new secret (answered whole, once); later the URL only. An
 * endpoint disabled by a 410 is enabled again (the same URL or another): what failed meanwhile is
 * resent from the log by whoever needs it.
 */
export async function setEndpoint(
  ctx: ServiceContext,
  rawDealer: unknown,
  input: WebhookEndpointInput,
  allowLoopback: boolean,
): Promise<{ created: boolean; endpoint: WebhookEndpointResponse | WebhookEndpointWithSecret }> {
  checkUrl(input.url, allowLoopback);
  const dealer = await resolveDealer(ctx, rawDealer);
  return transact(ctx, async (tctx) => {
    const now = toDbTime();
    const existing = await tctx.db('webhook_endpoints').where({ dealer_id: dealer.id }).forUpdate().first('id', 'url', 'disabled_at', 'disabled_reason');
    let secret: string | null = null;
    if (existing) {
      if (existing.url !== input.url || existing.disabled_at)
        await tctx.db('webhook_endpoints').where({ id: existing.id }).update({ url: input.url, disabled_at: null, disabled_reason: null, updated_at: now });
    } else {
      secret = newWebhookSecret();
      await tctx.db('webhook_endpoints').insert({ dealer_id: dealer.id, url: input.url, secret: sealSecret(secret), created_at: now, updated_at: now });
    }
    if (!existing || existing.url !== input.url || existing.disabled_at)
      await log(tctx, 'webhook_endpoint_set', dealer.id, {
        before: existing
          ? { url: existing.url, ...(existing.disabled_at ? { disabled_at: fromDbTime(existing.disabled_at), disabled_reason: existing.disabled_reason } : {}) }
          : undefined,
        after: { url: input.url },
      });
    const row: EndpointRow = await endpointQuery(tctx.db).where('webhook_endpoints.dealer_id', dealer.id).first();
    return { created: !existing, endpoint: secret ? { ...presentEndpoint(row), secret } : presentEndpoint(row) };
  });
}

/** A rotation asked this soon after the last one answers that one's secret (see rotateSecret). */
export const ROTATION_REPEAT_MS = 60_000;

/**
 * A new secret, answered whole once; the one before it still signs for WEBHOOK_PREVIOUS_SECRET_HOURS.
 * Rotations at once (a double click, a script's retries) must not hand out a secret the next one
 * replaces, leaving its caller with one that no longer signs: the row is locked, and a rotation
 * within ROTATION_REPEAT_MS of the last answers the secret that one made, changing nothing.
 */
export async function rotateSecret(ctx: ServiceContext, rawDealer: unknown): Promise<WebhookEndpointWithSecret> {
  const dealer = await resolveDealer(ctx, rawDealer);
  return transact(ctx, async (tctx) => {
    const existing = await tctx.db('webhook_endpoints').where({ dealer_id: dealer.id }).forUpdate().first('id', 'secret', 'secret_rotated_at');
    if (!existing) throw notFound('api:webhooks.not_set');
    const now = Date.now();
    const rotatedAt = fromDbTime(existing.secret_rotated_at);
    const current = rotatedAt && now - Date.parse(rotatedAt) < ROTATION_REPEAT_MS ? openSecret(existing.secret) : null;
    if (current) {
      const row: EndpointRow = await endpointQuery(tctx.db).where('webhook_endpoints.dealer_id', dealer.id).first();
      return { ...presentEndpoint(row), secret: current };
    }
    const secret = newWebhookSecret();
    await tctx
      .db('webhook_endpoints')
      .where({ id: existing.id })
      .update({
        secret: sealSecret(secret),
        previous_secret: existing.secret,
        previous_secret_expires_at: toDbTime(new Date(now + WEBHOOK_PREVIOUS_SECRET_HOURS * 3_600_000)),
        secret_rotated_at: toDbTime(new Date(now)),
        updated_at: toDbTime(new Date(now)),
      });
    await log(tctx, 'webhook_secret_rotated', dealer.id);
    const row: EndpointRow = await endpointQuery(tctx.db).where('webhook_endpoints.dealer_id', dealer.id).first();
    return { ...presentEndpoint(row), secret };
  });
}

/** No endpoint any more: the events still waiting are failed (nothing to send them to). */
export async function removeEndpoint(ctx: ServiceContext, rawDealer: unknown): Promise<void> {
  const dealer = await resolveDealer(ctx, rawDealer);
  await transact(ctx, async (tctx) => {
    const existing = await tctx.db('webhook_endpoints').where({ dealer_id: dealer.id }).forUpdate().first('id', 'url');
    // Of removals at once, one removes it; the others find nothing (on MySQL the read alone would not say).
    if (!existing || !(await tctx.db('webhook_endpoints').where({ id: existing.id }).delete())) throw notFound('api:webhooks.not_set');
    await tctx
      .db('webhook_events')
      .where({ dealer_id: dealer.id, status: 'pending' })
      .update({ status: 'failed', next_attempt_at: null, last_answer: 'The webhook endpoint was removed.', updated_at: toDbTime() });
    await log(tctx, 'webhook_endpoint_removed', dealer.id, { before: { url: existing.url } });
  });
}

interface DeliveryRow {
  id: number;
  event_id: string;
  dealer_id: number;
  type: WebhookEventType;
  mode: string;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_answer: string | null;
  delivered_at: string | null;
  created_at: string;
  dealer_name: string;
  dealer_code: string | null;
}

const deliveryQuery = (db: Db) =>
  db('webhook_events')
    .join('users as dealers', 'dealers.id', 'webhook_events.dealer_id')
    .select(
      'webhook_events.id',
      'webhook_events.event_id',
      'webhook_events.dealer_id',
      'webhook_events.type',
      'webhook_events.mode',
      'webhook_events.body',
      'webhook_events.status',
      'webhook_events.attempts',
      'webhook_events.next_attempt_at',
      'webhook_events.last_attempt_at',
      'webhook_events.last_status_code',
      'webhook_events.last_answer',
      'webhook_events.delivered_at',
      'webhook_events.created_at',
      'dealers.name as dealer_name',
      'dealers.dealer_code',
    );

function presentDelivery(r: DeliveryRow): WebhookDeliveryResponse {
  return {
    id: Number(r.id),
    h_id: encodeId(Number(r.id)),
    event_id: r.event_id,
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    type: r.type,
    mode: modeOf(r.mode),
    status: r.status,
    attempts: Number(r.attempts),
    next_attempt_at: fromDbTime(r.next_attempt_at),
    last_attempt_at: fromDbTime(r.last_attempt_at),
    last_status_code: r.last_status_code === null ? null : Number(r.last_status_code),
    last_answer: r.last_answer,
    delivered_at: fromDbTime(r.delivered_at),
    created_at: fromDbTime(r.created_at),
    body: r.body,
  };
}

/** A test event to the dealer's endpoint, delivered like any other. */
export async function sendTestEvent(ctx: ServiceContext, rawDealer: unknown): Promise<WebhookDeliveryResponse> {
  const dealer = await resolveDealer(ctx, rawDealer);
  return transact(ctx, async (tctx) => {
    const endpoint = await tctx.db('webhook_endpoints').where({ dealer_id: dealer.id }).first('id', 'disabled_at');
    if (!endpoint) throw notFound('api:webhooks.not_set');
    if (endpoint.disabled_at) throw new AppError(409, 'api:webhooks.disabled');
    await enqueueWebhookEvent(tctx.db, dealer.id, 'webhook.test', { message: 'A test event, sent on request.' }, ctx.mode ?? 'live');
    const row: DeliveryRow = await deliveryQuery(tctx.db).where('webhook_events.dealer_id', dealer.id).orderBy('webhook_events.id', 'desc').first();
    await log(tctx, 'webhook_test_sent', dealer.id, { description: row.event_id });
    return presentDelivery(row);
  });
}

export interface DeliveryFilters extends PageRequest {
  dealer_id?: string;
  status?: WebhookDeliveryStatus;
  type?: WebhookEventType;
  mode?: SaleMode;
}

/** Deliveries newest first: a dealer's own; an admin's all, or one dealer's. */
export async function listDeliveries(ctx: ServiceContext, f: DeliveryFilters): Promise<Page<WebhookDeliveryResponse>> {
  const qb = deliveryQuery(ctx.db);
  if (isDealer(ctx.actor)) qb.where('webhook_events.dealer_id', ctx.actor.id!);
  // An admin's filter names a dealer: one that is not there is refused, not answered as "no deliveries".
  else if (f.dealer_id) qb.where('webhook_events.dealer_id', (await resolveDealer(ctx, f.dealer_id)).id);
  if (f.status) qb.where('webhook_events.status', f.status);
  if (f.type) qb.where('webhook_events.type', f.type);
  // A key reads its own mode's events; the console either, or both.
  if (ctx.mode) qb.where('webhook_events.mode', ctx.mode);
  if (f.mode) qb.where('webhook_events.mode', f.mode);
  return pageOf(qb, f, 'webhook_events.id', presentDelivery, 'webhook_events.id');
}

async function findDelivery(ctx: ServiceContext, rawId: string): Promise<DeliveryRow> {
  const id = decodeId(rawId);
  const qb = deliveryQuery(ctx.db).where('webhook_events.id', id ?? 0);
  if (isDealer(ctx.actor)) qb.where('webhook_events.dealer_id', ctx.actor.id!);
  if (ctx.mode) qb.where('webhook_events.mode', ctx.mode);
  const row: DeliveryRow | undefined = id ? await qb.first() : undefined;
  // Another dealer's delivery is the same 404 as none.
  if (!row) throw notFound('api:webhooks.delivery_not_found');
  return row;
}

export const showDelivery = async (ctx: ServiceContext, rawId: string) => presentDelivery(await findDelivery(ctx, rawId));

/** One more attempt now (the same event, id and body); refused while an attempt is under way. */
export async function resendDelivery(ctx: ServiceContext, rawId: string): Promise<WebhookDeliveryResponse> {
  const found = await findDelivery(ctx, rawId);
  return transact(ctx, async (tctx) => {
    const now = toDbTime();
    const endpoint = await tctx.db('webhook_endpoints').where({ dealer_id: found.dealer_id }).first('id', 'disabled_at');
    if (!endpoint) throw new AppError(409, 'api:webhooks.not_set');
    if (endpoint.disabled_at) throw new AppError(409, 'api:webhooks.disabled');
    const changed = await tctx
      .db('webhook_events')
      .where({ id: found.id })
      .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', now))
      .update({ status: 'pending', next_attempt_at: now, updated_at: now });
    if (!changed) throw new AppError(409, 'api:webhooks.sending_now');
    await log(tctx, 'webhook_resent', found.dealer_id, { description: found.event_id, before: { status: found.status, attempts: Number(found.attempts) } });
    onCommit(() => wakeWebhooks());
    return presentDelivery(await deliveryQuery(tctx.db).where('webhook_events.id', found.id).first());
  });
}
