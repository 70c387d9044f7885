import type { Knex } from 'knex';
import { Model } from 'objection';

/**
 * Run `work` inside a transaction: reuse `trx` when the caller already has one, else open one
 * (Directus utils/transaction.ts). Pass the transaction down explicitly: Model.query(trx).
 */
export async function withTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>, trx?: Knex.Transaction): Promise<T> {
  if (trx) return work(trx);
  return Model.knex().transaction(work);
}

/** Unique-key violations on either database, so a race still ends in a clear 422, not a 500. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e?.code === 'ER_DUP_ENTRY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === 'ER_ROW_IS_REFERENCED_2' || e?.code === 'ER_ROW_IS_REFERENCED' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
