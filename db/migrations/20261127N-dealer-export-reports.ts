import type { Knex } from 'knex';

/**
 * "export reports" now guards every report download (issue 28, 7a); a dealer downloads its own sales
 * and profit, so the dealer role holds it by default (contracts DEALER_PERMISSIONS). New installs get
 * it from the seed; an existing dealer role is given it here, so dealers keep their CSV after the
 * upgrade. A role an admin later takes it from stays without it (this runs once).
 */
export async function up(knex: Knex): Promise<void> {
  const role = await knex('roles').where({ name: 'dealer', guard_name: 'web' }).first('id');
  const permission = await knex('permissions').where({ name: 'export reports', guard_name: 'web' }).first('id');
  if (!role || !permission) return;
  const has = await knex('role_permissions').where({ role_id: role.id, permission_id: permission.id }).first('role_id');
  if (!has) await knex('role_permissions').insert({ role_id: role.id, permission_id: permission.id });
}

// Taking it back could remove what an admin gave on purpose: nothing to undo.
export async function down(): Promise<void> {}
