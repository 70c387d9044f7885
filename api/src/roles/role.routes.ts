import type { Knex } from 'knex';
import { z } from 'zod';
import {
  assignPermissionsSchema,
  roleSchema,
  updateRoleSchema,
  roleResponseSchema,
  roleTwoFactorSchema,
  permissionResponseSchema,
  RESOURCES,
} from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { Permission, Role } from './role.model.ts';
import { encodeId } from '../http/ids.ts';
import { transact } from '../platform/context.ts';
import { assertCanGrantRole, assertNotProtected, assignPermissions, createRole, roleSnapshot, setTwoFactorRequirement, updateRole } from './role.service.ts';

async function present(roles: Role[], db: Knex | Knex.Transaction) {
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
    guard_name: 'web' as const,
    description: r.description ?? null,
    protected: Boolean(r.protected),
    requires_two_factor: Boolean(r.requires_two_factor),
    permissions: (r.permissions ?? []).map((p) => ({ id: p.id, name: p.name, group: p.group ?? null })).sort((a, b) => a.id - b.id),
    users_count: counts.get(r.id) ?? 0,
    created_at: r.created_at ?? null,
    updated_at: r.updated_at ?? null,
    deleted_at: r.deleted_at ?? null,
  }));
}

/** /roles: the generic pattern from the registry; the rules are in role.service.ts. */
export function roleRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Role, typeof roleResponseSchema>(registry, storage, {
    def: RESOURCES.roles,
    model: Role,
    schemas: { create: roleSchema, update: updateRoleSchema, filters: filterQuery({ protected: z.enum(['true', 'false', '1', '0']).optional() }) },
    response: roleResponseSchema,
    list: {
      sortable: ['id', 'name', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'name', order: 'asc' },
      filters: { protected: (qb, v) => void qb.where('roles.protected', v === 'true' || v === '1') },
    },
    graph: 'permissions',
    present: (records, ctx) => present(records, ctx.db),
    snapshot: roleSnapshot,
    create: (ctx, input) => createRole(ctx, input),
    update: (ctx, role, input) => updateRole(ctx, role, input),
    uniqueFields: { roles_name_guard_name_unique: ['name', 'validation:role_name_taken'] },
    guardDelete: async (ctx, role) => {
      assertNotProtected(role);
      await assertCanGrantRole(ctx, role.id);
    },
    guardRestore: (ctx, role) => assertCanGrantRole(ctx, role.id),
    extraRoutes: (api, { find, presentOne }) => {
      api.get(
        '/permissions/available',
        { summary: 'Every permission, with the area it belongs to', permission: 'view roles', response: z.array(permissionResponseSchema) },
        async (_req, ctx) => {
          const all = await Permission.query(ctx.db).where('guard_name', 'web').orderBy('id');
          return { data: all.map((p) => ({ id: p.id, name: p.name, group: p.group ?? null })) };
        },
      );
      api.post(
        '/:id/assign-permissions',
        {
          summary: 'Replace the permissions of a role (protected roles too)',
          permission: 'assign permissions',
          body: assignPermissionsSchema,
          response: roleResponseSchema,
        },
        async (req, ctx) => {
          const names = (req.body as { permissions: string[] }).permissions;
          const id = await transact(ctx, async (tctx) => {
            const role = await find(tctx, String(req.params.id), 'active', { lock: true });
            await assignPermissions(tctx, role, names);
            return role.id;
          });
          return { message: 'api:roles.permissions_assigned', data: await presentOne(ctx, id) };
        },
      );
      api.put(
        '/:id/two-factor',
        {
          summary: 'Require (or stop requiring) two-factor sign-in of the users of a role (protected roles too)',
          permission: 'require two-factor',
          body: roleTwoFactorSchema,
          response: roleResponseSchema,
        },
        async (req, ctx) => {
          const { required } = req.body as { required: boolean };
          const { id, changed } = await transact(ctx, async (tctx) => {
            const role = await find(tctx, String(req.params.id), 'active', { lock: true });
            return { id: role.id, changed: await setTwoFactorRequirement(tctx, role, required) };
          });
          const message = !changed ? 'api:roles.updated' : required ? 'api:roles.two_factor_required' : 'api:roles.two_factor_not_required';
          return { message, data: await presentOne(ctx, id) };
        },
      );
    },
  });
}
