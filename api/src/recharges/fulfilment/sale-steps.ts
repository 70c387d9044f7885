import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { fromDbTime, toDbTime } from '../../database/time.ts';
import { unitOfWork } from '../../database/unit-of-work.ts';
import type { ServiceContext } from '../../platform/context.ts';
import type { ReviewCode } from '@app/contracts';
import type { PaymentAdapter, PaymentFlow, PaymentMoney } from '../../connectors/payments/payment-adapter.ts';
import { unknownGatewayReason, type PaymentGateways } from '../../connectors/payments/payment-gateways.ts';
import type { DeliveryMoney, DeliveryResult, OperatorAdapter } from '../../connectors/deliveries/operator-adapter.ts';
import type { RouteChooser, RoutedSale } from '../../routing/route-choice.ts';
import { completeRecharge, failRecharge, SANDBOX } from '../recharge.service.ts';
import type { RechargeRow } from '../recharge-rows.ts';
import { raiseSaleEvent } from '../sale-events.ts';
import { enqueueRechargeEvent, hasWebhook } from '../../webhooks/webhook-events.ts';
import { noticeFloatSale } from '../../aggregators/float.service.ts';

import { refusalNote, refusedBefore, type RefusedCall } from './sale-checks.ts';
import type { StepWrites } from './step-writes.ts';
import type { VendorGate } from './vendor-gate.ts';
import type { FulfilmentObserver } from './fulfilment-observer.ts';

/** A test key's sale: charged and delivered through the sandbox only (docs/api-conventions.md, "Test mode"). */
const isTestSale = (r: Pick<RechargeRow, 'mode'>) => r.mode === 'test';

/**
 * One sale's fulfilment as a state machine (docs/architecture.md, "Fulfilment"). The sale's row
 * says where it stands (payment_state x delivery_state, and a person's decision in review);
 * `stageOf` reads the stage from it, and each stage has one small step that records its intent,
 * makes at most one remote call, and records the answer, each record written before the next
 * call, so that after a crash the sale is asked about only what was really sent:
 *
 *   stage             when                                      remote call                 moves to
 *   pay               payment none                              charge (PIN prompt)         confirm_payment | deliver | settle
 *   confirm_payment   payment sent (answer unknown)             lookup by our reference     deliver | settle | (wait)
 *   record_decision   a person decided, delivery not final      none                        commit | release | settle
 *   deliver           paid (or the dealer's wallet paid)        send the top-up             confirm_delivery | poll_delivery | commit | release
 *   confirm_delivery  top-up sent (answer unknown)              lookup by our reference     deliver (resend) | poll_delivery | commit | release
 *   poll_delivery     the aggregator is processing              status of its transaction   commit | release | (wait)
 *   commit            delivered, reserve held                   commit the reserve          settle
 *   release           not delivered, payment held               cancel / reverse            settle
 *   settle            nothing left to ask                       none                        completed | failed | refunded
 *
 * A step ends in one of four ways: `continue` (the row moved on: the next stage runs now),
 * `retry` (ask again in a while: kept in memory when the claim has time left, else handed back
 * to pending with a time), `unsure` (the remote side cannot tell: ask again with backoff, and
 * after the review window hand it to a person), or `done`.
 */

/** Claims that end in an unexpected error or an expired lease before the sale goes to review. */
export const MAX_CRASHES = 5;
/** Sends of one top-up that the aggregator never received before the sale waits for review. */
export const MAX_SENDS = 3;

export class LeaseLost extends Error {}

/** A sale in fulfilment: its row, with what its provider and bundle tell the operator (joined at the claim). */
export type Sale = RechargeRow & {
  reference: string;
  payer_phone: string;
  adapter_key?: string | null;
  external_operator_id?: string | null;
  operator_product_code?: string | null;
};
type Fields = Partial<RechargeRow>;
type Claim = Pick<RechargeRow, 'id' | 'status' | 'processing_started_at'>;

export type Stage = 'pay' | 'confirm_payment' | 'record_decision' | 'deliver' | 'confirm_delivery' | 'poll_delivery' | 'commit' | 'release' | 'settle';

type Next = { then: 'continue' } | { then: 'retry'; inMs: number } | { then: 'unsure'; reason: string; code: ReviewCode } | { then: 'done' };
const CONTINUE: Next = { then: 'continue' };
const DONE: Next = { then: 'done' };

export interface StepTiming {
  /** How long the payer may take to approve: a payment the gateway has never heard of after this is absent. */
  paymentTimeoutMs: number;
  leaseMs: number;
  retryBaseMs: number;
  maxRetryMs: number;
  reviewAfterMs: number;
}

