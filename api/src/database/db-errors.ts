import { UniqueViolationError, ForeignKeyViolationError } from 'objection';
import { NO_ANSWER } from './mysql-client.ts';

/**
 * What a database error means, on both engines, in one place (docs/architecture.md, "Transactions": dialect differences
 * live in helpers). Objection wraps driver errors and keeps the original as nativeError.
 */
interface DriverError {
  code?: string;
  fatal?: boolean;
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

/** MariaDB's own errors that mysql2 knows by number only. */
const MARIADB_CODES: Record<number, string> = { 1927: 'ER_CONNECTION_KILLED', 1969: 'ER_STATEMENT_TIMEOUT' };

function codeOf(err: unknown): string | undefined {
  const e = native(err);
  return e.code ?? (err as DriverError)?.code ?? (e.errno ? MARIADB_CODES[e.errno] : undefined);
}

/** InnoDB chose this transaction as a deadlock victim, or SQLite is busy: worth trying again at once. */
export function isRetryableConflict(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_LOCK_DEADLOCK' || code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

/** The database works but could not finish in time: a lock wait, a statement over its ceiling, a deadlock. */
const BUSY = new Set([
  'ER_LOCK_WAIT_TIMEOUT', // 1205
  'ER_STATEMENT_TIMEOUT', // 1969, MariaDB max_statement_time
  'ER_QUERY_TIMEOUT', // 3024, MySQL max_execution_time
  'ER_QUERY_INTERRUPTED', // 1317
]);

/** The database cannot be reached, or is not the one the API was built for (dropped, not migrated). */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED', // 1927, MariaDB: KILL or shutdown
  'ER_NO_SUCH_TABLE', // 1146: the schema is gone
  'ER_BAD_DB_ERROR', // 1049: the database is gone
  'ER_DBACCESS_DENIED_ERROR',
  'ER_ACCESS_DENIED_ERROR',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  NO_ANSWER, // mysql-client.ts: no answer within the statement ceiling
]);

export type DatabaseTrouble = 'busy' | 'unavailable';

/**
 * Whether an error means the database cannot serve now (a 503 with Retry-After, never a 500):
 * 'busy' when it is working but could not finish in time, 'unavailable' when it is down, silent,
 * out of connections or missing its schema.
 */
export function databaseTrouble(err: unknown): DatabaseTrouble | null {
  const code = codeOf(err);
  if (isRetryableConflict(err) || (code && BUSY.has(code))) return 'busy';
  if (code && UNAVAILABLE.has(code)) return 'unavailable';
  // mysql2 closes a connection after a fatal error; what comes after says so in words only.
  if (native(err).fatal === true || /closed state/.test(native(err).message ?? '')) return 'unavailable';
  // SQLite reports a missing table (the file replaced, a schema dropped) as a plain SQLITE_ERROR.
  if (code === 'SQLITE_ERROR' && /no such table: /.test(native(err).message ?? '')) return 'unavailable';
  // The pool waited too long for a connection (KnexTimeoutError), or a query's own .timeout().
  const name = (err as DriverError)?.name;
  if (name === 'KnexTimeoutError' || native(err).name === 'KnexTimeoutError' || name === 'ConnectionError') return 'unavailable';
  return null;
}

export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof UniqueViolationError) return true;
  const code = codeOf(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  if (err instanceof ForeignKeyViolationError) return true;
  const code = codeOf(err);
  if (code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_ROW_IS_REFERENCED' || code === 'ER_NO_REFERENCED_ROW_2' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
    return true;
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
