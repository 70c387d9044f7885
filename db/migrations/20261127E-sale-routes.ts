import type { Knex } from 'knex';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// The route a sale's top-up was sent through, whole: the aggregator is `operator_adapter`; these are
// the operator's id there and the product sent. A resend or a lookup after an unknown answer goes
// to exactly that route, whatever the operator's routes say by then (docs/integrations.md, "Routes").
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.string('route_operator_id', 64).nullable();
    t.string('route_product', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.dropColumn('route_operator_id');
    t.dropColumn('route_product');
  });
  // SQLite rebuilt `recharges` to drop those columns, and lost the day totals' triggers.
  await restoreRechargeTriggers(knex);
}
