import type { Knex } from 'knex';
import { ALL_PERMISSIONS, SUPER_ADMIN_ROLE, type Permission } from '@app/contracts';

export interface EffectivePermissions {
  /**
   * Names read from the database: the catalogue's (seeded from it), typed as such. A name a later
   * migration adds before the catalogue knows it is carried along but no code checks it.
   */
  permissions: Set<Permission>;
  isSuperAdmin: boolean;
}

/**
 * The one place that says what users may do: the union of the permissions of their roles that
 * are not in the trash; holders of super-admin have every permission of the catalogue and of
 * the database (including ones added later). Two queries for any number of users.
 */
export async function effectivePermissions(db: Knex | Knex.Transaction, userIds: number[]): Promise<Map<number, EffectivePermissions>> {
  const result = new Map<number, EffectivePermissions>(userIds.map((id) => [id, { permissions: new Set<Permission>(), isSuperAdmin: false }]));
  if (!userIds.length) return result;
  const roles: { user_id: number; role_id: number; name: string }[] = await db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .whereIn('user_roles.user_id', userIds)
    .whereNull('roles.deleted_at')
    .select('user_roles.user_id', 'user_roles.role_id', 'roles.name');
  for (const r of roles) if (r.name === SUPER_ADMIN_ROLE) result.get(r.user_id)!.isSuperAdmin = true;
  // A super admin's roles need no join: it holds everything.
  const others = roles.filter((r) => !result.get(r.user_id)!.isSuperAdmin);
  if (others.length) {
    const rows: { role_id: number; name: Permission }[] = await db('role_permissions')
      .join('permissions', 'permissions.id', 'role_permissions.permission_id')
      .whereIn('role_permissions.role_id', [...new Set(others.map((r) => r.role_id))])
      .orderBy('permissions.id')
      .select('role_permissions.role_id', 'permissions.name');
    for (const p of rows) for (const r of others) if (p.role_id === r.role_id) result.get(r.user_id)!.permissions.add(p.name);
  }
  if (roles.some((r) => result.get(r.user_id)!.isSuperAdmin)) {
    const all: Permission[] = (await db('permissions').orderBy('id').select('name')).map((p: { name: Permission }) => p.name);
    const every = [...new Set([...all, ...ALL_PERMISSIONS])];
    for (const entry of result.values()) if (entry.isSuperAdmin) entry.permissions = new Set(every);
  }
  return result;
}

export async function effectivePermissionsOf(db: Knex | Knex.Transaction, userId: number): Promise<EffectivePermissions> {
  return (await effectivePermissions(db, [userId])).get(userId)!;
}
