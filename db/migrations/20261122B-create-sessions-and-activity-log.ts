import type { Knex } from 'knex';
import { foreignId } from '../schema-helpers.ts';

// Staff sign-in sessions (named by the JWT's sid), failed-login counters for throttling,
// the storefront's express-session store, and the append-only activity log.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 36).primary();
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' });
    t.boolean('remember_me').notNullable().defaultTo(false);
    t.string('ip', 64).nullable();
    t.string('user_agent', 500).nullable();
    t.datetime('locked_at', { precision: 3 }).nullable();
    t.datetime('revoked_at', { precision: 3 }).nullable();
    t.datetime('expires_at', { precision: 3 }).notNullable();
    t.datetime('last_seen_at', { precision: 3 }).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['user_id', 'revoked_at']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('login_attempts', (t) => {
    t.bigIncrements('id');
    t.string('email', 191).notNullable();
    t.string('ip', 64).notNullable();
    // Successful sign-ins are kept too: an address that signed in before is exempt from the
    // account-wide back-off, so strangers cannot lock the real user out.
    t.boolean('succeeded').notNullable().defaultTo(false);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['email', 'ip', 'succeeded']);
    t.index(['email', 'created_at']);
    t.index(['ip', 'created_at']);
  });

  await knex.schema.createTable('customer_sessions', (t) => {
    t.string('sid', 128).primary();
    t.text('sess').notNullable();
    t.datetime('expires_at', { precision: 3 }).notNullable().index();
  });

  await knex.schema.createTable('activity_log', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'actor_id', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.string('action', 64).notNullable();
    t.string('subject_type', 64).nullable();
    t.integer('subject_id').unsigned().nullable();
    t.string('description', 500).nullable();
    t.text('before', 'longtext').nullable();
    t.text('after', 'longtext').nullable();
    t.string('ip', 64).nullable();
    t.string('user_agent', 500).nullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['subject_type', 'subject_id']);
    t.index(['actor_id', 'created_at']);
    t.index(['action', 'created_at']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('activity_log');
  await knex.schema.dropTable('customer_sessions');
  await knex.schema.dropTable('login_attempts');
  await knex.schema.dropTable('sessions');
}
