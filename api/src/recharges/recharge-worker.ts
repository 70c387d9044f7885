import type { Knex } from 'knex';
import type pino from 'pino';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { enqueueRechargeEvent } from '../webhooks/webhook-events.ts';
import { databaseTrouble } from '../database/db-errors.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { systemContext, transact, type ServiceContext } from '../platform/context.ts';
import type { PaymentAdapter, PaymentFlow } from './adapters/payment-adapter.ts';
import type { DeliveryResult, OperatorAdapter } from './adapters/operator-adapter.ts';
import { completeRecharge, creditProfitIfDue, failRecharge } from './recharge.service.ts';
import type { RechargeRow } from './recharge-rows.ts';
import type { DeliveryState } from '@app/contracts';

/**
 * Fulfilment, in the background and never inside a customer's request (docs/architecture.md,
 * "Recharges"). A claimed sale moves through recorded steps, each written in its own short
 * transaction BEFORE and AFTER its remote call, so that after a crash the worker asks the remote
 * side only about what it really sent, and sends what it never sent:
 *
 *   payment   none -> sent -> reserved (pre-authorisation) | collected (purchase) | declined
 *   delivery  none -> sent -> processing -> delivered | failed
 *   settle    delivered: commit the reserve (committing -> collected), then completed
 *             failed:    cancel the reserve or reverse the purchase (releasing -> released),
 *                        then failed/refunded with the dealer's debit returned
 *
 * A lost answer (timeout, reset, 5xx) is never a failure: the step stays `sent` (or committing,
 * releasing) and the remote side is asked by our own reference until it can tell; a sale that
 * neither side can tell about within the review window goes to `needs_review` for a person.
 * Every update names the claim (`processing_started_at`), so a worker whose lease ran out can
 * never overwrite the one that took the sale over.
 */
export interface WorkerOptions {
  db: Knex;
  client: 'sqlite' | 'mysql';
  payment: PaymentAdapter;
  operators: Record<string, OperatorAdapter>;
  logger?: pino.Logger;
  /** Recharges processed at once by this worker. */
  concurrency?: number;
  /**
   * True while the process is busy answering people (server.ts: many requests in flight). The
   * worker then takes at most `busyConcurrency` sales at a time, so a burst of purchases is
   * answered first and settled right after; it never stops settling altogether.
   */
  busy?: () => boolean;
  /** Sales processed at once while busy() (default 2). */
  busyConcurrency?: number;
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
  /** How often the reconciliation re-asks about sales in review and unsettled payments. */
  reconcileMs?: number;
}

/** Claims that end in an unexpected error or an expired lease before the sale goes to review. */
export const MAX_CRASHES = 5;
/** Sends of one top-up that the aggregator never received before the sale waits for review. */
export const MAX_SENDS = 3;

class LeaseLost extends Error {}

/**
 * A sale the worker handles: its row, with what its provider and bundle tell the operator (joined
 * by claim(); absent on the reconciliation's reads). The purchase always sets the reference and
 * the payer's phone (contracts: both required), so the worker reads them as strings.
 */
type Row = RechargeRow & {
  reference: string;
  payer_phone: string;
  adapter_key?: string | null;
  external_operator_id?: string | null;
  operator_product_code?: string | null;
};
/** Columns a step writes. */
type Fields = Partial<RechargeRow>;
/** The claim a step must still hold: the row as this worker took it. */
type Claim = Pick<RechargeRow, 'id' | 'status' | 'processing_started_at'>;

/** This worker's hold on a sale: it is still processing under the lease it was claimed with. */
const claimOf = (r: Pick<RechargeRow, 'id' | 'processing_started_at'>): Claim => ({
  id: r.id,
  status: 'processing',
  processing_started_at: r.processing_started_at,
});

const elapsedSince = (dbTime: string | null | undefined) => (dbTime ? Date.now() - new Date(fromDbTime(dbTime)!).getTime() : 0);

