import type { Knex } from 'knex';
import { restoreRechargeTriggers } from './20261125A-recharge-day-totals.ts';

// Reconciliation that cannot starve (docs/architecture.md, "Reconciliation"): every sale whose
// outcome a vendor still has to tell (in review, or settled while its payment was unsure) has its
// own next-check time with backoff, taken under a short lease so one process asks about it at a
// time; a vendor that stops answering gets a bounded number of lookups a minute, shared by every
// process through its row of vendor_health.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recharges', (t) => {
    // Set exactly while the sale waits on a vendor's answer outside the worker; NULL otherwise.
    t.datetime('next_check_at', { precision: 3 }).nullable().index();
    // A process asking about the sale now (until then, no other process asks).
    t.datetime('check_leased_until', { precision: 3 }).nullable();
    // Lookups so far without an answer that settles it (the backoff grows with them).
    t.integer('checks').unsigned().notNullable().defaultTo(0);
    // What the vendor said last, raw (an answer nobody classified shows here and in the review queue).
    t.string('last_check_note', 500).nullable();
  });

  await knex.schema.createTable('vendor_health', (t) => {
    t.string('system', 32).primary(); // waafipay, reloadly, sandbox ...
    // Since when its calls go unanswered (NULL: it answers).
    t.datetime('down_since', { precision: 3 }).nullable();
    t.integer('failures').unsigned().notNullable().defaultTo(0);
    // The lookup budget while it is down: lookups in the current minute, by every process.
    t.datetime('window_started_at', { precision: 3 }).nullable();
    t.integer('window_lookups').unsigned().notNullable().defaultTo(0);
    t.datetime('updated_at', { precision: 3 }).notNullable();
  });

  // Sales that were already waiting are asked about at once.
  const now = new Date().toISOString().replace('T', ' ').replace('Z', ''); // the UTC form every time column holds
  await knex('recharges').where('status', 'needs_review').whereNull('review_outcome').update({ next_check_at: now });
  await knex('recharges')
    .where((w) =>
      w
        .where((c) => c.where('status', 'completed').whereIn('payment_state', ['sent', 'reserved', 'committing']))
        .orWhere((f) => f.whereIn('status', ['failed', 'refunded']).whereIn('payment_state', ['sent', 'reserved', 'releasing', 'committing'])),
    )
    .update({ next_check_at: now });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('vendor_health');
  await knex.schema.alterTable('recharges', (t) => {
    t.dropIndex(['next_check_at']);
    t.dropColumn('next_check_at');
    t.dropColumn('check_leased_until');
    t.dropColumn('checks');
    t.dropColumn('last_check_note');
  });
  // SQLite rebuilt `recharges` to drop those columns, and lost the day totals' triggers.
  await restoreRechargeTriggers(knex);
}
