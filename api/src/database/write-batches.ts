import type { Knex } from 'knex';
import { currentTransaction, detached, rootKnex, unitOfWork } from './unit-of-work.ts';
import { databaseTrouble, isRetryableConflict } from './db-errors.ts';

/**
 * Group commit for small, hot writes (a storefront purchase): the writes that arrive while a
 * transaction is running wait for it, then run together in the next one, each inside its own
 * SAVEPOINT. A write that fails (a refusal, a repeated key) rolls back to its savepoint and fails
 * alone; the others commit. One BEGIN/COMMIT (and on SQLite one WAL append) per batch instead of
 * per write: a transaction costs knex more than the statements of a purchase do.
 *
 * What a write may do: database statements on the transaction it is given, and onCommit hooks
 * that stay harmless if that write alone was rolled back (clearing a cache). Files and other side
 * effects belong after the batch (the caller's code after `write` resolves). A deadlock or a sick
 * database fails the whole batch: the unit of work retries it, or every write in it gets the 503.
 *
 * On SQLite only: its one connection runs one transaction at a time anyway, so batching costs no
 * parallelism (measured: half the CPU of a purchase's writes). On MySQL/MariaDB each write is its own
 * unit of work: the pool runs them side by side and InnoDB groups their log flushes itself (batches
 * there saved 15% CPU but cost 20% throughput, each batch's statements waiting on one another's
 * round trips). Within a batch the writes run in the order of their `order` key (a wallet id).
 */
interface Job {
  order: number;
  work: (trx: Knex.Transaction) => Promise<unknown>;
  value?: unknown;
  error?: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class WriteBatches {
  private queue: Job[] = [];
  private running = false;
  private scheduled = false;

  constructor(private readonly opts: { maxBatch?: number } = {}) {}

  write<T>(work: (trx: Knex.Transaction) => Promise<T>, order = 0): Promise<T> {
    // Already inside a transaction (a script, a test's own unit of work): the write joins it.
    if (currentTransaction() || rootKnex().client.config.client !== 'better-sqlite3') return unitOfWork(work);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ order, work, resolve: resolve as (value: unknown) => void, reject });
      // A batch belongs to no caller's async context (other callers' writes run in it).
      detached(() => this.pump());
    });
  }

  /** Starts batches on the next turn of the event loop, so that the writes of requests read in this turn join them. */
  private pump(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  /** One batch at a time (SQLite's one connection); the next starts when it ends. */
  private startBatches(): void {
    if (this.running || !this.queue.length) return;
    const batch = this.queue.splice(0, this.opts.maxBatch ?? 64).sort((a, b) => a.order - b.order);
    this.running = true;
    void this.run(batch).finally(() => {
      this.running = false;
      this.pump();
    });
  }

  private async run(batch: Job[]): Promise<void> {
    try {
      await unitOfWork(async (trx) => {
        for (const job of batch) {
          // A retried batch starts clean.
          job.value = undefined;
          job.error = undefined;
          await trx.raw('SAVEPOINT batched_write');
          try {
            job.value = await job.work(trx);
          } catch (err) {
            // The transaction itself is lost (a deadlock, a dead connection): the whole batch goes.
            if (isRetryableConflict(err) || databaseTrouble(err)) throw err;
            await trx.raw('ROLLBACK TO SAVEPOINT batched_write');
            job.error = err;
          }
          await trx.raw('RELEASE SAVEPOINT batched_write');
        }
      });
    } catch (err) {
      for (const job of batch) job.reject(err);
      return;
    }
    for (const job of batch) {
      if (job.error !== undefined) job.reject(job.error);
      else job.resolve(job.value);
    }
  }
}
