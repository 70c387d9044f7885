import type { Knex } from 'knex';
import { ALL_PERMISSIONS, DEALER_PERMISSIONS, DEALER_ROLE, GUARD_NAME, PERMISSION_GROUPS, SUPER_ADMIN_ROLE } from '@app/contracts';

const now = () => new Date().toISOString().replace('T', ' ').replace('Z', '');

/**
 * Every permission of the catalogue and the two protected roles. Idempotent: it runs on every
 * start, adds what is missing and gives super-admin every permission. When it changes anything,
 * it raises the access version, so running servers load their signed-in users again (a super
 * admin holds every permission of the database).
 */
export async function seed(knex: Knex): Promise<void> {
  let changed = false;
  const existing = new Set((await knex('permissions').select('name')).map((r: { name: string }) => r.name));
  const rows = Object.entries(PERMISSION_GROUPS).flatMap(([group, names]) =>
    names.filter((name) => !existing.has(name)).map((name) => ({ name, guard_name: GUARD_NAME, group, created_at: now(), updated_at: now() })),
  );
  if (rows.length) {
    await knex('permissions').insert(rows);
    changed = true;
  }
  const added = new Set(rows.map((r) => r.name));

  const ensureRole = async (name: string, description: string) => {
    const found = await knex('roles').where({ name, guard_name: GUARD_NAME }).first();
    if (found) {
      if (!found.protected || found.deleted_at) {
        await knex('roles').where('id', found.id).update({ protected: true, deleted_at: null });
        changed = true;
      }
      return { id: found.id as number, created: false };
    }
    const [id] = await knex('roles').insert({ name, guard_name: GUARD_NAME, description, protected: true, created_at: now(), updated_at: now() });
    changed = true;
    const row = await knex('roles').where({ name, guard_name: GUARD_NAME }).first();
    return { id: (row?.id ?? id) as number, created: true };
  };
  const superAdmin = await ensureRole(SUPER_ADMIN_ROLE, 'Every permission; system-protected');
  const dealer = await ensureRole(DEALER_ROLE, 'Given to every dealer; system-protected');

  const ids = async (names: string[]) => (await knex('permissions').whereIn('name', names).select('id')).map((r: { id: number }) => r.id);
  const grant = async (roleId: number, permissionIds: number[]) => {
    const have = new Set(
      (await knex('role_permissions').where('role_id', roleId).select('permission_id')).map((r: { permission_id: number }) => r.permission_id),
    );
    const missing = permissionIds.filter((id) => !have.has(id));
    if (missing.length) {
      await knex('role_permissions').insert(missing.map((permission_id) => ({ role_id: roleId, permission_id })));
      changed = true;
    }
  };
  await grant(superAdmin.id, await ids(ALL_PERMISSIONS));
  // The dealer role gets its defaults when it is created, and later only dealer permissions that
  // are new to the catalogue: an admin's own changes to the role are kept.
  const dealerDefaults = dealer.created ? DEALER_PERMISSIONS : DEALER_PERMISSIONS.filter((p) => added.has(p));
  if (dealerDefaults.length) await grant(dealer.id, await ids(dealerDefaults));
  if (changed) await knex('access_versions').where('id', 1).increment('version', 1);
}
