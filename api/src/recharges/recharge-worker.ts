import type { Knex } from 'knex';
import type pino from 'pino';
import { toDbTime } from '../database/time.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { systemContext, type ServiceContext } from '../platform/context.ts';
import type { PaymentAdapter } from './adapters/payment-adapter.ts';
import type { OperatorAdapter } from './adapters/operator-adapter.ts';
import { completeRecharge, failRecharge, recordPayment, rescheduleRecharge } from './recharge.service.ts';

/**
 * Fulfilment, in the background and never inside a customer's request (docs/architecture.md,
 * Recharges). Each recharge goes through three short steps so that a slow gateway never holds a
 * lock or SQLite's single connection:
 *
 *   1. claim   one transaction: pending -> processing (SKIP LOCKED on MySQL, so workers in several
 *              processes never take the same row);
 *   2. call    outside any transaction: the payment adapter collects (unless already collected),
 *              then the operator adapter delivers, each with a timeout;
 *   3. settle  one transaction: completed (profit credited) or failed (debit refunded), each a
 *              conditional status change that only one settlement can win.
 *
 * A timeout is retried with backoff (at most MAX_ATTEMPTS); what became of an earlier delivery
 * is asked (status) before delivering again, and both adapters refuse duplicates by reference.
 * Rows left in processing by a crash are given back to pending when their lease runs out.
 */
export interface WorkerOptions {
  db: Knex;
  client: 'sqlite' | 'mysql';
  payment: PaymentAdapter;
  operators: Record<string, OperatorAdapter>;
  logger?: pino.Logger;
  /** Recharges processed at once by this worker. */
  concurrency?: number;
  paymentTimeoutMs?: number;
  /** How long a claimed row may stay in processing before another worker takes it back. */
  leaseMs?: number;
  pollMs?: number;
  /** First retry delay; doubles each attempt. */
  retryBaseMs?: number;
}

export const MAX_ATTEMPTS = 3;

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([work, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())]);

export class RechargeWorker {
  private readonly ctx: ServiceContext;
  private readonly concurrency: number;
  private readonly paymentTimeoutMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly retryBaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private inFlight = new Set<Promise<void>>();
  private stopped = true;
  private lastRecovery = 0;

  constructor(private readonly opts: WorkerOptions) {
    this.ctx = systemContext({ db: opts.db });
    this.concurrency = opts.concurrency ?? Number(process.env.RECHARGE_WORKER_CONCURRENCY ?? 8);
    this.paymentTimeoutMs = opts.paymentTimeoutMs ?? Number(process.env.PAYMENT_TIMEOUT_MS ?? 90_000);
    this.leaseMs = opts.leaseMs ?? Number(process.env.RECHARGE_LEASE_MS ?? 180_000);
    this.pollMs = opts.pollMs ?? 1000;
    this.retryBaseMs = opts.retryBaseMs ?? 1000;
  }