export interface StepDeps {
  db: Knex;
  ctx: ServiceContext;
  /** The gateways by name: a sale is charged through the primary and asked about through the one it recorded. */
  gateways: PaymentGateways;
  operators: Record<string, OperatorAdapter>;
  /** Which aggregator a top-up goes through, and each route's health (routing/). */
  routes: RouteChooser;
  writes: StepWrites;
  gate: VendorGate;
  timing: StepTiming;
  /** Aborted when the worker stops: a sale waiting in memory goes back to pending at once. */
  stopping: () => AbortSignal;
  /** Told of prompts, deliveries and status lookups (metrics). */
  observer?: FulfilmentObserver;
}

/** This worker's hold on a sale: it is still processing under the lease it was claimed with. */
export const claimOf = (r: Pick<RechargeRow, 'id' | 'processing_started_at'>): Claim => ({
  id: r.id,
  status: 'processing',
  processing_started_at: r.processing_started_at,
});

export const elapsedSince = (dbTime: string | null | undefined) => (dbTime ? Date.now() - new Date(fromDbTime(dbTime)!).getTime() : 0);

/** The gateway flow of a sale's payment (a wallet sale has none: the gateway's own is a harmless stand-in). */
export function flowOf(r: Pick<RechargeRow, 'payment_flow'>, fallback: PaymentFlow): PaymentFlow {
  return r.payment_flow === 'wallet' ? fallback : (r.payment_flow ?? fallback);
}

/** Where a sale stands, read from its row (the table above). */
export function stageOf(r: Sale, defaultFlow: PaymentFlow): Stage {
  const ps = r.payment_state;
  const ds = r.delivery_state;
  if (r.payment_flow !== 'wallet') {
    if (ps === 'none') return 'pay';
    if (ps === 'sent') return 'confirm_payment';
    // Nothing was taken before any delivery: nothing to deliver for.
    if (ps === 'declined' || ps === 'absent' || (ps === 'released' && ds === 'none')) return 'settle';
  }
  if (r.review_outcome && ds !== 'delivered' && ds !== 'failed') return 'record_decision';
  if (ds === 'none') return 'deliver';
  if (ds === 'sent') return 'confirm_delivery';
  if (ds === 'processing') return 'poll_delivery';
  const flow = flowOf(r, defaultFlow);
  if (ds === 'delivered') return flow === 'preauthorize' && (ps === 'reserved' || ps === 'committing') ? 'commit' : 'settle';
  // Not delivered: whatever the payer gave goes back (a reserve let go, a purchase reversed, a committed reserve refunded).
  if (ps === 'reserved' || ps === 'releasing' || ps === 'collected') return 'release';
  return 'settle';
}

/** What the sale's record says about a payment that was not simply collected. */
function paymentNote(state: string): string | null {
  if (state === 'collected') return null;
  if (state === 'released') return 'Delivered, but the reserved payment could not be taken (it was cancelled or expired at the gateway).';
  if (state === 'none' || state === 'absent' || state === 'declined') return 'Delivered without a payment.';
  return "Delivered; the payment's outcome is still being confirmed with the gateway.";
}

const cents = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const code = (v: unknown) => (typeof v === 'string' && /^[A-Z]{3}$/.test(v) ? v : undefined);
/** Only what the vendor stated, in the columns' shapes: a field it left out (or an odd one) keeps what the row has. */
const stated = (fields: Fields): Fields => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Fields;

/** What the gateway said it took and charged, as the sale's columns (recorded with the approval). */
export function paymentFacts(m: PaymentMoney): Fields {
  return stated({ gateway_amount: cents(m.amount), gateway_charges: cents(m.charges), gateway_currency: code(m.currency) });
}

/** What the aggregator said the top-up cost and delivered, as the sale's columns (recorded with the delivery). */
export function deliveryFacts(m: DeliveryMoney): Fields {
  return stated({
    aggregator_cost: cents(m.cost),
    aggregator_currency: code(m.costCurrency),
    aggregator_discount: cents(m.discount),
    aggregator_fee: cents(m.fee),
    fx_rate: typeof m.fxRate === 'string' && /^\d+(\.\d+)?$/.test(m.fxRate) && m.fxRate.length <= 32 ? m.fxRate : undefined,
    delivered_amount: cents(m.deliveredAmount),
    delivered_currency: code(m.deliveredCurrency),
  });
}

/** Hands a sale to a person (needs_review) while `where` still holds; the reconciliation then keeps asking. */
export async function toReview(deps: Pick<StepDeps, 'db' | 'ctx'>, where: Claim, crashes: number, reason: string, code: ReviewCode): Promise<boolean> {
  return unitOfWork(async (trx) => {
    const now = toDbTime();
    const changed = await trx('recharges')
      .where(where)
      .update({
        status: 'needs_review',
        crashes,
        review_reason: reason.slice(0, 500),
        review_code: code,
        needs_review_at: now,
        next_attempt_at: null,
        next_check_at: now,
        checks: 0,
        check_leased_until: null,
        updated_at: now,
      });
    if (changed) await raiseSaleEvent({ ...deps.ctx, db: trx }, { type: 'sale.needs_review', rechargeId: where.id, after: { reason } });
    return changed > 0;
  }, deps.db);
}

