import type { Knex } from 'knex';
import { foreignId, timestamps } from '../schema-helpers.ts';

// Bulk sales (docs/api-conventions.md, "Bulk sales"): a dealer's batch of up to 1,000 lines, each
// line sold in the background through the one sale path under its own idempotency key
// (rb/<batch id>/<line no>), so a resumed batch never sells a line twice.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('recharge_batches', (t) => {
    t.increments('id');
    // RB + 10 characters, like a sale's RC reference: what the dealer and its systems quote.
    t.string('reference', 16).notNullable().unique();
    foreignId(t, 'dealer_id', 'users');
    // The caller's Idempotency-Key and what it was sent with: one key, one batch.
    t.string('idempotency_key', 128).notNullable();
    t.string('request_hash', 64).notNullable();
    t.string('client_reference', 100).nullable();
    t.string('status', 16).notNullable().defaultTo('queued'); // queued | running | completed
    t.integer('lines_total').unsigned().notNullable().defaultTo(0);
    t.integer('lines_accepted').unsigned().notNullable().defaultTo(0);
    t.integer('lines_refused').unsigned().notNullable().defaultTo(0);
    // Who asked: the signed-in user (console) or the API key (reseller API); no foreign keys, a
    // revoked key or a deleted user keeps its batches.
    t.integer('created_by').unsigned().nullable();
    t.integer('api_key_id').unsigned().nullable();
    // The processor holding the batch (a random token) and until when: another takes it over after.
    t.string('lease_owner', 40).nullable();
    t.datetime('lease_until', { precision: 3 }).nullable();
    t.datetime('started_at', { precision: 3 }).nullable();
    t.datetime('completed_at', { precision: 3 }).nullable();
    timestamps(t);
    t.unique(['dealer_id', 'idempotency_key']);
    // The lists (a dealer's, newest first) and the processor's claims (open batches, oldest first).
    t.index(['dealer_id', 'created_at']);
    t.index(['status', 'lease_until']);
  });
  // An Idempotency-Key is compared byte for byte, as every other key column (20261124A-case-rules.ts):
  // MySQL's default collation would take "Pay-1" and "pay-1" for one key, and one batch. (The
  // client_reference columns are only echoed, never compared.)
  if (knex.client.config.client === 'mysql2')
    await knex.raw('ALTER TABLE recharge_batches MODIFY idempotency_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');

  await knex.schema.createTable('recharge_batch_lines', (t) => {
    t.increments('id');
    foreignId(t, 'batch_id', 'recharge_batches', { onDelete: 'CASCADE' });
    t.integer('line_no').unsigned().notNullable();
    // As sent (a malformed number is refused by the processor with its reason, not by the request).
    t.string('phone', 32).notNullable();
    t.string('bundle_id', 64).notNullable();
    t.string('client_reference', 100).nullable();
    // pending | selling (taken by the processor, its sale being made: a cancel leaves it) | accepted | refused
    t.string('status', 16).notNullable().defaultTo('pending');
    foreignId(t, 'recharge_id', 'recharges', { nullable: true, onDelete: 'SET NULL' });
    t.string('error_code', 64).nullable();
    t.string('error_message', 128).nullable(); // a translation key
    t.text('error_vars').nullable(); // JSON
    timestamps(t);
    t.unique(['batch_id', 'line_no']);
    t.index(['batch_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recharge_batch_lines');
  await knex.schema.dropTable('recharge_batches');
}
