import type { Knex } from 'knex';
import { toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { storefrontCache } from '../storefront/storefront-cache.ts';
import { bumpAccessVersion } from '../auth/access-cache.ts';

/**
 * The append-only activity log (docs/data-model.md, Logs): every change and every auth event,
 * written in the same transaction as the change it describes.
 */
export type ActivityAction =
  | 'email_changed'
  | 'created'
  | 'updated'
  | 'deleted'
  | 'restored'
  | 'force_deleted'
  | 'status_changed'
  | 'permissions_assigned'
  | 'logo_updated'
  | 'logo_removed'
  | 'login'
  | 'login_failed'
  | 'logout'
  | 'locked'
  | 'unlocked'
  | 'unlock_failed'
  | 'profile_updated'
  | 'profile_picture_updated'
  | 'password_changed'
  | 'mail_tested'
  | 'wallet_topped_up'
  | 'wallet_adjusted'
  | 'top_up_requested'
  | 'top_up_approved'
  | 'top_up_rejected'
  | 'low_balance_alert_changed'
  | 'low_balance_alert_sent'
  | 'low_balance_alert_failed'
  | 'recharge_created'
  | 'recharge_completed'
  | 'recharge_failed'
  | 'recharge_refunded'
  | 'recharge_retried'
  | 'recharge_needs_review'
  | 'recharge_resumed'
  | 'recharge_settled_in_review'
  | 'recharge_refunded_by_hand'
  | 'recharge_payment_reconciled'
  | 'catalogue_changed'
  | 'reordered';

const SECRET_FIELDS = new Set(['password', 'password_confirmation', 'current_password', 'remember_token']);

function scrub(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return JSON.stringify(value, (k, v) => (SECRET_FIELDS.has(k) ? undefined : v));
}

export interface ActivityEntry {
  action: ActivityAction;
  subjectType?: string;
  subjectId?: number | null;
  description?: string;
  before?: unknown;
  after?: unknown;
  actorId?: number | null;
}

/** An entry written by a service: actor, address and agent come from its context. */
/** Sign-in events and money movements change nothing a storefront shows; every other logged change may. */
const SESSION_ACTIONS = new Set<ActivityAction>([
  'login',
  'login_failed',
  'logout',
  'locked',
  'unlocked',
  'unlock_failed',
  'mail_tested',
  'wallet_topped_up',
  'wallet_adjusted',
  'top_up_requested',
  'top_up_approved',
  'top_up_rejected',
  'low_balance_alert_changed',
  'low_balance_alert_sent',
  'low_balance_alert_failed',
  'recharge_created',
  'recharge_completed',
  'recharge_failed',
  'recharge_refunded',
  'recharge_retried',
  'recharge_needs_review',
  'recharge_resumed',
  'recharge_settled_in_review',
  'recharge_refunded_by_hand',
  'recharge_payment_reconciled',
]);

/**
 * Logged changes to a user or a role that can change what a signed-in call knows about its user
 * (the user row, roles, dealer details, permissions): they raise the access version in the same
 * transaction (auth/access-cache.ts). Sign-in events other than a sign-in (which writes
 * last_login_at) change only sessions, which every call reads fresh.
 */
const ACCESS_SUBJECTS = new Set(['user', 'role']);
const ACCESS_ACTIONS = new Set<ActivityAction>([
  'created',
  'updated',
  'deleted',
  'restored',
  'force_deleted',
  'status_changed',
  'permissions_assigned',
  'logo_updated',
  'logo_removed',
  'login',
  'email_changed',
  'profile_updated',
  'profile_picture_updated',
  'password_changed',
]);

export async function recordActivity(
  ctx: { db: Knex | Knex.Transaction; actor: { id: number | null }; ip: string | null; userAgent: string | null },
  entry: ActivityEntry,
): Promise<void> {
  await ctx.db('activity_log').insert({
    actor_id: entry.actorId !== undefined ? entry.actorId : ctx.actor.id,
    action: entry.action,
    subject_type: entry.subjectType ?? null,
    subject_id: entry.subjectId ?? null,
    description: entry.description?.slice(0, 500) ?? null,
    before: scrub(entry.before),
    after: scrub(entry.after),
    ip: ctx.ip,
    user_agent: ctx.userAgent,
    created_at: toDbTime(),
  });
  if (entry.subjectType && ACCESS_SUBJECTS.has(entry.subjectType) && ACCESS_ACTIONS.has(entry.action)) await bumpAccessVersion(ctx.db);
  // Every change is logged here, so this is the one place that knows the storefront's cached
  // answers may be stale: they are dropped once the change is committed.
  if (!SESSION_ACTIONS.has(entry.action)) onCommit(() => storefrontCache.clear());
}
