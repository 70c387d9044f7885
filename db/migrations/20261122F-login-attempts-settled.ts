import type { Knex } from 'knex';

// An attempt is "in progress" until its password check settles it: parallel correct sign-ins
// must not count each other as failures (docs/decisions.md, "Access": sign-in throttling).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('login_attempts', (t) => {
    t.datetime('settled_at', { precision: 3 }).nullable();
  });
  await knex('login_attempts').update({ settled_at: knex.ref('created_at') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('login_attempts', (t) => {
    t.dropColumn('settled_at');
  });
}
