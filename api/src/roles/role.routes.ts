import type { Knex } from 'knex';
import type { Request } from 'express';
import { resourceRoutes, type WriteContext } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { Permission, Role } from './role.model.ts';
import { assignPermissionsSchema, roleSchema, updateRoleSchema, type RoleInput } from '@app/contracts';
import { fieldError, forbidden } from '../http/errors.ts';
import { isUniqueViolation, withTransaction } from '../database/transaction.ts';
import { logActivity } from '../activity-log/activity-log.ts';
import { assertCanGrant } from '../users/user-rules.ts';
import { encodeId } from '../http/ids.ts';

const PROTECTED_MESSAGE = 'api:roles.protected';

function snapshot(r: Role) {
  return { name: r.name, guard_name: r.guard_name, description: r.description ?? null, protected: r.protected };
}

async function present(roles: Role[], db: Knex) {
  const ids = roles.map((r) => r.id);
  const counts = new Map<number, number>();
  if (ids.length) {
    const rows: { role_id: number; n: number | string }[] = await db('user_roles')
      .join('users', 'users.id', 'user_roles.user_id')
      .whereIn('user_roles.role_id', ids)
      .whereNull('users.deleted_at')
      .groupBy('user_roles.role_id')
      .select('user_roles.role_id')
      .count({ n: '*' });
    for (const r of rows) counts.set(r.role_id, Number(r.n));
  }
  return roles.map((r) => ({
    id: r.id,
    h_id: encodeId(r.id),
    name: r.name,
    guard_name: r.guard_name,
    description: r.description ?? null,
    protected: Boolean(r.protected),
    permissions: (r.permissions ?? []).map((p) => ({ id: p.id, name: p.name, group: p.group })).sort((a, b) => a.id - b.id),
    users_count: counts.get(r.id) ?? 0,
    created_at: r.created_at ?? null,
    updated_at: r.updated_at ?? null,
    deleted_at: r.deleted_at ?? null,
  }));
}

/** Names to ids; unknown names are a 422 that lists them, and nobody grants what they lack. */
async function resolvePermissions(req: Request, names: string[], trx: Knex.Transaction): Promise<number[]> {
  const unique = [...new Set(names)];
  const found = await Permission.query(trx).whereIn('name', unique).where('guard_name', 'web');
  const missing = unique.filter((n) => !found.some((p) => p.name === n));
  if (missing.length) throw fieldError('permissions', 'validation:permission_unknown', { names: missing.join(', ') });
  await assertCanGrant(req, unique);
  return found.map((p) => p.id);
}

async function syncPermissions(trx: Knex.Transaction, roleId: number, permissionIds: number[]) {
  await trx('role_permissions').where('role_id', roleId).delete();
  if (permissionIds.length) await trx('role_permissions').insert(permissionIds.map((permission_id) => ({ role_id: roleId, permission_id })));
}

/**
 * Replace a role's permissions (assign-permissions, or PATCH with `permissions`): needs
 * 'assign permissions', and the caller must hold every permission it adds or removes, since
 * removing one is a change to what others can do too. Logged as permissions_assigned.
 */
async function replacePermissions(req: Request, trx: Knex.Transaction, roleId: number, names: string[]) {
  if (!req.auth!.permissions.has('assign permissions')) throw forbidden();
  const before = (await Role.relatedQuery('permissions', trx).for(roleId)).map((p) => p.name);
  await assertCanGrant(req, [...new Set([...before, ...names])].filter((n) => before.includes(n) !== names.includes(n)));
  await syncPermissions(trx, roleId, await resolvePermissions(req, names, trx));
  await logActivity(trx, req, { action: 'permissions_assigned', subjectType: 'role', subjectId: roleId, before: { permissions: before }, after: { permissions: names } });
}

async function assertNameFree(trx: Knex.Transaction, name: string, exceptId?: number) {
  const q = trx('roles').whereRaw('LOWER(name) = LOWER(?)', [name]).where('guard_name', 'web');
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first()) throw fieldError('name', 'validation:role_name_taken');
}

function assertNotProtected(role: Role) {
  if (role.protected) throw forbidden(PROTECTED_MESSAGE);
}

/** Trashing or restoring a role takes its permissions from, or gives them back to, its users. */
async function assertCanGrantRole(req: Request, trx: Knex.Transaction, roleId: number) {
  await assertCanGrant(req, (await Role.relatedQuery('permissions', trx).for(roleId)).map((p) => p.name));
}