  /** Starts polling (and is woken at once by wake() when a recharge is created). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops taking new work and waits for what is in flight (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      if (Date.now() - this.lastRecovery > Math.min(this.leaseMs, 30_000)) {
        this.lastRecovery = Date.now();
        await this.recoverExpired();
      }
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) for (const row of await this.claim(free)) this.track(this.process(row));
    } catch (err) {
      this.opts.logger?.error({ err }, 'recharge worker tick failed');
    } finally {
      this.running = false;
      if (!this.stopped) this.schedule(this.pollMs);
    }
  }

  private track(p: Promise<void>) {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      this.wake();
    });
  }

  /** Processes everything claimable now and waits for it (tests and the benchmark). */
  async drain(): Promise<void> {
    for (;;) {
      const rows = await this.claim(this.concurrency);
      if (!rows.length && !this.inFlight.size) {
        if (!(await this.hasDue())) return;
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      for (const row of rows) this.track(this.process(row));
      if (this.inFlight.size) await Promise.race([...this.inFlight]);
    }
  }

  private async hasDue(): Promise<boolean> {
    return Boolean(await this.opts.db('recharges').whereIn('status', ['pending', 'processing']).first('id'));
  }

  /** Pending rows due now, moved to processing in one transaction. */
  async claim(limit: number): Promise<Record<string, any>[]> {
    return unitOfWork(async (trx) => {
      const now = toDbTime();
      const qb = trx('recharges')
        .where('status', 'pending')
        .where((w) => w.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', now))
        .orderBy('id')
        .limit(limit)
        .select('id');
      // Several processes may run workers on MySQL: each takes rows the others have not locked.
      if (this.opts.client === 'mysql') qb.forUpdate().skipLocked();
      const ids = (await qb).map((r: { id: number }) => r.id);
      if (!ids.length) return [];
      await trx('recharges').whereIn('id', ids).where('status', 'pending').update({ status: 'processing', processing_started_at: now, attempts: trx.raw('attempts + 1'), updated_at: now });
      return trx('recharges')
        .join('providers', 'providers.id', 'recharges.provider_id')
        .leftJoin('bundles', 'bundles.id', 'recharges.bundle_id')
        .whereIn('recharges.id', ids)
        .where('recharges.status', 'processing')
        .select('recharges.*', 'providers.adapter_key', 'providers.code as provider_code', 'bundles.operator_product_code');
    }, this.opts.db);
  }

  /** Rows whose worker died (a crash, a killed process): back to pending once their lease is over. */
  async recoverExpired(leaseMs = this.leaseMs): Promise<number> {
    const before = toDbTime(new Date(Date.now() - leaseMs));
    return this.opts.db('recharges').where('status', 'processing').where('processing_started_at', '<', before).update({ status: 'pending', next_attempt_at: null, updated_at: toDbTime() });
  }

  private async process(r: Record<string, any>): Promise<void> {
    try {
      // 1. Payment, unless an earlier attempt collected it already.
      let paymentReference: string | null = r.payment_reference ?? null;
      if (!paymentReference) {
        const paid = await withTimeout(
          this.opts.payment.purchase({ referenceId: r.reference, payerPhone: r.payer_phone, amount: Number(r.amount), currency: r.currency, description: `${r.provider_name} ${r.bundle_name}` }),
          this.paymentTimeoutMs,
        );
        if (paid === 'timeout') return await this.retryOrFail(r, 'The payment gateway did not answer in time.');
        if (paid.status === 'declined') {
          await failRecharge(this.ctx, r.id, `Payment declined (${paid.code}): ${paid.message}`);
          return;
        }
        paymentReference = paid.transactionId;
        await recordPayment(this.ctx, r.id, paymentReference);
      }
      // 2. Delivery: after an earlier attempt, first ask what became of it.
      const operator = this.opts.operators[r.adapter_key ?? 'sandbox'];
      if (!operator) return await this.fail(r, paymentReference, `No operator adapter named "${r.adapter_key}".`);
      let result = r.attempts > 1 ? await operator.status(r.reference, r.phone) : ({ status: 'unknown' } as const);
      if (result.status === 'unknown') {
        result = await operator.deliver({ externalId: r.reference, phone: r.phone, providerCode: r.provider_code, productCode: r.operator_product_code ?? null, dataVolumeMb: r.data_volume_mb ?? null, validityDays: r.validity_days ?? null });
      }
      if (result.status === 'completed') await completeRecharge(this.ctx, r.id, result.operatorReference);
      else if (result.status === 'failed') await this.fail(r, paymentReference, result.reason);
      else await this.retryOrFail(r, 'The operator did not confirm the delivery in time.', paymentReference);
    } catch (err) {
      // Unexpected (the database went away ...): leave it to the lease, which hands it back.
      this.opts.logger?.error({ err, recharge: r.id }, 'recharge processing failed');
    }
  }

  private async retryOrFail(r: Record<string, any>, reason: string, paymentReference: string | null = null) {
    if (r.attempts < MAX_ATTEMPTS) {
      await rescheduleRecharge(this.ctx, r.id, 2 ** (r.attempts - 1) * this.retryBaseMs, reason);
      return;
    }
    await this.fail(r, paymentReference, reason);
  }

  /** Failed delivery: the customer's collected payment goes back, then the recharge is settled as failed (the dealer's debit refunded). */
  private async fail(r: Record<string, any>, paymentReference: string | null, reason: string) {
    let paymentRefunded = false;
    if (paymentReference) {
      const back = await this.opts.payment.refund(paymentReference, Number(r.amount), r.currency);
      paymentRefunded = back.status === 'refunded';
      if (!paymentRefunded) reason = `${reason} The payment refund failed: ${back.status === 'failed' ? back.message : ''}`;
    }
    await failRecharge(this.ctx, r.id, reason, { paymentRefunded });
  }
}
