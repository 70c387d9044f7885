import type { Knex } from 'knex';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// The integrator's own reference for a sale (reseller API `client_reference`, a bulk line's
// reference): kept with the sale, searchable per dealer, and carried in every webhook about it.
// Not unique: idempotency stays with the Idempotency-Key; two sales may share a till's reference.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.string('client_reference', 100).nullable();
    t.index(['dealer_id', 'client_reference'], 'recharges_dealer_client_reference_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => t.dropIndex(['dealer_id', 'client_reference'], 'recharges_dealer_client_reference_index'));
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('recharges', (t) => t.dropColumn('client_reference'));
    return;
  }
  // SQLite drops a plain column in place (see 20261127F's down).
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['recharges', 'client_reference']);
  await restoreRechargeTriggers(knex);
}
