import crypto from 'node:crypto';
import { User } from '../users/user.model.ts';
import { Session } from './session.model.ts';
import { signAccessToken } from './tokens.ts';
import { addSeconds, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { presentUser, permissionsOfUsers } from '../users/user.presenter.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { fieldError } from '../http/errors.ts';
import { verifyPassword } from './passwords.ts';
import { attemptFailed, attemptSucceeded, beginAttempt } from './login-throttle.ts';

const DAY = 24 * 3600;
export const SESSION_TTL_SECONDS = { normal: DAY, remembered: 30 * DAY };

/** How the sign-in was proven: the password alone, or with a second factor (logged with the sign-in). */
export type SignInMethod = 'password' | 'trusted_device' | 'totp' | 'recovery_code';

export async function currentUserJson(ctx: ServiceContext, userId: number) {
  const user = await User.query(ctx.db).findById(userId).withGraphFetched('[roles, dealer_details]');
  const perms = await permissionsOfUsers([userId], ctx.db);
  return presentUser(user!, perms.get(userId) ?? []);
}

/**
 * Open a staff session: the user's last sign-in, a sessions row and the 'login' log entry in one
 * transaction, then the token. `within` runs in that transaction once the user row is locked (a
 * second factor consumed there is consumed only if the session opens; throwing rolls both back).
 */
export async function openSession<T = undefined>(
  ctx: ServiceContext,
  user: Pick<User, 'id' | 'name'>,
  opts: { rememberMe: boolean; method: SignInMethod; rehash?: string | null; within?: (tctx: ServiceContext) => Promise<T> },
) {
  const ttl = opts.rememberMe ? SESSION_TTL_SECONDS.remembered : SESSION_TTL_SECONDS.normal;
  const now = new Date();
  const { session, extra } = await transact({ ...ctx, actor: { ...ctx.actor, id: user.id } }, async (tctx) => {
    // The user row first: its exclusive lock, taken before the session insert's foreign-key
    // check, makes parallel sign-ins to one account queue instead of deadlocking (InnoDB); every
    // change to a user's second factor takes it first too.
    await User.query(tctx.db)
      .patch({ last_login_at: toDbTime(now), ...(opts.rehash ? { password: opts.rehash } : {}) })
      .where('id', user.id);
    const extra = opts.within ? await opts.within(tctx) : (undefined as T);
    const row = await Session.query(tctx.db).insertAndFetch({
      id: crypto.randomUUID(),
      user_id: user.id,
      remember_me: opts.rememberMe,
      ip: ctx.ip ?? 'unknown',
      user_agent: ctx.userAgent,
      expires_at: toDbTime(addSeconds(now, ttl)),
      created_at: toDbTime(now),
    } as Partial<Session>);
    await recordActivity(tctx, {
      action: 'login',
      subjectType: 'user',
      subjectId: user.id,
      after: { remember_me: opts.rememberMe, ...(opts.method === 'password' ? {} : { second_factor: opts.method }) },
    });
    return { session: row, extra };
  });
  const token = signAccessToken({ userId: user.id, sessionId: session.id }, ttl);
  return {
    extra,
    data: {
      user: await currentUserJson(ctx, user.id),
      token,
      token_type: 'Bearer' as const,
      expires_at: addSeconds(now, ttl).toISOString(),
    },
  };
}

/**
 * Lock, unlock, change-password, an email change and the two-factor settings prove the password;
 * wrong ones count toward the sign-in throttle, so a stolen token cannot be used to guess it. A
 * wrong password is a 422 on the field, not a 401: it must not end the session in the console.
 */
export async function provePassword(ctx: ServiceContext, password: string, field: string, message: string, failureAction: 'unlock_failed' | null) {
  const user = ctx.actor.user!;
  const attempt = await beginAttempt(user.email, ctx.ip ?? 'unknown');
  const fresh = await User.query(ctx.db).findById(user.id);
  if (!(await verifyPassword(fresh!.password, password))) {
    await attemptFailed(attempt);
    if (failureAction) await recordActivity(ctx, { action: failureAction, subjectType: 'user', subjectId: user.id });
    throw fieldError(field, message);
  }
  await attemptSucceeded(attempt);
}
