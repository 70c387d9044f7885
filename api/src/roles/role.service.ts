import { SUPER_ADMIN_ROLE, type RoleInput } from '@app/contracts';
import { Permission, Role } from './role.model.ts';
import { fieldError, forbidden } from '../http/errors.ts';
import { assertCanGrant } from '../users/user-rules.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { bumpAccessVersion } from '../auth/access-cache.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * Roles (Spatie-like, guard 'web'). Protected roles (super-admin, dealer) cannot be edited or
 * deleted, but their permissions can still be assigned (docs/product.md section 6). Call inside a unit
 * of work.
 */
export function roleSnapshot(r: Role): Record<string, unknown> {
  return {
    name: r.name,
    guard_name: r.guard_name,
    description: r.description ?? null,
    protected: Boolean(r.protected),
    permissions: [...(r.permissions ?? [])].sort((a, b) => a.id - b.id).map((p) => p.name),
  };
}

export function assertNotProtected(role: Role): void {
  if (role.protected) throw forbidden('api:roles.protected');
}

/** Changing, trashing or restoring a role changes what its users may do: the actor must hold its permissions. */
export async function assertCanGrantRole(ctx: ServiceContext, roleId: number): Promise<void> {
  assertCanGrant(
    ctx.actor,
    (await Role.relatedQuery('permissions', ctx.db).for(roleId)).map((p) => p.name),
  );
}

/** Names to ids; unknown names are a 422 that lists them, and nobody grants what they lack. */
async function resolvePermissions(ctx: ServiceContext, names: string[]): Promise<number[]> {
  const unique = [...new Set(names)];
  const found = unique.length ? await Permission.query(ctx.db).whereIn('name', unique).where('guard_name', 'web') : [];
  const missing = unique.filter((n) => !found.some((p) => p.name === n));
  if (missing.length) throw fieldError('permissions', 'validation:permission_unknown', { names: missing.join(', ') });
  assertCanGrant(ctx.actor, unique);
  return found.map((p) => p.id).sort((a, b) => a - b);
}

async function assertNameFree(ctx: ServiceContext, name: string, exceptId?: number) {
  const q = ctx.db('roles').whereRaw('LOWER(name) = LOWER(?)', [name]).where('guard_name', 'web');
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw fieldError('name', 'validation:role_name_taken');
}

/**
 * Replace a role's permissions: needs 'assign permissions', and the actor must hold every
 * permission it adds or removes (removing one changes what others can do too). The role row
 * is locked first, so parallel replacements of one role apply one after the other and the
 * final set is exactly one of the requested sets (no interleaved delete/insert).
 */
export async function replacePermissions(ctx: ServiceContext, roleId: number, names: string[]): Promise<{ before: string[]; after: string[] }> {
  if (!ctx.actor.permissions.has('assign permissions')) throw forbidden();
  await ctx.db('roles').where('id', roleId).forUpdate().first('id');
  const before = (await Role.relatedQuery('permissions', ctx.db).for(roleId)).map((p) => p.name);
  const wanted = [...new Set(names)];
  assertCanGrant(
    ctx.actor,
    [...new Set([...before, ...wanted])].filter((n) => before.includes(n) !== wanted.includes(n)),
  );
  const ids = await resolvePermissions(ctx, wanted);
  const have: number[] = (await ctx.db('role_permissions').where('role_id', roleId).select('permission_id')).map(
    (r: { permission_id: number }) => r.permission_id,
  );
  // Only the difference is written: fewer rows locked, and no gap-lock deadlock from a full delete-then-insert.
  const remove = have.filter((id) => !ids.includes(id));
  const add = ids.filter((id) => !have.includes(id));
  if (remove.length) await ctx.db('role_permissions').where('role_id', roleId).whereIn('permission_id', remove).delete();
  if (add.length) await ctx.db('role_permissions').insert(add.map((permission_id) => ({ role_id: roleId, permission_id })));
  // What the role's holders may do changed: their next call loads them again (auth/access-cache.ts).
  if (remove.length || add.length) await bumpAccessVersion(ctx.db);
  return { before, after: wanted };
}

export async function createRole(ctx: ServiceContext, input: RoleInput): Promise<Role> {
  await assertNameFree(ctx, input.name);
  if (input.permissions?.length && !ctx.actor.permissions.has('assign permissions')) throw forbidden();
  const permissionIds = input.permissions ? await resolvePermissions(ctx, input.permissions) : [];
  const role = await Role.query(ctx.db).insertAndFetch({
    name: input.name,
    guard_name: 'web',
    description: input.description ?? null,
    protected: false,
  } as Partial<Role>);
  if (permissionIds.length) await ctx.db('role_permissions').insert(permissionIds.map((permission_id) => ({ role_id: role.id, permission_id })));
  return role;
}

/** Renaming or describing a role needs its permissions, as deleting it does. */
export async function updateRole(ctx: ServiceContext, role: Role, input: Partial<RoleInput>): Promise<void> {
  assertNotProtected(role);
  const patch: Partial<Role> = {};
  if (input.name !== undefined && input.name !== role.name) {
    await assertNameFree(ctx, input.name, role.id);
    patch.name = input.name;
  }
  if (input.description !== undefined && input.description !== (role.description ?? null)) patch.description = input.description;
  if (Object.keys(patch).length) {
    await assertCanGrantRole(ctx, role.id);
    await Role.query(ctx.db).patch(patch).where('id', role.id);
    await bumpAccessVersion(ctx.db);
  }
  if (input.permissions) await assignPermissions(ctx, role, input.permissions);
}

export async function assignPermissions(ctx: ServiceContext, role: Role, names: string[]): Promise<void> {
  // The super admin holds every permission whatever its list says: a list set here would only mislead.
  if (role.name === SUPER_ADMIN_ROLE) throw fieldError('permissions', 'validation:super_admin_permissions_fixed');
  const { before, after } = await replacePermissions(ctx, role.id, names);
  await recordActivity(ctx, {
    action: 'permissions_assigned',
    subjectType: 'role',
    subjectId: role.id,
    before: { permissions: before },
    after: { permissions: after },
  });
}

/**
 * Require two-factor sign-in of a role's users, or stop requiring it. Like a rename, it needs the
 * role's permissions (a lesser admin cannot loosen the super admin's sign-in); protected roles too.
 * Their users' next call follows the new rule (the log entry raises the access version): one not
 * enrolled yet can then only enrol. Call with the role row locked; false when nothing changed.
 */
export async function setTwoFactorRequirement(ctx: ServiceContext, role: Role, required: boolean): Promise<boolean> {
  if (Boolean(role.requires_two_factor) === required) return false;
  await assertCanGrantRole(ctx, role.id);
  await Role.query(ctx.db).patch({ requires_two_factor: required }).where('id', role.id);
  await recordActivity(ctx, {
    action: 'two_factor_requirement_changed',
    subjectType: 'role',
    subjectId: role.id,
    before: { requires_two_factor: !required },
    after: { requires_two_factor: required },
  });
  return true;
}
