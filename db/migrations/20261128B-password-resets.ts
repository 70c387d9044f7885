import type { Knex } from 'knex';
import { foreignId } from '../schema-helpers.ts';

// Set-password links (docs/api-conventions.md, "Forgotten password and welcome email"): a
// forgotten-password request (60 minutes) or a new account's welcome email (72 hours). Only a
// keyed hash of the link's token is kept; a link works once, and a newer link for the same user
// ends the older ones (deleted when the newer one is made).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('password_resets', (t) => {
    t.increments('id').primary();
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' });
    t.string('token_hash', 64).notNullable().unique();
    t.string('purpose', 16).notNullable();
    t.datetime('expires_at', { precision: 3 }).notNullable();
    t.datetime('used_at', { precision: 3 }).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('password_resets');
}
