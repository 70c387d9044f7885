import type { Request } from 'express';
import type { Knex } from 'knex';
import { resourceRoutes, filterQuery, type WriteContext } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { DealerDetails, User } from './user.model.ts';
import { bulkUserStatusSchema, createUserSchema, updateUserSchema, USER_TYPES, type CreateUserInput, type UpdateUserInput } from '@app/contracts';
import { STATUSES } from '@app/contracts';
import { presentUsers } from './user.presenter.ts';
import { hashPassword } from '../auth/passwords.ts';
import { fieldError, forbidden, AppError } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { toDbTime } from '../database/time.ts';
import { withTransaction, isUniqueViolation, violatedColumns } from '../database/transaction.ts';
import { logActivity } from '../activity-log/activity-log.ts';
import { checkedImage, imageUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { assertCanManage, assertNotLastSuperAdmin, grantableDealerRole, resolveAdminRole } from './user-rules.ts';
import { hasAll } from '../auth/access.ts';
import { z } from 'zod';

const DEALER_FIELDS = ['brand_color', 'company_name', 'description', 'website', 'contact_email', 'contact_phone', 'pricing_model'] as const;
const USER_FIELDS = ['name', 'email', 'phone', 'address', 'dealer_code'] as const;

function snapshot(u: User): Record<string, unknown> {
  return {
    name: u.name,
    email: u.email,
    phone: u.phone ?? null,
    address: u.address ?? null,
    dealer_code: u.dealer_code ?? null,
    status: u.status,
    user_type: u.user_type,
  };
}

async function revokeSessions(trx: Knex.Transaction, userIds: number[]): Promise<void> {
  await trx('sessions').whereIn('user_id', userIds).whereNull('revoked_at').update({ revoked_at: toDbTime() });
}

async function assertEmailFree(trx: Knex.Transaction, email: string, exceptId?: number) {
  const q = User.query(trx).findOne({ email });
  if (exceptId) q.whereNot('id', exceptId);
  if (await q) throw fieldError('email', 'validation:email_taken');
}

async function assertDealerCodeFree(trx: Knex.Transaction, code: string, exceptId?: number) {
  const q = trx('users').whereRaw('LOWER(dealer_code) = LOWER(?)', [code]);
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first()) throw fieldError('dealer_code', 'validation:dealer_code_taken');
}

/** A dealer's wallet exists from the day the dealer does (balance 0, DESIGN.md section 5). */
async function ensureWallet(trx: Knex.Transaction, dealerId: number): Promise<void> {
  const existing = await trx('wallets').where('dealer_id', dealerId).first();
  if (existing) return;
  const now = toDbTime();
  await trx('wallets').insert({ dealer_id: dealerId, balance: 0, currency: 'USD', created_at: now, updated_at: now });
}

async function setRoles(trx: Knex.Transaction, userId: number, roleIds: number[]): Promise<void> {
  await trx('user_roles').where('user_id', userId).delete();
  if (roleIds.length) await trx('user_roles').insert(roleIds.map((role_id) => ({ user_id: userId, role_id })));
}

/**
 * Users: admins and dealers (SPEC.md sections 3, 5, 7). The generic pattern plus bulk status
 * and dealer logos. Dealers see only themselves; nobody raises rights beyond their own.
 */
