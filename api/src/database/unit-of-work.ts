import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { AppError } from '../http/errors.ts';
import { databaseTrouble, isRetryableConflict, type DatabaseTrouble } from './db-errors.ts';

/**
 * Units of work (docs/architecture.md, "Transactions"):
 * - the open transaction travels in AsyncLocalStorage, so a query that forgets to pass it
 *   (Model.query() with no argument, or db() below) still runs on it: on SQLite, whose pool
 *   has one connection, a stray query on the default connection would wait for ever;
 * - onCommit / onRollback hooks for work that must follow the outcome (file removal, caches);
 * - deadlocks (MySQL/MariaDB) and a busy SQLite are retried a bounded number of times with
 *   jitter, then answered 503 with Retry-After. A lock wait that timed out is answered 503 at
 *   once: it has already waited its whole budget (DB_LOCK_WAIT_TIMEOUT_SECONDS), and the client
 *   must hear within seconds. Any other sign of a sick database (a statement over its ceiling,
 *   no answer, the schema gone) is a 503 too. Each of these ends the transaction without a
 *   commit (a rollback, or the connection destroyed), so a write answered 503 never lands later.
 */
interface UnitState {
  trx: Knex.Transaction;
  afterCommit: (() => unknown)[];
  afterRollback: (() => unknown)[];
}

const storage = new AsyncLocalStorage<UnitState>();
let root: Knex | undefined;

export function setRootKnex(knex: Knex): void {
  root = knex;
}

export function rootKnex(): Knex {
  if (!root) throw new Error('The database is not connected yet (connectDatabase first)');
  return root;
}

export function currentTransaction(): Knex.Transaction | undefined {
  return storage.getStore()?.trx;
}

/** The open transaction of this unit of work, else the root connection. */
export function db(): Knex | Knex.Transaction {
  return currentTransaction() ?? rootKnex();
}

export const RETRY_LIMIT = 4;
/** Retry-After of a 503: a busy database frees up in moments; one down or partitioned takes longer. */
export const RETRY_AFTER_SECONDS: Record<DatabaseTrouble, number> = { busy: 2, unavailable: 5 };
const MESSAGES: Record<DatabaseTrouble, string> = { busy: 'api:errors.busy', unavailable: 'api:errors.database_unavailable' };

/** The 503 a sick database is answered with (the error handler gives driver errors the same). */
export const serviceUnavailable = (trouble: DatabaseTrouble = 'busy') =>
  new AppError(503, MESSAGES[trouble], undefined, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS[trouble]) });

const isTransaction = (k: Knex | Knex.Transaction): k is Knex.Transaction => (k as Knex.Transaction).isTransaction === true;

async function runHooks(hooks: (() => unknown)[]): Promise<void> {
  for (const hook of hooks) {
    try {
      await hook();
    } catch (err) {
      // After the outcome is decided a hook cannot change it; it is logged by the caller's logger.
      process.emitWarning(`unit-of-work hook failed: ${(err as Error).message}`);
    }
  }
}

/**
 * Run `work` in a transaction on `base` (or join the one already open on this async path).
 * `work` may run more than once when the database asks for a retry: keep it free of side
 * effects outside the database, or register them with onCommit / onRollback.
 */
export async function unitOfWork<T>(work: (trx: Knex.Transaction) => Promise<T>, base?: Knex | Knex.Transaction): Promise<T> {
  const open = currentTransaction() ?? (base && isTransaction(base) ? base : undefined);
  if (open) {
    const state = storage.getStore();
    if (state?.trx === open) return work(open);
    // A transaction opened elsewhere (knex.transaction directly): its hooks follow its outcome.
    const joined: UnitState = { trx: open, afterCommit: [], afterRollback: [] };
    open.executionPromise.then(
      () => runHooks(joined.afterCommit),
      () => runHooks(joined.afterRollback),
    );
    return storage.run(joined, () => work(open));
  }
  const knex = base ?? rootKnex();
  for (let attempt = 1; ; attempt++) {
    const state: UnitState = { trx: undefined as unknown as Knex.Transaction, afterCommit: [], afterRollback: [] };
    try {
      const result = await knex.transaction((trx) => {
        state.trx = trx;
        return storage.run(state, () => work(trx));
      });
      await runHooks(state.afterCommit);
      return result;
    } catch (err) {
      await runHooks(state.afterRollback);
      if (isRetryableConflict(err) && attempt < RETRY_LIMIT) {
        // Full jitter: 10..(40 * 2^attempt) ms, so colliding transactions spread out.
        await sleep(10 + Math.random() * 40 * 2 ** attempt);
        continue;
      }
      const trouble = databaseTrouble(err);
      if (trouble) throw serviceUnavailable(trouble);
      throw err;
    }
  }
}

/** Runs `fn` outside any open unit of work (its queries and transactions are its own). */
export function detached<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** After the current unit of work commits (at once when none is open). */
export function onCommit(hook: () => unknown): void {
  const state = storage.getStore();
  if (state) state.afterCommit.push(hook);
  else void runHooks([hook]);
}

/** After the current unit of work rolls back (never when none is open). */
export function onRollback(hook: () => unknown): void {
  storage.getStore()?.afterRollback.push(hook);
}
