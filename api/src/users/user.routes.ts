import { z } from 'zod';
import {
  affectedSchema,
  bulkUserStatusSchema,
  createUserSchema,
  updateUserSchema,
  userResponseSchema,
  RESOURCES,
  STATUSES,
  USER_TYPES,
  SIGNED_IN,
} from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { ImageFields, WriteContext } from '../platform/resource-service.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { DealerDetails, User } from './user.model.ts';
import { presentUsers } from './user.presenter.ts';
import { AppError, fieldError, forbidden } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { assertCanManage, assertNotLastSuperAdmin } from './user-rules.ts';
import { createUser, prepareUserInput, revokeSessions, setDealerLogo, updateUser, userSnapshot } from './user.service.ts';
import { isDealer, transact, type Actor, type ServiceContext } from '../platform/context.ts';
import { cachedUsersPage } from './user-list-cache.ts';
import { removeTwoFactor } from '../auth/two-factor.ts';
import { welcomeResponseSchema, sendWelcomeEmail } from './welcome.ts';
import type { Request } from 'express';

/**
 * The users a caller may read. A dealer only ever sees itself, whatever permissions its role was
 * given. Without 'view users', 'view admins' and 'view dealers' each open their own user type.
 * Write routes are opened by their own permission; the type narrowing is for readers.
 */
function readerScope(actor: Actor): { dealerId?: number; types?: string[] } {
  if (actor.kind === 'system') return {};
  if (isDealer(actor)) return { dealerId: actor.id! };
  const types = [actor.permissions.has('view admins') && 'admin', actor.permissions.has('view dealers') && 'dealer'].filter(Boolean) as string[];
  if (actor.permissions.has('view users') || types.length === 0) return {};
  return { types };
}

/**
 * /users: admins and dealers (docs/product.md sections 3, 5, 7). The generic pattern from the registry
 * plus bulk status and dealer logos; the rules are in user.service.ts.
 */
