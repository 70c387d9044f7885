import type { Knex } from 'knex';
import { foreignId, timestamps } from '../schema-helpers.ts';

// Signed webhooks (docs/data-model.md, "Webhooks"). A dealer has at most one endpoint: its URL and
// its signing secret, sealed with the app key like the payment credentials; after a rotation the
// previous secret still signs for 24 hours. webhook_events is the outbox: each event is written in
// the transaction of the change it reports (a recharge's status, a low balance) and delivered at
// least once by the dispatcher (webhooks/webhook-dispatcher.ts), which claims due rows with a lease.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('url', 500).notNullable();
    t.text('secret').notNullable(); // sealed (settings/secret-box.ts)
    t.text('previous_secret').nullable();
    t.datetime('previous_secret_expires_at', { precision: 3 }).nullable();
    timestamps(t);
    t.unique(['dealer_id']);
  });

  await knex.schema.createTable('webhook_events', (t) => {
    t.bigIncrements('id');
    t.string('event_id', 40).notNullable().unique(); // evt_…: X-Webhook-Id, the same on every attempt
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    t.string('type', 40).notNullable();
    t.text('body').notNullable(); // the JSON sent, byte for byte (what the signature covers)
    t.string('status', 16).notNullable().defaultTo('pending'); // pending | delivered | failed
    t.integer('attempts').unsigned().notNullable().defaultTo(0);
    t.datetime('next_attempt_at', { precision: 3 }).nullable();
    t.datetime('last_attempt_at', { precision: 3 }).nullable();
    t.integer('last_status_code').nullable();
    t.string('last_answer', 500).nullable(); // the receiver's answer (or the error), shortened
    t.datetime('delivered_at', { precision: 3 }).nullable();
    t.string('claim_token', 40).nullable();
    t.datetime('claimed_until', { precision: 3 }).nullable();
    timestamps(t);
    t.index(['status', 'next_attempt_at']);
    t.index(['dealer_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhook_endpoints');
}
