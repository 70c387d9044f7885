import type { Knex } from 'knex';
import { foreignId, money } from '../schema-helpers.ts';

// Live money (docs/architecture.md, "Recharges"): each remote step of a sale is recorded before
// and after its call, so a restart asks the remote side only about what was really sent; every
// request and answer is kept (the remote-call trail); unsure sales wait for a person
// (needs_review); ledger writes carry an idempotency key; dealers get a low-balance alert; sales
// refused for an empty wallet are kept as missed sales.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    // none | sent (asked, answer unknown) | reserved | collected | declined | released | absent (never reached the gateway)
    t.string('payment_state', 16).notNullable().defaultTo('none');
    // preauthorize | purchase: the flow this sale's payment took (a config change never mixes them).
    t.string('payment_flow', 16).nullable();
    t.string('payment_adapter', 32).nullable();
    // none | sent | processing | delivered | failed
    t.string('delivery_state', 16).notNullable().defaultTo('none');
    t.string('delivery_id', 64).nullable();
    t.string('operator_adapter', 32).nullable();
    // When the current step's outcome first became unknown; the review window counts from here.
    t.datetime('unsure_since', { precision: 3 }).nullable();
    // Claims that ended in an unexpected error or an expired lease (bounded: then needs_review).
    t.integer('crashes').unsigned().notNullable().defaultTo(0);
    t.string('review_reason', 500).nullable();
    t.datetime('needs_review_at', { precision: 3 }).nullable();
    foreignId(t, 'reviewed_by', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.datetime('reviewed_at', { precision: 3 }).nullable();
    t.string('review_outcome', 16).nullable(); // delivered | not_delivered
  });

  // Sales made before: what the old worker recorded, in the new words (purchases, collected at once).
  await knex('recharges').whereNotNull('payment_reference').update({ payment_state: 'collected', payment_flow: 'purchase' });
  await knex('recharges').whereIn('status', ['failed', 'refunded']).whereNotNull('payment_reference').update({ payment_state: 'released' });
  // Unless the old worker's refund of it failed (it only said so in the reason): still collected, so
  // the refund by hand can return it and the customer is not told it was.
  await knex('recharges')
    .whereIn('status', ['failed', 'refunded'])
    .whereNotNull('payment_reference')
    .where('failure_reason', 'like', '%refund failed%')
    .update({ payment_state: 'collected' });
  await knex('recharges').where('status', 'completed').update({ delivery_state: 'delivered' });
  await knex('recharges').whereIn('status', ['failed', 'refunded']).whereNotNull('payment_reference').update({ delivery_state: 'failed' });
  await knex('recharges').whereIn('status', ['failed', 'refunded']).whereNull('payment_reference').update({ payment_state: 'declined' });

  await knex.schema.alterTable('providers', (t) => {
    // The aggregator's operator id (Reloadly operatorId); empty: detected from the number.
    t.string('external_operator_id', 64).nullable();
  });

  await knex.schema.createTable('remote_calls', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'recharge_id', 'recharges', { nullable: true, onDelete: 'CASCADE' });
    t.string('system', 32).notNullable(); // waafipay | reloadly
    t.string('operation', 64).notNullable(); // API_PREAUTHORIZE, POST /topups ...
    t.string('method', 8).notNullable();
    t.string('url', 500).notNullable();
    t.text('request').nullable(); // JSON, credentials redacted
    t.text('response').nullable(); // JSON or text, truncated
    t.integer('http_status').nullable();
    t.string('outcome', 16).notNullable(); // ok | refused | unknown
    t.string('error', 500).nullable();
    t.integer('duration_ms').unsigned().notNullable().defaultTo(0);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.index(['recharge_id', 'id']);
    t.index(['created_at']);
  });

  await knex.schema.alterTable('wallet_transactions', (t) => {
    // An admin's top-up or adjustment: the Idempotency-Key header or the bank reference, per wallet.
    t.string('idempotency_key', 160).nullable();
    t.string('request_hash', 64).nullable();
    t.unique(['wallet_id', 'idempotency_key'], { indexName: 'wallet_transactions_wallet_key_unique' });
  });

  await knex.schema.alterTable('wallets', (t) => {
    // Cents; null: no alert. One email per crossing: set when sent, cleared when the balance is back above.
    t.bigInteger('low_balance_threshold').nullable();
    t.datetime('low_balance_notified_at', { precision: 3 }).nullable();
  });

  await knex.schema.createTable('missed_sales', (t) => {
    t.bigIncrements('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    foreignId(t, 'bundle_id', 'bundles', { nullable: true, onDelete: 'SET NULL' });
    t.string('bundle_name', 191).notNullable();
    money(t, 'amount');
    money(t, 'cost');
    t.string('idempotency_key', 128).notNullable();
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['dealer_id', 'idempotency_key']);
    t.index(['dealer_id', 'created_at']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('missed_sales');
  await knex.schema.alterTable('wallets', (t) => {
    t.dropColumn('low_balance_notified_at');
    t.dropColumn('low_balance_threshold');
  });
  await knex.schema.alterTable('wallet_transactions', (t) => {
    t.dropUnique(['wallet_id', 'idempotency_key'], 'wallet_transactions_wallet_key_unique');
    t.dropColumn('request_hash');
    t.dropColumn('idempotency_key');
  });
  await knex.schema.dropTable('remote_calls');
  await knex.schema.alterTable('recharges', (t) => {
    t.dropForeign(['reviewed_by']);
    for (const c of [
      'payment_state',
      'payment_flow',
      'payment_adapter',
      'delivery_state',
      'delivery_id',
      'operator_adapter',
      'unsure_since',
      'crashes',
      'review_reason',
      'needs_review_at',
      'reviewed_by',
      'reviewed_at',
      'review_outcome',
    ])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('providers', (t) => {
    t.dropColumn('external_operator_id');
  });
}
