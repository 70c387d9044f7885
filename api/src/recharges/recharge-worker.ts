import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import type pino from 'pino';
import { toDbTime } from '../database/time.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { databaseTrouble } from '../database/db-errors.ts';
import { systemContext, type ServiceContext } from '../platform/context.ts';
import type { PaymentAdapter } from '../connectors/payments/payment-adapter.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';
import type { OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { onRemoteCall } from '../connectors/remote-call.ts';
import type { RechargeRow } from './recharge-rows.ts';
import { AdaptiveLimit } from './fulfilment/adaptive-limit.ts';
import { Reconciliation } from './fulfilment/reconciliation.ts';
import { claimOf, LeaseLost, MAX_CRASHES, SaleSteps, toReview, type Sale } from './fulfilment/sale-steps.ts';
import { StepWrites } from './fulfilment/step-writes.ts';
import { VendorGate } from './fulfilment/vendor-gate.ts';
import { RouteChooser } from '../routing/route-choice.ts';
import type { RouteHealthOptions } from '../routing/route-health.ts';
import type { FulfilmentObserver } from './fulfilment/fulfilment-observer.ts';

export { MAX_CRASHES, MAX_SENDS } from './fulfilment/sale-steps.ts';

/**
 * Fulfilment, in the background and never inside a customer's request (docs/architecture.md,
 * "Fulfilment at field scale"). This is the loop: it claims pending sales in batches, runs each
 * one's state machine (fulfilment/sale-steps.ts) as an independent task that costs a socket while
 * it waits on a payer or an aggregator and a timer between questions, takes back what a dead
 * worker left, and runs the reconciliation (fulfilment/reconciliation.ts) on its own timer.
 *
 * How many sales are in flight is bounded by `concurrency` (memory) only; how many are claimed at
 * a time follows an adaptive limit that shrinks when the database answers the worker's grouped
 * writes slowly (fulfilment/adaptive-limit.ts). Sales waiting on a payer's PIN load no database, so
 * they never count against it: a slow database slows the claims, it never stops them. Every update names the claim (`processing_started_at`),
 * so a worker whose lease ran out can never overwrite the one that took the sale over.
 */
export interface WorkerOptions {
  db: Knex;
  client: 'sqlite' | 'mysql';
  /** The gateway new sales are charged through, or every gateway this process knows (adapters/payment-gateways.ts). */
  payment: PaymentAdapter | PaymentGateways;
  operators: Record<string, OperatorAdapter>;
  logger?: pino.Logger;
  /** The most sales one process keeps in flight (a memory bound; how many are claimed at a time follows an adaptive limit). */
  concurrency?: number;
  /** Sales claimed in one transaction. */
  claimBatch?: number;
  /** How long the payer may take to approve: a payment the gateway has never heard of after this is absent. */
  paymentTimeoutMs?: number;
  /** How long a claimed row may stay in processing before another worker takes it back. */
  leaseMs?: number;
  pollMs?: number;
  /** First wait before asking a remote side again; grows with the time already waited. */
  retryBaseMs?: number;
  /** The longest wait between two questions. */
  maxRetryMs?: number;
  /** After this long without a definite answer, the sale waits for a person (needs_review). */
  reviewAfterMs?: number;
  /** How often the reconciliation looks for sales due to be asked about. */
  reconcileMs?: number;
  /** Sales the reconciliation asks about in one round. */
  reconcileBatch?: number;
  /** The longest wait between two reconciliation questions about one sale. */
  checkMaxMs?: number;
  /** Lookups a minute to a vendor that stopped answering, by every process together. */
  downVendorLookupsPerMinute?: number;
  /** When a delivery route is rested after refusals or timeouts, and for how long (routing/route-health.ts). */
  routeHealth?: Partial<RouteHealthOptions>;
  /** Which aggregators may deliver (default: every one in `operators`); money-adapters.ts's usableAggregator. */
  usableAggregator?: (name: string) => boolean;
  /** Told of prompts, deliveries and status lookups (metrics/service-metrics.ts). */
  observer?: FulfilmentObserver;
  /**
   * A sale handed back at the end of a drain is due again only after this: longer than any vendor
   * call's own timeout, so a call still in the air has landed before another process asks about it
   * (a lookup cannot see a request the vendor has not processed yet). Default 30 s.
   */
  handBackAfterMs?: number;
}

export class RechargeWorker {
  private readonly ctx: ServiceContext;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly reconcileMs: number;
  private readonly claimBatch: number;
  /** Sales claimed at a time: fewer while the database is slow. */
  readonly limit: AdaptiveLimit;
  private readonly maxInFlight: number;
  private readonly writes: StepWrites;
  private readonly gate: VendorGate;
  private readonly steps: SaleSteps;
  /** Which route each top-up takes, and the routes' health. */
  readonly routes: RouteChooser;
  private readonly reconciliation: Reconciliation;
  /** Aborted by stop(): sales waiting in memory go back to pending. */
  private stopping = RechargeWorker.stopSignal();
  private readonly retryBaseMs: number;
  private readonly maxRetryMs: number;
  private timer: NodeJS.Timeout | null = null;
  private reconcileTimer: NodeJS.Timeout | null = null;
  private running = false;
  private reconciling: Promise<unknown> | null = null;
  /** The polling loop's round in progress (a claim may be on its way): a stop waits for it. */
  private ticking: Promise<void> | null = null;
  private inFlight = new Set<Promise<void>>();
  /** The sales this worker holds (claimed, not yet settled or handed back), by id: what a drain releases. */
  private readonly held = new Map<number, Sale>();
  /** When the polling loop last went round (Date.now()); readiness calls the loop dead when this is old. */
  lastTickAt = 0;
  private stopped = true;
  private lastRecovery = 0;
  private stopListening: (() => void) | null = null;
  /** The most sales this worker had in flight at once (the benchmark reads it). */
  peakInFlight = 0;

  constructor(private readonly opts: WorkerOptions) {
    this.ctx = systemContext({ db: opts.db });
    this.leaseMs = opts.leaseMs ?? 180_000;
    this.pollMs = opts.pollMs ?? 1000;
    this.reconcileMs = opts.reconcileMs ?? 5_000;
    this.claimBatch = opts.claimBatch ?? 200;
    this.retryBaseMs = opts.retryBaseMs ?? 1000;
    this.maxRetryMs = opts.maxRetryMs ?? 60_000;
    const max = Math.max(1, opts.concurrency ?? 10_000);
    this.maxInFlight = max;
    this.limit = new AdaptiveLimit({ min: Math.min(this.claimBatch, 10), max: this.claimBatch, targetMs: 250 });
    this.writes = new StepWrites(opts.db, this.limit);
    this.gate = new VendorGate(opts.db, { lookupsPerMinute: opts.downVendorLookupsPerMinute });
    const gateways = PaymentGateways.from(opts.payment);
    this.routes = new RouteChooser(opts.db, (aggregator) => aggregator in opts.operators && (opts.usableAggregator?.(aggregator) ?? true), opts.routeHealth);
    this.steps = new SaleSteps({
      db: opts.db,
      ctx: this.ctx,
      gateways,
      operators: opts.operators,
      routes: this.routes,
      writes: this.writes,
      gate: this.gate,
      stopping: () => this.stopping.signal,
      observer: opts.observer,
      timing: {
        paymentTimeoutMs: opts.paymentTimeoutMs ?? 90_000,
        leaseMs: this.leaseMs,
        retryBaseMs: this.retryBaseMs,
        maxRetryMs: this.maxRetryMs,
        reviewAfterMs: opts.reviewAfterMs ?? 15 * 60_000,
      },
    });
    this.reconciliation = new Reconciliation({
      db: opts.db,
      client: opts.client,
      ctx: this.ctx,
      gateways,
      operators: opts.operators,
      gate: this.gate,
      logger: opts.logger,
      batch: opts.reconcileBatch,
      baseMs: Math.min(Math.max(this.retryBaseMs, 5_000), opts.checkMaxMs ?? 180_000),
      maxMs: opts.checkMaxMs ?? 180_000,
      observer: opts.observer,
    });
    this.listen();
  }

  /** Every call of this process tells the gate whether its vendor answered. */
  private listen() {
    this.stopListening ??= onRemoteCall((system, answered) => this.gate.noteCall(system, answered));
  }

  /** Every sale waiting in memory listens to it: thousands of listeners are expected. */
  private static stopSignal(): AbortController {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  }

  /** Starts polling (and is woken at once by wake() when a recharge is created). */
  start(): void {
    if (this.stopping.signal.aborted) this.stopping = RechargeWorker.stopSignal();
    this.listen();
    this.stopped = false;
    this.lastTickAt = Date.now();
    this.schedule(0);
    this.scheduleReconcile(this.reconcileMs);
  }

  /**
   * Stops taking new work; sales waiting in memory go back to pending, calls in progress finish
   * (graceful shutdown). With `timeoutMs`, sales still running after it are released: handed back
   * to pending under their claim, so another process takes them at once instead of after the lease
   * (safe: each step recorded its intent before its call, so whoever takes a sale over asks about
   * a call still in the air, never makes it again; this worker's late answer then finds the claim
   * gone and stops, LeaseLost). Returns how many were released.
   */
  async stop(opts: { timeoutMs?: number } = {}): Promise<number> {
    this.stopped = true;
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    if (this.reconcileTimer) clearTimeout(this.reconcileTimer);
    // The round in progress first: a claim on its way hands its rows straight back (tick()).
    await this.ticking;
    const settled = Promise.allSettled([...this.inFlight, this.reconciling]);
    let released = 0;
    if (opts.timeoutMs === undefined) await settled;
    else {
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([settled.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), opts.timeoutMs)))]);
      clearTimeout(timer);
      if (late) released = await this.release([...this.held.values()], this.opts.handBackAfterMs ?? 30_000);
    }
    this.stopListening?.();
    this.stopListening = null;
    return released;
  }

  /** Sales this worker holds right now (claimed and in memory). */
  get holding(): number {
    return this.held.size;
  }

  /**
   * Hands these sales back to pending where this worker's claim still holds: due now when nothing
   * was started (`dueInMs` 0), else once a call still in the air has surely landed.
   */
  private async release(sales: Sale[], dueInMs = 0): Promise<number> {
    let released = 0;
    const due = dueInMs > 0 ? toDbTime(new Date(Date.now() + dueInMs)) : null;
    for (const r of sales) {
      released += await this.opts
        .db('recharges')
        .where(claimOf(r))
        .update({ status: 'pending', next_attempt_at: due, updated_at: toDbTime() })
        .catch(() => 0);
    }
    return released;
  }

  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => (this.ticking = null));
    }, ms);
    this.timer.unref();
  }

  private scheduleReconcile(ms: number) {
    this.reconcileTimer = setTimeout(() => {
      this.reconciling = this.reconcile()
        .catch((err) => this.opts.logger?.error({ err }, 'reconciliation round failed'))
        .finally(() => {
          this.reconciling = null;
          if (!this.stopped) this.scheduleReconcile(this.reconcileMs);
        });
    }, ms);
    this.reconcileTimer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    let more = false;
    try {
      if (Date.now() - this.lastRecovery > Math.min(this.leaseMs, 30_000)) {
        this.lastRecovery = Date.now();
        await this.recoverExpired();
      }
      const free = Math.min(this.limit.value, this.maxInFlight - this.inFlight.size);
      if (free > 0) {
        const rows = await this.claim(free);
        // Stopped while the claim was on its way: nothing is started, the rows go straight back.
        if (this.stopped) {
          await this.release(rows);
          return;
        }
        for (const row of rows) this.track(this.process(row));
        // A full batch: more may be waiting, take them at once.
        more = rows.length === free;
      }
    } catch (err) {
      if (databaseTrouble(err)) this.limit.backOff();
      this.opts.logger?.error({ err }, 'recharge worker tick failed');
    } finally {
      this.running = false;
      this.lastTickAt = Date.now();
      if (!this.stopped) this.schedule(more ? 0 : this.pollMs);
    }
  }

  private track(p: Promise<void>) {
    this.inFlight.add(p);
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight.size);
    void p.finally(() => {
      // At the limit, a sale that ends makes room: take the next at once rather than at the next poll.
      const wasFull = this.inFlight.size >= this.maxInFlight;
      this.inFlight.delete(p);
      if (wasFull) this.wake();
    });
  }

  /**
   * Processes everything claimable now, and what becomes due while it waits, until nothing is
   * pending or processing (tests and the benchmark). Sales in review are left to a person.
   */
  async drain(opts: { timeoutMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const rows = await this.claim(Math.min(this.limit.value, this.maxInFlight - this.inFlight.size));
      for (const row of rows) this.track(this.process(row));
      if (!rows.length && !this.inFlight.size) {
        if (!(await this.hasOpen())) return;
        if (Date.now() > deadline) throw new Error('drain: recharges still open after the timeout');
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      if (this.inFlight.size) await Promise.race([...this.inFlight, new Promise((r) => setTimeout(r, 50))]);
    }
  }

  private async hasOpen(): Promise<boolean> {
    return Boolean(await this.opts.db('recharges').whereIn('status', ['pending', 'processing']).first('id'));
  }

  /** Pending rows due now, moved to processing in one transaction. */
  async claim(limit: number): Promise<Sale[]> {
    if (limit <= 0) return [];
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
      await trx('recharges')
        .whereIn('id', ids)
        .where('status', 'pending')
        .update({ status: 'processing', processing_started_at: now, attempts: trx.raw('attempts + 1'), updated_at: now });
      return trx('recharges')
        .join('providers', 'providers.id', 'recharges.provider_id')
        .leftJoin('bundles', 'bundles.id', 'recharges.bundle_id')
        .whereIn('recharges.id', ids)
        .where('recharges.status', 'processing')
        .select('recharges.*', 'providers.adapter_key', 'providers.external_operator_id', 'bundles.operator_product_code');
    }, this.opts.db);
  }

  /**
   * Rows whose worker died (a crash, a killed process): back to pending once their lease is over,
   * counted as a crash; a sale that keeps crashing goes to review instead of round for ever.
   */
  async recoverExpired(leaseMs = this.leaseMs): Promise<number> {
    const before = toDbTime(new Date(Date.now() - leaseMs));
    const stale: Pick<RechargeRow, 'id' | 'crashes' | 'processing_started_at'>[] = await this.opts
      .db('recharges')
      .where('status', 'processing')
      .where('processing_started_at', '<', before)
      .select('id', 'crashes', 'processing_started_at');
    let resumed = 0;
    for (const r of stale) {
      const crashes = Number(r.crashes) + 1;
      const claim = claimOf(r);
      if (crashes >= MAX_CRASHES) {
        await toReview(this.stepDeps(), claim, crashes, `Processing stopped unexpectedly ${crashes} times (the worker's lease ran out).`, 'processing_crashed');
      } else {
        resumed += await this.opts.db('recharges').where(claim).update({ status: 'pending', crashes, next_attempt_at: null, updated_at: toDbTime() });
      }
    }
    return resumed;
  }

  private stepDeps() {
    return { db: this.opts.db, ctx: this.ctx };
  }

  private async process(r: Sale): Promise<void> {
    this.held.set(Number(r.id), r);
    try {
      await this.steps.run(r);
    } catch (err) {
      if (err instanceof LeaseLost) return;
      // The database itself is busy or out of reach: not the sale's fault, so not one of its
      // bounded crashes (an outage must not send every sale in flight to review). Tried again later.
      if (databaseTrouble(err) || (err as { status?: number }).status === 503) {
        this.limit.backOff();
        this.opts.logger?.warn({ err, recharge: r.id }, 'recharge postponed: the database is in trouble');
        await this.steps.later(r, this.maxRetryMs).catch(() => undefined);
        return;
      }
      this.opts.logger?.error({ err, recharge: r.id }, 'recharge processing failed');
      // Counted and retried later; if even this fails (the database is gone), the lease brings it back.
      await this.crashed(r, err).catch(() => undefined);
    } finally {
      this.held.delete(Number(r.id));
    }
  }

  private async crashed(r: Sale, err: unknown) {
    const crashes = Number(r.crashes) + 1;
    const claim = claimOf(r);
    const message = err instanceof Error ? err.message : String(err);
    if (crashes >= MAX_CRASHES) {
      await toReview(this.stepDeps(), claim, crashes, `Processing failed unexpectedly ${crashes} times: ${message}`, 'processing_crashed');
      return;
    }
    await this.opts
      .db('recharges')
      .where(claim)
      .update({ status: 'pending', crashes, next_attempt_at: toDbTime(new Date(Date.now() + this.retryBaseMs * 2 ** crashes)), updated_at: toDbTime() });
  }

  /** One reconciliation round now (also run on its own timer once started). Returns the sales asked about. */
  reconcile(): Promise<number> {
    return this.reconciliation.round();
  }
}
