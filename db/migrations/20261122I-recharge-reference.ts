import type { Knex } from 'knex';

// A recharge's public reference (random, quoted by the customer, sent to the payment gateway as
// its referenceId and to the operator as the external id, so both can refuse a duplicate).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.string('reference', 32).nullable();
    t.unique(['reference'], { indexName: 'recharges_reference_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.dropUnique(['reference'], 'recharges_reference_unique');
    t.dropColumn('reference');
  });
}
