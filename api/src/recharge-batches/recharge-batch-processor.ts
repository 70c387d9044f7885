import { modeOf } from '../platform/sale-mode.ts';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type pino from 'pino';
import { nationalNumber } from '@app/contracts';
import { AppError } from '../http/errors.ts';
import { toDbTime } from '../database/time.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { translator } from '../i18n/server-i18n.ts';
import { userActor, type ServiceContext } from '../platform/context.ts';
import { User } from '../users/user.model.ts';
import { effectivePermissionsOf } from '../roles/effective-permissions.ts';
import { sellingDealer } from '../recharges/sale-offers.ts';
import { createRecharge } from '../recharges/recharge.service.ts';
import { completeBatch, lineSaleKey, refusalOf, refusePending, type BatchRow, type Refusal } from './recharge-batch.service.ts';

/**
 * The batch processor: runs beside the recharge worker (server.ts). It claims an open batch with a
 * conditional UPDATE (queued, or running under a lease that ran out), then sells its pending lines
 * in line order, each through createRecharge as the batch's dealer under the line's own key
 * (rb/<batch>/<line>). A line's sale and its "accepted" are two steps: a processor that dies
 * between them leaves the line pending, and whoever resumes it gets the same sale back from the
 * key, never a second one. A refusal (a short wallet, a bundle gone, a wrong number) is the line's
 * outcome and the batch goes on. The last line completes the batch and writes its
 * recharge_batch.completed webhook event in the same transaction. Before each line the batch's
 * key (revoked?) and dealer (still active?) are read again: a leaked key revoked, or a dealer
 * suspended, stops its batches at once, their remaining lines refused.
 */
interface LineRow {
  id: number;
  batch_id: number;
  line_no: number;
  phone: string;
  bundle_id: string;
  client_reference: string | null;
}

/** What a refused sale says: its first field's message (the sale path answers 422s per field), under the code POST /recharges answers. */
function saleRefusal(err: AppError): Refusal {
  const first = err.errors ? Object.values(err.errors)[0]?.[0] : undefined;
  return refusalOf(first ?? err.message, (err.vars as Record<string, unknown>) ?? {});
}

/** A line not yet settled: pending, or taken by a processor ("selling") whose sale may or may not be made. */
const OPEN_LINE = ['pending', 'selling'];

export interface BatchProcessorOptions {
  db: Knex;
  /** How long a claim holds a batch without news from its processor (default 60 s). */
  leaseMs?: number;
  /** How often open batches are looked for without a wake (default 5 s). */
  pollMs?: number;
  logger?: pino.Logger;
  /** Tells the recharge worker a sale is waiting (each accepted line). */
  wakeSales?: () => void;
  /** Tests: stop after this many lines of a run (a processor that dies mid-batch). */
  stopAfterLines?: number;
}

export class BatchProcessor {
  private readonly owner = crypto.randomBytes(12).toString('hex');
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = true;
  /** Set by stop(): the run in progress ends after its current line (the rest is resumed later). */
  private halting = false;
  private again = false;

  constructor(private readonly opts: BatchProcessorOptions) {
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 5_000;
  }

