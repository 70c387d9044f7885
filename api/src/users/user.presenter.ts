import type { Knex } from 'knex';
import { Model } from 'objection';
import { SUPER_ADMIN_ROLE } from '@app/contracts';
import type { User } from './user.model.ts';
import { encodeId } from '../http/ids.ts';

/** The user JSON of SPEC.md section 3. The password hash never leaves this module's input. */
export interface UserJson {
  id: number;
  h_id: string;
  name: string;
  email: string;
  phone: string | null;
  address: string | null;
  dealer_code: string | null;
  status: string;
  user_type: string;
  roles: { id: number; name: string }[];
  permissions: { name: string }[];
  profile_image: string | null;
  dealer_details: Record<string, unknown> | null;
  created_at: string | null;
  updated_at: string | null;
  deleted_at: string | null;
  email_verified_at: string | null;
  last_login_at: string | null;
}

/** Effective permission names of many users in two queries (lists must not query per row). */
export async function permissionsOfUsers(userIds: number[], db: Knex = Model.knex()): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>(userIds.map((id) => [id, []]));
  if (!userIds.length) return result;
  const supers = new Set<number>(
    (
      await db('user_roles')
        .join('roles', 'roles.id', 'user_roles.role_id')
        .whereIn('user_roles.user_id', userIds)
        .where('roles.name', SUPER_ADMIN_ROLE)
        .whereNull('roles.deleted_at')
        .select('user_roles.user_id')
    ).map((r: { user_id: number }) => r.user_id),
  );
  const all: string[] = supers.size ? (await db('permissions').orderBy('id').select('name')).map((p: { name: string }) => p.name) : [];
  const rows: { user_id: number; name: string }[] = await db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .join('role_permissions', 'role_permissions.role_id', 'roles.id')
    .join('permissions', 'permissions.id', 'role_permissions.permission_id')
    .whereIn('user_roles.user_id', userIds)
    .whereNull('roles.deleted_at')
    .distinct('user_roles.user_id', 'permissions.name', 'permissions.id')
    .orderBy('permissions.id');
  for (const id of userIds) if (supers.has(id)) result.set(id, [...all]);
  for (const row of rows) {
    if (supers.has(row.user_id)) continue;
    const list = result.get(row.user_id)!;
    if (!list.includes(row.name)) list.push(row.name);
  }
  return result;
}

export function presentUser(user: User, permissions: string[]): UserJson {
  const d = user.dealer_details;
  return {
    id: user.id,
    h_id: encodeId(user.id),
    name: user.name,
    email: user.email,
    phone: user.phone ?? null,
    address: user.address ?? null,
    dealer_code: user.dealer_code ?? null,
    status: user.status,
    user_type: user.user_type,
    roles: (user.roles ?? []).filter((r) => !r.deleted_at).map((r) => ({ id: r.id, name: r.name })),
    permissions: permissions.map((name) => ({ name })),
    profile_image: user.profile_image ?? null,
    dealer_details: d
      ? {
          brand_color: d.brand_color,
          company_name: d.company_name ?? null,
          description: d.description ?? null,
          website: d.website ?? null,
          contact_email: d.contact_email ?? null,
          contact_phone: d.contact_phone ?? null,
          pricing_model: d.pricing_model,
          logo_path: d.logo_path ?? null,
        }
      : null,
    created_at: user.created_at ?? null,
    updated_at: user.updated_at ?? null,
    deleted_at: user.deleted_at ?? null,
    email_verified_at: user.email_verified_at ?? null,
    last_login_at: user.last_login_at ?? null,
  };
}

export async function presentUsers(users: User[]): Promise<UserJson[]> {
  const perms = await permissionsOfUsers(users.map((u) => u.id));
  return users.map((u) => presentUser(u, perms.get(u.id) ?? []));
}
