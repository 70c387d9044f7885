import type { Knex } from 'knex';
import { timestamps } from '../schema-helpers.ts';

// The daily close (docs/integrations.md, "The daily close"): a company day compared with the
// gateways' and aggregators' own records, its differences and how each was handled, its figures
// frozen once closed, and the corrections later changes to a closed day's sales bring to the next
// open day. JSON lives in LONGTEXT (a day's per-sale snapshot outgrows MySQL's 64 KB TEXT).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('daily_closes', (t) => {
    t.increments('id');
    t.string('day', 10).notNullable().unique(); // YYYY-MM-DD in the company's time zone
    t.string('status', 16).notNullable().defaultTo('open'); // open | closed
    // The vendors' side of the last refresh: [{vendor, kind, records, matched, amount, error}].
    t.text('vendors', 'longtext').nullable();
    // Frozen at the close: the totals as they were, and each sale's status, amount and profit.
    t.text('totals', 'longtext').nullable();
    t.text('snapshot', 'longtext').nullable();
    t.datetime('refreshed_at', { precision: 3 }).nullable();
    t.datetime('closed_at', { precision: 3 }).nullable();
    // A user id, read by a left join; no foreign key (a user deleted for good keeps the close).
    t.integer('closed_by').unsigned().nullable();
    // Closing the current day: sales created after it belong to the next open day's corrections.
    t.datetime('cutoff_at', { precision: 3 }).nullable();
    timestamps(t);
  });

  await knex.schema.createTable('daily_close_differences', (t) => {
    t.increments('id');
    t.string('day', 10).notNullable();
    t.string('kind', 16).notNullable(); // only_ours | only_theirs | amount | state
    // Whose records: 'gateway' or 'aggregator' (the sandbox is the name of both).
    t.string('source', 16).notNullable();
    t.string('vendor', 32).notNullable();
    // Our reference, or '~<vendor id>' for a vendor record without one: never NULL, so the unique key holds on both engines.
    t.string('reference', 191).notNullable().defaultTo('');
    t.integer('recharge_id').unsigned().nullable().index();
    t.text('ours').nullable();
    t.text('theirs').nullable();
    t.string('evidence', 1000).notNullable().defaultTo('');
    t.boolean('handled').notNullable().defaultTo(false);
    t.string('action', 16).nullable(); // reask | settle | adjust | accept
    t.string('note', 500).nullable();
    t.integer('handled_by').unsigned().nullable();
    t.datetime('handled_at', { precision: 3 }).nullable();
    // What a handling left behind (the ledger row of an adjustment, the settled outcome ...).
    t.text('details').nullable();
    timestamps(t);
    t.unique(['day', 'source', 'vendor', 'kind', 'reference']);
  });

  await knex.schema.createTable('daily_close_corrections', (t) => {
    t.increments('id');
    // The open day that reports it, and the closed day whose sale changed.
    t.string('day', 10).notNullable().index();
    t.string('closed_day', 10).notNullable();
    t.integer('recharge_id').unsigned().notNullable();
    t.string('reference', 64).nullable();
    // The sale's n-th change since its day closed: two processes noticing one change write it once.
    t.integer('seq').unsigned().notNullable();
    t.string('from_status', 16).notNullable(); // 'none': not in the frozen figures (a sale after the cutoff)
    t.string('to_status', 16).notNullable();
    // The sale's counted figures after the change; amount and profit are the change itself (cents, signed).
    t.bigInteger('amount_after').notNullable().defaultTo(0);
    t.bigInteger('profit_after').notNullable().defaultTo(0);
    t.bigInteger('amount').notNullable().defaultTo(0);
    t.bigInteger('profit').notNullable().defaultTo(0);
    t.datetime('created_at', { precision: 3 }).notNullable();
    t.unique(['closed_day', 'recharge_id', 'seq']);
  });

  // The corrections' detection reads the sales changed since its last run: by this index, its work
  // follows what changed, not how many days have been closed. (An index only: SQLite keeps the
  // table, and its day-totals triggers, as they are.)
  await knex.schema.alterTable('recharges', (t) => {
    t.index(['updated_at'], 'recharges_updated_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    t.dropIndex(['updated_at'], 'recharges_updated_at_index');
  });
  await knex.schema.dropTable('daily_close_corrections');
  await knex.schema.dropTable('daily_close_differences');
  await knex.schema.dropTable('daily_closes');
}
