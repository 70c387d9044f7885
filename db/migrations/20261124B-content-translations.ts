import type { Knex } from 'knex';

/**
 * Content translations (docs/data-model.md, Content translations): the texts a dealer or an admin
 * types (operator, category and bundle names, banner titles, the dealer's company name and
 * description, contact labels, payment method names and instructions) get a nullable JSON text
 * column `translations`, {"ae": {"name": "…"}, "so": {…}, "en": {…}}, beside the original. TEXT on
 * both engines (MariaDB's TEXT holds 64 KB, far above what the contracts allow).
 */
const TABLES = ['providers', 'categories', 'bundles', 'banners', 'dealer_details', 'contacts', 'payment_methods'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.text('translations').nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...TABLES].reverse()) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('translations');
    });
  }
}
