import type { Knex } from 'knex';
import { foreignId, timestamps } from '../schema-helpers.ts';

// API keys per dealer and the reseller API (docs/data-model.md, "API keys"). A key is
// rk_live_<prefix>_<secret>: the prefix finds the row through its unique index, the secret is
// checked against its SHA-256 (the secret itself is never stored). Every use of a key is one row
// of api_key_uses, which the dealer and the admins page through in the console.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('name', 100).notNullable();
    t.string('prefix', 32).notNullable().unique();
    t.string('secret_hash', 64).notNullable(); // hex SHA-256 of the secret part
    t.string('scopes', 255).notNullable(); // JSON array of scopes
    t.text('ip_allowlist').nullable(); // JSON array of addresses and CIDR ranges; null: any address
    t.datetime('last_used_at', { precision: 3 }).nullable();
    t.string('last_used_ip', 64).nullable();
    foreignId(t, 'created_by', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.datetime('revoked_at', { precision: 3 }).nullable();
    foreignId(t, 'revoked_by', 'users', { nullable: true, onDelete: 'SET NULL' });
    timestamps(t);
    t.index(['dealer_id', 'created_at']);
  });

  await knex.schema.createTable('api_key_uses', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'api_key_id', 'api_keys', { onDelete: 'CASCADE' });
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('method', 8).notNullable();
    t.string('path', 255).notNullable();
    t.integer('status').unsigned().notNullable();
    t.string('ip', 64).nullable();
    t.string('user_agent', 255).nullable();
    t.integer('duration_ms').unsigned().notNullable().defaultTo(0);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['api_key_id', 'id']);
    t.index(['dealer_id', 'id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_key_uses');
  await knex.schema.dropTable('api_keys');
}