/**
 * Roles (Spatie-like, guard 'web'). Protected roles (super-admin, dealer) cannot be edited or
 * deleted, but their permissions can still be assigned (SPEC.md section 6).
 */
export function roleRoutes(registry: OpenApiRegistry) {
  const uniqueName = async <T>(work: () => Promise<T>) => {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw fieldError('name', 'validation:role_name_taken');
      throw err;
    }
  };

  return resourceRoutes<Role>(registry, {
    path: '/roles',
    tag: 'Roles',
    subjectType: 'role',
    model: Role,
    permissions: {
      view: 'view roles',
      create: 'create roles',
      update: 'update roles',
      delete: 'delete roles',
      restore: 'restore roles',
      forceDelete: 'force delete roles',
      viewTrashed: 'view trash items',
    },
    list: {
      table: 'roles',
      sortable: ['id', 'name', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'name', order: 'asc' },
      searchable: ['name', 'description'],
      filters: { protected: (qb, v) => void qb.where('roles.protected', v === 'true' || v === '1') },
    },
    graph: 'permissions',
    present: (records) => present(records, Role.knex()),
    snapshot,
    create: {
      schema: roleSchema,
      run: async ({ req, trx }: WriteContext, input: RoleInput) => {
        await assertNameFree(trx, input.name);
        if (input.permissions?.length && !req.auth!.permissions.has('assign permissions')) throw forbidden();
        const permissionIds = input.permissions ? await resolvePermissions(req, input.permissions, trx) : [];
        return uniqueName(async () => {
          const role = await Role.query(trx).insertAndFetch({ name: input.name, guard_name: 'web', description: input.description ?? null, protected: false } as Partial<Role>);
          await syncPermissions(trx, role.id, permissionIds);
          await logActivity(trx, req, { action: 'created', subjectType: 'role', subjectId: role.id, after: { ...snapshot(role), permissions: input.permissions ?? [] } });
          return role;
        });
      },
    },
    update: {
      schema: updateRoleSchema,
      run: async ({ req, trx }, role, input: Partial<RoleInput>) => {
        assertNotProtected(role);
        const patch: Partial<Role> = {};
        if (input.name !== undefined && input.name !== role.name) {
          await assertNameFree(trx, input.name, role.id);
          patch.name = input.name;
        }
        if (input.description !== undefined) patch.description = input.description;
        await uniqueName(async () => {
          if (Object.keys(patch).length) await Role.query(trx).patch(patch).where('id', role.id);
        });
        if (input.permissions) await replacePermissions(req, trx, role.id, input.permissions);
        await logActivity(trx, req, { action: 'updated', subjectType: 'role', subjectId: role.id, before: snapshot(role), after: { ...snapshot({ ...role, ...patch } as Role), ...(input.permissions ? { permissions: input.permissions } : {}) } });
      },
    },
    guardDelete: async ({ req, trx }, role) => {
      assertNotProtected(role);
      await assertCanGrantRole(req, trx, role.id);
    },
    guardRestore: ({ req, trx }, role) => assertCanGrantRole(req, trx, role.id),
    messages: {
      created: 'api:roles.created',
      updated: 'api:roles.updated',
      deleted: 'api:roles.deleted',
      restored: 'api:roles.restored',
      forceDeleted: 'api:roles.force_deleted',
      bulkCreated: 'api:roles.bulk_created',
      bulkDeleted: 'api:roles.bulk_deleted',
      bulkRestored: 'api:roles.bulk_restored',
      bulkForceDeleted: 'api:roles.bulk_force_deleted',
    },
    extraRoutes: (api, { find, presentOne }) => {
      api.get('/permissions/available', { summary: 'Every permission, with the area it belongs to', permission: 'view roles' }, async () => {
        const all = await Permission.query().where('guard_name', 'web').orderBy('id');
        return { data: all.map((p) => ({ id: p.id, name: p.name, group: p.group })) };
      });
      api.post('/:id/assign-permissions', { summary: 'Replace the permissions of a role (protected roles too)', permission: 'assign permissions', body: assignPermissionsSchema }, async (req) => {
        const names = (req.body as { permissions: string[] }).permissions;
        const role = await withTransaction(async (trx) => {
          const r = await find(req, String(req.params.id), 'active', trx);
          await replacePermissions(req, trx, r.id, names);
          return r;
        });
        return { message: 'api:roles.permissions_assigned', data: await presentOne(req, role) };
      });
    },
  });
}
