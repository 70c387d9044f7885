import type { Knex } from 'knex';
import type pino from 'pino';
import { toDbTime } from '../../database/time.ts';
import { unitOfWork } from '../../database/unit-of-work.ts';
import { transact, type ServiceContext } from '../../platform/context.ts';
import { unknownGatewayReason, type PaymentGateways } from '../../connectors/payments/payment-gateways.ts';
import type { OperatorAdapter } from '../../connectors/deliveries/operator-adapter.ts';
import { creditProfitIfDue } from '../recharge.service.ts';
import type { RechargeRow } from '../recharge-rows.ts';
import { raiseSaleEvent } from '../sale-events.ts';
import { paymentAwaitsCheck, refusalNote, refusedBefore } from './sale-checks.ts';
import { flowOf, MAX_CRASHES, type Sale } from './sale-steps.ts';
import type { VendorGate } from './vendor-gate.ts';
import type { FulfilmentObserver } from './fulfilment-observer.ts';

/**
 * The reconciliation (docs/architecture.md, "Reconciliation"): asks the vendors about sales whose
 * outcome is still theirs to tell, outside the worker's claim:
 *
 * - a sale in review that nobody has settled: once a vendor can tell, it goes back to the worker;
 * - a settled sale whose payment is still open (a decision taken, or a refund made by hand, while
 *   the gateway could not answer): the reserve is committed (delivered) or let go (not delivered).
 *
 * Each such sale has its own `next_check_at`. A round takes the due ones, oldest due time first,
 * under a short lease (`check_leased_until`; on MySQL with SKIP LOCKED), so no two processes ask
 * about one sale at once; a sale not settled by the answer is asked again after a wait that doubles
 * with each try up to `maxMs`. A sale just asked goes to the back of the line, so however many older
 * sales stay unsure, a newer one is asked within one capped interval. A vendor that is down is
 * asked within its budget only (vendor-gate.ts); a sale it refused is asked again on its own schedule.
 */
export interface ReconciliationOptions {
  db: Knex;
  client: 'sqlite' | 'mysql';
  ctx: ServiceContext;
  /** The gateways by name: each sale is asked about through the one it recorded. */
  gateways: PaymentGateways;
  operators: Record<string, OperatorAdapter>;
  gate: VendorGate;
  logger?: pino.Logger;
  /** Sales asked about in one round. */
  batch?: number;
  /** First wait before a sale is asked again; doubles with each try. */
  baseMs?: number;
  /** The longest wait between two questions about one sale. */
  maxMs?: number;
  /** How long one process holds a sale it is asking about. */
  leaseMs?: number;
  /** Told of every status lookup (metrics). */
  observer?: FulfilmentObserver;
}

/** Who a call is for: a test sale's go to the sandbox and never tell the live vendors' health (remote-call.ts). */
const forWhomOf = (r: Sale) => ({ rechargeId: Number(r.id), ...(r.mode === 'test' ? { sandbox: true } : {}) });

/** What a check found: the sale no longer waits on a vendor, or it does (with what the vendor said). */
type Checked = { settled: true } | { settled: false; note: string };

export class Reconciliation {
  private readonly batch: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly leaseMs: number;

  constructor(private readonly opts: ReconciliationOptions) {
    this.batch = opts.batch ?? 100;
    this.baseMs = opts.baseMs ?? 5_000;
    this.maxMs = opts.maxMs ?? 180_000;
    this.leaseMs = opts.leaseMs ?? 60_000;
  }

  /** One round: every due sale (up to the batch) asked about, side by side. Returns how many were asked. */
  async round(): Promise<number> {
    const due = await this.take();
    await Promise.all(due.map((r) => this.checkOne(r)));
    return due.length;
  }

  /** The due sales, oldest due time first, leased to this process in one transaction. */
  private take(): Promise<(Sale & { check_leased_until: string })[]> {
    return unitOfWork(async (trx) => {
      const now = toDbTime();
      const qb = trx('recharges')
        .whereNotNull('next_check_at')
        .where('next_check_at', '<=', now)
        .where((w) => w.whereNull('check_leased_until').orWhere('check_leased_until', '<', now))
        .orderBy('next_check_at')
        .orderBy('id')
        .limit(this.batch)
        .select('id');
      if (this.opts.client === 'mysql') qb.forUpdate().skipLocked();
      const ids = (await qb).map((r: { id: number }) => r.id);
      if (!ids.length) return [];
      const lease = toDbTime(new Date(Date.now() + this.leaseMs));
      await trx('recharges').whereIn('id', ids).update({ check_leased_until: lease });
      return trx('recharges').whereIn('id', ids).where('check_leased_until', lease).select('*');
    }, this.opts.db);
  }

