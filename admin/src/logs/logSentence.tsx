import { Fragment } from 'react';
import { useTranslate } from 'react-admin';
import { Link as MuiLink, useTheme } from '@mui/material';
import { Link } from 'react-router';
import type { LogSubject } from '@app/contracts';
import { isolate } from '../common/Ltr';

export type { LogSubject };

export interface LogEntry {
  id: number;
  actor: { id: number; name: string } | null;
  action: string;
  subject_type: string | null;
  subject_id: number | null;
  subject?: LogSubject | null;
  description: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}

/** Every action the API writes (api/src/activity-log/activity-log.ts), each with a sentence in logs.actions.*. */
export const LOG_ACTIONS = [
  'email_changed',
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
  'login_failed',
  'logout',
  'locked',
  'unlocked',
  'unlock_failed',
  'profile_updated',
  'profile_picture_updated',
  'password_changed',
  'password_reset_requested',
  'password_reset_mail_sent',
  'password_reset_mail_failed',
  'password_reset',
  'welcome_mail_sent',
  'welcome_mail_failed',
  'password_set_from_welcome',
  'two_factor_setup_started',
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_reset',
  'two_factor_failed',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'two_factor_requirement_changed',
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
  'recharge_created',
  'recharge_completed',
  'recharge_failed',
  'recharge_refunded',
  'recharge_retried',
  'recharge_needs_review',
  'recharge_resumed',
  'recharge_settled_in_review',
  'recharge_refunded_by_hand',
  'recharge_paid_back_by_hand',
  'recharge_payment_reconciled',
  'catalogue_changed',
  'routes_changed',
  'aggregator_catalogue_synced',
  'aggregator_float_threshold_changed',
  'aggregator_float_alert_sent',
  'aggregator_float_alert_failed',
  'reordered',
  'api_key_created',
  'api_key_revoked',
  'test_wallet_reset',
  'webhook_endpoint_set',
  'webhook_endpoint_removed',
  'webhook_secret_rotated',
  'webhook_test_sent',
  'webhook_resent',
  'daily_close_closed',
  'daily_close_difference_resolved',
  'daily_close_difference_reasked',
] as const;

export const LOG_SUBJECTS = [
  'user',
  'role',
  'banner',
  'provider',
  'category',
  'bundle',
  'payment_method',
  'contact',
  'area',
  'settings',
  'wallet',
  'wallet_top_up_request',
  'recharge',
  'dealer_provider',
  'dealer_category',
  'dealer_bundle',
  'api_key',
  'aggregator',
  'daily_close',
  'daily_close_difference',
] as const;

const SETTINGS_PAGES: Record<string, string> = { company: '/settings/company', mail: '/settings/mail', money: '/settings/money' };

/** The console page of a log entry's subject, when it has one that still opens. */
export function subjectPath(s: LogSubject | null | undefined): string | null {
  if (!s) return null;
  if (s.type === 'settings') return s.name && SETTINGS_PAGES[s.name] ? SETTINGS_PAGES[s.name] : null;
  if (s.type === 'wallet' || s.type === 'wallet_top_up_request') return s.dealer_id ? `/wallet-transactions?dealer=${s.dealer_id}` : null;
  if (!s.id || s.gone) return null;
  switch (s.type) {
    case 'user':
      return `${s.user_type === 'dealer' ? '/dealers' : '/admin'}/${s.id}`;
    case 'role':
      return `/settings/roles/${s.id}`;
    case 'banner':
      return `/banners/${s.id}`;
    case 'provider':
      return `/internet-providers/${s.id}`;
    case 'category':
      return s.provider_id ? `/internet-providers/${s.provider_id}/categories/${s.id}` : null;
    case 'bundle':
      return s.provider_id && s.category_id ? `/internet-providers/${s.provider_id}/categories/${s.category_id}/bundles/${s.id}` : null;
    case 'payment_method':
      return `/settings/payment-methods/${s.id}`;
    case 'contact':
      return `/settings/contacts/${s.id}`;
    case 'area':
      return `/settings/areas/${s.id}`;
    case 'recharge':
      return `/recharges/${s.id}`;
    case 'api_key':
      return `/api-keys/${s.id}`;
    // A day is named by its date; a difference by its day then its reference: both open the day's close.
    case 'daily_close':
    case 'daily_close_difference':
      return s.name && /^\d{4}-\d{2}-\d{2}/.test(s.name) ? `/reports/daily-close/${s.name.slice(0, 10)}` : null;
    default:
      return null;
  }
}

/**
 * An aggregator's catalogue sync names no record (subject_id is null): the aggregator and its counts
 * are in the entry's `after` (the sync's summary), else in its English description
 * ("dtone: 4 products, 1 new, 0 changed, 1 withdrawn").
 */
