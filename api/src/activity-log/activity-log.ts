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
  // Set-password links (auth/password-reset.ts): a forgotten password, a new account's welcome email.
  | 'password_reset_requested'
  | 'password_reset_mail_sent'
  | 'password_reset_mail_failed'
  | 'password_reset'
  | 'welcome_mail_sent'
  | 'welcome_mail_failed'
  | 'password_set_from_welcome'
  | 'two_factor_setup_started'
  | 'two_factor_enabled'
  | 'two_factor_disabled'
  | 'two_factor_reset'
  | 'two_factor_failed'
  | 'recovery_code_used'
  | 'recovery_codes_regenerated'
  | 'two_factor_requirement_changed'
  | 'mail_tested'
  | 'wallet_topped_up'
  | 'wallet_adjusted'
  | 'top_up_requested'
  | 'top_up_approved'
  | 'top_up_rejected'
  // A "Profit Only" dealer's payout request (wallets/top-up-requests.ts).
  | 'payout_requested'
  | 'payout_approved'
  | 'payout_rejected'
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
  | 'recharge_paid_back_by_hand'
  | 'recharge_payment_reconciled'
  | 'catalogue_changed'
  | 'routes_changed'
  | 'aggregator_catalogue_synced'
  // An aggregator's float (aggregators/float.service.ts): its alert threshold, and the alert's email.
  | 'aggregator_float_threshold_changed'
  | 'aggregator_float_alert_sent'
  | 'aggregator_float_alert_failed'
  | 'reordered'
  | 'api_key_created'
  | 'api_key_revoked'
  | 'test_wallet_reset'
  | 'webhook_endpoint_set'
  | 'webhook_endpoint_removed'
  | 'webhook_secret_rotated'
  | 'webhook_test_sent'
  | 'webhook_resent'
  // The daily close (daily-close/daily-close.service.ts).
  | 'daily_close_closed'
  | 'daily_close_difference_resolved'
  | 'daily_close_difference_reasked';

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

/** Sign-in events and money movements change nothing a storefront shows; every other logged change may. */
const SESSION_ACTIONS = new Set<ActivityAction>([
  'login',
  'login_failed',
  'logout',
  'locked',
  'unlocked',
  'unlock_failed',
  // A second factor is asked at sign-in only: no storefront shows it.
  'two_factor_setup_started',
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_reset',
  'two_factor_failed',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'two_factor_requirement_changed',
  'password_reset_requested',
  'password_reset_mail_sent',
  'password_reset_mail_failed',
  'password_reset',
  'welcome_mail_sent',
  'welcome_mail_failed',
  'password_set_from_welcome',
  'mail_tested',
  'wallet_topped_up',
  'wallet_adjusted',
  'top_up_requested',
  'top_up_approved',
  'top_up_rejected',
  'payout_requested',
  'payout_approved',
  'payout_rejected',
  'low_balance_alert_changed',
  'low_balance_alert_sent',
  'low_balance_alert_failed',
  // A sale's log lines are written by its events (recharges/sale-events.ts), never through here.
  // A dealer's API keys show nowhere on a storefront.
  'api_key_created',
  'api_key_revoked',
  'test_wallet_reset',
  // Nor its webhook.
  'webhook_endpoint_set',
  'webhook_endpoint_removed',
  'webhook_secret_rotated',
  'webhook_test_sent',
  'webhook_resent',
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
  // users.two_factor_enabled_at and roles.requires_two_factor: what the guard enforces on every call.
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_reset',
  'two_factor_requirement_changed',
]);

type ActivityContext = { actor: { id: number | null }; ip: string | null; userAgent: string | null };

/** The log row of an entry; written by recordActivity, or several at once by a batch of sales (recharges/sale-batches.ts). */
export function activityRow(ctx: ActivityContext, entry: ActivityEntry) {
  return {
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
  };
}

/** An entry written by a service: actor, address and agent come from its context. */
export async function recordActivity(ctx: ActivityContext & { db: Knex | Knex.Transaction }, entry: ActivityEntry): Promise<void> {
  await ctx.db('activity_log').insert(activityRow(ctx, entry));
  if (entry.subjectType && ACCESS_SUBJECTS.has(entry.subjectType) && ACCESS_ACTIONS.has(entry.action)) await bumpAccessVersion(ctx.db);
  // Every change is logged here, so this is the one place that knows the storefront's cached
  // answers may be stale: they are dropped once the change is committed.
  if (!SESSION_ACTIONS.has(entry.action)) onCommit(() => storefrontCache.clear());
}
