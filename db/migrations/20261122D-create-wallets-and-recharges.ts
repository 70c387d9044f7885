import type { Knex } from 'knex';
import { foreignId, money, softDeletes, status, timestamps } from '../schema-helpers.ts';

// Money: one wallet per dealer with an append-only ledger, payment methods, and recharges
// (customer purchases) with their bundle snapshot and idempotency key (docs/data-model.md).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('wallets', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'RESTRICT' }).unique();
    money(t, 'balance'); // invariant: >= 0 and equal to the sum of its transactions
    t.string('currency', 3).notNullable().defaultTo('USD');
    timestamps(t);
  });

  await knex.schema.createTable('payment_methods', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { nullable: true, onDelete: 'CASCADE' });
    t.string('name', 191).notNullable();
    t.string('type', 32).notNullable(); // evc_plus, zaad, sahal, edahab, bank, cash
    t.string('account_number', 64).nullable();
    t.text('instructions').nullable();
    t.string('logo_path', 500).nullable();
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.index(['dealer_id', 'status']);
  });

  await knex.schema.createTable('recharges', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users');
    foreignId(t, 'bundle_id', 'bundles', { nullable: true, onDelete: 'SET NULL' });
    foreignId(t, 'provider_id', 'providers', { nullable: true, onDelete: 'SET NULL' });
    foreignId(t, 'payment_method_id', 'payment_methods', { nullable: true, onDelete: 'SET NULL' });
    // Snapshot at sale time, so later catalogue edits never rewrite history.
    t.string('provider_name', 191).notNullable();
    t.string('category_name', 191).notNullable();
    t.string('bundle_name', 191).notNullable();
    t.integer('data_volume_mb').unsigned().nullable();
    t.integer('validity_days').unsigned().nullable();
    t.string('pricing_model', 16).notNullable();
    t.string('phone', 32).notNullable();
    t.string('payer_phone', 32).nullable();
    t.string('payer_reference', 128).nullable();
    money(t, 'amount');
    money(t, 'cost');
    money(t, 'profit');
    t.string('currency', 3).notNullable().defaultTo('USD');
    t.string('status', 16).notNullable().defaultTo('pending');
    t.string('payment_reference', 128).nullable();
    t.string('operator_reference', 128).nullable();
    t.string('failure_reason', 500).nullable();
    t.string('idempotency_key', 128).notNullable();
    t.string('customer_session_id', 128).nullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.datetime('processing_started_at', { precision: 3 }).nullable();
    t.datetime('completed_at', { precision: 3 }).nullable();
    t.datetime('failed_at', { precision: 3 }).nullable();
    t.datetime('refunded_at', { precision: 3 }).nullable();
    timestamps(t);
    t.unique(['dealer_id', 'idempotency_key']);
    t.index(['dealer_id', 'created_at']);
    t.index(['status', 'created_at']);
    t.index(['provider_id', 'created_at']);
    t.index(['created_at']);
    t.index(['phone']);
  });

  await knex.schema.createTable('wallet_transactions', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'wallet_id', 'wallets', { onDelete: 'RESTRICT' });
    t.string('type', 8).notNullable(); // credit | debit
    t.string('kind', 32).notNullable(); // top_up, adjustment, recharge_debit, recharge_refund, profit_credit
    money(t, 'amount'); // always positive; type gives the sign
    money(t, 'balance_before');
    money(t, 'balance_after');
    t.string('reference', 128).nullable();
    foreignId(t, 'recharge_id', 'recharges', { nullable: true, onDelete: 'RESTRICT' });
    t.string('note', 500).nullable();
    foreignId(t, 'actor_id', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['wallet_id', 'created_at']);
    t.index(['kind', 'created_at']);
    t.index(['created_at']);
    // One debit and at most one refund or profit credit per recharge and kind.
    t.unique(['recharge_id', 'kind']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('wallet_transactions');
  await knex.schema.dropTable('recharges');
  await knex.schema.dropTable('payment_methods');
  await knex.schema.dropTable('wallets');
}
