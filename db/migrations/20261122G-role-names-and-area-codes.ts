import type { Knex } from 'knex';

// Role names may be 255 characters (docs/product.md section 5), as the role form allows; areas get
// a short unique code (e.g. BN for Banaadir). SQLite does not enforce VARCHAR lengths, so only
// MySQL/MariaDB needs the column widened.
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('roles', (t) => {
      t.string('name', 255).notNullable().alter();
    });
  }
  await knex.schema.alterTable('areas', (t) => {
    t.string('code', 32).nullable();
    t.unique(['code'], { indexName: 'areas_code_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('areas', (t) => {
    t.dropUnique(['code'], 'areas_code_unique');
    t.dropColumn('code');
  });
}
