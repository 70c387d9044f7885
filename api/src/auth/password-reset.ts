import crypto from 'node:crypto';
import { passwordContainsEmailName } from '@app/contracts';
import { keyedHash } from './tokens.ts';
import { hashPassword } from './passwords.ts';
import { forgetTrustedDevices } from './two-factor.ts';
import { addSeconds, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { fieldError } from '../http/errors.ts';
import { appUrlOf } from '../config.ts';
import { translator } from '../i18n/server-i18n.ts';
import { serviceLog } from '../platform/logger.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { readMailServer, sendMail } from '../settings/mail-settings.ts';

/**
 * Set-password links (docs/api-conventions.md, "Forgotten password and welcome email"). A link
 * carries a random token; only its keyed hash (HMAC under APP_KEY) is stored, so a database dump
 * opens no account. A link works once, until it expires; a newer link for the same user ends
 * every older one. Setting the password signs the user out everywhere.
 */
export type SetPasswordPurpose = 'reset' | 'welcome';
export const LINK_TTL_SECONDS: Record<SetPasswordPurpose, number> = { reset: 60 * 60, welcome: 72 * 3600 };

const hashOf = (token: string) => keyedHash('set-password-link', token);

/** The console page a link opens (APP_URL + /auth/reset-password, else the bare path). */
export function setPasswordUrl(token: string): string {
  return `${appUrlOf()}/auth/reset-password?token=${encodeURIComponent(token)}`;
}

/** A new link for the user; the older ones (used or not) go. Returns the token (never stored) and its expiry. */
export async function issueSetPasswordLink(ctx: ServiceContext, userId: number, purpose: SetPasswordPurpose) {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = addSeconds(now, LINK_TTL_SECONDS[purpose]);
  await transact(ctx, async (tctx) => {
    await tctx.db('password_resets').where({ user_id: userId }).delete();
    await tctx.db('password_resets').insert({
      user_id: userId,
      token_hash: hashOf(token),
      purpose,
      expires_at: toDbTime(expiresAt),
      used_at: null,
      created_at: toDbTime(now),
    });
  });
  return { token, expiresAt };
}

export type MailOutcome = { sent: true; to: string; expiresAt: Date } | { sent: false; configured: boolean; reason: string };

/**
 * Makes a link and mails it through the saved mail server, in `ctx.language`. Never throws for a
 * mail problem: a missing or refusing server is answered (and logged) as not sent, and the link
 * made for it is removed again, so no working link exists that nobody received.
 */
export async function mailSetPasswordLink(
  ctx: ServiceContext,
  user: { id: number; name: string; email: string },
  purpose: SetPasswordPurpose,
): Promise<MailOutcome> {
  const action = purpose === 'reset' ? 'password_reset_mail' : 'welcome_mail';
  const failed = async (reason: string, configured = true): Promise<MailOutcome> => {
    serviceLog.warn({ user: user.id, reason }, `${action} not sent`);
    await recordActivity(ctx, { action: `${action}_failed`, subjectType: 'user', subjectId: user.id, description: `${action} not sent: ${reason}` });
    return { sent: false, configured, reason };
  };
  const server = await readMailServer(ctx.db);
  if (!server) return failed('the mail settings are not saved', false);
  const { token, expiresAt } = await issueSetPasswordLink(ctx, user.id, purpose);
  const company = await readCompanySettings(ctx.db);
  const t = translator(ctx.language);
  const vars = { company: company.company_name, name: user.name, email: user.email, link: setPasswordUrl(token), hours: LINK_TTL_SECONDS[purpose] / 3600 };
  const prefix = purpose === 'reset' ? 'api:auth.reset_mail' : 'api:users.welcome_mail';
  try {
    await sendMail(server, { to: user.email, subject: t(`${prefix}_subject`, vars), text: t(`${prefix}_body`, vars) });
  } catch (err) {
    await ctx
      .db('password_resets')
      .where({ token_hash: hashOf(token) })
      .delete();
    return failed(err instanceof Error ? err.message.slice(0, 300) : String(err));
  }
  await recordActivity(ctx, {
    action: `${action}_sent`,
    subjectType: 'user',
    subjectId: user.id,
    description: `${action} sent to ${user.email}`,
    after: { to: user.email, expires_at: expiresAt.toISOString() },
  });
  return { sent: true, to: user.email, expiresAt };
}

interface LinkRow {
  id: number;
  user_id: number;
  purpose: SetPasswordPurpose;
  expires_at: string;
  used_at: string | null;
}

/** The link's row and its user when the link still works; else a 422 on `token` (one message for unknown, used and expired). */
export async function openLink(ctx: ServiceContext, token: string) {
  const row: LinkRow | undefined = token
    ? await ctx
        .db('password_resets')
        .where({ token_hash: hashOf(token) })
        .first()
    : undefined;
  const user = row ? await ctx.db('users').where({ id: row.user_id }).whereNull('deleted_at').first('id', 'name', 'email', 'status', 'password') : undefined;
  if (!row || row.used_at || row.expires_at <= toDbTime() || !user || user.status !== 'active') throw fieldError('token', 'validation:reset_link_invalid');
  return { row, user: user as { id: number; name: string; email: string } };
}

/**
 * Sets the password of a link's user: the link is spent by a conditional update (of two uses at
 * once, one wins), the password changes, every session ends and trusted devices are forgotten.
 */
export async function setPasswordByLink(ctx: ServiceContext, token: string, password: string) {
  const { row, user } = await openLink(ctx, token);
  if (passwordContainsEmailName(password, user.email)) throw fieldError('password', 'validation:password_contains_email');
  const hash = await hashPassword(password);
  await transact({ ...ctx, actor: { ...ctx.actor, id: user.id } }, async (tctx) => {
    const spent = await tctx
      .db('password_resets')
      .where({ id: row.id })
      .whereNull('used_at')
      .where('expires_at', '>', toDbTime())
      .update({ used_at: toDbTime() });
    if (spent !== 1) throw fieldError('token', 'validation:reset_link_invalid');
    await tctx.db('users').where({ id: user.id }).update({ password: hash, updated_at: toDbTime() });
    await tctx.db('sessions').where({ user_id: user.id }).whereNull('revoked_at').update({ revoked_at: toDbTime() });
    await forgetTrustedDevices(tctx.db, [user.id]);
    await recordActivity(tctx, {
      action: row.purpose === 'reset' ? 'password_reset' : 'password_set_from_welcome',
      subjectType: 'user',
      subjectId: user.id,
      actorId: user.id,
    });
  });
  return user;
}
