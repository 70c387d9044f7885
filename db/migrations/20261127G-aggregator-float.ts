import type { Knex } from 'knex';

// The float left at each aggregator (docs/integrations.md, "The aggregators' float"): the last
// balance read, its alert threshold, and the crossing state that sends one email per crossing
// (below_since is set by one conditional UPDATE when a read first finds the balance under the
// threshold, and cleared when a read finds it back at or above).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('aggregator_floats', (t) => {
    t.string('aggregator', 32).primary();
    t.bigInteger('balance').nullable(); // cents of `currency`, as last read
    t.string('currency', 3).nullable();
    t.bigInteger('threshold').nullable(); // cents; null: no alert
    t.datetime('checked_at', { precision: 3 }).nullable(); // the last read that answered
    t.string('check_error', 500).nullable(); // why the last read did not answer (null when it did)
    t.datetime('below_since', { precision: 3 }).nullable();
    t.datetime('alerted_at', { precision: 3 }).nullable();
    // Delivered sales through it since the last read: every FLOAT_CHECK_EVERY_SALES of them reads it again.
    t.integer('sales_since_check').unsigned().notNullable().defaultTo(0);
    t.datetime('updated_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('aggregator_floats');
}