export class SaleSteps {
  private readonly steps: Record<Stage, (r: Sale) => Promise<Next>> = {
    pay: (r) => this.pay(r),
    confirm_payment: (r) => this.confirmPayment(r),
    record_decision: (r) => this.recordDecision(r),
    deliver: (r) => this.deliver(r),
    confirm_delivery: (r) => this.confirmDelivery(r),
    poll_delivery: (r) => this.pollDelivery(r),
    commit: (r) => this.settlePayment(r, 'commit'),
    release: (r) => this.settlePayment(r, 'release'),
    settle: (r) => this.settleFromState(r),
  };

  /** Sale and route pairs whose failure was counted (routeFailed). */
  private readonly countedFailures = new Set<string>();

  constructor(private readonly deps: StepDeps) {}

  /** Runs the sale until it is settled, handed to a person, or handed back to wait. */
  async run(r: Sale): Promise<void> {
    // A sale whose payment went through a gateway this process does not know is never asked about
    // (let alone charged again) anywhere else: it waits for a person.
    if (!this.deps.gateways.of(r)) {
      await toReview(this.deps, claimOf(r), Number(r.crashes), unknownGatewayReason(r.payment_adapter), 'unknown_gateway');
      return;
    }
    for (let moves = 0; ; moves++) {
      // Every step moves the row on or waits: this many moves without a wait is a defect, not a sale.
      if (moves > 40) throw new Error(`The sale made no progress (stage ${stageOf(r, this.gatewayOf(r).flow)}).`);
      // A claim held for a third of its lease is renewed before the next call (a chain of slow calls
      // must never outlive it, or another worker would take the sale over while this one still asks).
      if (elapsedSince(r.processing_started_at) > this.deps.timing.leaseMs / 3) await this.step(r, { processing_started_at: toDbTime() });
      let next = await this.steps[stageOf(r, this.gatewayOf(r).flow)](r);
      if (next.then === 'unsure') next = await this.unsure(r, next.reason, next.code);
      if (next.then === 'done') return;
      if (next.then === 'retry') {
        // Kept in memory (a timer, no database write, no claim) while the lease has room; else back to pending.
        const room = this.deps.timing.leaseMs / 2 - elapsedSince(r.processing_started_at);
        if (next.inMs > room || this.deps.stopping().aborted || !(await this.pause(next.inMs))) return this.later(r, next.inMs);
        moves = 0;
      }
    }
  }