  start(): void {
    this.stopped = false;
    this.halting = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halting = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** A batch was created: look now (or once the run in progress ends). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((err) => {
          this.opts.logger?.error({ err }, 'recharge batch processing failed');
          return 0;
        })
        .finally(() => {
          this.running = null;
          const now = this.again;
          this.again = false;
          if (!this.stopped) this.schedule(now ? 0 : this.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** Processes every batch it can claim, one after the other; answers how many lines it handled. */
  async runOnce(): Promise<number> {
    let handled = 0;
    for (;;) {
      if (this.halting || (this.opts.stopAfterLines !== undefined && handled >= this.opts.stopAfterLines)) return handled;
      const batch = await this.claim();
      if (!batch) return handled;
      try {
        handled += await this.run(batch, this.opts.stopAfterLines === undefined ? Infinity : this.opts.stopAfterLines - handled);
      } catch (err) {
        // The database failed mid-batch: the lease is let go so the batch is taken up again at the next look, not after it runs out.
        await this.release(batch.id).catch(() => undefined);
        throw err;
      }
    }
  }

  /** An open batch, taken with a conditional UPDATE: of two processors, one gets it. */
  async claim(): Promise<BatchRow | null> {
    const db = this.opts.db;
    const now = toDbTime();
    const claimable = (w: Knex.QueryBuilder) =>
      w.where('status', 'queued').orWhere((r) => r.where('status', 'running').where((l) => l.whereNull('lease_until').orWhere('lease_until', '<', now)));
    // Round-robin by dealer: no dealer with a batch running (under a live lease) is served twice at
    // once, and of the others the one served longest ago (or never) goes first, its oldest batch
    // first. One dealer's hundred queued batches never hold another's up.
    const busy = db('recharge_batches').where('status', 'running').where('lease_until', '>=', now).select('dealer_id');
    const lastServed = db('recharge_batches as served').whereRaw('served.dealer_id = recharge_batches.dealer_id').max('served.started_at');
    const candidates: { id: number }[] = await db('recharge_batches')
      .where(claimable)
      .whereNotIn('dealer_id', busy)
      .orderByRaw('(?) IS NOT NULL', [lastServed])
      .orderByRaw('(?)', [lastServed])
      .orderBy('id')
      .limit(10)
      .select('id');
    for (const { id } of candidates) {
      const taken = await db('recharge_batches')
        .where({ id })
        .where(claimable)
        .update({
          status: 'running',
          lease_owner: this.owner,
          lease_until: toDbTime(new Date(Date.now() + this.leaseMs)),
          started_at: db.raw('COALESCE(started_at, ?)', [now]),
          updated_at: now,
        });
      if (taken === 1) return db('recharge_batches').where({ id }).first();
    }
    return null;
  }

  /** Extends the lease while this processor still holds it; false when another took the batch over. */
  private async renew(batchId: number): Promise<boolean> {
    const now = toDbTime();
    const n = await this.opts
      .db('recharge_batches')
      .where({ id: batchId, status: 'running', lease_owner: this.owner })
      .update({ lease_until: toDbTime(new Date(Date.now() + this.leaseMs)), updated_at: now });
    return n === 1;
  }

  private async release(batchId: number): Promise<void> {
    await this.opts
      .db('recharge_batches')
      .where({ id: batchId, status: 'running', lease_owner: this.owner })
      .update({ lease_until: toDbTime(new Date(Date.now() - 1)), updated_at: toDbTime() });
  }

  /** The dealer as a service context: its sales are logged as its own acts, as through its key. */
  private async dealerContext(dealerId: number): Promise<ServiceContext> {
    const user = await User.query(this.opts.db).findById(dealerId).withGraphFetched('[roles, dealer_details]');
    const { permissions } = await effectivePermissionsOf(this.opts.db, dealerId);
    return { db: this.opts.db, actor: userActor(user!, permissions, false), ip: null, userAgent: 'recharge-batch', language: 'en', t: translator('en') };
  }

  /**
   * Why the batch's remaining lines may no longer be sold: its key revoked, its dealer no longer
   * active (one read by primary keys); null while both still hold.
   */
  private async stoppedBy(batch: BatchRow): Promise<Refusal | null> {
    const db = this.opts.db;
    const row: { status: string; user_type: string; deleted_at: string | null; revoked_at?: string | null; key_id?: number | null } | undefined = await db(
      'users',
    )
      .leftJoin('api_keys', (j) => j.on('api_keys.id', '=', db.raw('?', [batch.api_key_id ?? 0])).andOn('api_keys.dealer_id', '=', 'users.id'))
      .where('users.id', batch.dealer_id)
      .first('users.status', 'users.user_type', 'users.deleted_at', 'api_keys.revoked_at', 'api_keys.id as key_id');
    if (batch.api_key_id && (!row?.key_id || row.revoked_at)) return refusalOf('api:api_keys.revoked');
    if (!row || row.user_type !== 'dealer' || row.status !== 'active' || row.deleted_at)
      return refusalOf(batch.api_key_id ? 'api:api_keys.dealer_inactive' : 'api:storefront.dealer_not_found');
    return null;
  }

  private async run(batch: BatchRow, maxLines: number): Promise<number> {
    const db = this.opts.db;
    // A test key's batch sells as that key would: in the sandbox.
    const ctx: ServiceContext = { ...(await this.dealerContext(batch.dealer_id)), mode: modeOf(batch.mode) };
    let handled = 0;
    let renewedAt = Date.now();
    for (;;) {
      const lines: LineRow[] = await db('recharge_batch_lines').where({ batch_id: batch.id }).whereIn('status', OPEN_LINE).orderBy('line_no').limit(100);
      if (!lines.length) break;
      for (const line of lines) {
        if (handled >= maxLines) return handled;
        if (this.halting) {
          // A shutdown: the next process takes the batch up at once.
          await this.release(batch.id);
          return handled;
        }
        // The lease is renewed well before it runs out; a processor that lost it stops here.
        if (Date.now() - renewedAt > this.leaseMs / 3) {
          if (!(await this.renew(batch.id))) return handled;
          renewedAt = Date.now();
        }
        const stop = await this.stoppedBy(batch);
        if (stop) {
          handled += await this.stopBatch(ctx, batch, stop);
          break;
        }
        await this.sellLine(ctx, batch, line);
        handled += 1;
      }
    }
    await this.complete(batch);
    return handled;
  }

  /**
   * The key revoked or the dealer gone: a line a dead processor left "selling" is accepted if its
   * sale was made (found by the line's key), else refused; then every pending line is refused.
   */
  private async stopBatch(ctx: ServiceContext, batch: BatchRow, stop: Refusal): Promise<number> {
    const selling: LineRow[] = await ctx.db('recharge_batch_lines').where({ batch_id: batch.id, status: 'selling' });
    for (const line of selling) {
      const sale = await ctx
        .db('recharges')
        .where({ dealer_id: batch.dealer_id, idempotency_key: lineSaleKey(batch.id, line.line_no) })
        .first('id');
      if (sale) await this.settle(line, { status: 'accepted', recharge_id: sale.id }, 'lines_accepted');
      else await this.refuse(line, stop);
    }
    return selling.length + (await refusePending(ctx.db, batch.id, stop));
  }

  /**
   * One line through the sale path; its outcome (accepted with its sale, or refused with why) is
   * written once. The line is taken first (pending -> selling, conditional): a cancel refuses only
   * pending lines, so a line is either sold or cancelled, never both.
   */
  private async sellLine(ctx: ServiceContext, batch: BatchRow, line: LineRow): Promise<void> {
    const phone = nationalNumber(line.phone);
    if (!phone) return this.refuse(line, refusalOf('validation:phone_somali_invalid'));
    const taken = await ctx
      .db('recharge_batch_lines')
      .where({ id: line.id })
      .whereIn('status', OPEN_LINE)
      .update({ status: 'selling', updated_at: toDbTime() });
    if (taken !== 1) return; // cancelled (or settled by another processor) since it was read
    try {
      const code = ctx.actor.user?.dealer_code ?? '';
      const dealer = await sellingDealer(ctx.db, code);
      const { id } = await createRecharge(
        ctx,
        dealer,
        { bundle_id: line.bundle_id, phone, payment: 'wallet', client_reference: line.client_reference },
        lineSaleKey(batch.id, line.line_no),
      );
      await this.settle(line, { status: 'accepted', recharge_id: id }, 'lines_accepted');
      this.opts.wakeSales?.();
    } catch (err) {
      // A refusal of the sale path (4xx) is the line's outcome; anything else (the database) stops the run.
      if (err instanceof AppError && err.status < 500) return this.refuse(line, saleRefusal(err));
      throw err;
    }
  }

  private refuse(line: LineRow, r: Refusal) {
    return this.settle(
      line,
      { status: 'refused', error_code: r.code, error_message: r.message.slice(0, 128), error_vars: JSON.stringify(r.vars) },
      'lines_refused',
    );
  }

  /** The line's outcome and the batch's count in one transaction, only while the line is open (written once). */
  private async settle(line: LineRow, changes: Record<string, unknown>, counter: 'lines_accepted' | 'lines_refused') {
    await unitOfWork(async (trx) => {
      const now = toDbTime();
      const n = await trx('recharge_batch_lines')
        .where({ id: line.id })
        .whereIn('status', OPEN_LINE)
        .update({ ...changes, updated_at: now });
      if (n === 1)
        await trx('recharge_batches')
          .where({ id: line.batch_id })
          .update({ [counter]: trx.raw('?? + 1', [counter]), updated_at: now });
    }, this.opts.db);
  }

  /** Every line handled: the batch completes once, with its webhook event in the same transaction. */
  private async complete(batch: BatchRow) {
    await completeBatch(this.opts.db, batch.id, { status: 'running', lease_owner: this.owner });
  }
}