export function userRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  const withUniqueErrors = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      // Two requests racing past the checks above still get a 422, not a 500.
      if (isUniqueViolation(err)) {
        throw violatedColumns(err).includes('dealer_code') ? fieldError('dealer_code', 'validation:dealer_code_taken') : fieldError('email', 'validation:email_taken');
      }
      throw err;
    }
  };

  async function storeDealerLogo(req: Request, field: string): Promise<string | null> {
    const image = await checkedImage(req, field);
    return image ? storage.put('logos', image.extension, image.bytes) : null;
  }

  async function create(ctx: WriteContext, input: CreateUserInput): Promise<User> {
    const { req, trx } = ctx;
    const type = input.user_type ?? 'admin';
    await assertEmailFree(trx, input.email);
    let roleId: number;
    // Dealer codes are unique whatever the case (they name storefront URLs), for any user type.
    if (input.dealer_code) await assertDealerCodeFree(trx, input.dealer_code);
    if (type === 'dealer') {
      roleId = (await grantableDealerRole(req, trx)).id;
    } else {
      roleId = (await resolveAdminRole(req, input.role_id, trx)).id;
    }
    const logo = type === 'dealer' && !ctx.bulk ? await storeDealerLogo(req, 'dealer_logo') : null;
    if (type === 'dealer' && !logo) throw fieldError('dealer_logo', 'validation:dealer_logo_required');
    try {
      return await withUniqueErrors(async () => {
        const user = await User.query(trx).insertAndFetch({
          name: input.name,
          email: input.email,
          password: await hashPassword(input.password),
          phone: input.phone ?? null,
          address: input.address ?? null,
          dealer_code: type === 'dealer' ? input.dealer_code! : (input.dealer_code ?? null),
          user_type: type,
          status: input.status ?? 'active',
        } as Partial<User>);
        await setRoles(trx, user.id, [roleId]);
        if (type === 'dealer') {
          await DealerDetails.query(trx).insert({
            user_id: user.id,
            brand_color: input.brand_color ?? '#000000',
            company_name: input.company_name ?? null,
            description: input.description ?? null,
            website: input.website ?? null,
            contact_email: input.contact_email ?? null,
            contact_phone: input.contact_phone ?? null,
            pricing_model: input.pricing_model ?? 'cost',
            logo_path: logo,
          } as Partial<DealerDetails>);
          await ensureWallet(trx, user.id);
        }
        await logActivity(trx, req, { action: 'created', subjectType: 'user', subjectId: user.id, after: { ...snapshot(user), role_id: roleId } });
        return user;
      });
    } catch (err) {
      await storage.remove(logo);
      throw err;
    }
  }

  async function update(ctx: WriteContext, user: User, input: UpdateUserInput): Promise<void> {
    const { req, trx } = ctx;
    const caller = req.auth!;
    const held = caller.permissions;
    // The console's edit form sends status, type and role every time: only real changes count.
    const currentRoleIds: number[] = (await trx('user_roles').where('user_id', user.id).select('role_id')).map((r: { role_id: number }) => r.role_id);
    const changes = {
      status: input.status !== undefined && input.status !== user.status,
      type: input.user_type !== undefined && input.user_type !== user.user_type,
      role: input.role_id !== undefined && !(currentRoleIds.length === 1 && currentRoleIds[0] === decodeId(input.role_id as string | number)),
    };
    const touchesProfile = [...USER_FIELDS, ...DEALER_FIELDS, 'password'].some((f) => (input as Record<string, unknown>)[f] !== undefined) || Boolean(req.file);
    // PATCH with status only needs "change user status"; anything else needs "update users".
    if (touchesProfile && !held.has('update users')) throw forbidden();
    if (changes.status && !held.has('change user status')) throw forbidden();
    if ((changes.type || changes.role) && !held.has('assign user roles')) throw forbidden();
    // A request that changes nothing still needs the permission its fields belong to.
    const noOp = !touchesProfile && !changes.status && !changes.type && !changes.role;
    if (noOp && !hasAll(held, [input.status !== undefined ? 'change user status' : 'update users'])) throw forbidden();
    if (user.id === caller.user.id && (changes.status || changes.type || changes.role)) throw forbidden('api:users.cannot_change_own_access');
    await assertCanManage(req, user, trx);

    const before = snapshot(user);
    const patch: Partial<User> = {};
    for (const f of USER_FIELDS) if (input[f] !== undefined) (patch as Record<string, unknown>)[f] = input[f];
    if (input.status !== undefined) patch.status = input.status;
    if (patch.email && patch.email !== user.email) await assertEmailFree(trx, patch.email, user.id);
    const newType = input.user_type ?? user.user_type;
    const newCode = patch.dealer_code !== undefined ? patch.dealer_code : user.dealer_code;
    if (newType === 'dealer' && !newCode) throw fieldError('dealer_code', 'validation:dealer_code_required');
    if (newCode && (newCode !== user.dealer_code || changes.type)) await assertDealerCodeFree(trx, newCode, user.id);
    // One's own password changes through /auth/change-password, which asks for the current one.
    if (input.password && user.id === caller.user.id) throw forbidden('api:users.use_change_password');
    if (input.password) patch.password = await hashPassword(input.password);
    if (changes.type) patch.user_type = newType;

    if (changes.status && input.status === 'inactive') await assertNotLastSuperAdmin(trx, [user.id]);
    if (changes.type || changes.role) {
      if (newType === 'dealer') {
        await setRoles(trx, user.id, [(await grantableDealerRole(req, trx)).id]);
      } else {
        if (input.role_id === undefined) throw fieldError('role_id', 'validation:role_required');
        const role = await resolveAdminRole(req, input.role_id, trx);
        if (!currentRoleIds.includes(role.id)) await assertNotLastSuperAdmin(trx, [user.id]);
        await setRoles(trx, user.id, [role.id]);
      }
    }

    const logo = newType === 'dealer' ? await storeDealerLogo(req, 'dealer_logo') : null;
    try {
      await withUniqueErrors(async () => {
        if (Object.keys(patch).length) await User.query(trx).patch(patch).where('id', user.id);
        if (newType === 'dealer') {
          const details = await DealerDetails.query(trx).findOne({ user_id: user.id });
          const dPatch: Partial<DealerDetails> = {};
          for (const f of DEALER_FIELDS) if (input[f] !== undefined) (dPatch as Record<string, unknown>)[f] = input[f];
          if (logo) dPatch.logo_path = logo;
          if (details) {
            if (Object.keys(dPatch).length) await DealerDetails.query(trx).patch(dPatch).where('id', details.id);
          } else {
            await DealerDetails.query(trx).insert({ user_id: user.id, brand_color: '#000000', pricing_model: 'cost', ...dPatch } as Partial<DealerDetails>);
          }
          if (logo && details?.logo_path) {
            const old = details.logo_path;
            trx.executionPromise.then(() => storage.remove(old)).catch(() => undefined);
          }
          await ensureWallet(trx, user.id);
        }
      });
    } catch (err) {
      await storage.remove(logo);
      throw err;
    }
    // A deactivated user, or one whose password an admin reset, is signed out everywhere.
    if ((changes.status && input.status === 'inactive') || input.password) await revokeSessions(trx, [user.id]);
    const onlyStatus = changes.status && !touchesProfile && !changes.type && !changes.role;
    await logActivity(trx, req, {
      action: onlyStatus ? 'status_changed' : 'updated',
      subjectType: 'user',
      subjectId: user.id,
      before,
      after: { ...snapshot({ ...user, ...patch } as User), ...(input.role_id !== undefined ? { role_id: input.role_id } : {}), ...(input.password ? { password_changed: true } : {}) },
    });
  }

  return resourceRoutes<User>(registry, {
    path: '/users',
    tag: 'Users',
    subjectType: 'user',
    model: User,
    permissions: {
      view: 'view users',
      // /admin needs 'view admins' and /dealers 'view dealers' (SPEC.md section 2): either
      // opens the list, narrowed to that user type by the scope below.
      viewAny: ['view users', 'view admins', 'view dealers'],
      create: 'create users',
      update: 'update users',
      delete: 'delete users',
      restore: 'restore users',
      forceDelete: 'force delete users',
      viewTrashed: 'view trash items',
    },
    list: {
      table: 'users',
      sortable: ['id', 'name', 'email', 'phone', 'status', 'user_type', 'dealer_code', 'created_at', 'updated_at', 'last_login_at', 'deleted_at'],
      defaultSort: { field: 'created_at', order: 'desc' },
      searchable: ['name', 'email', 'phone', 'dealer_code'],
      filters: {
        user_type: (qb, v) => void qb.where('users.user_type', v),
        status: (qb, v) => void qb.where('users.status', v),
        dealer_code: (qb, v) => void qb.where('users.dealer_code', v),
        role_id: (qb, v) => void qb.whereExists(User.relatedQuery('roles').where('roles.id', decodeId(v) ?? 0)),
      },
    },
    filterQuery: filterQuery({
      user_type: z.enum(USER_TYPES).optional(),
      status: z.enum(STATUSES).optional(),
      role_id: z.string().optional(),
      dealer_code: z.string().optional(),
      ids: z.union([z.string(), z.array(z.string())]).optional(),
    }),
    graph: '[roles, dealer_details]',
    // A dealer only ever sees itself, whatever permissions its role was given. Without
    // 'view users', 'view admins' and 'view dealers' each open their own user type.
    scope: (qb, req) => {
      const auth = req.auth;
      if (!auth) return;
      if (auth.user.user_type === 'dealer') {
        qb.where('users.id', auth.user.id);
        return;
      }
      const types = [auth.permissions.has('view admins') && 'admin', auth.permissions.has('view dealers') && 'dealer'].filter(Boolean) as string[];
      // Write routes are opened by their own permission; holders of no view permission at all
      // reached one of those, and the type narrowing is for readers.
      if (auth.permissions.has('view users') || types.length === 0) return;
      qb.whereIn('users.user_type', types);
    },
    present: (records) => presentUsers(records),
    snapshot,
    create: { schema: createUserSchema, upload: imageUpload('dealer_logo'), files: ['dealer_logo'], run: create },
    update: { schema: updateUserSchema, upload: imageUpload('dealer_logo'), files: ['dealer_logo'], anyPermission: ['update users', 'change user status', 'assign user roles'], run: update },
    // On the delete's own transaction: SQLite has one connection, and a query outside the
    // transaction would wait for it forever.
    guardDelete: async ({ req, trx }, user) => {
      if (user.id === req.auth!.user.id) throw forbidden('api:users.cannot_delete_self');
      await assertCanManage(req, user, trx);
      await assertNotLastSuperAdmin(trx, [user.id]);
    },
    afterSoftDelete: async ({ trx }, user) => revokeSessions(trx, [user.id]),
    // Restoring brings rights back: only for users within the caller's own.
    guardRestore: async ({ req, trx }, user) => assertCanManage(req, user, trx),
    beforeForceDelete: async ({ trx }, user) => {
      // Kept for afterForceDelete, which removes the files once the rows are gone.
      user.dealer_details = (await DealerDetails.query(trx).findOne({ user_id: user.id })) ?? null;
      // An untouched wallet goes with its dealer; one with a ledger keeps the dealer (409).
      const wallet = await trx('wallets').where('dealer_id', user.id).first();
      if (wallet) {
        const used = await trx('wallet_transactions').where('wallet_id', wallet.id).first();
        if (used) throw new AppError(409, 'api:users.has_financial_records');
        await trx('wallets').where('id', wallet.id).delete();
      }
      const sold = await trx('recharges').where('dealer_id', user.id).first();
      if (sold) throw new AppError(409, 'api:users.has_financial_records');
    },
    afterForceDelete: async (user) => {
      await storage.remove(user.profile_image);
      const logo = user.dealer_details?.logo_path;
      if (logo) await storage.remove(logo);
    },
    messages: {
      created: 'api:users.created',
      updated: 'api:users.updated',
      deleted: 'api:users.deleted',
      restored: 'api:users.restored',
      forceDeleted: 'api:users.force_deleted',
      bulkCreated: 'api:users.bulk_created',
      bulkDeleted: 'api:users.bulk_deleted',
      bulkRestored: 'api:users.bulk_restored',
      bulkForceDeleted: 'api:users.bulk_force_deleted',
    },
    extraRoutes: (api, { findMany, find, presentOne }) => {
      api.patch('/bulk/status', { summary: 'Set the status of several users', permission: 'change user status', body: bulkUserStatusSchema }, async (req) => {
        const { ids, status } = req.body as { ids: (string | number)[]; status: 'active' | 'inactive' };
        const count = await withTransaction(async (trx) => {
          const users = await findMany(req, ids, 'active', trx);
          if (users.some((u) => u.id === req.auth!.user.id)) throw forbidden('api:users.cannot_change_own_access');
          for (const u of users) await assertCanManage(req, u, trx);
          if (status === 'inactive') await assertNotLastSuperAdmin(trx, users.map((u) => u.id));
          const changed = users.filter((u) => u.status !== status);
          if (changed.length) {
            await User.query(trx).patch({ status }).whereIn('id', changed.map((u) => u.id));
            if (status === 'inactive') await revokeSessions(trx, changed.map((u) => u.id));
          }
          for (const u of changed) {
            await logActivity(trx, req, { action: 'status_changed', subjectType: 'user', subjectId: u.id, before: { status: u.status }, after: { status } });
          }
          return users.length;
        });
        return { message: 'api:users.bulk_status_updated', messageVars: { count }, data: { affected: count } };
      });

      const setLogo = async (req: Request, user: User, field: string) => {
        if (user.user_type !== 'dealer') throw new AppError(422, 'api:users.not_a_dealer', { [field]: ['api:users.not_a_dealer'] });
        const url = await storeDealerLogo(req, field);
        if (!url) throw fieldError(field, 'validation:image_required');
        const details = await DealerDetails.query().findOne({ user_id: user.id });
        try {
          await withTransaction(async (trx) => {
            if (details) await DealerDetails.query(trx).patch({ logo_path: url }).where('id', details.id);
            else await DealerDetails.query(trx).insert({ user_id: user.id, brand_color: '#000000', pricing_model: 'cost', logo_path: url } as Partial<DealerDetails>);
            await logActivity(trx, req, { action: 'logo_updated', subjectType: 'user', subjectId: user.id, before: { logo_path: details?.logo_path ?? null }, after: { logo_path: url } });
          });
        } catch (err) {
          await storage.remove(url);
          throw err;
        }
        await storage.remove(details?.logo_path);
        return { message: 'api:users.logo_updated', data: await presentOne(req, user) };
      };
      const removeLogo = async (req: Request, user: User) => {
        if (user.user_type !== 'dealer') throw new AppError(422, 'api:users.not_a_dealer');
        const details = await DealerDetails.query().findOne({ user_id: user.id });
        if (details?.logo_path) {
          await withTransaction(async (trx) => {
            await DealerDetails.query(trx).patch({ logo_path: null }).where('id', details.id);
            await logActivity(trx, req, { action: 'logo_removed', subjectType: 'user', subjectId: user.id, before: { logo_path: details.logo_path } });
          });
          await storage.remove(details.logo_path);
        }
        return { message: 'api:users.logo_removed', data: await presentOne(req, user) };
      };
      const ownDealer = (req: Request) => {
        const me = req.auth!.user;
        if (me.user_type !== 'dealer') throw forbidden('api:users.dealers_only');
        return me;
      };

      api.post('/dealer/logo', { summary: 'Upload the signed-in dealer\'s logo (multipart field logo)', upload: imageUpload('logo'), files: ['logo'] }, (req) => setLogo(req, ownDealer(req), 'logo'));
      api.delete('/dealer/logo', { summary: 'Remove the signed-in dealer\'s logo' }, (req) => removeLogo(req, ownDealer(req)));
      api.post('/:id/dealer-logo', { summary: 'Upload a dealer\'s logo (multipart field logo)', permission: 'update users', upload: imageUpload('logo'), files: ['logo'] }, async (req) => {
        const user = await find(req, String(req.params.id), 'active');
        await assertCanManage(req, user);
        return setLogo(req, user, 'logo');
      });
      api.delete('/:id/dealer-logo', { summary: 'Remove a dealer\'s logo', permission: 'update users' }, async (req) => {
        const user = await find(req, String(req.params.id), 'active');
        await assertCanManage(req, user);
        return removeLogo(req, user);
      });
    },
  });
}
