import type { Knex } from 'knex';
import { foreignId, timestamps } from '../schema-helpers.ts';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// Delivery routes (docs/integrations.md, "Routes and the aggregators' catalogues"): an operator's
// ordered list of aggregators, each with the operator's id there and the product each bundle is
// sold as; each route's health (recent refusals and timeouts, and when it is skipped until); the
// aggregators' catalogues as last synced; which routes refused a sale (it never goes back to one);
// and who paid a customer back by hand where the gateway has no refund.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('provider_routes', (t) => {
    t.increments('id');
    foreignId(t, 'provider_id', 'providers', { onDelete: 'CASCADE' });
    t.integer('position').unsigned().notNullable();
    t.string('aggregator', 32).notNullable();
    // The operator's id at the aggregator; empty: detected from the number (Reloadly only).
    t.string('operator_id', 64).nullable();
    // {"<bundle id>": "<product id or amount>"}: a bundle missing here is not sold through this route.
    t.text('products').notNullable();
    timestamps(t);
    t.unique(['provider_id', 'aggregator']);
  });

  await knex.schema.createTable('route_health', (t) => {
    foreignId(t, 'provider_id', 'providers', { onDelete: 'CASCADE' });
    t.string('aggregator', 32).notNullable();
    t.integer('failures').unsigned().notNullable().defaultTo(0);
    t.datetime('window_started_at', { precision: 3 }).nullable();
    t.datetime('skipped_until', { precision: 3 }).nullable();
    t.string('last_failure', 500).nullable();
    t.datetime('last_failure_at', { precision: 3 }).nullable();
    t.datetime('updated_at', { precision: 3 }).notNullable();
    t.primary(['provider_id', 'aggregator']);
  });

  await knex.schema.createTable('aggregator_products', (t) => {
    t.increments('id');
    t.string('aggregator', 32).notNullable();
    t.string('operator_id', 64).notNullable();
    t.string('operator_name', 120).notNullable();
    t.string('product_id', 64).notNullable();
    t.string('name', 200).notNullable();
    t.string('description', 500).nullable();
    t.bigInteger('amount').notNullable(); // face value, cents of `currency`
    t.string('currency', 3).notNullable();
    t.bigInteger('wholesale').nullable(); // our cost at the aggregator, cents
    t.string('status', 16).notNullable(); // active | withdrawn
    // What the last sync saw change: new | price | withdrawn | returned | null (unchanged).
    t.string('change', 16).nullable();
    t.bigInteger('previous_amount').nullable();
    t.bigInteger('previous_wholesale').nullable();
    t.datetime('first_seen_at', { precision: 3 }).notNullable();
    t.datetime('last_seen_at', { precision: 3 }).notNullable();
    t.datetime('withdrawn_at', { precision: 3 }).nullable();
    t.datetime('updated_at', { precision: 3 }).notNullable();
    t.unique(['aggregator', 'operator_id', 'product_id']);
  });

  await knex.schema.alterTable('recharges', (t) => {
    // Aggregators that definitely refused this sale, comma separated: the next route is tried, never these again.
    t.string('routes_refused', 200).nullable();
    // A payment taken through a gateway without refunds (eDahab) and paid back by a person: who, when, how.
    // A user id, read by a left join; no foreign key (adding one rebuilds the whole table on SQLite).
    t.integer('paid_back_by').unsigned().nullable();
    t.datetime('paid_back_at', { precision: 3 }).nullable();
    t.string('paid_back_note', 500).nullable();
    t.string('paid_back_reference', 120).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.dropColumn('routes_refused');
    t.dropColumn('paid_back_by');
    t.dropColumn('paid_back_at');
    t.dropColumn('paid_back_note');
    t.dropColumn('paid_back_reference');
  });
  await knex.schema.dropTable('aggregator_products');
  await knex.schema.dropTable('route_health');
  await knex.schema.dropTable('provider_routes');
  // SQLite rebuilt `recharges` to drop those columns, and lost the day totals' triggers.
  await restoreRechargeTriggers(knex);
}
