import type { Knex } from 'knex';
import type { UserResponse } from '@app/contracts';
import { db as currentDb } from '../database/unit-of-work.ts';
import { effectivePermissions } from '../roles/effective-permissions.ts';
import type { User } from './user.model.ts';
import { encodeId } from '../http/ids.ts';
import { twoFactorRequired } from '../auth/two-factor.ts';

/** The user JSON of docs/product.md section 3 (contracts/src/responses.ts). The password hash never leaves this module's input. */
export type UserJson = UserResponse;

/** Effective permission names of many users (roles/effective-permissions.ts decides them). */
export async function permissionsOfUsers(userIds: number[], db: Knex | Knex.Transaction = currentDb()): Promise<Map<number, string[]>> {
  const all = await effectivePermissions(db, userIds);
  return new Map([...all].map(([id, e]) => [id, [...e.permissions]]));
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
          translations: d.translations ?? null,
        }
      : null,
    created_at: user.created_at ?? null,
    updated_at: user.updated_at ?? null,
    deleted_at: user.deleted_at ?? null,
    email_verified_at: user.email_verified_at ?? null,
    last_login_at: user.last_login_at ?? null,
    two_factor_enabled: Boolean(user.two_factor_enabled_at),
    two_factor_required: twoFactorRequired(user),
  };
}

export async function presentUsers(users: User[], db: Knex | Knex.Transaction = currentDb()): Promise<UserJson[]> {
  const perms = await permissionsOfUsers(
    users.map((u) => u.id),
    db,
  );
  return users.map((u) => presentUser(u, perms.get(u.id) ?? []));
}
