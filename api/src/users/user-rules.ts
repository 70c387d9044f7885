import type { Knex } from 'knex';
import type { Request } from 'express';
import { DEALER_ROLE, SUPER_ADMIN_ROLE } from '@app/contracts';
import { Role } from '../roles/role.model.ts';
import { decodeId } from '../http/ids.ts';
import { fieldError, forbidden } from '../http/errors.ts';
import { loadPermissions } from '../auth/access.ts';
import type { User } from './user.model.ts';

/**
 * Rules that keep anyone from raising rights: a caller may only hand out, or act on, rights it
 * holds itself. Super admins hold everything, so the rules never stop them.
 */
export async function assertCanGrant(req: Request, permissionNames: string[]): Promise<void> {
  const { permissions, isSuperAdmin } = req.auth!;
  if (isSuperAdmin) return;
  if (permissionNames.some((p) => !permissions.has(p))) throw forbidden('api:users.grant_above_own');
}

/** The caller may change or delete only users whose rights are within its own. */
export async function assertCanManage(req: Request, target: User, db?: Knex): Promise<void> {
  if (req.auth!.isSuperAdmin) return;
  const targetAccess = await loadPermissions(target.id, db);
  if (targetAccess.isSuperAdmin) throw forbidden('api:users.target_above_own');
  await assertCanGrant(req, [...targetAccess.permissions]);
}

/** Resolve role_id of the user form: it must exist, be out of the trash, and not be the dealer role. */
export async function resolveAdminRole(req: Request, rawRoleId: unknown, trx: Knex.Transaction): Promise<Role> {
  const id = decodeId(rawRoleId as string | number);
  const role = id ? await Role.query(trx).findById(id).whereNull('deleted_at').withGraphFetched('permissions') : undefined;
  if (!role) throw fieldError('role_id', 'validation:role_not_found');
  if (role.name === DEALER_ROLE) throw fieldError('role_id', 'validation:role_dealer_not_assignable');
  if (role.name === SUPER_ADMIN_ROLE && !req.auth!.isSuperAdmin) throw forbidden('api:users.grant_above_own');
  await assertCanGrant(req, (role.permissions ?? []).map((p) => p.name));
  return role;
}

/**
 * The dealer role, for a user becoming a dealer. Making a dealer hands out that role's
 * permissions, so the caller must hold them too (else a 'create users' holder could make a
 * dealer account and sign in with rights it lacks).
 */
export async function grantableDealerRole(req: Request, trx: Knex.Transaction): Promise<Role> {
  const role = await Role.query(trx).findOne({ name: DEALER_ROLE, guard_name: 'web' }).withGraphFetched('permissions');
  if (!role) throw new Error('The dealer role is missing: run the seeds');
  await assertCanGrant(req, (role.permissions ?? []).map((p) => p.name));
  return role;
}

/** The last active super admin cannot be deactivated, trashed or deleted: nobody could undo it. */
export async function assertNotLastSuperAdmin(trx: Knex | Knex.Transaction, userIds: number[]): Promise<void> {
  const remaining = await trx('users')
    .join('user_roles', 'user_roles.user_id', 'users.id')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('roles.name', SUPER_ADMIN_ROLE)
    .whereNull('roles.deleted_at')
    .whereNull('users.deleted_at')
    .where('users.status', 'active')
    .whereNotIn('users.id', userIds)
    .count({ n: '*' })
    .first();
  const wouldRemoveOne = await trx('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('roles.name', SUPER_ADMIN_ROLE)
    .whereIn('user_roles.user_id', userIds)
    .first();
  if (wouldRemoveOne && Number(remaining?.n ?? 0) === 0) throw forbidden('api:users.last_super_admin');
}
