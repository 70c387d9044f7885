import type { Knex } from 'knex';
import { DEALER_ROLE, SUPER_ADMIN_ROLE } from '@app/contracts';
import { Role } from '../roles/role.model.ts';
import { decodeId } from '../http/ids.ts';
import { fieldError, forbidden } from '../http/errors.ts';
import { effectivePermissionsOf } from '../roles/effective-permissions.ts';
import type { Actor } from '../platform/context.ts';
import type { User } from './user.model.ts';

type Db = Knex | Knex.Transaction;

/**
 * Rules that keep anyone from raising rights: an actor may only hand out, or act on, rights it
 * holds itself. Super admins and the system hold everything, so the rules never stop them.
 */
export function assertCanGrant(actor: Actor, permissionNames: readonly string[]): void {
  if (actor.isSuperAdmin) return;
  // Names from a request or a role: any string, held or not.
  const held: ReadonlySet<string> = actor.permissions;
  if (permissionNames.some((p) => !held.has(p))) throw forbidden('api:users.grant_above_own');
}

/** The actor may change or delete only users whose rights are within its own. */
export async function assertCanManage(db: Db, actor: Actor, target: User): Promise<void> {
  if (actor.isSuperAdmin) return;
  const targetAccess = await effectivePermissionsOf(db, target.id);
  if (targetAccess.isSuperAdmin) throw forbidden('api:users.target_above_own');
  assertCanGrant(actor, [...targetAccess.permissions]);
}

/** role_id of the user form: it must exist, be out of the trash, and not be the dealer role. */
export async function resolveAdminRole(db: Db, actor: Actor, rawRoleId: unknown): Promise<Role> {
  const id = decodeId(rawRoleId as string | number);
  const role = id ? await Role.query(db).findById(id).whereNull('deleted_at').withGraphFetched('permissions') : undefined;
  if (!role) throw fieldError('role_id', 'validation:role_not_found');
  if (role.name === DEALER_ROLE) throw fieldError('role_id', 'validation:role_dealer_not_assignable');
  if (role.name === SUPER_ADMIN_ROLE && !actor.isSuperAdmin) throw forbidden('api:users.grant_above_own');
  assertCanGrant(
    actor,
    (role.permissions ?? []).map((p) => p.name),
  );
  return role;
}

/**
 * The dealer role, for a user becoming a dealer. Making a dealer hands out that role's
 * permissions, so the actor must hold them too (else a 'create users' holder could make a
 * dealer account and sign in with rights it lacks).
 */
export async function grantableDealerRole(db: Db, actor: Actor): Promise<Role> {
  const role = await Role.query(db).findOne({ name: DEALER_ROLE, guard_name: 'web' }).withGraphFetched('permissions');
  if (!role) throw new Error('The dealer role is missing: run the seeds');
  assertCanGrant(
    actor,
    (role.permissions ?? []).map((p) => p.name),
  );
  return role;
}

/**
 * The last active super admin cannot be deactivated, trashed, deleted or re-roled: nobody
 * could undo it. The active super admins' rows are locked while counted (FOR UPDATE on
 * MySQL/MariaDB), so two admins removing each other at once are serialised: the second one
 * counts after the first committed and is refused (docs/architecture.md, "Database traps this code
 * avoids": lock what you count).
 */
export async function assertNotLastSuperAdmin(db: Db, userIds: number[]): Promise<void> {
  const supers: { id: number }[] = await db('users')
    .join('user_roles', 'user_roles.user_id', 'users.id')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('roles.name', SUPER_ADMIN_ROLE)
    .whereNull('roles.deleted_at')
    .whereNull('users.deleted_at')
    .where('users.status', 'active')
    .orderBy('users.id')
    .forUpdate()
    .select('users.id');
  const affected = supers.filter((s) => userIds.includes(s.id));
  if (affected.length && supers.length - affected.length === 0) throw forbidden('api:users.last_super_admin');
}
