import crypto from 'node:crypto';
import type { Request } from 'express';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { changePasswordSchema, lockSchema, loginSchema, profileSchema } from '@app/contracts';
import { SIGNED_IN, sessionResponseSchema, meResponseSchema, lockStateSchema, profileResponseSchema } from '@app/contracts';
import { User } from '../users/user.model.ts';
import { Session } from './session.model.ts';
import { dummyVerify, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { attemptSucceeded, beginAttempt } from './login-throttle.ts';
import { signAccessToken } from './tokens.ts';
import { addSeconds, toDbTime } from '../database/time.ts';
import { withTransaction, isUniqueViolation } from '../database/transaction.ts';
import { logActivity } from '../activity-log/activity-log.ts';
import { AppError, fieldError, forbidden } from '../http/errors.ts';
import { presentUser, permissionsOfUsers } from '../users/user.presenter.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';

const DAY = 24 * 3600;
export const SESSION_TTL_SECONDS = { normal: DAY, remembered: 30 * DAY };

async function currentUserJson(userId: number) {
  const user = await User.query().findById(userId).withGraphFetched('[roles, dealer_details]');
  const perms = await permissionsOfUsers([userId]);
  return presentUser(user!, perms.get(userId) ?? []);
}

/**
 * Sign-in, sessions and the signed-in user's own profile (SPEC.md section 7, Auth table;
 * DESIGN.md section 4). Login answers the same 401 for an unknown email and a wrong password.
 */
export function authRoutes(registry: OpenApiRegistry, storage: FileStorage): ApiRouter {
  const api = new ApiRouter(registry, '/auth', 'Auth');

  const login = async (req: Request) => {
    const { email, password, rememberMe } = req.body as { email: string; password: string; rememberMe: boolean };
    const ip = req.ip ?? 'unknown';
    const attempt = await beginAttempt(email, ip);
    const user = await User.query().findOne({ email }).whereNull('deleted_at');
    const valid = user ? await verifyPassword(user.password, password) : await dummyVerify(password);
    if (!user || !valid) {
      await logActivity(User.knex(), req, {
        action: 'login_failed',
        subjectType: 'user',
        subjectId: user?.id ?? null,
        actorId: null,
        description: `Failed sign-in for ${email}`,
      });
      throw new AppError(401, 'api:auth.invalid_credentials');
    }
    if (user.status !== 'active') {
      await logActivity(User.knex(), req, { action: 'login_failed', subjectType: 'user', subjectId: user.id, actorId: user.id, description: 'Inactive account' });
      throw forbidden('api:auth.inactive');
    }
    await attemptSucceeded(attempt);
    const ttl = rememberMe ? SESSION_TTL_SECONDS.remembered : SESSION_TTL_SECONDS.normal;
    const now = new Date();
    const session = await withTransaction(async (trx) => {
      const row = await Session.query(trx).insertAndFetch({
        id: crypto.randomUUID(),
        user_id: user.id,
        remember_me: rememberMe,
        ip,
        user_agent: req.get('user-agent')?.slice(0, 500) ?? null,
        expires_at: toDbTime(addSeconds(now, ttl)),
        created_at: toDbTime(now),
      } as Partial<Session>);
      const patch: Partial<User> = { last_login_at: toDbTime(now) };
      if (needsRehash(user.password)) patch.password = await hashPassword(password);
      await User.query(trx).patch(patch).where('id', user.id);
      await logActivity(trx, req, { action: 'login', subjectType: 'user', subjectId: user.id, actorId: user.id, after: { remember_me: rememberMe } });
      return row;
    });
    const token = signAccessToken({ userId: user.id, sessionId: session.id }, ttl);
    return {
      message: 'api:auth.login_success',
      messageVars: { name: user.name },
      data: { user: await currentUserJson(user.id), token, token_type: 'Bearer', expires_at: addSeconds(now, ttl).toISOString() },
    };
  };

  api.post('/admin/login', { summary: 'Sign in (staff: admins and dealers)', auth: 'public', body: loginSchema, response: sessionResponseSchema }, login);
  api.post('/login', { summary: 'Sign in (same as /auth/admin/login)', auth: 'public', body: loginSchema, response: sessionResponseSchema }, login);

  api.post('/logout', { summary: 'Sign out: revokes this session', auth: 'user-while-locked', permission: SIGNED_IN, response: null }, async (req) => {
    const { session, user } = req.auth!;
    await withTransaction(async (trx) => {
      await Session.query(trx).patch({ revoked_at: toDbTime() } as Partial<Session>).where('id', session.id);
      await logActivity(trx, req, { action: 'logout', subjectType: 'user', subjectId: user.id });
    });
    return { message: 'api:auth.logged_out' };
  });

  api.get('/me', { summary: 'The signed-in user', auth: 'user-while-locked', permission: SIGNED_IN, response: meResponseSchema }, async (req) => ({
    data: { user: await currentUserJson(req.auth!.user.id), is_locked: Boolean(req.auth!.session.locked_at) },
  }));

  api.get('/check-lock', { summary: 'Whether this session is locked', auth: 'user-while-locked', permission: SIGNED_IN, response: lockStateSchema }, async (req) => ({
    data: { is_locked: Boolean(req.auth!.session.locked_at) },
  }));

  /**
   * Lock, unlock and change-password prove the password; wrong ones count toward the sign-in
   * throttle, so a stolen token cannot be used to guess it.
   */
  async function provePassword(req: Request, password: string, field: string, message: string, failureAction: 'unlock_failed' | null) {
    const { user } = req.auth!;
    const attempt = await beginAttempt(user.email, req.ip ?? 'unknown');
    const fresh = await User.query().findById(user.id);
    if (!(await verifyPassword(fresh!.password, password))) {
      if (failureAction) await logActivity(User.knex(), req, { action: failureAction, subjectType: 'user', subjectId: user.id });
      // 422, not 401: a wrong password here must not end the session in the console.
      throw fieldError(field, message);
    }
    await attemptSucceeded(attempt);
  }
  const lockPassword = (req: Request) => (req.body as { password: string }).password;

  api.post('/lock', { summary: 'Lock this session (password required)', auth: 'user-while-locked', permission: SIGNED_IN, body: lockSchema, response: lockStateSchema }, async (req) => {
    await provePassword(req, lockPassword(req), 'password', 'api:auth.password_incorrect', null);
    await withTransaction(async (trx) => {
      await Session.query(trx).patch({ locked_at: toDbTime() } as Partial<Session>).where('id', req.auth!.session.id);
      await logActivity(trx, req, { action: 'locked', subjectType: 'user', subjectId: req.auth!.user.id });
    });
    return { message: 'api:auth.locked', data: { is_locked: true } };
  });

  api.post('/unlock', { summary: 'Unlock this session (password required)', auth: 'user-while-locked', permission: SIGNED_IN, body: lockSchema, response: lockStateSchema }, async (req) => {
    await provePassword(req, lockPassword(req), 'password', 'api:auth.password_incorrect', 'unlock_failed');
    await withTransaction(async (trx) => {
      await Session.query(trx).patch({ locked_at: null } as Partial<Session>).where('id', req.auth!.session.id);
      await logActivity(trx, req, { action: 'unlocked', subjectType: 'user', subjectId: req.auth!.user.id });
    });
    return { message: 'api:auth.unlocked', data: { is_locked: false } };
  });

  api.put('/profile', { summary: 'Update own name, email, phone, address', permission: SIGNED_IN, body: profileSchema, response: profileResponseSchema }, async (req) => {
    const { user } = req.auth!;
    const input = req.body as { name?: string; email?: string; phone?: string | null; address?: string | null };
    const patch: Partial<User> = {};
    for (const key of ['name', 'email', 'phone', 'address'] as const) if (input[key] !== undefined) (patch as Record<string, unknown>)[key] = input[key];
    if (patch.email && patch.email !== user.email) {
      const taken = await User.query().findOne({ email: patch.email }).whereNot('id', user.id);
      if (taken) throw fieldError('email', 'validation:email_taken');
    }
    try {
      await withTransaction(async (trx) => {
        await User.query(trx).patch(patch).where('id', user.id);
        const before = Object.fromEntries(Object.keys(patch).map((k) => [k, (user as unknown as Record<string, unknown>)[k] ?? null]));
        await logActivity(trx, req, { action: 'profile_updated', subjectType: 'user', subjectId: user.id, before, after: patch });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw fieldError('email', 'validation:email_taken');
      throw err;
    }
    return { message: 'api:auth.profile_updated', data: { user: await currentUserJson(user.id) } };
  });

  api.post(
    '/profile-picture',
    { summary: 'Upload own profile picture (multipart field profile_image)', permission: SIGNED_IN, upload: imageUpload('profile_image'), files: ['profile_image'], response: profileResponseSchema },
    async (req) => {
      const { user } = req.auth!;
      const image = await checkedImage(req, 'profile_image');
      if (!image) throw fieldError('profile_image', 'validation:image_required');
      const url = await storage.put('avatars', image.extension, image.bytes);
      await withTransaction(async (trx) => {
        await User.query(trx).patch({ profile_image: url }).where('id', user.id);
        await logActivity(trx, req, { action: 'profile_picture_updated', subjectType: 'user', subjectId: user.id, before: { profile_image: user.profile_image ?? null }, after: { profile_image: url } });
      });
      await storage.remove(user.profile_image);
      return { message: 'api:auth.profile_picture_updated', data: { user: await currentUserJson(user.id) } };
    },
  );

  api.post('/change-password', { summary: 'Change own password; signs out every other session', permission: SIGNED_IN, body: changePasswordSchema, response: null }, async (req) => {
    const { user, session } = req.auth!;
    const { current_password, password } = req.body as { current_password: string; password: string };
    await provePassword(req, current_password, 'current_password', 'validation:current_password_wrong', null);
    const hash = await hashPassword(password);
    await withTransaction(async (trx) => {
      await User.query(trx).patch({ password: hash }).where('id', user.id);
      await Session.query(trx).patch({ revoked_at: toDbTime() } as Partial<Session>).where('user_id', user.id).whereNot('id', session.id).whereNull('revoked_at');
      await logActivity(trx, req, { action: 'password_changed', subjectType: 'user', subjectId: user.id });
    });
    return { message: 'api:auth.password_changed' };
  });

  return api;
}
