import type { Knex } from 'knex';
import { Model } from 'objection';
import { ALL_PERMISSIONS, SUPER_ADMIN_ROLE } from '@app/contracts';

/**
 * A user's effective permissions: the union over its roles that are not in the trash.
 * Holders of the super-admin role have every permission, including ones added later.
 */
export async function loadPermissions(userId: number, db: Knex = Model.knex()): Promise<{ permissions: Set<string>; isSuperAdmin: boolean }> {
  const roles: { name: string }[] = await db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('user_roles.user_id', userId)
    .whereNull('roles.deleted_at')
    .select('roles.name');
  const isSuperAdmin = roles.some((r) => r.name === SUPER_ADMIN_ROLE);
  if (isSuperAdmin) {
    const all: { name: string }[] = await db('permissions').select('name');
    return { permissions: new Set([...ALL_PERMISSIONS, ...all.map((p) => p.name)]), isSuperAdmin };
  }
  const rows: { name: string }[] = await db('permissions')
    .join('role_permissions', 'role_permissions.permission_id', 'permissions.id')
    .join('user_roles', 'user_roles.role_id', 'role_permissions.role_id')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('user_roles.user_id', userId)
    .whereNull('roles.deleted_at')
    .distinct('permissions.name');
  return { permissions: new Set(rows.map((r) => r.name)), isSuperAdmin };
}

export function hasAll(held: Set<string>, required: readonly string[]): boolean {
  return required.every((p) => held.has(p));
}
