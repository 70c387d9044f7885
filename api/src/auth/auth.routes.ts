import type { Request } from 'express';
import {
  changePasswordSchema,
  lockSchema,
  loginSchema,
  profileSchema,
  passwordContainsEmailName,
  SIGNED_IN,
  loginResponseSchema,
  meResponseSchema,
  lockStateSchema,
  profileResponseSchema,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { User } from '../users/user.model.ts';
import { Session } from './session.model.ts';
import { dummyVerify, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { attemptFailed, attemptSucceeded, beginAttempt } from './login-throttle.ts';
import { CHALLENGE_TTL_SECONDS, signChallengeToken } from './tokens.ts';
import { forgetTrustedDevices, passwordFingerprint, trustedDeviceOf } from './two-factor.ts';
import { currentUserJson, openSession, provePassword, type SignInMethod } from './sign-in.ts';
import { addTwoFactorRoutes } from './two-factor.routes.ts';
import { addPasswordResetRoutes } from './password-reset.routes.ts';
import { bumpAccessVersion } from './access-cache.ts';
import { addSeconds, toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { AppError, fieldError, forbidden, validationFailed } from '../http/errors.ts';
import { presentUser } from '../users/user.presenter.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { transact, type ServiceContext } from '../platform/context.ts';

export { SESSION_TTL_SECONDS } from './sign-in.ts';

/**
 * Sign-in, sessions and the signed-in user's own profile (docs/product.md section 7, Auth;
 * docs/decisions.md, Access). Login answers the same 401 for an unknown email and a wrong password.
 * With two-factor on, a right password opens no session: it answers a challenge for the second
 * step (two-factor.routes.ts), unless this browser is a device the user trusted.
 */
export function authRoutes(registry: OpenApiRegistry, storage: FileStorage): ApiRouter {
  const api = new ApiRouter(registry, '/auth', 'Auth');

  const login = async (req: Request, ctx: ServiceContext) => {
    const { email, password, rememberMe } = req.body as { email: string; password: string; rememberMe: boolean };
    const ip = ctx.ip ?? 'unknown';
    const attempt = await beginAttempt(email, ip);
    const user = await User.query(ctx.db).findOne({ email }).whereNull('deleted_at');
    const valid = user ? await verifyPassword(user.password, password) : await dummyVerify(password);
    if (!user || !valid || user.status !== 'active') {
      await attemptFailed(attempt);
      await recordActivity(ctx, {
        action: 'login_failed',
        subjectType: 'user',
        subjectId: user?.id ?? null,
        actorId: user && valid ? user.id : null,
        description: user && valid ? 'Inactive account' : `Failed sign-in for ${email}`,
      });
      if (!user || !valid) throw new AppError(401, 'api:auth.invalid_credentials');
      throw forbidden('api:auth.inactive');
    }
    await attemptSucceeded(attempt);
    // Re-hashed before the transaction: hashing is slow and must not hold the database.
    const rehash = needsRehash(user.password) ? await hashPassword(password) : null;
    let method: SignInMethod = 'password';
    if (user.two_factor_enabled_at) {
      if (!(await trustedDeviceOf(ctx.db, req, user.id))) {
        const challenge = signChallengeToken({ userId: user.id, rememberMe, passwordFingerprint: passwordFingerprint(rehash ?? user.password) });
        if (rehash) await User.query(ctx.db).patch({ password: rehash }).where('id', user.id);
        return {
          message: 'api:two_factor.code_needed',
          data: {
            two_factor_required: true as const,
            challenge,
            challenge_expires_at: addSeconds(new Date(), CHALLENGE_TTL_SECONDS).toISOString(),
          },
        };
      }
      method = 'trusted_device';
    }
    const opened = await openSession(ctx, user, { rememberMe, method, rehash });
    return { message: 'api:auth.login_success', messageVars: { name: user.name }, data: opened.data };
  };

  // With two-factor on and this browser not trusted, the answer is a challenge instead of a session.
  const loginSpec = {
    auth: 'public' as const,
    body: loginSchema,
    response: loginResponseSchema,
    errors: { 401: 'Wrong email or password', 403: 'The account is not active', 429: 'Too many failed attempts; Retry-After says when to try again' },
  };
  api.post('/admin/login', { summary: 'Sign in (staff: admins and dealers); with two-factor on: a challenge for the code', ...loginSpec }, login);
  api.post('/login', { summary: 'Sign in (same as /auth/admin/login)', ...loginSpec }, login);
  addTwoFactorRoutes(api);
  addPasswordResetRoutes(api);

  api.post('/logout', { summary: 'Sign out: revokes this session', auth: 'user-while-locked', permission: SIGNED_IN, response: null }, async (req, ctx) => {
    await transact(ctx, async (tctx) => {
      await Session.query(tctx.db)
        .patch({ revoked_at: toDbTime() } as Partial<Session>)
        .where('id', req.auth!.session.id);
      await recordActivity(tctx, { action: 'logout', subjectType: 'user', subjectId: tctx.actor.id });
    });
    return { message: 'api:auth.logged_out' };
  });

  // Answered from what authentication loaded, current under the access version (auth/access-cache.ts);
  // presented once per cached user (a reloaded user is a new object).
  const presented = new WeakMap<User, ReturnType<typeof presentUser>>();
  api.get('/me', { summary: 'The signed-in user', auth: 'user-while-locked', permission: SIGNED_IN, response: meResponseSchema }, async (req) => {
    const { user, permissions, session } = req.auth!;
    let json = presented.get(user);
    if (!json) presented.set(user, (json = presentUser(user, [...permissions])));
    return { data: { user: json, is_locked: Boolean(session.locked_at) } };
  });

  api.get(
    '/check-lock',
    { summary: 'Whether this session is locked', auth: 'user-while-locked', permission: SIGNED_IN, response: lockStateSchema },
    async (req) => ({
      data: { is_locked: Boolean(req.auth!.session.locked_at) },
    }),
  );

  const lockPassword = (req: Request) => (req.body as { password: string }).password;

  const setLock = (locked: boolean) => async (req: Request, ctx: ServiceContext) => {
    await provePassword(ctx, lockPassword(req), 'password', 'api:auth.password_incorrect', locked ? null : 'unlock_failed');
    await transact(ctx, async (tctx) => {
      await Session.query(tctx.db)
        .patch({ locked_at: locked ? toDbTime() : null } as Partial<Session>)
        .where('id', req.auth!.session.id);
      await recordActivity(tctx, { action: locked ? 'locked' : 'unlocked', subjectType: 'user', subjectId: tctx.actor.id });
    });
    return { message: locked ? 'api:auth.locked' : 'api:auth.unlocked', data: { is_locked: locked } };
  };
  api.post(
    '/lock',
    { summary: 'Lock this session (password required)', auth: 'user-while-locked', permission: SIGNED_IN, body: lockSchema, response: lockStateSchema },
    setLock(true),
  );
  api.post(
    '/unlock',
    { summary: 'Unlock this session (password required)', auth: 'user-while-locked', permission: SIGNED_IN, body: lockSchema, response: lockStateSchema },
    setLock(false),
  );

  api.put(
    '/profile',
    {
      summary: 'Update own name, email, phone, address; a new email needs current_password and signs out the other sessions',
      permission: SIGNED_IN,
      body: profileSchema,
      response: profileResponseSchema,
    },
    async (req, ctx) => {
      const user = ctx.actor.user!;
      const input = req.body as { name?: string; email?: string; phone?: string | null; address?: string | null; current_password?: string };
      const patch: Partial<User> = {};
      for (const key of ['name', 'email', 'phone', 'address'] as const) if (input[key] !== undefined) (patch as Record<string, unknown>)[key] = input[key];
      const emailChanged = patch.email !== undefined && patch.email !== user.email;
      if (emailChanged) {
        // The sign-in email is a credential: changing it takes the current password.
        const errors: Record<string, string[]> = {};
        if (!input.current_password) errors.current_password = ['validation:current_password_required'];
        if (await User.query(ctx.db).findOne({ email: patch.email }).whereNot('id', user.id)) errors.email = ['validation:email_taken'];
        if (Object.keys(errors).length) throw validationFailed(errors);
        await provePassword(ctx, input.current_password!, 'current_password', 'validation:current_password_wrong', null);
      } else delete patch.email;
      try {
        await transact(ctx, async (tctx) => {
          if (Object.keys(patch).length) {
            await User.query(tctx.db).patch(patch).where('id', user.id);
            // Even when no field really changed (no log entry), updated_at did.
            await bumpAccessVersion(tctx.db);
          }
          const before = Object.fromEntries(Object.keys(patch).map((k) => [k, (user as unknown as Record<string, unknown>)[k] ?? null]));
          if (emailChanged) {
            await Session.query(tctx.db)
              .patch({ revoked_at: toDbTime() } as Partial<Session>)
              .where('user_id', user.id)
              .whereNot('id', req.auth!.session.id)
              .whereNull('revoked_at');
            await recordActivity(tctx, {
              action: 'email_changed',
              subjectType: 'user',
              subjectId: user.id,
              before: { email: user.email },
              after: { email: patch.email },
            });
          }
          if (JSON.stringify(before) !== JSON.stringify(patch))
            await recordActivity(tctx, { action: 'profile_updated', subjectType: 'user', subjectId: user.id, before, after: patch });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw fieldError('email', 'validation:email_taken');
        throw err;
      }
      return { message: 'api:auth.profile_updated', data: { user: await currentUserJson(ctx, user.id) } };
    },
  );

  api.post(
    '/profile-picture',
    {
      summary: 'Upload own profile picture (multipart field profile_image)',
      permission: SIGNED_IN,
      upload: imageUpload('profile_image'),
      files: ['profile_image'],
      response: profileResponseSchema,
    },
    async (req, ctx) => {
      const image = await checkedImage(req, 'profile_image');
      if (!image) throw fieldError('profile_image', 'validation:image_required');
      const url = await storage.put('avatars', image.extension, image.bytes);
      try {
        await transact(ctx, async (tctx) => {
          // Read under a row lock: of parallel uploads, each removes the file the previous one stored.
          const current = await User.query(tctx.db).findById(tctx.actor.id!).forUpdate();
          const old = current?.profile_image ?? null;
          await User.query(tctx.db).patch({ profile_image: url }).where('id', tctx.actor.id!);
          await recordActivity(tctx, {
            action: 'profile_picture_updated',
            subjectType: 'user',
            subjectId: tctx.actor.id,
            before: { profile_image: old },
            after: { profile_image: url },
          });
          if (old) onCommit(() => storage.remove(old));
        });
      } catch (err) {
        await storage.remove(url);
        throw err;
      }
      return { message: 'api:auth.profile_picture_updated', data: { user: await currentUserJson(ctx, ctx.actor.id!) } };
    },
  );

  api.post(
    '/change-password',
    { summary: 'Change own password; signs out every other session', permission: SIGNED_IN, body: changePasswordSchema, response: null },
    async (req, ctx) => {
      const user = ctx.actor.user!;
      const { current_password, password } = req.body as { current_password: string; password: string };
      if (passwordContainsEmailName(password, user.email)) throw fieldError('password', 'validation:password_contains_email');
      await provePassword(ctx, current_password, 'current_password', 'validation:current_password_wrong', null);
      const hash = await hashPassword(password);
      await transact(ctx, async (tctx) => {
        await User.query(tctx.db).patch({ password: hash }).where('id', user.id);
        await Session.query(tctx.db)
          .patch({ revoked_at: toDbTime() } as Partial<Session>)
          .where('user_id', user.id)
          .whereNot('id', req.auth!.session.id)
          .whereNull('revoked_at');
        // A device trusted for the second factor was trusted by whoever knew the old password.
        await forgetTrustedDevices(tctx.db, [user.id]);
        await recordActivity(tctx, { action: 'password_changed', subjectType: 'user', subjectId: user.id });
      });
      return { message: 'api:auth.password_changed' };
    },
  );

  return api;
}
