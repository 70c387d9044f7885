import type { Knex } from 'knex';
import { ALL_PERMISSIONS, SUPER_ADMIN_ROLE } from '@app/contracts';

export interface EffectivePermissions {
  permissions: Set<string>;
  isSuperAdmin: boolean;
}

/**
 * The one place that says what users may do: the union of the permissions of their roles that
 * are not in the trash; holders of super-admin have every permission of the catalogue and of
 * the database (including ones added later). Two queries for any number of users.
 */
export async function effectivePermissions(db: Knex | Knex.Transaction, userIds: number[]): Promise<Map<number, EffectivePermissions>> {
  const result = new Map<number, EffectivePermissions>(userIds.map((id) => [id, { permissions: new Set<string>(), isSuperAdmin: false }]));
  if (!userIds.length) return result;
  const rows: { user_id: number; role: string; permission: string | null; permission_id: number | null }[] = await db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .leftJoin('role_permissions', 'role_permissions.role_id', 'roles.id')
    .leftJoin('permissions', 'permissions.id', 'role_permissions.permission_id')
    .whereIn('user_roles.user_id', userIds)
    .whereNull('roles.deleted_at')
    .orderBy('permissions.id')
    .select('user_roles.user_id', 'roles.name as role', 'permissions.name as permission', 'permissions.id as permission_id');
  for (const row of rows) {
    const entry = result.get(row.user_id)!;
    if (row.role === SUPER_ADMIN_ROLE) entry.isSuperAdmin = true;
    if (row.permission) entry.permissions.add(row.permission);
  }
  if ([...result.values()].some((e) => e.isSuperAdmin)) {
    const all: string[] = (await db('permissions').orderBy('id').select('name')).map((p: { name: string }) => p.name);
    const every = [...new Set([...all, ...ALL_PERMISSIONS])];
    for (const entry of result.values()) if (entry.isSuperAdmin) entry.permissions = new Set(every);
  }
  return result;
}

export async function effectivePermissionsOf(db: Knex | Knex.Transaction, userId: number): Promise<EffectivePermissions> {
  return (await effectivePermissions(db, [userId])).get(userId)!;
}
