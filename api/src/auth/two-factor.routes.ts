import type { Request } from 'express';
import type { Knex } from 'knex';
import {
  SIGNED_IN,
  recoveryCodesSchema,
  twoFactorConfirmSchema,
  twoFactorPasswordSchema,
  twoFactorSessionSchema,
  twoFactorSetupSchema,
  twoFactorStatusSchema,
  twoFactorVerifySchema,
  type TwoFactorVerifyInput,
} from '@app/contracts';
import type { ApiRouter } from '../http/api-router.ts';
import { User } from '../users/user.model.ts';
import { AppError, fieldError, forbidden } from '../http/errors.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { attemptFailed, attemptSucceeded, beginAttempt, SECOND_FACTOR_RULES, type Attempt } from './login-throttle.ts';
import { verifyChallengeToken, type VerifiedChallenge } from './tokens.ts';
import { toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { openSession, provePassword } from './sign-in.ts';
import {
  confirmEnrolment,
  confirmedSecret,
  consumeRecoveryCode,
  consumeStep,
  lockUserRow,
  matchingStep,
  passwordFingerprint,
  pendingSecret,
  recoveryCodesLeft,
  removeTwoFactor,
  replaceRecoveryCodes,
  requiredByRoles,
  setDeviceCookie,
  startEnrolment,
  trustDevice,
  twoFactorStatus,
} from './two-factor.ts';

/** A second factor that did not pass: its field and message (the transaction it ran in rolls back). */
class Refused extends Error {
  constructor(
    readonly field: 'code' | 'recovery_code',
    message: string,
  ) {
    super(message);
  }
}

/** Failures of second factors are throttled like passwords, under a key of their own per user. */
const throttleKey = (userId: number) => `two-factor:${userId}`;

async function refuse(ctx: ServiceContext, attempt: Attempt, userId: number, refusal: Refused): Promise<never> {
  await attemptFailed(attempt);
  await recordActivity(ctx, {
    action: 'two_factor_failed',
    subjectType: 'user',
    subjectId: userId,
    actorId: userId,
    description: refusal.field === 'code' ? 'Wrong or reused authenticator code' : 'Wrong or used recovery code',
  });
  throw fieldError(refusal.field, refusal.message);
}

/**
 * A challenge opens one session at most: its id is written in the session's transaction, so a
 * second verify with it (even at the same moment, with another valid code) finds it taken. A
 * wrong code rolls the write back: mistyping does not spend the challenge.
 */
async function spendChallenge(db: Knex | Knex.Transaction, challenge: VerifiedChallenge): Promise<void> {
  await db('two_factor_used_challenges').where('expires_at', '<', toDbTime()).delete();
  try {
    await db('two_factor_used_challenges').insert({ jti: challenge.jti, expires_at: toDbTime(challenge.expiresAt) });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(401, 'api:two_factor.challenge_expired');
    throw err;
  }
}

/**
 * The second step of a sign-in and the signed-in user's own second factor (docs/api-conventions.md,
 * "Two-factor sign-in"). Enrolment routes stay open to a user whose role requires two-factor and
 * who has not enrolled yet (`beforeTwoFactor`); everything else answers that user 403.
 */
export function addTwoFactorRoutes(api: ApiRouter): void {
  api.post(
    '/two-factor/verify',
    {
      summary: 'Second step of a sign-in: the challenge and a 6-digit code or a recovery code; opens the session',
      auth: 'public',
      body: twoFactorVerifySchema,
      response: twoFactorSessionSchema,
      errors: { 401: 'The challenge expired or is not valid: sign in again' },
    },
    async (req, ctx, res) => {
      const input = req.body as TwoFactorVerifyInput;
      const claims = verifyChallengeToken(input.challenge);
      const expired = new AppError(401, 'api:two_factor.challenge_expired');
      if (!claims) throw expired;
      const user = await User.query(ctx.db).findById(claims.userId).whereNull('deleted_at');
      // A password changed, an account switched off or a second factor reset since the first step ends the challenge.
      if (!user || user.status !== 'active' || !user.two_factor_enabled_at || passwordFingerprint(user.password) !== claims.passwordFingerprint) throw expired;
      const userCtx = { ...ctx, actor: { ...ctx.actor, id: user.id } };
      const attempt = await beginAttempt(throttleKey(user.id), ctx.ip ?? 'unknown', SECOND_FACTOR_RULES);
      let step: number | null = null;
      if (input.code !== undefined) {
        const secret = await confirmedSecret(ctx.db, user.id);
        step = secret ? matchingStep(secret, input.code) : null;
        if (step === null) return refuse(userCtx, attempt, user.id, new Refused('code', 'api:two_factor.code_invalid'));
      }
      let opened;
      try {
        opened = await openSession(ctx, user, {
          rememberMe: claims.rememberMe,
          method: step !== null ? 'totp' : 'recovery_code',
          within: async (tctx) => {
            await spendChallenge(tctx.db, claims);
            if (step !== null) {
              if (!(await consumeStep(tctx.db, user.id, step))) throw new Refused('code', 'api:two_factor.code_used');
            } else if (!(await consumeRecoveryCode(tctx.db, user.id, input.recovery_code!))) {
              throw new Refused('recovery_code', 'api:two_factor.recovery_code_invalid');
            }
            let left: number | undefined;
            if (step === null) {
              left = await recoveryCodesLeft(tctx.db, user.id);
              await recordActivity(tctx, { action: 'recovery_code_used', subjectType: 'user', subjectId: user.id, after: { recovery_codes_left: left } });
            }
            const device = input.remember_device ? await trustDevice(tctx.db, user.id, ctx.ip, ctx.userAgent) : null;
            return { left, device };
          },
        });
      } catch (err) {
        if (err instanceof Refused) return refuse(userCtx, attempt, user.id, err);
        // A challenge used already (spendChallenge) counts as a failed try.
        await attemptFailed(attempt);
        throw err;
      }
      await attemptSucceeded(attempt);
      const { left, device } = opened.extra;
      if (device) setDeviceCookie(req, res, user.id, device);
      return {
        message: left === undefined ? 'api:auth.login_success' : 'api:two_factor.signed_in_with_recovery_code',
        messageVars: { name: user.name, count: left },
        data: { ...opened.data, ...(left === undefined ? {} : { recovery_codes_left: left }) },
      };
    },
  );

  const me = (ctx: ServiceContext) => ctx.actor.user!;
  const passwordOf = (req: Request) => (req.body as { password: string }).password;

  api.get(
    '/two-factor',
    {
      summary: 'Own two-factor state: on or off, required by a role, recovery codes left',
      permission: SIGNED_IN,
      beforeTwoFactor: true,
      response: twoFactorStatusSchema,
    },
    async (_req, ctx) => ({ data: await twoFactorStatus(ctx.db, me(ctx).id) }),
  );

  api.post(
    '/two-factor/setup',
    {
      summary:
        'Start enrolling: a secret with its otpauth URL and QR code; the same one again while a setup not confirmed yet is under 10 minutes old (reloads and other tabs show the same QR), else a new one replacing it',
      permission: SIGNED_IN,
      beforeTwoFactor: true,
      response: twoFactorSetupSchema,
      errors: { 409: 'Two-factor sign-in is already on' },
    },
    async (_req, ctx) => {
      const user = me(ctx);
      const setup = await transact(ctx, async (tctx) => {
        await lockUserRow(tctx.db, user.id);
        const { setup: made, reused } = await startEnrolment(tctx.db, user);
        // Logged when a secret is made, not at each reload that shows it again.
        if (!reused) await recordActivity(tctx, { action: 'two_factor_setup_started', subjectType: 'user', subjectId: user.id });
        return made;
      });
      return { data: setup };
    },
  );

  api.post(
    '/two-factor/confirm',
    {
      summary: 'Finish enrolling with a code from the app and the password: turns two-factor on and answers ten recovery codes, once',
      permission: SIGNED_IN,
      beforeTwoFactor: true,
      body: twoFactorConfirmSchema,
      response: recoveryCodesSchema,
      errors: { 409: 'Two-factor sign-in is already on, or there is no setup to confirm' },
    },
    async (req, ctx) => {
      const user = me(ctx);
      const { code } = req.body as { code: string; password: string };
      await provePassword(ctx, passwordOf(req), 'password', 'api:auth.password_incorrect', null);
      const pending = await pendingSecret(ctx.db, user.id);
      if (!pending) {
        const status = await twoFactorStatus(ctx.db, user.id);
        throw new AppError(409, status.enabled ? 'api:two_factor.already_enabled' : 'api:two_factor.no_pending_setup');
      }
      const attempt = await beginAttempt(throttleKey(user.id), ctx.ip ?? 'unknown', SECOND_FACTOR_RULES);
      const step = matchingStep(pending.secret, code);
      const codes =
        step === null
          ? null
          : await transact(ctx, async (tctx) => {
              await lockUserRow(tctx.db, user.id);
              if (!(await confirmEnrolment(tctx.db, user.id, pending.sealed, step))) return null;
              const made = await replaceRecoveryCodes(tctx.db, user.id);
              await recordActivity(tctx, { action: 'two_factor_enabled', subjectType: 'user', subjectId: user.id });
              return made;
            });
      if (!codes) return refuse(ctx, attempt, user.id, new Refused('code', 'api:two_factor.code_invalid'));
      await attemptSucceeded(attempt);
      return { message: 'api:two_factor.enabled', data: { recovery_codes: codes, status: await twoFactorStatus(ctx.db, user.id) } };
    },
  );

  api.post(
    '/two-factor/recovery-codes',
    {
      summary: 'Ten new recovery codes (the old ones stop working), shown once; needs the password',
      permission: SIGNED_IN,
      body: twoFactorPasswordSchema,
      response: recoveryCodesSchema,
      errors: { 409: 'Two-factor sign-in is not on' },
    },
    async (req, ctx) => {
      const user = me(ctx);
      await provePassword(ctx, passwordOf(req), 'password', 'api:auth.password_incorrect', null);
      const codes = await transact(ctx, async (tctx) => {
        await lockUserRow(tctx.db, user.id);
        if (!(await confirmedSecret(tctx.db, user.id))) throw new AppError(409, 'api:two_factor.not_enabled');
        const made = await replaceRecoveryCodes(tctx.db, user.id);
        await recordActivity(tctx, { action: 'recovery_codes_regenerated', subjectType: 'user', subjectId: user.id });
        return made;
      });
      return { message: 'api:two_factor.recovery_codes_replaced', data: { recovery_codes: codes, status: await twoFactorStatus(ctx.db, user.id) } };
    },
  );

  api.post(
    '/two-factor/disable',
    {
      summary: 'Turn own two-factor off (secret, recovery codes and trusted devices go); needs the password; refused when a role requires it',
      permission: SIGNED_IN,
      body: twoFactorPasswordSchema,
      response: twoFactorStatusSchema,
    },
    async (req, ctx) => {
      const user = me(ctx);
      await provePassword(ctx, passwordOf(req), 'password', 'api:auth.password_incorrect', null);
      await transact(ctx, async (tctx) => {
        await lockUserRow(tctx.db, user.id);
        if (await requiredByRoles(tctx.db, user.id)) throw forbidden('api:two_factor.required_by_role');
        if (await removeTwoFactor(tctx.db, user.id)) await recordActivity(tctx, { action: 'two_factor_disabled', subjectType: 'user', subjectId: user.id });
      });
      return { message: 'api:two_factor.disabled', data: await twoFactorStatus(ctx.db, user.id) };
    },
  );
}
