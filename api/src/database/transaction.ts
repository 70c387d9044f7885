import type { Knex } from 'knex';
import { Model, UniqueViolationError, ForeignKeyViolationError } from 'objection';

/**
 * Run `work` inside a transaction: reuse `trx` when the caller already has one, else open one
 * (Directus utils/transaction.ts). Pass the transaction down explicitly: Model.query(trx).
 */
export async function withTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>, trx?: Knex.Transaction): Promise<T> {
  if (trx) return work(trx);
  return Model.knex().transaction(work);
}

/** The driver's error code; Objection wraps driver errors and keeps the original as nativeError. */
function driverCode(err: unknown): string | undefined {
  const e = err as { code?: string; nativeError?: { code?: string } };
  return e?.nativeError?.code ?? e?.code;
}

/** Unique-key violations on either database, so a race still ends in a clear 422, not a 500. */
export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof UniqueViolationError) return true;
  const code = driverCode(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  if (err instanceof ForeignKeyViolationError) return true;
  const code = driverCode(err);
  return code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_ROW_IS_REFERENCED' || code === 'ER_NO_REFERENCED_ROW_2' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Which unique column a violation was about, when the engine says (used to pick the field). */
export function violatedColumns(err: unknown): string {
  const e = err as { columns?: string[]; constraint?: string; message?: string; nativeError?: { message?: string } };
  return [...(e.columns ?? []), e.constraint ?? '', e.message ?? '', e.nativeError?.message ?? ''].join(' ');
}
