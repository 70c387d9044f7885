import crypto from 'node:crypto';
import type { Knex } from 'knex';

// One bank transfer, one credit (docs/data-model.md, "Wallets and the ledger"), kept by the
// database itself so that no race can pass it:
// - wallet_transactions.bank_reference_key: a top-up's bank reference, normalized; NULL for every
//   other kind. Unique per wallet: a reference is credited to a wallet once, whether by an admin's
//   top-up or by an approved request.
// - wallet_top_up_requests.pending_reference_key: the same key while the request is pending, NULL
//   once decided. Unique per wallet: one pending request per reference. The key comes first in
//   this index: one that began with wallet_id would stand in for the foreign key's own index, which
//   MySQL/MariaDB then drop, and the index could never be dropped again (down).
// NULLs never collide in a unique index, on SQLite as on MySQL/MariaDB.
//
// Existing rows get their keys here. Where old data already holds duplicates (a reference credited
// twice before this rule, two pending requests for one transfer), the first row (lowest id) takes
// the key and the later ones stay NULL: a migration must not fail on a real database, and the
// ledger is never rewritten. An old duplicate pending request can still be rejected; approving it is
// refused while its reference is credited.

const LEDGER = 'wallet_transactions';
const REQUESTS = 'wallet_top_up_requests';
// knex's own names for these indexes, which api/src/database/db-errors.ts also derives from SQLite's
// messages (api/src/wallets/bank-references.ts knows them by these names).
const LEDGER_INDEX = 'wallet_transactions_wallet_id_bank_reference_key_unique';
const REQUESTS_INDEX = 'wallet_top_up_requests_pending_reference_key_wallet_id_unique';

// The key, as api/src/wallets/idempotency.ts (bankReferenceKey) makes it for new rows; kept here as
// it is today, since a migration must not change with the code: trimmed and lower case, or its
// sha256 when it holds anything both engines would not compare alike (MariaDB's collation ignores
// accents, SQLite compares bytes) or is too long.
const PLAIN = /^[a-z0-9_.:#/+-]+(?: [a-z0-9_.:#/+-]+)*$/;
const MAX_KEY = 160;
function bankReferenceKey(reference: string): string {
  const raw = reference.trim().toLowerCase();
  return PLAIN.test(raw) && raw.length <= MAX_KEY ? raw : `sha256:${crypto.createHash('sha256').update(raw, 'utf8').digest('hex')}`;
}

const PAGE = 500;

/** Gives each row of `rows` (read page by page, by id) its key, the first of a wallet's duplicates only. */
async function fillKeys(knex: Knex, table: string, column: string, rows: (afterId: number) => Knex.QueryBuilder): Promise<void> {
  const seen = new Set<string>();
  for (let afterId = 0; ;) {
    const page: { id: number | string; wallet_id: number; reference: string | null }[] = await rows(afterId);
    if (!page.length) return;
    afterId = Number(page[page.length - 1].id);
    const keyed: [number, string][] = [];
    for (const r of page) {
      if (!r.reference?.trim()) continue;
      const key = bankReferenceKey(r.reference);
      const slot = `${r.wallet_id}\u0000${key}`;
      if (seen.has(slot)) continue; // a later duplicate: stays NULL
      seen.add(slot);
      keyed.push([Number(r.id), key]);
    }
    if (!keyed.length) continue;
    // One statement per page: CASE over the ids, portable to both engines.
    await knex(table)
      .whereIn(
        'id',
        keyed.map(([id]) => id),
      )
      .update({
        [column]: knex.raw(`CASE id ${keyed.map(() => 'WHEN ? THEN ?').join(' ')} END`, keyed.flat()),
      });
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable(LEDGER, (t) => {
    t.string('bank_reference_key', MAX_KEY).nullable();
  });
  await knex.schema.alterTable(REQUESTS, (t) => {
    t.string('pending_reference_key', MAX_KEY).nullable();
  });

  await fillKeys(knex, LEDGER, 'bank_reference_key', (afterId) =>
    knex(LEDGER).where({ kind: 'top_up', type: 'credit' }).where('id', '>', afterId).orderBy('id').limit(PAGE).select('id', 'wallet_id', 'reference'),
  );
  await fillKeys(knex, REQUESTS, 'pending_reference_key', (afterId) =>
    knex(REQUESTS).where({ status: 'pending' }).where('id', '>', afterId).orderBy('id').limit(PAGE).select('id', 'wallet_id', 'reference'),
  );

  // After the fill, so the old duplicates (left NULL) cannot stop the index.
  await knex.schema.alterTable(LEDGER, (t) => {
    t.unique(['wallet_id', 'bank_reference_key'], { indexName: LEDGER_INDEX });
  });
  await knex.schema.alterTable(REQUESTS, (t) => {
    t.unique(['pending_reference_key', 'wallet_id'], { indexName: REQUESTS_INDEX });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable(REQUESTS, (t) => {
    t.dropUnique(['pending_reference_key', 'wallet_id'], REQUESTS_INDEX);
    t.dropColumn('pending_reference_key');
  });
  await knex.schema.alterTable(LEDGER, (t) => {
    t.dropUnique(['wallet_id', 'bank_reference_key'], LEDGER_INDEX);
    t.dropColumn('bank_reference_key');
  });
}
