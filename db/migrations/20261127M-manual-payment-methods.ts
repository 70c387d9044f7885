import type { Knex } from 'knex';

// Cash and bank transfers are paid to the dealer in person: never charged through a gateway, never
// a PIN prompt (issue 28). 20261127C set them `manual` once, but a method whose type was changed to
// cash or bank afterwards, or a row written by hand, could still name `waafipay`; the API now keeps
// them `manual` on every write, and this puts the rows written before right.
export async function up(knex: Knex): Promise<void> {
  await knex('payment_methods').whereIn('type', ['cash', 'bank']).whereNot('gateway', 'manual').update({ gateway: 'manual' });
}

// Nothing to undo: which rows named a gateway before is not kept, and a cash or bank method
// charged through one was the defect this fixes.
export async function down(): Promise<void> {}
