import type { Knex } from 'knex';

// The API processes that ran lately (http/process-presence.ts): each one keeps its row's seen_at
// fresh while it runs, so a process that counts its rate limits in its own memory (no REDIS_URL)
// can tell, and say at start, that other processes share the database and count their own.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('process_heartbeats', (t) => {
    t.string('id', 64).primary();
    t.string('host', 191).notNullable();
    t.integer('pid').notNullable();
    t.datetime('started_at', { precision: 3 }).notNullable();
    t.datetime('seen_at', { precision: 3 }).notNullable();
    t.index(['seen_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('process_heartbeats');
}
