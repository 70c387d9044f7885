import type { Knex } from 'knex';
import { detached, unitOfWork } from '../../database/unit-of-work.ts';
import { toDbTime } from '../../database/time.ts';
import { databaseTrouble } from '../../database/db-errors.ts';
import type { AdaptiveLimit } from './adaptive-limit.ts';

/**
 * The worker's step records, written together (docs/architecture.md, "Fulfilment at field scale").
 * Each step of each sale in flight is a conditional update of its row (`WHERE` its claim); the
 * updates asked for while a group is being written wait for it and go in the next one, as ONE
 * UPDATE statement (each column a `CASE id`, the rows picked by their claims) in one transaction:
 * three round trips for any number of sales, where one statement per sale made a group of 300 take
 * longer than a step's remote call on MySQL. Each caller learns its own row count (0: the claim was
 * lost): when the statement changes fewer rows than the group has (a claim lost, rare), it is
 * rolled back and the group's updates are written one by one, each with its own count. A group the
 * database refuses fails each of its callers, who treat it like any write that failed (the sale is
 * tried again later); any other refusal also sends the group's updates one by one.
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
          const counts = await detached(() => unitOfWork((trx) => writeGroup(trx, group), this.db));
          this.limit?.observe(Date.now() - started, group.length);
          group.forEach((p, i) => p.resolve(counts[i]));
        } catch (err) {
          if (databaseTrouble(err) || (err as { status?: number }).status === 503) {
            this.limit?.backOff();
            for (const p of group) p.reject(err);
          } else {
            // A claim lost, or one update the database refuses (a value too long for its column):
            // each is written on its own, so only that sale learns it, and the others are written.
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

/** Thrown inside a group's transaction to undo it: a claim no longer held; the updates then go one by one. */
class ClaimMissing extends Error {}

/** The group as one UPDATE; resolves with each caller's count (all 1), or throws to go one by one. */
async function writeGroup(trx: Knex.Transaction, group: Pending[]): Promise<number[]> {
  // One sale twice in a group cannot be expressed as one CASE: each on its own.
  if (new Set(group.map((p) => p.id)).size !== group.length) throw new ClaimMissing();
  const columns = [...new Set(group.flatMap((p) => Object.keys(p.fields)))];
  const set: Record<string, Knex.Raw> = {};
  for (const column of columns) {
    const setting = group.filter((p) => column in p.fields);
    set[column] = trx.raw(`CASE ?? ${setting.map(() => 'WHEN ? THEN ?').join(' ')} ELSE ?? END`, [
      'id',
      ...setting.flatMap((p) => [p.id, p.fields[column] as Knex.Value]),
      column,
    ]);
  }
  const changed = await trx('recharges')
    .whereIn(
      'id',
      group.map((p) => p.id),
    )
    .where((rows) => {
      for (const p of group) rows.orWhere(p.where as Record<string, Knex.Value>);
    })
    .update(set);
  if (changed !== group.length) throw new ClaimMissing();
  return group.map(() => 1);
}