export class RechargeWorker {
  private readonly ctx: ServiceContext;
  private readonly concurrency: number;
  private readonly paymentTimeoutMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryMs: number;
  private readonly reviewAfterMs: number;
  private readonly reconcileMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private inFlight = new Set<Promise<void>>();
  private stopped = true;
  private lastRecovery = 0;
  private lastReconcile = 0;

  constructor(private readonly opts: WorkerOptions) {
    this.ctx = systemContext({ db: opts.db });
    this.concurrency = opts.concurrency ?? 8;
    this.paymentTimeoutMs = opts.paymentTimeoutMs ?? 90_000;
    this.leaseMs = opts.leaseMs ?? 180_000;
    this.pollMs = opts.pollMs ?? 1000;
    this.retryBaseMs = opts.retryBaseMs ?? 1000;
    this.maxRetryMs = opts.maxRetryMs ?? 60_000;
    this.reviewAfterMs = opts.reviewAfterMs ?? 15 * 60_000;
    this.reconcileMs = opts.reconcileMs ?? 60_000;
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
      if (Date.now() - this.lastReconcile > this.reconcileMs) {
        this.lastReconcile = Date.now();
        await this.reconcile();
      }
      const free = this.capacity() - this.inFlight.size;
      if (free > 0) for (const row of await this.claim(free)) this.track(this.process(row));
    } catch (err) {
      this.opts.logger?.error({ err }, 'recharge worker tick failed');
    } finally {
      this.running = false;
      if (!this.stopped) this.schedule(this.pollMs);
    }
  }

  /** How many sales may be in flight now: fewer while people are waiting on the process. */
  private capacity(): number {
    return this.opts.busy?.() ? Math.min(this.concurrency, Math.max(1, this.opts.busyConcurrency ?? 2)) : this.concurrency;
  }

  private track(p: Promise<void>) {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      this.wake();
    });
  }

  /**
   * Processes everything claimable now, and what becomes due while it waits, until nothing is
   * pending or processing (tests and the benchmark). Sales in review are left to a person.
   */
  async drain(opts: { timeoutMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const rows = await this.claim(this.concurrency - this.inFlight.size);
      for (const row of rows) this.track(this.process(row));
      if (!rows.length && !this.inFlight.size) {
        if (!(await this.hasOpen())) return;
        if (Date.now() > deadline) throw new Error('drain: recharges still open after the timeout');
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      if (this.inFlight.size) await Promise.race([...this.inFlight]);
    }
  }

  private async hasOpen(): Promise<boolean> {
    return Boolean(await this.opts.db('recharges').whereIn('status', ['pending', 'processing']).first('id'));
  }

  /** Pending rows due now, moved to processing in one transaction. */
  async claim(limit: number): Promise<Row[]> {
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
        await this.toReviewWhere(claim, crashes, `Processing stopped unexpectedly ${crashes} times (the worker's lease ran out).`);
      } else {
        resumed += await this.opts.db('recharges').where(claim).update({ status: 'pending', crashes, next_attempt_at: null, updated_at: toDbTime() });
      }
    }
    return resumed;
  }

  private async process(r: Row): Promise<void> {
    try {
      await this.advance(r);
    } catch (err) {
      if (err instanceof LeaseLost) return;
      // The database itself is busy or out of reach: not the sale's fault, so not one of its
      // bounded crashes (an outage must not send every sale in flight to review). Tried again later.
      if (databaseTrouble(err)) {
        this.opts.logger?.warn({ err, recharge: r.id }, 'recharge postponed: the database is in trouble');
        await this.later(r, this.maxRetryMs).catch(() => undefined);
        return;
      }
      this.opts.logger?.error({ err, recharge: r.id }, 'recharge processing failed');
      // Counted and retried later; if even this fails (the database is gone), the lease brings it back.
      await this.crashed(r, err).catch(() => undefined);
    }
  }

  private async crashed(r: Row, err: unknown) {
    const crashes = Number(r.crashes) + 1;
    const claim = claimOf(r);
    const message = err instanceof Error ? err.message : String(err);
    if (crashes >= MAX_CRASHES) return this.toReviewWhere(claim, crashes, `Processing failed unexpectedly ${crashes} times: ${message}`);
    await this.opts
      .db('recharges')
      .where(claim)
      .update({ status: 'pending', crashes, next_attempt_at: toDbTime(new Date(Date.now() + this.retryBaseMs * 2 ** crashes)), updated_at: toDbTime() });
  }

  /* ---------------- the steps ---------------- */

  /** Records a step of this claim (or stops: another worker took the sale over). */
  private async step(r: Row, fields: Fields): Promise<void> {
    const changed = await this.opts
      .db('recharges')
      .where(claimOf(r))
      .update({ ...fields, updated_at: toDbTime() });
    if (!changed) throw new LeaseLost();
    Object.assign(r, fields);
  }

  /** Asks again later: back to pending with a time to wait. */
  private async later(r: Row, delayMs: number) {
    await this.step(r, { status: 'pending', next_attempt_at: toDbTime(new Date(Date.now() + delayMs)) });
  }

  /** An unknown outcome: ask again later, or hand it to a person once the review window is over. */
  private async wait(r: Row, reason: string) {
    if (!r.unsure_since) await this.step(r, { unsure_since: toDbTime() });
    const waited = elapsedSince(r.unsure_since);
    if (waited >= this.reviewAfterMs) return this.toReviewWhere(claimOf(r), Number(r.crashes), reason);
    await this.later(r, Math.min(this.maxRetryMs, Math.max(this.retryBaseMs, Math.floor(waited / 4))));
  }

  private async toReviewWhere(where: Claim, crashes: number, reason: string) {
    await unitOfWork(async (trx) => {
      const now = toDbTime();
      const changed = await trx('recharges')
        .where(where)
        .update({ status: 'needs_review', crashes, review_reason: reason.slice(0, 500), needs_review_at: now, next_attempt_at: null, updated_at: now });
      if (changed) {
        await recordActivity({ ...this.ctx, db: trx }, { action: 'recharge_needs_review', subjectType: 'recharge', subjectId: where.id, after: { reason } });
        await enqueueRechargeEvent(trx, where.id);
      }
    }, this.opts.db);
  }

  private operatorOf(r: Row): OperatorAdapter | undefined {
    return this.opts.operators[r.operator_adapter ?? r.adapter_key ?? 'sandbox'];
  }

  private async advance(r: Row): Promise<void> {
    const pay = this.opts.payment;
    const forWhom = { rechargeId: Number(r.id) };
    // An admin's decision on a sale in review: the delivery question is settled, the payment follows it.
    const decided: 'delivered' | 'not_delivered' | null = r.review_outcome ?? null;
    // A reseller's wallet sale: the dealer's wallet paid the cost and the dealer collects from its
    // customer itself, so no payment is asked for; a failed delivery returns the debit (failRecharge).
    const dealerPaid = r.payment_flow === 'wallet';
    const flow: PaymentFlow = flowOf(r, pay.flow);
    const taken = flow === 'preauthorize' ? 'reserved' : 'collected';

    // 1. The payment.
    if (r.payment_state === 'none' && !dealerPaid) {
      if (decided) return this.finish(r, decided === 'delivered', 'Settled in review before any payment was asked for.');
      await this.step(r, { payment_state: 'sent', payment_flow: flow, payment_adapter: pay.name, unsure_since: toDbTime() });
      const charged = await pay.charge(
        {
          referenceId: r.reference,
          payerPhone: r.payer_phone,
          amount: Number(r.amount),
          currency: r.currency,
          description: `${r.provider_name} ${r.bundle_name}`,
        },
        forWhom,
      );
      if (charged.status === 'approved') await this.step(r, { payment_state: taken, payment_reference: charged.transactionId, unsure_since: null });
      else if (charged.status === 'declined') {
        await this.step(r, { payment_state: 'declined', unsure_since: null });
        return this.finish(r, false, `Payment declined (${charged.code}): ${charged.message}`);
      }
      // Unknown: the gateway may have it. Ask, never charge again.
    }
    if (r.payment_state === 'sent') {
      const found = await pay.lookup(r.reference, forWhom);
      if (found.status === 'found') {
        if (found.state === 'pending')
          return decided
            ? this.finish(r, decided === 'delivered', 'The payer had not approved when the sale was settled.')
            : this.wait(r, 'The payer has not approved the payment yet.');
        if (found.state === 'declined') {
          await this.step(r, { payment_state: 'declined', unsure_since: null });
          return this.finish(r, false, 'Payment declined: the payer did not approve.');
        }
        if (found.state === 'cancelled' || found.state === 'reversed') {
          await this.step(r, { payment_state: 'released', unsure_since: null });
          return this.finish(r, false, 'The payment was cancelled at the gateway.');
        }
        await this.step(r, {
          payment_state: found.state === 'committed' ? 'collected' : taken,
          payment_reference: found.transactionId ?? r.payment_reference,
          unsure_since: null,
        });
      } else if (found.status === 'not_found') {
        // Not there (yet): a charge may still be on its way while the payer reads the prompt.
        if (!decided && elapsedSince(r.unsure_since) < this.paymentTimeoutMs)
          return this.later(r, Math.max(this.retryBaseMs, Math.min(this.maxRetryMs, Math.floor(this.paymentTimeoutMs / 6))));
        await this.step(r, { payment_state: 'absent', unsure_since: null });
        return this.finish(r, decided === 'delivered', 'The payment never reached the gateway: nothing was taken.');
      } else {
        if (decided)
          return this.finish(
            r,
            decided === 'delivered',
            `The payment's outcome was unknown when the sale was settled (${found.error}); the reconciliation keeps asking.`,
          );
        return this.wait(r, `The payment gateway cannot say what became of the payment: ${found.error}`);
      }
    }

    // 2. The delivery (the payment is reserved or collected).
    if (decided && r.delivery_state !== 'delivered' && r.delivery_state !== 'failed') {
      await this.step(r, {
        delivery_state: decided === 'delivered' ? 'delivered' : 'failed',
        unsure_since: null,
        failure_reason: decided === 'delivered' ? null : 'Not delivered (settled in review).',
      });
    }
    const operator = this.operatorOf(r);
    if (r.delivery_state === 'none') {
      if (!operator) {
        await this.step(r, { delivery_state: 'failed', failure_reason: `No operator adapter named "${r.adapter_key}".` });
      } else {
        await this.step(r, { delivery_state: 'sent', operator_adapter: operator.name, unsure_since: r.unsure_since ?? toDbTime() });
        const sent = await operator.send(
          {
            customIdentifier: r.reference,
            phone: r.phone,
            externalOperatorId: r.external_operator_id ?? null,
            productCode: r.operator_product_code ?? null,
            cost: Number(r.cost),
          },
          forWhom,
        );
        if (sent.status === 'not_sent') {
          await this.step(r, { delivery_state: 'none' });
          return this.wait(r, `The top-up could not be sent yet: ${sent.error}`);
        }
        if (sent.status !== 'unknown') await this.applyDelivery(r, sent);
      }
    }
    if (r.delivery_state === 'sent') {
      const found = await operator!.lookup(r.reference, forWhom);
      if (found.status === 'not_found') {
        // The aggregator never got it. Sending again under the same customIdentifier is safe (it
        // refuses a duplicate, so it can never deliver twice), a bounded number of times.
        const sends = await this.opts.db('remote_calls').where({ recharge_id: r.id, operation: 'POST /topups' }).count({ n: '*' }).first();
        if (Number((sends as { n: number | string }).n) < MAX_SENDS) {
          await this.step(r, { delivery_state: 'none' });
          return this.later(r, this.retryBaseMs);
        }
        return this.wait(r, `The aggregator has no record of the top-up after ${MAX_SENDS} sends whose answers were lost.`);
      }
      if (found.status === 'unknown') return this.wait(r, `The aggregator cannot say what became of the top-up: ${found.error}`);
      await this.applyDelivery(r, found);
    }
    if (r.delivery_state === 'processing') {
      // In processing the operator has answered with its delivery id.
      const polled = await operator!.poll(r.delivery_id!, forWhom);
      if (polled.status === 'unknown') return this.wait(r, `The aggregator cannot say what became of the top-up: ${polled.error}`);
      await this.applyDelivery(r, polled);
      // applyDelivery moved r on (step() assigns what it wrote).
      if ((r.delivery_state as DeliveryState) === 'processing') return this.wait(r, 'The operator is still processing the top-up.');
    }
    if (r.delivery_state === 'processing') return this.wait(r, 'The operator is still processing the top-up.');

    // 3. The payment follows the delivery, then the sale is settled.
    if (r.delivery_state === 'delivered') {
      if (flow === 'preauthorize' && (r.payment_state === 'reserved' || r.payment_state === 'committing')) {
        if (!(await this.settlePayment(r, 'commit', decided !== null))) return;
      }
      await completeRecharge(this.ctx, r.id, r.operator_reference ?? r.delivery_id ?? r.reference, {
        claimedAt: r.processing_started_at,
        note: r.payment_state === 'collected' || dealerPaid ? null : paymentNote(r.payment_state),
      });
      return;
    }
    if (r.payment_state === 'reserved' || r.payment_state === 'releasing' || (r.payment_state === 'collected' && flow === 'purchase')) {
      if (!(await this.settlePayment(r, 'release', decided !== null))) return;
    }
    return this.finish(r, false, r.failure_reason ?? 'The bundle could not be delivered.');
  }

  private async applyDelivery(r: Row, result: Exclude<DeliveryResult, { status: 'unknown' }>) {
    if (result.status === 'delivered')
      await this.step(r, { delivery_state: 'delivered', delivery_id: result.deliveryId, operator_reference: result.operatorReference, unsure_since: null });
    else if (result.status === 'processing') await this.step(r, { delivery_state: 'processing', delivery_id: result.deliveryId });
    else await this.step(r, { delivery_state: 'failed', delivery_id: result.deliveryId, failure_reason: result.reason.slice(0, 500), unsure_since: null });
  }

  /**
   * Commits the reserve (delivered) or lets it go / reverses the purchase (not delivered). The
   * intent is recorded first (committing / releasing), so a crash or a lost answer is followed by
   * a question, not a second request blindly. False: the outcome is not known yet (rescheduled or
   * in review); with `decided`, the sale is settled anyway and the reconciliation follows it up.
   */
  private async settlePayment(r: Row, action: 'commit' | 'release', decided: boolean): Promise<boolean> {
    const pay = this.opts.payment;
    const forWhom = { rechargeId: Number(r.id) };
    const flow: PaymentFlow = flowOf(r, pay.flow);
    const pendingState = action === 'commit' ? 'committing' : 'releasing';
    const target = action === 'commit' ? 'collected' : 'released';
    for (let round = 0; round < 2; round++) {
      if (r.payment_state === pendingState) {
        const found = await pay.lookup(r.reference, forWhom);
        if (found.status === 'found') {
          const s = found.state;
          if (action === 'commit' && s === 'committed') return this.stepTrue(r, { payment_state: 'collected', unsure_since: null });
          if (action === 'release' && (s === 'cancelled' || s === 'reversed' || s === 'declined'))
            return this.stepTrue(r, { payment_state: 'released', unsure_since: null });
          if (action === 'commit' && (s === 'cancelled' || s === 'reversed' || s === 'declined')) {
            // The reserve is gone (expired or cancelled at the gateway): the bundle was delivered uncollected.
            return this.stepTrue(r, { payment_state: 'released', unsure_since: null });
          }
          if (s === 'pending' || round === 1) break;
          // Still reserved (or charged, for a purchase): ask once more below.
        } else break;
      }
      await this.step(r, { payment_state: pendingState, unsure_since: r.unsure_since ?? toDbTime() });
      // A payment to commit or let go was made: the gateway's transaction id is recorded.
      const transactionId = r.payment_reference!;
      const done =
        action === 'commit'
          ? await pay.commit({ referenceId: r.reference, transactionId }, forWhom)
          : await pay.release({ referenceId: r.reference, transactionId, flow }, forWhom);
      if (done.status === 'done') return this.stepTrue(r, { payment_state: target, unsure_since: null });
      // Refused or unknown: the lookup above tells what the gateway has.
    }
    if (decided) return true;
    await this.wait(
      r,
      action === 'commit' ? 'The payment gateway did not confirm taking the reserved payment.' : 'The payment gateway did not confirm returning the payment.',
    );
    return false;
  }

  private async stepTrue(r: Row, fields: Fields): Promise<true> {
    await this.step(r, fields);
    return true;
  }

  /** The sale ends: completed (delivered) or failed, with whatever the dealer was debited returned. */
  private async finish(r: Row, delivered: boolean, reason: string) {
    if (delivered) {
      await completeRecharge(this.ctx, r.id, r.operator_reference ?? r.delivery_id ?? 'settled-in-review', {
        claimedAt: r.processing_started_at,
        note: r.payment_flow === 'wallet' ? null : paymentNote(r.payment_state),
      });
      return;
    }
    const won = await failRecharge(this.ctx, r.id, reason, {
      claimedAt: r.processing_started_at,
      paymentReturned: r.payment_state === 'released' && flowOf(r, this.opts.payment.flow) === 'purchase',
    });
    if (!won) throw new LeaseLost();
  }

  /* ---------------- reconciliation ---------------- */

  /**
   * Re-asks the remote sides about (a) sales in review nobody has settled yet: one that can now
   * be told goes back to the worker; (b) settled sales whose payment was left unsure (a decision
   * taken while the gateway could not answer): the reserve is committed or let go when it can be.
   */
  async reconcile(): Promise<void> {
    const db = this.opts.db;
    const inReview: Row[] = await db('recharges').where('status', 'needs_review').whereNull('review_outcome').orderBy('id').limit(50);
    for (const r of inReview) {
      try {
        if (await this.canTellNow(r)) {
          const now = toDbTime();
          const changed = await db('recharges')
            .where({ id: r.id, status: 'needs_review' })
            .whereNull('review_outcome')
            .update({ status: 'pending', unsure_since: now, next_attempt_at: null, updated_at: now });
          if (changed)
            await recordActivity(this.ctx, {
              action: 'recharge_resumed',
              subjectType: 'recharge',
              subjectId: r.id,
              after: { reason: 'The remote side can now tell the outcome.' },
            });
        }
      } catch (err) {
        this.opts.logger?.warn({ err, recharge: r.id }, 'reconciliation of a sale in review failed');
      }
    }
    const unsettled: Row[] = await db('recharges')
      .where((w) =>
        w
          .where((c) => c.where('status', 'completed').whereIn('payment_state', ['sent', 'reserved', 'committing']))
          .orWhere((f) => f.whereIn('status', ['failed', 'refunded']).whereIn('payment_state', ['sent', 'reserved', 'releasing', 'committing'])),
      )
      .orderBy('id')
      .limit(50);
    for (const r of unsettled) {
      try {
        await this.followUpPayment(r);
      } catch (err) {
        this.opts.logger?.warn({ err, recharge: r.id }, 'payment follow-up failed');
      }
    }
  }

  private async canTellNow(r: Row): Promise<boolean> {
    const forWhom = { rechargeId: Number(r.id) };
    if (['sent', 'committing', 'releasing'].includes(r.payment_state)) {
      const found = await this.opts.payment.lookup(r.reference, forWhom);
      return found.status === 'found' && found.state !== 'pending';
    }
    const operator = this.operatorOf(r);
    if (r.delivery_state === 'sent' && operator) {
      const found = await operator.lookup(r.reference, forWhom);
      return found.status !== 'not_found' && found.status !== 'unknown';
    }
    if (r.delivery_state === 'processing' && operator) {
      const polled = await operator.poll(r.delivery_id!, forWhom);
      return polled.status === 'delivered' || polled.status === 'failed';
    }
    return false;
  }

  /** One settled sale's payment brought in line with the sale: commit for completed, release for failed. */
  private async followUpPayment(r: Row) {
    const pay = this.opts.payment;
    const forWhom = { rechargeId: Number(r.id) };
    const flow: PaymentFlow = flowOf(r, pay.flow);
    const wantCollected = r.status === 'completed';
    const found = await pay.lookup(r.reference, forWhom);
    if (found.status === 'unknown') return;
    const set = async (state: string, note: string) => {
      const now = toDbTime();
      await transact(this.ctx, async (tctx) => {
        const changed = await tctx
          .db('recharges')
          .where({ id: r.id, payment_state: r.payment_state })
          .update({
            payment_state: state,
            payment_reference: found.status === 'found' ? (found.transactionId ?? r.payment_reference) : r.payment_reference,
            updated_at: now,
          });
        if (!changed) return;
        await recordActivity(tctx, { action: 'recharge_payment_reconciled', subjectType: 'recharge', subjectId: r.id, after: { payment_state: state, note } });
        // Taken after the sale completed: the "Profit Only" dealer's profit is due now.
        if (state === 'collected') await creditProfitIfDue(tctx, await tctx.db('recharges').where({ id: r.id }).first());
      });
    };
    if (found.status === 'not_found') return set('absent', 'The gateway never had this payment.');
    const s = found.state;
    if (s === 'pending') return;
    if (s === 'committed')
      return set('collected', wantCollected ? 'Payment taken.' : 'Payment taken although the sale failed: reverse it by hand at the gateway.');
    if (s === 'declined' || s === 'cancelled' || s === 'reversed') return set(s === 'declined' ? 'declined' : 'released', 'Nothing taken.');
    // Approved: a reserve (or a purchase) still stands.
    const transactionId = found.transactionId ?? r.payment_reference;
    if (!transactionId) return;
    if (wantCollected) {
      if (flow === 'purchase') return set('collected', 'Payment taken.');
      if ((await pay.commit({ referenceId: r.reference, transactionId }, forWhom)).status === 'done')
        return set('collected', 'Reserved payment taken after the sale was settled.');
    } else if ((await pay.release({ referenceId: r.reference, transactionId, flow }, forWhom)).status === 'done') {
      return set('released', flow === 'purchase' ? 'Payment reversed after the sale was settled.' : 'Reserve cancelled after the sale was settled.');
    }
  }
}

/** The gateway flow of a sale's payment (a wallet sale has none: the gateway's own is a harmless stand-in). */
function flowOf(r: Pick<RechargeRow, 'payment_flow'>, fallback: PaymentFlow): PaymentFlow {
  return r.payment_flow === 'wallet' ? fallback : (r.payment_flow ?? fallback);
}

/** What the sale's record says about a payment that was not simply collected. */
function paymentNote(state: string): string | null {
  if (state === 'collected') return null;
  if (state === 'released') return 'Delivered, but the reserved payment could not be taken (it was cancelled or expired at the gateway).';
  if (state === 'none' || state === 'absent' || state === 'declined') return 'Delivered without a payment.';
  return "Delivered; the payment's outcome is still being confirmed with the gateway.";
}
