import type { Knex } from 'knex';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// Why a sale waits for a person, as a code (contracts REVIEW_CODES) beside review_reason's English
// sentence: the console and the API tell it in the reader's language (review_summary; issue 28
// item 9). Sales sent to review before this migration have no code and show their sentence.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.string('review_code', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('recharges', (t) => t.dropColumn('review_code'));
    return;
  }
  // SQLite drops a plain column in place (knex would rebuild the table and lose its triggers; see 20261127F's down).
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['recharges', 'review_code']);
  await restoreRechargeTriggers(knex);
}
