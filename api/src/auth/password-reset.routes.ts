import { forgotPasswordSchema, resetPasswordSchema, setPasswordLinkSchema, setPasswordTokenSchema } from '@app/contracts';
import type { ApiRouter } from '../http/api-router.ts';
import { User } from '../users/user.model.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { serviceLog } from '../platform/logger.ts';
import { fromDbTime } from '../database/time.ts';
import crypto from 'node:crypto';
import { attemptFailed, beginAttempt, type ThrottleRule } from './login-throttle.ts';
import { mailSetPasswordLink, openLink, setPasswordByLink } from './password-reset.ts';

/**
 * Requests for a link, counted apart from sign-ins (their own keys, so a busy shared address's
 * requests never use up its sign-in budget): 5 per email and address and 5 per email in 15
 * minutes, 30 per address.
 */
const RESET_RULES: readonly ThrottleRule[] = [
  { scope: 'account_ip', limit: 5, windowSeconds: 15 * 60 },
  { scope: 'ip', limit: 30, windowSeconds: 15 * 60 },
  { scope: 'account', limit: 5, windowSeconds: 15 * 60 },
];
/** The throttle's keys for a request: short whatever the email's length (login_attempts.email is 191). */
const resetKeys = (email: string, ip: string) => ({
  email: `pr:${crypto.createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 40)}`,
  ip: `pr:${ip}`.slice(0, 64),
});

/**
 * The forgotten-password flow (docs/api-conventions.md, "Forgotten password and welcome email"):
 * ask for a link by email, read what a link opens, set the password through it.
 */
export function addPasswordResetRoutes(api: ApiRouter): void {
  api.post(
    '/forgot-password',
    {
      summary: 'Ask for a set-password link by email (60 minutes, one use); the answer is the same whether the account exists',
      auth: 'public',
      body: forgotPasswordSchema,
      response: null,
      errors: { 429: 'Too many requests for this email or from this address; Retry-After says when to try again' },
    },
    async (req, ctx) => {
      const { email } = req.body as { email: string };
      // Counted like sign-in failures (same windows), under a key of its own: every request counts.
      const keys = resetKeys(email, ctx.ip ?? 'unknown');
      const attempt = await beginAttempt(keys.email, keys.ip, RESET_RULES);
      await attemptFailed(attempt);
      const user = await User.query(ctx.db).findOne({ email }).whereNull('deleted_at');
      await recordActivity(ctx, {
        action: 'password_reset_requested',
        subjectType: 'user',
        subjectId: user?.id ?? null,
        description: user ? undefined : `Password reset asked for an unknown email ${email}`,
      });
      // The mail goes after the answer: its time must not tell whether the account exists.
      if (user && user.status === 'active')
        void mailSetPasswordLink(ctx, user, 'reset').catch((err: unknown) => serviceLog.warn({ err, user: user.id }, 'password reset mail failed'));
      return { message: 'api:auth.reset_link_sent' };
    },
  );

  api.post(
    '/reset-password/check',
    {
      summary: 'Whose account a set-password link opens and until when; 422 on token when it is unknown, used or expired',
      auth: 'public',
      body: setPasswordTokenSchema,
      response: setPasswordLinkSchema,
    },
    async (req, ctx) => {
      const { row, user } = await openLink(ctx, (req.body as { token: string }).token);
      return { data: { email: user.email, purpose: row.purpose, expires_at: fromDbTime(row.expires_at)! } };
    },
  );

  api.post(
    '/reset-password',
    {
      summary: 'Set a new password through a set-password link (works once); signs the user out everywhere',
      auth: 'public',
      body: resetPasswordSchema,
      response: null,
    },
    async (req, ctx) => {
      const { token, password } = req.body as { token: string; password: string };
      await setPasswordByLink(ctx, token, password);
      return { message: 'api:auth.password_set' };
    },
  );
}
