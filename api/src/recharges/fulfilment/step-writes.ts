import type { Knex } from 'knex';
import { detached, unitOfWork } from '../../database/unit-of-work.ts';
import { toDbTime } from '../../database/time.ts';
import { databaseTrouble } from '../../database/db-errors.ts';
import type { AdaptiveLimit } from './adaptive-limit.ts';

/**
 * The worker's step records, written together (docs/architecture.md, "Fulfilment at field scale").
 * Each step of each sale in flight is one conditional UPDATE of its row (`WHERE` its claim); the
 * updates asked for while a group is being written wait for it and go in the next one: one
 * transaction (one COMMIT, one log flush) for any number of them, in id order so two processes'
 * groups never wait on each other in a cycle. Each caller learns its own row count (0: the claim
 * was lost). A group the database refuses fails each of its callers, who treat it like any write
 * that failed (the sale is tried again later); any other refusal sends the group's updates one by one.
 */
interface Pending {
  id: number;
  where: Record<string, unknown>;
  fields: Record<string, unknown>;
  resolve: (changed: number) => void;
  reject: (err: unknown) => void;
}

export class StepWrites {
  private queue: Pending[] = [];
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly db: Knex,
    private readonly limit?: AdaptiveLimit,
    private readonly maxGroup = 500,
  ) {}

  /** Updates the sale's row where `where` still holds; resolves with the rows changed (0 or 1). */
  update(where: Record<string, unknown> & { id: number }, fields: Record<string, unknown>): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: Number(where.id), where, fields: { ...fields, updated_at: toDbTime() }, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // The next turn of the event loop: the steps of every answer read in this turn join the group.
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length) {
        const group = this.queue.splice(0, this.maxGroup).sort((a, b) => a.id - b.id);
        const started = Date.now();
        try {
          // A group belongs to no caller's transaction.
          const counts = await detached(() =>
            unitOfWork(async (trx) => {
              const out: number[] = [];
              for (const p of group) out.push(await trx('recharges').where(p.where).update(p.fields));
              return out;
            }, this.db),
          );
          this.limit?.observe(Date.now() - started, group.length);
          group.forEach((p, i) => p.resolve(counts[i]));
        } catch (err) {
          if (databaseTrouble(err) || (err as { status?: number }).status === 503) {
            this.limit?.backOff();
            for (const p of group) p.reject(err);
          } else {
            // One update the database refuses (a value too long for its column) must not fail the
            // other sales of its group: each is written on its own, and only the bad one fails.
            for (const p of group) await this.db('recharges').where(p.where).update(p.fields).then(p.resolve, p.reject);
          }
        }
      }
    } finally {
      this.writing = false;
      if (this.queue.length) this.schedule();
    }
  }
}
