import type { Knex } from 'knex';

// The access version (docs/architecture.md, "Signed-in calls"): one row whose counter goes up, in
// the same transaction, with every change to what a signed-in call knows about its user (the user
// row, its roles, its dealer details, a role's permissions, the permission catalogue). Each API
// process keeps the users it has loaded with the version they were loaded under, and reads the
// version with the session on every call: another number means load again, in any process.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('access_versions', (t) => {
    t.integer('id').unsigned().primary();
    t.bigInteger('version').unsigned().notNullable().defaultTo(1);
  });
  await knex('access_versions').insert({ id: 1, version: 1 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('access_versions');
}
