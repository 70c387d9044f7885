import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { toDbTime } from '../database/time.ts';
import { rootKnex } from '../database/unit-of-work.ts';
import { serviceLog } from '../platform/logger.ts';
import type { SmsAdapter } from '../connectors/sms/africastalking/africastalking-adapter.ts';
import { PollingLoop } from '../platform/polling-loop.ts';

/**
 * Sends the SMS receipts' outbox (sms-receipts.ts), beside the API where the sales are settled
 * (RECHARGE_WORKER), never in a request. A pending row is claimed with a conditional UPDATE
 * (`pending` -> `sending`, with a token), so two processes never send the same receipt; then sent
 * once and its answer recorded: `accepted` (101/102, with the vendor's message id, which the
 * delivery reports name), `refused` (the vendor's reason), or `unknown` (no answer, a reset, a 5xx:
 * the message may have gone). An unknown receipt is not sent again: a customer could get it twice,
 * and the record says plainly that nobody knows. A row left `sending` by a process that stopped
 * mid-send is marked unknown once its lease ran out, for the same reason.
 *
 * At field load (200 sales a second settling) the receipts share the database with the sales: the
 * pending rows are claimed in batches (one UPDATE for all free slots), and a commit's wake waits
 * `batchMs` so the receipts committed meanwhile go in the same batch. A receipt a fraction of a
 * second later costs nobody anything; a write per receipt more costs every sale.
 */
export interface SmsDispatcherOptions {
  db?: Knex;
  adapter: SmsAdapter;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  /** How long a wake waits for more receipts before a round (milliseconds). */
  batchMs?: number;
}

interface MessageRow {
  id: number;
  recharge_id: number;
  phone: string;
  message: string;
}

export class SmsDispatcher {
  private readonly loop = new PollingLoop({ round: () => this.claimAndSend(), pollMs: () => this.opts.pollMs, what: 'SMS dispatch' });
  private readonly inFlight = new Set<Promise<void>>();
  /** When rows left `sending` were last looked for (each finished send starts a round: at 200 sales a second, not each time). */
  private lastLeaseSweep = 0;
  private wakeTimer: NodeJS.Timeout | null = null;
  private readonly opts: Required<Omit<SmsDispatcherOptions, 'db'>> & { db?: Knex };

  constructor(opts: SmsDispatcherOptions) {
    this.opts = { concurrency: 8, pollMs: 10_000, leaseMs: 120_000, batchMs: 200, ...opts };
  }

  private get db(): Knex {
    return this.opts.db ?? rootKnex();
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.loop.stop();
    await this.drain();
  }

  /** Something was just committed: look in `batchMs` (with whatever else commits by then) rather than at the next poll. */
  wake(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.loop.wake();
    }, this.opts.batchMs);
    this.wakeTimer.unref();
  }

  /** Sends everything pending, round after round, and waits for the sends (tests; a script). Returns how many were sent. */
  async runUntilDone(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.claimAndSend();
      await this.drain();
      total += started;
      if (!started) return total;
    }
  }

  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async claimAndSend(): Promise<number> {
    const now = Date.now();
    // What a stopped process left mid-send: it may have gone, so it is not sent again. A lease
    // lasts minutes, so a look every poll interval finds it in time.
    if (now - this.lastLeaseSweep >= this.opts.pollMs) {
      this.lastLeaseSweep = now;
      await this.db('sms_messages')
        .where({ status: 'sending' })
        .where('claimed_until', '<', toDbTime(new Date(now)))
        .update({
          status: 'unknown',
          failure_reason: 'The sender stopped before the answer was recorded',
          claim_token: null,
          claimed_until: null,
          updated_at: toDbTime(new Date(now)),
        });
    }
    const free = this.opts.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const ids: number[] = await this.db('sms_messages').where({ status: 'pending' }).orderBy('id').limit(free).pluck('id');
    if (!ids.length) return 0;
    // One claim for the batch: a row another process claimed first is no longer pending and is left
    // out. The claim and the read of what it claimed are one transaction: a read that fails gives the
    // rows back (pending) instead of leaving them `sending` under a token nobody holds, which the lease
    // sweep would mark unknown and never send.
    const token = crypto.randomBytes(12).toString('hex');
    const claimed = await this.db.transaction<MessageRow[]>(async (trx) => {
      await trx('sms_messages')
        .whereIn('id', ids)
        .where({ status: 'pending' })
        .update({ status: 'sending', claim_token: token, claimed_until: toDbTime(new Date(now + this.opts.leaseMs)), attempts: trx.raw('attempts + 1') });
      return (await trx('sms_messages')
        .whereIn('id', ids)
        .where({ claim_token: token })
        .orderBy('id')
        .select('id', 'recharge_id', 'phone', 'message')) as MessageRow[];
    });
    // Another process took some of these first: look again for the next pending ones rather than wait for the poll.
    if (claimed.length < ids.length) this.loop.wake();
    for (const row of claimed) {
      const send: Promise<void> = this.send(row, token)
        .catch((err: unknown) => serviceLog.warn({ err, sms: row.id }, 'SMS receipt not recorded'))
        .finally(() => {
          this.inFlight.delete(send);
          // The next batch once half the slots are free, not a round per finished send.
          if (this.inFlight.size <= this.opts.concurrency / 2) this.loop.wake();
        });
      this.inFlight.add(send);
    }
    return claimed.length;
  }

  private async send(row: MessageRow, token: string): Promise<void> {
    const result = await this.opts.adapter.send(row.phone, row.message, { rechargeId: Number(row.recharge_id) });
    const now = toDbTime();
    await this.db('sms_messages')
      .where({ id: row.id, claim_token: token })
      .update({
        status: result.outcome,
        status_code: result.statusCode,
        provider_message_id: result.messageId,
        provider_status: result.status,
        cost: result.cost,
        failure_reason: result.outcome === 'accepted' ? null : (result.error ?? '').slice(0, 255) || null,
        sent_at: now,
        claim_token: null,
        claimed_until: null,
        updated_at: now,
      });
  }
}