  private async checkOne(r: Sale & { check_leased_until: string }): Promise<void> {
    let checked: Checked;
    try {
      checked = await this.check(r);
    } catch (err) {
      this.opts.logger?.warn({ err, recharge: r.id }, 'reconciliation of a sale failed');
      checked = { settled: false, note: err instanceof Error ? err.message : String(err) };
    }
    // Only while this process still holds the lease: a change made meanwhile (the worker settled
    // it, a person decided) set its own next check, which this must not overwrite.
    const mine = { id: r.id, check_leased_until: r.check_leased_until };
    try {
      if (checked.settled) {
        await this.opts.db('recharges').where(mine).update({ next_check_at: null, check_leased_until: null, checks: 0 });
      } else {
        const checks = Number(r.checks) + 1;
        const wait = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(checks - 1, 20));
        await this.opts
          .db('recharges')
          .where(mine)
          .update({ next_check_at: toDbTime(new Date(Date.now() + wait)), check_leased_until: null, checks, last_check_note: checked.note.slice(0, 500) });
      }
    } catch (err) {
      // The lease runs out and the sale is taken again.
      this.opts.logger?.warn({ err, recharge: r.id }, 'reconciliation could not record its check');
    }
  }

  private async check(r: Sale): Promise<Checked> {
    if (r.status === 'needs_review' && !r.review_outcome) {
      // A sale whose processing kept failing waits for a person: no vendor's answer changes that.
      if (Number(r.crashes) >= MAX_CRASHES) return { settled: true };
      return this.reviewCheck(r);
    }
    if (paymentAwaitsCheck(r)) return this.followUpPayment(r);
    // Settled by a person, or resumed, since it was due: nothing of ours to ask.
    return { settled: true };
  }

  /** Null when the vendor may be asked now (a test sale's sandbox always), else why not. */
  private async askable(r: Sale, system: string): Promise<string | null> {
    if (r.mode === 'test') return null;
    return (await this.opts.gate.mayLookUp(system)) ? null : `${system} is not answering; asked again when it does.`;
  }

  /** A sale in review goes back to the worker as soon as a vendor can tell its outcome. */
  private async reviewCheck(r: Sale): Promise<Checked> {
    const told = await this.canTellNow(r);
    // A refusal recorded by the worker stays the sale's note (the decision after it must not resend the call).
    if (told !== true) return { settled: false, note: refusedBefore(r.last_check_note) ? r.last_check_note! : told };
    const now = toDbTime();
    await unitOfWork(async (trx) => {
      const changed = await trx('recharges')
        .where({ id: r.id, status: 'needs_review' })
        .whereNull('review_outcome')
        .update({ status: 'pending', unsure_since: now, next_attempt_at: null, next_check_at: null, check_leased_until: null, checks: 0, updated_at: now });
      if (changed)
        await raiseSaleEvent(
          { ...this.opts.ctx, db: trx },
          { type: 'sale.resumed', rechargeId: r.id, after: { reason: 'The remote side can now tell the outcome.' } },
        );
    }, this.opts.db);
    return { settled: true };
  }

  /** True when a vendor can now tell; else what it said. */
  private async canTellNow(r: Sale): Promise<true | string> {
    const forWhom = forWhomOf(r);
    if (['sent', 'committing', 'releasing'].includes(r.payment_state)) {
      const pay = this.opts.gateways.of(r);
      if (!pay) return unknownGatewayReason(r.payment_adapter);
      const down = await this.askable(r, pay.system);
      if (down) return down;
      const found = await pay.lookup(r.reference, forWhom, { transactionId: r.payment_reference });
      this.opts.observer?.lookedUp(pay.system, found.status);
      if (found.status === 'found') {
        // Only an answer that settles the step it is on: a commit or a cancel the gateway refused
        // leaves the payment approved, and resuming it would only send the refused call again.
        const settles =
          r.payment_state === 'sent'
            ? found.state !== 'pending'
            : ['cancelled', 'reversed', 'refunded', 'declined'].includes(found.state) || (r.payment_state === 'committing' && found.state === 'committed');
        return settles ? true : `The gateway says the payment is ${found.state}.`;
      }
      // A charge the gateway never had, long after it was sent: the worker fails it as never made
      // (once PAYMENT_TIMEOUT_MS has passed since it resumes). A commit or release it has no record
      // of contradicts what it said before: that stays with a person.
      if (found.status === 'not_found') return r.payment_state === 'sent' ? true : 'The gateway has no record of a payment it approved before.';
      return found.error;
    }
    const operator = this.opts.operators[r.mode === 'test' ? 'sandbox' : (r.operator_adapter ?? r.adapter_key ?? 'sandbox')];
    if (!operator) return 'No operator adapter for this sale.';
    if (r.delivery_state === 'sent' || r.delivery_state === 'processing') {
      const down = await this.askable(r, operator.system);
      if (down) return down;
      if (r.delivery_state === 'sent') {
        const found = await operator.lookup(r.reference, forWhom);
        this.opts.observer?.lookedUp(operator.system, found.status);
        if (found.status === 'not_found') return 'The aggregator has no record of the top-up.';
        return found.status === 'unknown' ? found.error : true;
      }
      const polled = await operator.poll(r.delivery_id!, forWhom);
      this.opts.observer?.lookedUp(operator.system, polled.status);
      if (polled.status === 'delivered' || polled.status === 'failed') return true;
      return polled.status === 'unknown' ? polled.error : 'The operator is still processing the top-up.';
    }
    return 'Nothing a vendor can tell: the sale waits for a person.';
  }

  /** One settled sale's payment brought in line with the sale: commit for completed, release for failed. */
  private async followUpPayment(r: Sale): Promise<Checked> {
    const pay = this.opts.gateways.of(r);
    if (!pay) return { settled: false, note: unknownGatewayReason(r.payment_adapter) };
    const forWhom = forWhomOf(r);
    const flow = flowOf(r, pay.flow);
    const wantCollected = r.status === 'completed';
    // A refusal recorded earlier stays the note whatever else a check meets (a vendor down, no answer).
    const keep = (note: string) => (refusedBefore(r.last_check_note) ? r.last_check_note! : note);
    const down = await this.askable(r, pay.system);
    if (down) return { settled: false, note: keep(down) };
    const found = await pay.lookup(r.reference, forWhom, { transactionId: r.payment_reference });
    this.opts.observer?.lookedUp(pay.system, found.status);
    if (found.status === 'unknown') return { settled: false, note: keep(found.error) };
    const set = async (state: string, note: string): Promise<Checked> => {
      const now = toDbTime();
      await transact(this.opts.ctx, async (tctx) => {
        const changed = await tctx
          .db('recharges')
          .where({ id: r.id, payment_state: r.payment_state })
          .update({
            payment_state: state,
            payment_reference: found.status === 'found' ? (found.transactionId ?? r.payment_reference) : r.payment_reference,
            updated_at: now,
          });
        if (!changed) return;
        // A failed sale whose payment was taken is refunded once the gateway confirms it gave the money back.
        const moneyBack = state === 'refunded' || (state === 'released' && flow === 'purchase');
        const refunded =
          moneyBack && r.status === 'failed'
            ? await tctx.db('recharges').where({ id: r.id, status: 'failed' }).update({ status: 'refunded', refunded_at: now, updated_at: now })
            : 0;
        if (refunded) await raiseSaleEvent(tctx, { type: 'sale.money_returned', rechargeId: r.id, after: { payment_state: state, note } });
        else await raiseSaleEvent(tctx, { type: 'sale.payment_reconciled', rechargeId: r.id, after: { payment_state: state, note } });
        // Taken after the sale completed: the "Profit Only" dealer's profit is due now.
        if (state === 'collected') await creditProfitIfDue(tctx, (await tctx.db('recharges').where({ id: r.id }).first()) as RechargeRow);
      });
      return paymentAwaitsCheck({ status: r.status, payment_state: state }) ? { settled: false, note } : { settled: true };
    };
    if (found.status === 'not_found') {
      // Never confirmed: it never reached the gateway. Approved before: a contradiction, asked again (and shown).
      if (r.payment_state === 'sent') return set('absent', 'The gateway never had this payment.');
      return { settled: false, note: keep('The gateway has no record of a payment it approved before: check it at the gateway.') };
    }
    const s = found.state;
    if (s === 'pending') return { settled: false, note: keep('The payer has not approved yet.') };
    if (s === 'committed') {
      if (wantCollected) return set('collected', 'Payment taken.');
      // Taken although nothing was delivered: the gateway's refund gives it back. The intent is
      // recorded first (`releasing`: no button offers a second refund meanwhile), and this check's
      // lease keeps every other process and a person's refund from sending one too.
      // A gateway without refunds: a person pays it back by hand (the console asks them to).
      if (!pay.capabilities.refundAfterCapture) return set('refund_due', 'Payment taken although the bundle was not delivered: to be paid back by hand.');
      const transactionId = found.transactionId ?? r.payment_reference;
      if (!transactionId) return { settled: false, note: 'The gateway gave no transaction id to refund the payment with.' };
      if (r.payment_state !== 'releasing') {
        await set('releasing', 'Payment taken although the bundle was not delivered: refunding it.');
        r.payment_state = 'releasing';
      }
      // (A release refused before is no reason to hold back: the money is taken now, and a refund is another call.)
      const done = await pay.release({ referenceId: r.reference, transactionId, flow, captured: true, amount: Number(r.amount) }, forWhom);
      if (done.status === 'done') return set('refunded', 'Payment refunded: the bundle was not delivered.');
      // Taken, and the gateway will not give it back: a person pays it back by hand.
      if (done.status === 'refused') return set('refund_due', refusalNote('refund', `${done.code} ${done.message}`, 'to be paid back by hand'));
      return { settled: false, note: done.error };
    }
    if (s === 'refunded') return set('refunded', 'Payment refunded.');
    if (s === 'declined' || s === 'cancelled' || s === 'reversed') return set(s === 'declined' ? 'declined' : 'released', 'Nothing taken.');
    // Approved: a reserve (or a purchase) still stands.
    const transactionId = found.transactionId ?? r.payment_reference;
    if (!transactionId) return { settled: false, note: 'The gateway gave no transaction id to settle the payment with.' };
    if (wantCollected) {
      if (flow === 'purchase') return set('collected', 'Payment taken.');
      if (refusedBefore(r.last_check_note, 'commit')) return { settled: false, note: r.last_check_note! };
      const done = await pay.commit({ referenceId: r.reference, transactionId }, forWhom);
      if (done.status === 'done') return set('collected', 'Reserved payment taken after the sale was settled.');
      return {
        settled: false,
        note: done.status === 'refused' ? refusalNote('commit', `${done.code} ${done.message}`, 'asked until it lapses') : keep(done.error),
      };
    }
    if (flow === 'purchase' && !pay.capabilities.refundAfterCapture)
      return set('refund_due', 'Payment taken although the bundle was not delivered: to be paid back by hand.');
    // Refused before (by the worker, before a person decided, or by an earlier check): not sent again.
    // A purchase it will not reverse is money taken: a person pays it back by hand.
    if (flow === 'purchase' && refusedBefore(r.last_check_note, 'reversal')) return set('refund_due', r.last_check_note!);
    if (flow !== 'purchase' && refusedBefore(r.last_check_note, 'release')) return { settled: false, note: r.last_check_note! };
    const done = await pay.release({ referenceId: r.reference, transactionId, flow }, forWhom);
    if (done.status === 'done')
      return set('released', flow === 'purchase' ? 'Payment reversed after the sale was settled.' : 'Reserve cancelled after the sale was settled.');
    if (done.status === 'refused')
      return flow === 'purchase'
        ? set('refund_due', refusalNote('reversal', `${done.code} ${done.message}`, 'to be paid back by hand'))
        : { settled: false, note: refusalNote('release', `${done.code} ${done.message}`, 'asked until it lapses') };
    return { settled: false, note: keep(done.error) };
  }
}
