import type { Knex } from 'knex';
import { foreignId, timestamps } from '../schema-helpers.ts';

// SMS receipts on the customer's phone (docs/integrations.md, "SMS receipts"; issue 28 item 13).
// - recharges.language: the language the customer bought in (en | ae | so), for the receipt's words.
// - users.sms_receipts: a dealer's receipts on (default) or off.
// - sms_messages: the receipts' outbox, a row written in the transaction of the sale's change and
//   sent by the dispatcher (sms/sms-dispatcher.ts); one per sale and outcome (unique).
// - sms_inbound: every message a customer sent back (matched to a sale or not).
// - sale_cases: a "not received" reply on a delivered sale, with its evidence, for the review queue.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.string('language', 2).nullable();
  });
  await knex.schema.alterTable('users', (t) => {
    t.boolean('sms_receipts').notNullable().defaultTo(true);
  });
  await knex.schema.createTable('sms_messages', (t) => {
    t.increments('id');
    foreignId(t, 'recharge_id', 'recharges', { onDelete: 'CASCADE' });
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('kind', 16).notNullable(); // delivered | failed | returned
    t.string('phone', 32).notNullable(); // +252…
    t.string('language', 2).notNullable();
    t.string('message', 500).notNullable();
    // pending | sending | accepted (the vendor took it) | refused | unknown (no answer: not resent) | delivered | failed
    t.string('status', 16).notNullable().defaultTo('pending');
    t.integer('status_code').nullable(); // the vendor's per-recipient statusCode (101, 102, 403 …)
    t.string('provider_message_id', 100).nullable().unique();
    t.string('provider_status', 32).nullable(); // the vendor's last word (Sent, Success, Failed …)
    t.string('failure_reason', 255).nullable();
    t.string('cost', 32).nullable();
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.string('claim_token', 40).nullable();
    t.datetime('claimed_until', { precision: 3 }).nullable();
    t.datetime('sent_at', { precision: 3 }).nullable();
    t.datetime('reported_at', { precision: 3 }).nullable();
    timestamps(t);
    t.unique(['recharge_id', 'kind']);
    t.index(['status', 'id']);
  });
  await knex.schema.createTable('sms_inbound', (t) => {
    t.increments('id');
    t.string('provider_id', 100).nullable().unique();
    t.string('from_phone', 32).notNullable();
    t.string('to_code', 32).nullable();
    t.string('text', 1000).notNullable();
    t.string('sent_at_text', 64).nullable(); // the vendor's `date`, as sent
    foreignId(t, 'recharge_id', 'recharges', { nullable: true, onDelete: 'SET NULL' });
    t.string('outcome', 16).notNullable(); // case_opened | case_exists | no_sale | not_a_claim
    timestamps(t);
  });
  await knex.schema.createTable('sale_cases', (t) => {
    t.increments('id');
    foreignId(t, 'recharge_id', 'recharges', { onDelete: 'CASCADE' });
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('kind', 16).notNullable(); // not_received
    t.string('status', 16).notNullable().defaultTo('open'); // open | closed
    t.text('evidence').notNullable(); // JSON: the reply, the receipt and its report, the operator reference
    t.string('resolution', 24).nullable(); // delivered_confirmed | refunded
    t.string('note', 500).nullable();
    foreignId(t, 'closed_by', 'users', { nullable: true, onDelete: 'SET NULL' });
    t.datetime('closed_at', { precision: 3 }).nullable();
    timestamps(t);
    t.index(['status', 'id']);
    t.index(['recharge_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sale_cases');
  await knex.schema.dropTable('sms_inbound');
  await knex.schema.dropTable('sms_messages');
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('users', (t) => t.dropColumn('sms_receipts'));
    await knex.schema.alterTable('recharges', (t) => t.dropColumn('language'));
    return;
  }
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['users', 'sms_receipts']);
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['recharges', 'language']);
}
