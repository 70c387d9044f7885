import { UniqueViolationError, ForeignKeyViolationError } from 'objection';

/**
 * What a database error means, on both engines, in one place (docs/architecture.md (database traps): dialect differences
 * live in helpers). Objection wraps driver errors and keeps the original as nativeError.
 */
interface DriverError {
  code?: string;
  errno?: number;
  name?: string;
  constraint?: string;
  columns?: string[];
  message?: string;
  sqlMessage?: string;
  nativeError?: DriverError;
}

function native(err: unknown): DriverError {
  const e = (err ?? {}) as DriverError;
  return e.nativeError ?? e;
}

function codeOf(err: unknown): string | undefined {
  return native(err).code ?? (err as DriverError)?.code;
}

/** InnoDB chose this transaction as a deadlock victim or it waited too long for a lock; SQLite is busy. */
export function isLockConflict(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
]);

/** The database cannot serve now (down, restarting, pool exhausted, busy): a 503, not a 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (isLockConflict(err) || (code && UNAVAILABLE.has(code))) return true;
  const name = (err as DriverError)?.name;
  return name === 'KnexTimeoutError' || native(err).name === 'KnexTimeoutError' || (err as DriverError)?.name === 'ConnectionError';
}

export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof UniqueViolationError) return true;
  const code = codeOf(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  if (err instanceof ForeignKeyViolationError) return true;
  const code = codeOf(err);
  if (code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_ROW_IS_REFERENCED' || code === 'ER_NO_REFERENCED_ROW_2' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  // SQLite reports an ON DELETE RESTRICT refusal as a trigger constraint.
  return code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY constraint failed/.test(native(err).message ?? '');
}

/**
 * The unique index a violation was about. MySQL names the key ("Duplicate entry 'x' for key
 * 'users_email_unique'", MariaDB may prefix the table); SQLite names the columns
 * ("UNIQUE constraint failed: users.email"). Both are mapped to index-style names
 * `${table}_${columns}_unique`, which is what knex calls the indexes it creates.
 */
export function violatedConstraint(err: unknown): string | null {
  const e = native(err);
  const outer = err as DriverError;
  if (outer.constraint) return outer.constraint.replace(/^.*\./, '');
  const msg = e.sqlMessage ?? e.message ?? outer.message ?? '';
  const mysql = /for key '([^']+)'/.exec(msg);
  if (mysql) return mysql[1].replace(/^.*\./, '');
  const sqlite = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/.exec(msg);
  if (sqlite) {
    const cols = sqlite[1].split(', ');
    const table = cols[0].split('.')[0];
    return `${table}_${cols.map((c) => c.split('.')[1]).join('_')}_unique`;
  }
  return null;
}
