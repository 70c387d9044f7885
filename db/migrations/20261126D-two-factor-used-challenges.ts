import type { Knex } from 'knex';

// A sign-in's two-factor challenge opens one session at most (docs/api-conventions.md,
// "Two-factor sign-in"): the id of each challenge that opened one is kept until the challenge
// would have expired anyway, and a second use of it is refused by this primary key.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('two_factor_used_challenges', (t) => {
    t.string('jti', 64).primary();
    t.datetime('expires_at', { precision: 3 }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('two_factor_used_challenges');
}
