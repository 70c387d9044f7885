import type { Knex } from 'knex';
import { foreignId, money, timestamps } from '../schema-helpers.ts';

// A dealer's request to have its wallet topped up (its payment reference and a receipt), approved
// (credited once) or rejected by an admin; and what the recharge worker needs to retry safely:
// a fingerprint of the request under an idempotency key, and when to try again.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('wallet_top_up_requests', (t) => {
    t.increments('id');
    foreignId(t, 'wallet_id', 'wallets', { onDelete: 'RESTRICT' });
    foreignId(t, 'dealer_id', 'users', { onDelete: 'RESTRICT' });
    money(t, 'amount');
    t.string('reference', 128).notNullable(); // the dealer's payment reference (e.g. an EVC transaction id)
    t.string('note', 500).nullable();
    t.string('receipt_path', 500).nullable();
    t.string('status', 16).notNullable().defaultTo('pending'); // pending | approved | rejected
    t.string('reason', 500).nullable(); // why it was rejected
    foreignId(t, 'reviewed_by', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.datetime('reviewed_at', { precision: 3 }).nullable();
    t.bigInteger('wallet_transaction_id').unsigned().nullable().unique();
    timestamps(t);
    t.index(['status', 'created_at']);
    t.index(['dealer_id', 'created_at']);
  });
  await knex.schema.alterTable('recharges', (t) => {
    t.string('request_hash', 64).nullable(); // sha-256 of the purchase; the same key with another body is a 409
    t.datetime('next_attempt_at', { precision: 3 }).nullable();
    t.index(['status', 'next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.dropIndex(['status', 'next_attempt_at']);
    t.dropColumn('next_attempt_at');
    t.dropColumn('request_hash');
  });
  await knex.schema.dropTable('wallet_top_up_requests');
}