export function userRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  const logoUrl = async (req: Request, field: string) => {
    const image = await checkedImage(req, field);
    return image ? storage.put('logos', image.extension, image.bytes) : null;
  };

  // Only dealers have a logo: one sent with an admin's form is not kept.
  const dealerLogo = (ctx: WriteContext, type: string | undefined) => {
    const url = ctx.files.dealer_logo ?? null;
    if (url && type !== 'dealer') {
      onCommit(() => storage.remove(url));
      return null;
    }
    return url;
  };

  return resourceRoutes<User, typeof userResponseSchema>(registry, storage, {
    def: RESOURCES.users,
    model: User,
    schemas: {
      create: createUserSchema,
      update: updateUserSchema,
      filters: filterQuery({
        user_type: z.enum(USER_TYPES).optional(),
        status: z.enum(STATUSES).optional(),
        role_id: z.string().optional(),
        dealer_code: z.string().optional(),
      }),
    },
    response: userResponseSchema,
    list: {
      sortable: ['id', 'name', 'email', 'phone', 'status', 'user_type', 'dealer_code', 'created_at', 'updated_at', 'last_login_at', 'deleted_at'],
      defaultSort: { field: 'created_at', order: 'desc' },
      filters: {
        user_type: (qb, v) => void qb.where('users.user_type', v),
        status: (qb, v) => void qb.where('users.status', v),
        dealer_code: (qb, v) => void qb.where('users.dealer_code', v),
        role_id: (qb, v) => void qb.whereExists(User.relatedQuery('roles').where('roles.id', decodeId(v) ?? 0)),
      },
    },
    graph: '[roles, dealer_details]',
    scope: (qb, { actor }) => {
      const scope = readerScope(actor);
      if (scope.dealerId !== undefined) qb.where('users.id', scope.dealerId);
      else if (scope.types) qb.whereIn('users.user_type', scope.types);
    },
    present: (records, ctx) => presentUsers(records, ctx.db),
    listCache: (ctx, query, state, load) => cachedUsersPage(ctx, JSON.stringify(readerScope(ctx.actor)), state, query, load),
    snapshot: userSnapshot,
    images: {
      // Required for a new dealer; createUser reports it together with a taken email or code.
      dealer_logo: {
        folder: 'logos',
        requiredOnCreate: (body) => body.user_type === 'dealer',
        requiredMessage: 'validation:dealer_logo_required',
        checkedByCreate: true,
      },
    } satisfies ImageFields<typeof RESOURCES.users>,
    prepare: (_ctx, input) => prepareUserInput(input),
    create: (ctx, input) => createUser(ctx, input, { logo: dealerLogo(ctx, input.user_type), storage }),
    update: (ctx, user, input) => updateUser(ctx, user, input, { logo: dealerLogo(ctx, input.user_type ?? user.user_type) ?? undefined, storage }),
    updateAnyPermission: ['update users', 'change user status', 'assign user roles'],
    updateErrors: {
      409: "The dealer's wallet holds money and the request changes its pricing model without confirm_pricing_change (code users.pricing_change_needs_confirmation)",
    },
    uniqueFields: {
      users_email_unique: ['email', 'validation:email_taken'],
      users_dealer_code_unique: ['dealer_code', 'validation:dealer_code_taken'],
    },
    guardDelete: async (ctx, user) => {
      if (user.id === ctx.actor.id) throw forbidden('api:users.cannot_delete_self');
      await assertCanManage(ctx.db, ctx.actor, user);
      await assertNotLastSuperAdmin(ctx.db, [user.id]);
    },
    afterSoftDelete: (ctx, user) => revokeSessions(ctx, [user.id]),
    // Restoring brings rights back: only for users within the caller's own.
    guardRestore: (ctx, user) => assertCanManage(ctx.db, ctx.actor, user),
    beforeForceDelete: async (ctx, user) => {
      // An untouched wallet goes with its dealer; one with a ledger keeps the dealer (409). Sales
      // (test ones too) keep it as well. A test wallet's rows are sandbox money only: they go with it.
      if (await ctx.db('recharges').where('dealer_id', user.id).first('id')) throw new AppError(409, 'api:users.has_financial_records');
      const wallets: { id: number; mode: string }[] = await ctx.db('wallets').where('dealer_id', user.id).select('id', 'mode');
      const live = wallets.filter((w) => w.mode === 'live').map((w) => w.id);
      if (live.length && (await ctx.db('wallet_transactions').whereIn('wallet_id', live).first('id')))
        throw new AppError(409, 'api:users.has_financial_records');
      const test = wallets.filter((w) => w.mode !== 'live').map((w) => w.id);
      if (test.length) await ctx.db('wallet_transactions').whereIn('wallet_id', test).delete();
      if (wallets.length) await ctx.db('wallets').where('dealer_id', user.id).delete();
      const logo = (await DealerDetails.query(ctx.db).findOne({ user_id: user.id }))?.logo_path;
      // The dealer's banners (trashed ones too) go with it by ON DELETE CASCADE: their images must go
      // as well. Read locked (MySQL), so an image replaced by an edit that commits first is the one removed.
      const bannerImages: string[] = await ctx.db('banners').where('dealer_id', user.id).forUpdate().pluck('image_path');
      // Its payment methods cascade the same way, with their logos.
      const methodLogos: (string | null)[] = await ctx.db('payment_methods').where('dealer_id', user.id).forUpdate().pluck('logo_path');
      for (const file of [user.profile_image, logo, ...bannerImages, ...methodLogos]) if (file) onCommit(() => storage.remove(file));
    },
    extraRoutes: (api, { findMany, find, presentOne }) => {
      api.patch(
        '/bulk/status',
        { summary: 'Set the status of several users', permission: 'change user status', body: bulkUserStatusSchema, response: affectedSchema },
        async (req, ctx) => {
          const { ids, status } = req.body as { ids: (string | number)[]; status: 'active' | 'inactive' };
          const count = await transact(ctx, async (tctx) => {
            const users = await findMany(tctx, ids, 'active', { lock: true });
            if (users.some((u) => u.id === tctx.actor.id)) throw forbidden('api:users.cannot_change_own_access');
            for (const u of users) await assertCanManage(tctx.db, tctx.actor, u);
            if (status === 'inactive')
              await assertNotLastSuperAdmin(
                tctx.db,
                users.map((u) => u.id),
              );
            const changed = users.filter((u) => u.status !== status);
            if (changed.length) {
              await User.query(tctx.db)
                .patch({ status })
                .whereIn(
                  'id',
                  changed.map((u) => u.id),
                );
              if (status === 'inactive')
                await revokeSessions(
                  tctx,
                  changed.map((u) => u.id),
                );
            }
            for (const u of changed) {
              await recordActivity(tctx, { action: 'status_changed', subjectType: 'user', subjectId: u.id, before: { status: u.status }, after: { status } });
            }
            return users.length;
          });
          return { message: 'api:users.bulk_status_updated', messageVars: { count }, data: { affected: count } };
        },
      );

      const changeLogo = async (req: Request, ctx: ServiceContext, userId: string | number, field: string | null) => {
        const url = field ? await logoUrl(req, field) : null;
        if (field && !url) throw fieldError(field, 'validation:image_required');
        try {
          const id = await transact(ctx, async (tctx) => {
            const user = await find(tctx, userId, 'active', { lock: true });
            if (user.user_type !== 'dealer') throw new AppError(422, 'api:users.not_a_dealer', field ? { [field]: ['api:users.not_a_dealer'] } : undefined);
            if (user.id !== tctx.actor.id) await assertCanManage(tctx.db, tctx.actor, user);
            const before = (await DealerDetails.query(tctx.db).findOne({ user_id: user.id }))?.logo_path ?? null;
            await setDealerLogo(tctx, user, url, storage);
            if (before !== url)
              await recordActivity(tctx, {
                action: url ? 'logo_updated' : 'logo_removed',
                subjectType: 'user',
                subjectId: user.id,
                before: { logo_path: before },
                after: { logo_path: url },
              });
            return user.id;
          });
          return { message: url ? 'api:users.logo_updated' : 'api:users.logo_removed', data: await presentOne(ctx, id) };
        } catch (err) {
          await storage.remove(url);
          throw err;
        }
      };
      const ownDealer = (ctx: ServiceContext) => {
        if (!isDealer(ctx.actor)) throw forbidden('api:users.dealers_only');
        return ctx.actor.id!;
      };
      const logoSpec = { upload: imageUpload('logo'), files: ['logo'], response: userResponseSchema };
      api.post('/dealer/logo', { summary: "Upload the signed-in dealer's logo (multipart field logo)", permission: SIGNED_IN, ...logoSpec }, (req, ctx) =>
        changeLogo(req, ctx, ownDealer(ctx), 'logo'),
      );
      api.delete('/dealer/logo', { summary: "Remove the signed-in dealer's logo", permission: SIGNED_IN, response: userResponseSchema }, (req, ctx) =>
        changeLogo(req, ctx, ownDealer(ctx), null),
      );
      api.post('/:id/dealer-logo', { summary: "Upload a dealer's logo (multipart field logo)", permission: 'update users', ...logoSpec }, (req, ctx) =>
        changeLogo(req, ctx, String(req.params.id), 'logo'),
      );
      api.delete('/:id/dealer-logo', { summary: "Remove a dealer's logo", permission: 'update users', response: userResponseSchema }, (req, ctx) =>
        changeLogo(req, ctx, String(req.params.id), null),
      );
      api.post(
        '/:id/welcome-email',
        {
          summary:
            'Email a new account a link to choose its password (72 hours, one use) through the mail settings; without them data.sent is false and the password stays as typed',
          permission: 'create users',
          response: welcomeResponseSchema,
        },
        async (req, ctx) => {
          const user = await find(ctx, String(req.params.id), 'active');
          await assertCanManage(ctx.db, ctx.actor, user);
          return sendWelcomeEmail(ctx, user);
        },
      );
      api.post(
        '/:id/two-factor/reset',
        {
          summary: "Reset a user's second factor (a lost phone): secret, recovery codes and trusted devices go; logged",
          permission: 'reset two-factor',
          response: userResponseSchema,
        },
        async (req, ctx) => {
          const { id, changed } = await transact(ctx, async (tctx) => {
            const user = await find(tctx, String(req.params.id), 'active', { lock: true });
            // One's own goes off through the profile, which asks for the password.
            if (user.id === tctx.actor.id) throw forbidden('api:two_factor.reset_self');
            await assertCanManage(tctx.db, tctx.actor, user);
            const removed = await removeTwoFactor(tctx.db, user.id);
            // The log entry raises the access version: the user's sessions follow at once (a role
            // that requires two-factor then lets them enrol again and do nothing else).
            if (removed) await recordActivity(tctx, { action: 'two_factor_reset', subjectType: 'user', subjectId: user.id });
            return { id: user.id, changed: removed };
          });
          return { message: changed ? 'api:two_factor.reset' : 'api:two_factor.nothing_to_reset', data: await presentOne(ctx, id) };
        },
      );
    },
  });
}
