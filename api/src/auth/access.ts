import type { Knex } from 'knex';
import type { Permission } from '@app/contracts';
import { db as currentDb } from '../database/unit-of-work.ts';
import { effectivePermissionsOf } from '../roles/effective-permissions.ts';

/** A user's effective permissions (roles/effective-permissions.ts is the one place that computes them). */
export async function loadPermissions(
  userId: number,
  db: Knex | Knex.Transaction = currentDb(),
): Promise<{ permissions: Set<Permission>; isSuperAdmin: boolean }> {
  return effectivePermissionsOf(db, userId);
}

export function hasAll(held: ReadonlySet<Permission>, required: readonly Permission[]): boolean {
  return required.every((p) => held.has(p));
}
