import type { Knex } from 'knex';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// What the vendors said about a sale's money (docs/integrations.md, "What the vendors said a sale
// cost"), recorded with the approval and the delivery: the gateway's amount taken and its charges,
// the aggregator's cost (with its discount, fee and exchange rate) and what reached the number.
// Cents of the currency beside each; null where the vendor did not say (never guessed). The real
// margin (reports/margins) and the daily close read them.
const COLUMNS = [
  'gateway_amount',
  'gateway_charges',
  'gateway_currency',
  'aggregator_cost',
  'aggregator_currency',
  'aggregator_discount',
  'aggregator_fee',
  'fx_rate',
  'delivered_amount',
  'delivered_currency',
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.bigInteger('gateway_amount').nullable();
    t.bigInteger('gateway_charges').nullable();
    t.string('gateway_currency', 3).nullable();
    t.bigInteger('aggregator_cost').nullable();
    t.string('aggregator_currency', 3).nullable();
    t.bigInteger('aggregator_discount').nullable();
    t.bigInteger('aggregator_fee').nullable();
    // The decimal as the vendor wrote it: a rate is not money, and rounding it would change it.
    t.string('fx_rate', 32).nullable();
    t.bigInteger('delivered_amount').nullable();
    t.string('delivered_currency', 3).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('recharges', (t) => {
      for (const column of COLUMNS) t.dropColumn(column);
    });
    return;
  }
  // SQLite drops a plain column in place (3.35+): knex would rebuild `recharges`, which its
  // referencing rows (ledger, trail) forbid while foreign keys are on.
  for (const column of COLUMNS) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['recharges', column]);
  // Rebuilt or not, the day totals' triggers are put back as they were (as 20261127E's down does).
  await restoreRechargeTriggers(knex);
}