function syncSummary(l: LogEntry): { aggregator: string; products: number; new: number; changed: number; withdrawn: number } | null {
  const after = (typeof l.after === 'string' ? safeJson(l.after) : l.after) as Record<string, unknown> | null;
  if (after && typeof after.aggregator === 'string') {
    const n = (k: string) => Number(after[k] ?? 0);
    return { aggregator: after.aggregator, products: n('products'), new: n('new'), changed: n('changed'), withdrawn: n('withdrawn') };
  }
  const m = /^(\w+): (\d+) products, (\d+) new, (\d+) changed, (\d+) withdrawn/.exec(l.description ?? '');
  return m ? { aggregator: m[1], products: +m[2], new: +m[3], changed: +m[4], withdrawn: +m[5] } : null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Splits a translated sentence around one placeholder, so a link can stand where it was. */
const MARK = '\u2063';

export interface Sentence {
  text: string;
  parts: Array<string | { subject: string; to: string | null }>;
}

/**
 * A log entry as a sentence in the user's language: "Admin User assigned permissions to role
 * Editors", the subject linked to its page where it has one. Unknown actions get a sentence too
 * ("Admin User: something_new user Amina").
 */
export function useLogSentence() {
  const translate = useTranslate();
  // In right-to-left text a name keeps its own direction (FSI … PDI): "500 MB Daily", not "MB Daily 500".
  const rtl = useTheme().direction === 'rtl';
  const own = (name: string) => (rtl ? isolate(name) : name);
  return (l: LogEntry): Sentence => {
    const actor = l.actor?.name ? own(l.actor.name) : translate('logs.someone');
    const s = l.subject ?? (l.subject_type ? { type: l.subject_type, id: l.subject_id, name: null } : null);
    let subject = '';
    const sync = s?.type === 'aggregator' ? syncSummary(l) : null;
    if (s) {
      const rawName = sync
        ? translate(`catalogue.adapters.${sync.aggregator}`, { _: sync.aggregator })
        : own(s.name ?? (s.id ? `#${s.id}` : (l.description ?? '')));
      const name = s.type === 'settings' && s.name && SETTINGS_PAGES[s.name] ? translate(`logs.settings_groups.${s.name}`) : rawName;
      subject = translate(`logs.subjects.${s.type}`, { name, _: translate('logs.subjects.other', { type: s.type.replace(/_/g, ' '), name }) }).trim();
    }
    const known = (LOG_ACTIONS as readonly string[]).includes(l.action);
    const key = known ? `logs.actions.${l.action}` : 'logs.actions.other';
    // {{types}}: the plural name of the subject's kind ("Operators"), for entries about many rows (a new order).
    const types = s ? translate(`logs.subject_types.${s.type}`, { _: s.type.replace(/_/g, ' ') }) : '';
    const counts = sync ? { products: sync.products, new: sync.new, changed: sync.changed, withdrawn: sync.withdrawn } : {};
    const withMark = translate(key, { actor, subject: MARK, types, action: l.action.replace(/_/g, ' '), ...counts });
    // A change of an operator's routes links to its routes; a sync to that aggregator's catalogue.
    // A float's threshold or alert (its `after` names the aggregator too) links to the floats.
    const to =
      l.action === 'routes_changed' && s?.type === 'provider' && s.id && !s.gone
        ? `/internet-providers/${s.id}/routes`
        : sync && l.action.startsWith('aggregator_float_')
          ? '/aggregators'
          : sync
            ? `/aggregator-catalogue/${sync.aggregator}`
            : subjectPath(s);
    const parts: Sentence['parts'] = [];
    withMark.split(MARK).forEach((piece, i) => {
      if (i > 0) parts.push({ subject, to });
      if (piece) parts.push(piece);
    });
    const text = parts
      .map((p) => (typeof p === 'string' ? p : p.subject))
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    return { text, parts };
  };
}

/** The sentence with its subject as a link (when it has a page). */
export function LogSentence({ entry, link = true }: { entry: LogEntry; link?: boolean }) {
  const sentence = useLogSentence()(entry);
  return (
    <span>
      {sentence.parts.map((p, i) =>
        typeof p === 'string' ? (
          <Fragment key={i}>{p}</Fragment>
        ) : p.to && link ? (
          <MuiLink key={i} component={Link} to={p.to} onClick={(e: React.MouseEvent) => e.stopPropagation()} sx={{ fontWeight: 600 }}>
            {p.subject}
          </MuiLink>
        ) : (
          <strong key={i}>{p.subject}</strong>
        ),
      )}
    </span>
  );
}
