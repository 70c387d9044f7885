import type { Knex } from 'knex';

// A "Profit Only" dealer's wallet holds its profit: it asks for a payout to its mobile number
// instead of a top-up (issue 28 item 12). The same table, list and decisions as a top-up request,
// told apart by `kind` (top_up | payout); a payout's `reference` is the mobile number to pay, and
// its approval debits the wallet (a ledger row of kind `payout`).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wallet_top_up_requests', (t) => {
    t.string('kind', 16).notNullable().defaultTo('top_up');
    t.index(['kind', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wallet_top_up_requests', (t) => {
    t.dropIndex(['kind', 'status']);
    t.dropColumn('kind');
  });
}
