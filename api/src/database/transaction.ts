/** Kept for callers not yet moved to unit-of-work.ts; new code imports from there. */
import type { Knex } from 'knex';
import { unitOfWork } from './unit-of-work.ts';
export { isUniqueViolation, isForeignKeyViolation } from './db-errors.ts';

export function withTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>, trx?: Knex.Transaction): Promise<T> {
  return unitOfWork(work, trx);
}