  /** Waits `ms`, unless the worker stops meanwhile (false). */
  private async pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.deps.stopping() });
      return true;
    } catch {
      return false;
    }
  }

  /** Records a step of this claim (or stops: another worker took the sale over). */
  async step(r: Sale, fields: Fields): Promise<void> {
    const changed = await this.deps.writes.update(claimOf(r), fields);
    if (!changed) throw new LeaseLost();
    Object.assign(r, fields);
  }

  /**
   * The customer's payment approved. A dealer with a webhook hears of it (recharge.payment_approved)
   * in the step's own transaction; the others' steps stay in the grouped write.
   */
  private async approved(r: Sale, fields: Fields): Promise<void> {
    if (!(await hasWebhook(this.deps.db, Number(r.dealer_id)))) return this.step(r, fields);
    const changed = await unitOfWork(async (trx) => {
      const n = await trx('recharges')
        .where(claimOf(r))
        .update({ ...fields, updated_at: toDbTime() });
      if (n) await enqueueRechargeEvent(trx, Number(r.id), 'recharge.payment_approved');
      return n;
    }, this.deps.db);
    if (!changed) throw new LeaseLost();
    Object.assign(r, fields);
  }

  /** Asks again later: back to pending with a time to wait. */
  async later(r: Sale, delayMs: number): Promise<void> {
    await this.step(r, { status: 'pending', next_attempt_at: toDbTime(new Date(Date.now() + delayMs)) });
  }

  /** An unknown outcome: ask again after a wait that grows with the time waited, or hand it to a person. */
  private async unsure(r: Sale, reason: string, code: ReviewCode): Promise<Next> {
    const t = this.deps.timing;
    if (!r.unsure_since) await this.step(r, { unsure_since: toDbTime() });
    const waited = elapsedSince(r.unsure_since);
    if (waited >= t.reviewAfterMs) {
      await toReview(this.deps, claimOf(r), Number(r.crashes), reason, code);
      return DONE;
    }
    return { then: 'retry', inMs: Math.min(t.maxRetryMs, Math.max(t.retryBaseMs, Math.floor(waited / 4))) };
  }

  /** The sale's gateway (run() made sure this process knows it). */
  private gatewayOf(r: Sale): PaymentAdapter {
    return this.deps.gateways.of(r)!;
  }

  /** The aggregator the sale's top-up went to (a test sale's: the sandbox, whatever its row names). */
  private operatorOf(r: Sale): OperatorAdapter | undefined {
    return this.deps.operators[isTestSale(r) ? SANDBOX : (r.operator_adapter ?? r.adapter_key ?? SANDBOX)];
  }

  /** Who a remote call is for; a test sale's calls go to the sandbox and never tell the live vendors' health. */
  private forWhom(r: Sale) {
    return { rechargeId: Number(r.id), ...(isTestSale(r) ? { sandbox: true } : {}) };
  }

  /** Whether a lookup may go now: a live vendor that is down is asked within its budget; the sandbox always. */
  private async mayAsk(r: Sale, system: string): Promise<boolean> {
    return isTestSale(r) || this.deps.gate.mayLookUp(system);
  }

  /* ---------------- the steps ---------------- */

  private async pay(r: Sale): Promise<Next> {
    const pay = this.gatewayOf(r);
    if (r.review_outcome) return this.settle(r, r.review_outcome === 'delivered', 'Settled in review before any payment was asked for.');
    // A shop with a real gateway configured takes no play money: a method left on the stand-in is
    // refused before any prompt. A test sale is the sandbox's by design (it is never live money).
    if (pay.name === SANDBOX && this.deps.gateways.primary.name !== SANDBOX && !isTestSale(r))
      return this.settle(r, false, 'This payment method is set to the sandbox gateway, which takes no payments while a real gateway is configured.');
    const flow = flowOf(r, pay.flow);
    await this.step(r, { payment_state: 'sent', payment_flow: flow, payment_adapter: pay.name, unsure_since: toDbTime() });
    if (!isTestSale(r)) this.deps.observer?.prompted(r.created_at);
    const charged = await pay.charge(
      {
        referenceId: r.reference,
        payerPhone: r.payer_phone,
        amount: Number(r.amount),
        currency: r.currency,
        description: `${r.provider_name} ${r.bundle_name}`,
      },
      this.forWhom(r),
    );
    if (charged.status === 'approved') {
      await this.approved(r, {
        payment_state: flow === 'preauthorize' ? 'reserved' : 'collected',
        payment_reference: charged.transactionId,
        unsure_since: null,
        ...paymentFacts(charged),
      });
    } else if (charged.status === 'declined') {
      await this.step(r, { payment_state: 'declined', unsure_since: null });
      return this.settle(r, false, `Payment declined (${charged.code}): ${charged.message}`);
    } else if (charged.transactionId) {
      // The gateway's own id for a payment it has not decided (eDahab's invoice): its lookups need it.
      await this.step(r, { payment_reference: charged.transactionId });
    }
    // Unknown: the gateway may have it. Ask (confirm_payment), never charge again.
    return CONTINUE;
  }

  private async confirmPayment(r: Sale): Promise<Next> {
    const pay = this.gatewayOf(r);
    const decided = r.review_outcome;
    if (!(await this.mayAsk(r, pay.system))) {
      if (decided)
        return this.settle(r, decided === 'delivered', "The payment's outcome was unknown when the sale was settled; the reconciliation keeps asking.");
      return { then: 'unsure', reason: 'The payment gateway is not answering; it is asked again when it does.', code: 'payment_gateway_silent' };
    }
    const found = await pay.lookup(r.reference, this.forWhom(r), { transactionId: r.payment_reference });
    this.deps.observer?.lookedUp(pay.system, found.status);
    if (found.status === 'found') {
      if (found.state === 'pending')
        return decided
          ? this.settle(r, decided === 'delivered', 'The payer had not approved when the sale was settled.')
          : { then: 'unsure', reason: 'The payer has not approved the payment yet.', code: 'payer_not_approved' };
      if (found.state === 'declined') {
        await this.step(r, { payment_state: 'declined', unsure_since: null });
        return this.settle(r, false, 'Payment declined: the payer did not approve.');
      }
      if (found.state === 'cancelled' || found.state === 'reversed' || found.state === 'refunded') {
        await this.step(r, { payment_state: found.state === 'refunded' ? 'refunded' : 'released', unsure_since: null });
        return this.settle(r, false, 'The payment was cancelled at the gateway.');
      }
      const taken = flowOf(r, pay.flow) === 'preauthorize' ? 'reserved' : 'collected';
      await this.approved(r, {
        payment_state: found.state === 'committed' ? 'collected' : taken,
        payment_reference: found.transactionId ?? r.payment_reference,
        unsure_since: null,
        ...paymentFacts(found),
      });
      return CONTINUE;
    }
    if (found.status === 'not_found') {
      // Not there (yet): a charge may still be on its way while the payer reads the prompt.
      const t = this.deps.timing;
      if (!decided && elapsedSince(r.unsure_since) < t.paymentTimeoutMs)
        return { then: 'retry', inMs: Math.max(t.retryBaseMs, Math.min(t.maxRetryMs, Math.floor(t.paymentTimeoutMs / 6))) };
      await this.step(r, { payment_state: 'absent', unsure_since: null });
      return this.settle(r, decided === 'delivered', 'The payment never reached the gateway: nothing was taken.');
    }
    if (decided)
      return this.settle(
        r,
        decided === 'delivered',
        `The payment's outcome was unknown when the sale was settled (${found.error}); the reconciliation keeps asking.`,
      );
    return { then: 'unsure', reason: `The payment gateway cannot say what became of the payment: ${found.error}`, code: 'payment_unknown' };
  }

  /** A person's decision in review settles the delivery question; the payment follows it. */
  private async recordDecision(r: Sale): Promise<Next> {
    const delivered = r.review_outcome === 'delivered';
    await this.step(r, {
      delivery_state: delivered ? 'delivered' : 'failed',
      unsure_since: null,
      failure_reason: delivered ? null : 'Not delivered (settled in review).',
    });
    return CONTINUE;
  }

  private refusedRoutes(r: Sale): string[] {
    return (r.routes_refused ?? '').split(',').filter(Boolean);
  }

  private routed(r: Sale, refused = this.refusedRoutes(r)): RoutedSale {
    return {
      id: Number(r.bundle_id ?? 0),
      provider_id: Number(r.provider_id),
      cost: Number(r.cost),
      operator_product_code: r.operator_product_code ?? null,
      refused,
      currency: r.currency,
    };
  }

  /** One line of the sale's trail about its routes (the console shows it among the remote calls). */
  private async routeNote(r: Sale, aggregator: string, outcome: 'ok' | 'skipped' | 'refused', text: string): Promise<void> {
    await this.deps.db('remote_calls').insert({
      recharge_id: r.id,
      system: 'routing',
      operation: `route ${aggregator}`.slice(0, 64),
      method: 'ROUTE',
      url: `route:${aggregator}`,
      request: null,
      response: null,
      http_status: null,
      outcome,
      error: text.slice(0, 500),
      duration_ms: 0,
      created_at: toDbTime(),
    });
  }

  /**
   * The route of this send. A sale whose top-up may have reached a route already (a send whose
   * answer was lost, then "never received": the resend) goes to exactly that route again, with the
   * operator id and product it was sent with, whatever the routes say now: another route could
   * deliver it a second time. Otherwise the chooser's (a send that could not go, "not now", may
   * take another route).
   */
  private async routeFor(r: Sale): Promise<{ operator: OperatorAdapter; operatorId: string | null; product: string } | { none: string }> {
    if (isTestSale(r)) return this.sandboxRoute(r);
    const sale = this.routed(r);
    const last = r.operator_adapter ? this.deps.operators[r.operator_adapter] : undefined;
    if (last && r.route_product && !sale.refused.includes(last.name) && (await this.lostSends(r, last)) > 0)
      return { operator: last, operatorId: r.route_operator_id ?? null, product: r.route_product };
    const choice = await this.deps.routes.choose(sale);
    for (const p of choice.passed) await this.routeNote(r, p.aggregator, 'skipped', p.why);
    if ('none' in choice) return { none: choice.none };
    if (choice.passed.length || sale.refused.length)
      await this.routeNote(r, choice.route.aggregator, 'ok', `Route taken: ${choice.route.aggregator}, product ${choice.product}.`);
    return { operator: this.deps.operators[choice.route.aggregator]!, operatorId: choice.route.operatorId, product: choice.product };
  }

  /**
   * A test sale's one route: the sandbox aggregator (the embedded Reloadly stand-in), whatever the
   * operator's live routes are, so a test key never reaches a real aggregator. The stand-in finds the
   * operator from the number's prefix and takes the bundle's cost as the amount; its test numbers
   * (docs/api-conventions.md, "Test mode") play each outcome.
   */
  private sandboxRoute(r: Sale): { operator: OperatorAdapter; operatorId: null; product: string } | { none: string } {
    const operator = this.deps.operators[SANDBOX];
    if (!operator) return { none: 'The sandbox aggregator is not running in this process.' };
    return { operator, operatorId: null, product: (Number(r.cost) / 100).toFixed(2) };
  }

  /** Sends of this sale to this aggregator whose answer was lost (the aggregator may have them). */
  private async lostSends(r: Sale, operator: OperatorAdapter): Promise<number> {
    const sends = await this.deps
      .db('remote_calls')
      .where({ recharge_id: r.id, system: operator.system, operation: operator.sendOperation, outcome: 'unknown' })
      .count({ n: '*' })
      .first();
    return Number((sends as { n: number | string }).n);
  }

  /** A route's failure, counted once per sale (a sale retrying a busy route is not many failures). */
  private async routeFailed(r: Sale, aggregator: string, reason: string): Promise<void> {
    // The sandbox's test numbers fail on purpose: they say nothing of the live routes' health.
    if (isTestSale(r)) return;
    const key = `${r.id}:${aggregator}`;
    if (this.countedFailures.has(key)) return;
    if (this.countedFailures.size > 10_000) this.countedFailures.clear();
    this.countedFailures.add(key);
    await this.deps.routes.health.failed(Number(r.provider_id), aggregator, reason);
  }

  private async deliver(r: Sale): Promise<Next> {
    const routed = await this.routeFor(r);
    if ('none' in routed) {
      await this.step(r, { delivery_state: 'failed', unsure_since: null, failure_reason: `No route can deliver this bundle: ${routed.none}`.slice(0, 500) });
      return CONTINUE;
    }
    const { operator } = routed;
    await this.step(r, {
      delivery_state: 'sent',
      operator_adapter: operator.name,
      route_operator_id: routed.operatorId,
      route_product: routed.product.slice(0, 64),
      unsure_since: r.unsure_since ?? toDbTime(),
    });
    const sent = await operator.send(
      {
        customIdentifier: r.reference,
        phone: r.phone,
        externalOperatorId: routed.operatorId,
        productCode: routed.product,
        cost: Number(r.cost),
      },
      this.forWhom(r),
    );
    if (sent.status === 'not_sent' || sent.status === 'unknown') await this.routeFailed(r, operator.name, sent.error);
    if (sent.status === 'not_sent') {
      await this.step(r, { delivery_state: 'none' });
      return { then: 'unsure', reason: `The top-up could not be sent yet: ${sent.error}`, code: 'topup_not_sent' };
    }
    // Unknown: stays `sent`, and confirm_delivery asks by our reference.
    if (sent.status !== 'unknown') await this.applyDelivery(r, sent);
    return CONTINUE;
  }

  private async confirmDelivery(r: Sale): Promise<Next> {
    const operator = this.operatorOf(r)!;
    if (!(await this.mayAsk(r, operator.system)))
      return { then: 'unsure', reason: 'The aggregator is not answering; it is asked again when it does.', code: 'aggregator_silent' };
    const found = await operator.lookup(r.reference, this.forWhom(r));
    this.deps.observer?.lookedUp(operator.system, found.status);
    if (found.status === 'not_found') {
      // The aggregator never got it. Sending again under the same customIdentifier is safe (it
      // refuses a duplicate, so it can never deliver twice), a bounded number of times.
      // Sends whose answer was lost (a refusal such as a 429 reached no one's books and does not count).
      if ((await this.lostSends(r, operator)) < MAX_SENDS) {
        await this.step(r, { delivery_state: 'none' });
        return { then: 'retry', inMs: this.deps.timing.retryBaseMs };
      }
      return { then: 'unsure', reason: `The aggregator has no record of the top-up after ${MAX_SENDS} sends whose answers were lost.`, code: 'topup_lost' };
    }
    if (found.status === 'unknown')
      return { then: 'unsure', reason: `The aggregator cannot say what became of the top-up: ${found.error}`, code: 'topup_unknown' };
    await this.applyDelivery(r, found);
    return r.delivery_state === 'processing'
      ? { then: 'unsure', reason: 'The operator is still processing the top-up.', code: 'operator_processing' }
      : CONTINUE;
  }

  private async pollDelivery(r: Sale): Promise<Next> {
    const operator = this.operatorOf(r)!;
    if (!(await this.mayAsk(r, operator.system)))
      return { then: 'unsure', reason: 'The aggregator is not answering; it is asked again when it does.', code: 'aggregator_silent' };
    // In processing the operator has answered with its delivery id.
    const polled = await operator.poll(r.delivery_id!, this.forWhom(r));
    this.deps.observer?.lookedUp(operator.system, polled.status);
    if (polled.status === 'unknown')
      return { then: 'unsure', reason: `The aggregator cannot say what became of the top-up: ${polled.error}`, code: 'topup_unknown' };
    await this.applyDelivery(r, polled);
    return r.delivery_state === 'processing'
      ? { then: 'unsure', reason: 'The operator is still processing the top-up.', code: 'operator_processing' }
      : CONTINUE;
  }

  /**
   * Records an aggregator's definite answer. A refusal moves the sale to the next route that can
   * deliver it (never back to one that refused it); with none left, the delivery failed.
   */
  private async applyDelivery(r: Sale, result: Exclude<DeliveryResult, { status: 'unknown' }>) {
    const aggregator = r.operator_adapter ?? r.adapter_key ?? 'sandbox';
    if (result.status === 'delivered') {
      if (!isTestSale(r)) await this.deps.routes.health.succeeded(Number(r.provider_id), aggregator);
      await this.step(r, {
        delivery_state: 'delivered',
        delivery_id: result.deliveryId,
        operator_reference: result.operatorReference,
        unsure_since: null,
        ...deliveryFacts(result),
      });
      // The float it came out of: counted, and read again every few sales (never awaited, never fails the sale).
      if (!isTestSale(r)) noticeFloatSale(this.deps.db, this.deps.operators[aggregator]);
      if (!isTestSale(r)) this.deps.observer?.delivered(r.created_at);
      return;
    }
    // Taken in, not delivered: the route's health waits for the outcome.
    if (result.status === 'processing') {
      await this.step(r, { delivery_state: 'processing', delivery_id: result.deliveryId });
      return;
    }
    await this.routeFailed(r, aggregator, result.reason);
    const refused = [...new Set([...this.refusedRoutes(r), aggregator])];
    // A test sale has the sandbox only: its refusal is final.
    const next = isTestSale(r) ? { none: 'test' } : await this.deps.routes.choose(this.routed(r, refused));
    if (!('none' in next) && !r.review_outcome) {
      await this.routeNote(r, aggregator, 'refused', `${result.reason} Trying the next route: ${next.route.aggregator}.`);
      // The next route has its own review window.
      await this.step(r, { delivery_state: 'none', delivery_id: null, routes_refused: refused.join(',').slice(0, 200), unsure_since: null });
      return;
    }
    await this.step(r, {
      delivery_state: 'failed',
      delivery_id: result.deliveryId,
      routes_refused: refused.join(',').slice(0, 200),
      failure_reason: result.reason.slice(0, 500),
      unsure_since: null,
    });
  }

  /**
   * Commits the reserve (delivered) or lets it go / reverses the purchase (not delivered). The
   * intent is recorded first (committing / releasing), so a crash or a lost answer is followed by
   * a question, not a second request blindly. Unconfirmed: unsure (rescheduled, then review); with
   * a person's decision, the sale is settled anyway and the reconciliation follows the payment up.
   */
  private async settlePayment(r: Sale, action: 'commit' | 'release'): Promise<Next> {
    const pay = this.gatewayOf(r);
    const flow = flowOf(r, pay.flow);
    const pendingState = action === 'commit' ? 'committing' : 'releasing';
    // A committed reserve cannot be let go, only refunded (found so by the lookup after a crash too).
    let captured = action === 'release' && flow === 'preauthorize' && r.payment_state === 'collected';
    const settled = (): Promise<Next> => this.settleFromState(r);
    // Refused outright before a person decided: the decision is carried out without sending the
    // refused call again; the reconciliation follows the payment up (refusedBefore, sale-checks.ts).
    if (r.review_outcome && refusedBefore(r.last_check_note)) return settled();
    // What the gateway said last, raw: the review queue shows it.
    let said = '';
    // The gateway said no to the commit or release itself (a classified refusal, not a lost answer).
    let refusal: string | null = null;
    // The lookup after it found the payment standing as it was (still reserved, or still charged).
    let stillStanding = false;
    for (let round = 0; round < 2; round++) {
      if (r.payment_state === pendingState) {
        if (!(await this.mayAsk(r, pay.system))) {
          said = 'the gateway is not answering';
          break;
        }
        const found = await pay.lookup(r.reference, this.forWhom(r), { transactionId: r.payment_reference });
        this.deps.observer?.lookedUp(pay.system, found.status);
        stillStanding = false;
        if (found.status !== 'found') said = found.status === 'unknown' ? found.error : 'the gateway has no record of it';
        if (found.status === 'found') {
          const s = found.state;
          if (action === 'commit' && s === 'committed') {
            await this.step(r, { payment_state: 'collected', unsure_since: null });
            return settled();
          }
          // A release is done; a commit found the reserve gone (expired or cancelled at the gateway): delivered uncollected.
          // A payment refunded after it was taken: the money was taken and given back.
          if (s === 'cancelled' || s === 'reversed' || s === 'refunded' || s === 'declined') {
            await this.step(r, { payment_state: s === 'refunded' ? 'refunded' : 'released', unsure_since: null });
            return settled();
          }
          if (action === 'release' && flow === 'preauthorize' && s === 'committed') captured = true;
          stillStanding = s === 'approved' || (s === 'committed' && action === 'release');
          if (s === 'pending' || round === 1) break;
          // Still reserved (or charged, for a purchase): ask once more below.
        } else break;
      }
      // Money taken through a gateway that cannot give it back (eDahab): a person pays it back by hand.
      if (action === 'release' && (captured || flow === 'purchase') && !pay.capabilities.refundAfterCapture) {
        await this.step(r, { payment_state: 'refund_due', unsure_since: null });
        return settled();
      }
      await this.step(r, { payment_state: pendingState, unsure_since: r.unsure_since ?? toDbTime() });
      // A payment to commit or let go was made: the gateway's transaction id is recorded.
      const transactionId = r.payment_reference!;
      const done =
        action === 'commit'
          ? await pay.commit({ referenceId: r.reference, transactionId }, this.forWhom(r))
          : await pay.release({ referenceId: r.reference, transactionId, flow, captured, amount: Number(r.amount) }, this.forWhom(r));
      if (done.status === 'done') {
        await this.step(r, { payment_state: action === 'commit' ? 'collected' : captured ? 'refunded' : 'released', unsure_since: null });
        return settled();
      }
      // Refused or unknown: the lookup above tells what the gateway has.
      said = done.status === 'refused' ? `refused: ${done.code} ${done.message}` : done.error;
      refusal = done.status === 'refused' ? said : null;
    }
    const what = action === 'commit' ? 'taking the reserved payment' : 'returning the payment';
    // Refused outright while the payment stands: asking again only gets the same "no" (issue 28
    // item 4). The refusal is recorded on the sale, so nobody's process sends that call again; a
    // person decides now; the reconciliation keeps looking (a reserve may lapse).
    const refusedNow = refusal !== null && stillStanding;
    if (refusedNow) {
      const call: RefusedCall = action === 'commit' ? 'commit' : captured ? 'refund' : flow === 'purchase' ? 'reversal' : 'release';
      r.last_check_note = refusalNote(call, (refusal ?? '').replace(/^refused: /, ''), '');
      // Under the claim: a process that lost the sale (handed back at a drain) writes nothing on it.
      await this.deps.db('recharges').where(claimOf(r)).update({ last_check_note: r.last_check_note });
    }
    if (r.review_outcome) return settled();
    if (refusedNow) {
      await toReview(
        this.deps,
        claimOf(r),
        Number(r.crashes),
        `The payment gateway refused ${what} (${refusal}).`,
        action === 'commit' ? 'commit_refused' : 'return_refused',
      );
      return DONE;
    }
    return {
      then: 'unsure',
      reason: `The payment gateway did not confirm ${what}${said ? ` (${said})` : ''}.`,
      code: action === 'commit' ? 'commit_unconfirmed' : 'return_unconfirmed',
    };
  }

  /** Settles a sale whose remote questions are over, from what its row says. */
  private settleFromState(r: Sale): Promise<Next> {
    // As the steps settle it: a payment the payer declined, or one cancelled before any delivery,
    // fails the sale whatever was decided in review; one that never reached the gateway follows the decision.
    const refused = r.payment_state === 'declined' || (r.payment_state === 'released' && r.delivery_state === 'none');
    const delivered = r.delivery_state === 'delivered' || (r.delivery_state !== 'failed' && r.review_outcome === 'delivered' && !refused);
    if (delivered) return this.settle(r, true, '');
    const reason =
      r.failure_reason ??
      (r.payment_state === 'declined'
        ? 'Payment declined: the payer did not approve.'
        : r.payment_state === 'absent'
          ? 'The payment never reached the gateway: nothing was taken.'
          : r.payment_state === 'released' && r.delivery_state === 'none'
            ? 'The payment was cancelled at the gateway.'
            : 'The bundle could not be delivered.');
    return this.settle(r, false, reason);
  }

  /** The sale ends: completed (delivered) or failed, with whatever the dealer was debited returned. */
  private async settle(r: Sale, delivered: boolean, reason: string): Promise<Next> {
    if (delivered) {
      await completeRecharge(this.deps.ctx, r.id, r.operator_reference ?? r.delivery_id ?? (r.review_outcome ? 'settled-in-review' : r.reference), {
        claimedAt: r.processing_started_at,
        note: r.payment_flow === 'wallet' ? null : paymentNote(r.payment_state),
      });
      return DONE;
    }
    const won = await failRecharge(this.deps.ctx, r.id, reason, {
      claimedAt: r.processing_started_at,
      paymentReturned: r.payment_state === 'refunded' || (r.payment_state === 'released' && flowOf(r, this.gatewayOf(r).flow) === 'purchase'),
    });
    if (!won) throw new LeaseLost();
    return DONE;
  }
}
