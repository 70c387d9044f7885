import type { Knex } from 'knex';
import { dropRechargeTriggers, rebuildDayTotals, recreateRechargeTriggers } from './20261125A-recharge-day-totals.ts';

/**
 * Test mode (docs/api-conventions.md, "Test mode"). A key is `live` or `test` (`rk_test_…`); what a
 * test key does is marked `test` where it is kept: its sales (recharges.mode), its bulk sales
 * (recharge_batches.mode), the dealer's separate test wallet (wallets.mode: one wallet per dealer
 * and mode, so the live wallet's rows and queries stay as they were) and the webhook events they
 * raise (webhook_events.mode). Every reader of live money names `mode = 'live'`; the report totals'
 * triggers are made again to count live sales only.
 */
const MODE_TABLES = ['api_keys', 'wallets', 'recharges', 'recharge_batches', 'webhook_events'] as const;
const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';
const SALES_BY_MODE = 'recharges_dealer_mode_created_index';

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  for (const table of MODE_TABLES) {
    if (await knex.schema.hasColumn(table, 'mode')) continue;
    await knex.schema.alterTable(table, (t) => {
      t.string('mode', 8).notNullable().defaultTo('live');
    });
  }
  // One wallet per dealer and mode. The new index comes first: on MySQL it then serves the
  // dealer_id foreign key, so the old one can go.
  const indexes = await indexNames(knex, 'wallets');
  if (!indexes.includes('wallets_dealer_id_mode_unique')) await knex.schema.alterTable('wallets', (t) => t.unique(['dealer_id', 'mode']));
  if (indexes.includes('wallets_dealer_id_unique')) await knex.schema.alterTable('wallets', (t) => t.dropUnique(['dealer_id']));
  // The reseller's lists of one mode (its test key reads its test sales only), newest first.
  if (!(await indexNames(knex, 'recharges')).includes(SALES_BY_MODE))
    await knex.schema.alterTable('recharges', (t) => t.index(['dealer_id', 'mode', 'created_at'], SALES_BY_MODE));
  await recreateRechargeTriggers(knex);
  // Sales written between the triggers' drop and their making again were not counted: the totals
  // are rebuilt from the sales (as 20261125A did), now counting live sales only.
  const state = await knex('recharge_day_totals_state').where({ id: 1 }).first('offset_minutes');
  if (state) await rebuildDayTotals(knex, Number(state.offset_minutes), { force: true });
}

/** The table's index names (a run stopped half way is run again from the start: every step checks first). */
async function indexNames(knex: Knex, table: string): Promise<string[]> {
  if (isMysql(knex)) {
    const [rows] = (await knex.raw('SHOW INDEX FROM ??', [table])) as [{ Key_name: string }[]];
    return rows.map((r) => r.Key_name);
  }
  const rows = (await knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [table])) as { name: string }[];
  return rows.map((r) => r.name);
}

export async function down(knex: Knex): Promise<void> {
  // Test data goes with its mode: the live rows are what was there before.
  await knex('webhook_events').where('mode', 'test').delete();
  await knex('recharge_batches').where('mode', 'test').delete();
  const testWallets = knex('wallets').where('mode', 'test').select('id');
  await knex('wallet_transactions').whereIn('wallet_id', testWallets).delete();
  await knex('recharges').where('mode', 'test').delete();
  await knex('wallets').where('mode', 'test').delete();
  await knex('api_keys').where('mode', 'test').delete();
  await knex.schema.alterTable('recharges', (t) => t.dropIndex(['dealer_id', 'mode', 'created_at'], SALES_BY_MODE));
  await dropRechargeTriggers(knex);
  await knex.schema.alterTable('wallets', (t) => t.unique(['dealer_id']));
  await knex.schema.alterTable('wallets', (t) => t.dropUnique(['dealer_id', 'mode']));
  for (const table of MODE_TABLES) {
    if (isMysql(knex)) await knex.schema.alterTable(table, (t) => t.dropColumn('mode'));
    // SQLite drops a plain column in place (see 20261127F's down).
    else await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, 'mode']);
  }
  await recreateRechargeTriggers(knex);
}
