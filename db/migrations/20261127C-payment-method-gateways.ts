import type { Knex } from 'knex';

// A payment method names the gateway that takes its payments (docs/integrations.md, "Payment
// gateways"): `waafipay` (EVC Plus, Zaad, Sahal and eDahab wallets, which prompt the payer for a
// PIN), `sandbox` (the embedded stand-in), or `manual` (cash and bank transfers, paid to the dealer
// in person: never charged through a gateway, never a PIN prompt).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_methods', (t) => {
    t.string('gateway', 16).notNullable().defaultTo('waafipay');
  });
  // Cash and bank transfers were charged through the gateway as if they were wallets: no more.
  await knex('payment_methods').whereIn('type', ['cash', 'bank']).update({ gateway: 'manual' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_methods', (t) => {
    t.dropColumn('gateway');
  });
}
