import type { Knex } from 'knex';
import { foreignId } from '../schema-helpers.ts';

// Two-factor sign-in for staff (docs/data-model.md, "Two-factor sign-in"): a per-role requirement,
// each user's TOTP secret (sealed with AES-256-GCM under APP_KEY) and the last time step it
// accepted (a code is never accepted twice), ten one-time recovery codes kept as keyed hashes, and
// the devices a user chose to trust for 30 days (only a hash of the cookie's token is kept).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('roles', (t) => {
    t.boolean('requires_two_factor').notNullable().defaultTo(false);
  });
  // Set with the confirmed secret in one transaction: what the users list and the sign-in read.
  await knex.schema.alterTable('users', (t) => {
    t.datetime('two_factor_enabled_at', { precision: 3 }).nullable();
  });

  await knex.schema.createTable('two_factor_credentials', (t) => {
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' }).primary();
    t.string('secret', 255).notNullable();
    // null while the user is enrolling (the secret shown, no code confirmed yet).
    t.datetime('confirmed_at', { precision: 3 }).nullable();
    t.bigInteger('last_used_step').nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.datetime('updated_at', { precision: 3 }).notNullable();
  });

  await knex.schema.createTable('two_factor_recovery_codes', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' });
    t.string('code_hash', 64).notNullable();
    t.datetime('used_at', { precision: 3 }).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['user_id', 'code_hash']);
  });

  await knex.schema.createTable('two_factor_trusted_devices', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' });
    t.string('token_hash', 64).notNullable().unique();
    t.string('ip', 64).nullable();
    t.string('user_agent', 500).nullable();
    t.datetime('expires_at', { precision: 3 }).notNullable();
    t.datetime('last_used_at', { precision: 3 }).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['user_id', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('two_factor_trusted_devices');
  await knex.schema.dropTable('two_factor_recovery_codes');
  await knex.schema.dropTable('two_factor_credentials');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('two_factor_enabled_at');
  });
  await knex.schema.alterTable('roles', (t) => {
    t.dropColumn('requires_two_factor');
  });
}
