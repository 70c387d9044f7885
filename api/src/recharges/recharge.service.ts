import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  formatMinor,
  PAYER_NETWORKS,
  promptsPayer,
  REVIEW_CODES,
  type CustomerDetail,
  type CustomerMoney,
  type CustomerOutcome,
  type PublicRecharge,
  type RechargeRequest,
  type RechargeResponse,
  type ReviewCode,
} from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { AppError, fieldError, notFound } from '../http/errors.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { credit, debit, InsufficientBalance, type Posted } from '../wallets/ledger.ts';
import type { StorefrontDealerRow } from '../storefront/storefront.service.ts';
import { saleOffer, type SaleOffer } from './sale-offers.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { recordMissedSale, type MissedSaleInput } from '../wallets/missed-sales.ts';
import { rootKnex } from '../database/unit-of-work.ts';
import { WriteBatches } from '../database/write-batches.ts';
import { SaleBatches } from './sale-batches.ts';
import { afterSaleCommit, raiseSaleEvent, saleLogRow } from './sale-events.ts';
import { paymentAwaitsCheck } from './fulfilment/sale-checks.ts';
import type { RechargeListRow, RechargeRow } from './recharge-rows.ts';
import { saleMargin } from './sale-margin.ts';
import { enqueueRechargeEvent } from '../webhooks/webhook-events.ts';
import { modeOf } from '../platform/sale-mode.ts';
import { ensureTestWallet } from '../wallets/test-wallet.ts';

/** The one gateway and aggregator of test sales: the embedded stand-ins (connectors/…/sandbox). */
export const SANDBOX = 'sandbox';

/**
 * Recharges (docs/data-model.md, Recharges): the sale, priced and snapshotted in the customer's
 * request, and the settlement steps the worker takes. Every money step is one short transaction
 * whose status change is conditional (`WHERE status = ...`), and the ledger's unique
 * (recharge_id, kind) key stops a second debit, refund or profit credit for one recharge.
 */
type Db = Knex | Knex.Transaction;

const REFERENCE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** A public reference such as RC7K3M9Q2XPA: random, unambiguous to read out on the phone. */
function newReference(): string {
  const bytes = crypto.randomBytes(10);
  return `RC${[...bytes].map((b) => REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length]).join('')}`;
}

/**
 * A reseller's point-of-sale sale (POST /api/reseller/v1/recharges with payment 'wallet'): the
 * dealer's wallet pays the cost and the dealer collects from its customer itself, so the worker
 * asks nobody for a payment and only delivers.
 */
export interface WalletSaleRequest {
  bundle_id: string | number;
  phone: string;
  payment: 'wallet';
}
/** The integrator's own reference for the sale (reseller API, bulk lines); part of what the Idempotency-Key binds. */
export type SaleRequest = (RechargeRequest | WalletSaleRequest) & { client_reference?: string | null };
const isWalletSale = (input: SaleRequest): input is WalletSaleRequest => 'payment' in input && input.payment === 'wallet';

// Only a given reference joins the hash, so the keys of sales made before it existed still match their bodies.
const clientReferenceOf = (input: SaleRequest) => (input.client_reference ? [input.client_reference] : []);
const requestHash = (input: SaleRequest) =>
  crypto
    .createHash('sha256')
    .update(
      JSON.stringify(
        isWalletSale(input)
          ? [decodeId(input.bundle_id), input.phone, 'wallet', ...clientReferenceOf(input)]
          : [decodeId(input.bundle_id), input.phone, decodeId(input.payment_method_id), input.payer_phone, ...clientReferenceOf(input)],
      ),
    )
    .digest('hex');

export interface Created {
  id: number;
  /** False when the idempotency key named an earlier, identical purchase. */
  created: boolean;
  /** The new purchase as written (absent for an earlier one: read it). */
  row?: RechargeRow;
}

async function byKey(db: Db, dealerId: number, key: string) {
  return db('recharges').where({ dealer_id: dealerId, idempotency_key: key }).first('id', 'request_hash');
}

/** The checks a purchase passes before anything is written: offered, right operator, method offered, right network. */
function checkPurchase(offer: SaleOffer, input: SaleRequest) {
  const bundleId = decodeId(input.bundle_id);
  const bundle = bundleId ? offer.bundles.get(bundleId) : undefined;
  // Offered, but no route can deliver it now (its product withdrawn at the aggregators): refused before any prompt.
  if (!bundle && bundleId && offer.undeliverable.has(bundleId)) throw fieldError('bundle_id', 'validation:bundle_not_deliverable');
  if (!bundle) throw fieldError('bundle_id', 'validation:bundle_not_offered');
  if (bundle.phone_prefixes.length && !bundle.phone_prefixes.some((p) => input.phone.startsWith(p))) {
    throw fieldError('phone', 'validation:phone_wrong_operator', { operator: bundle.provider_name, prefixes: bundle.phone_prefixes.join(', ') });
  }
  if (isWalletSale(input)) return { bundle, method: null };
  const methodId = decodeId(input.payment_method_id);
  const method = offer.methods.find((m) => m.id === methodId);
  if (!method) throw fieldError('payment_method_id', 'validation:payment_method_not_offered');
  // Cash, a bank transfer (whatever gateway its row names), a transfer to the dealer's own number: paid in person, never charged here.
  if (!promptsPayer(method)) throw fieldError('payment_method_id', 'validation:payment_method_in_person', { method: method.name });
  const payerNetwork = PAYER_NETWORKS[method.type];
  if (payerNetwork && !payerNetwork.prefixes.some((p) => input.payer_phone.startsWith(p))) {
    throw fieldError('payer_phone', 'validation:payer_wrong_network', {
      method: method.name,
      network: payerNetwork.network,
      prefixes: payerNetwork.prefixes.join(', '),
    });
  }
  return { bundle, method };
}

const saleWrites = new WriteBatches();
const saleBatches = new SaleBatches();
/** How the MySQL sale groups went (tests, diagnostics). */
export const saleGroupStats = () => ({ ...saleBatches.stats });

/**
 * A storefront purchase, priced from the shop's offer (sale-offers.ts). Refusals (not offered,
 * wrong operator for the number, payment method not offered, no balance) write nothing. The
 * transaction holds only writes: the recharge, under "Cost + Profit" the wallet's conditional
 * debit with its ledger row, and the log line. A key sent again finds its first purchase through
 * the unique (dealer_id, idempotency_key) index, answered with that purchase (or 422 when the
 * request differs), even when the offer has changed since.
 */
export async function createRecharge(
  ctx: ServiceContext,
  dealer: StorefrontDealerRow,
  input: SaleRequest,
  key: string,
  opts: { customerSessionId?: string | null } = {},
): Promise<Created> {
  const hash = requestHash(input);
  const same = async (): Promise<Created | null> => {
    const earlier = await byKey(ctx.db, dealer.id, key);
    if (!earlier) return null;
    // The rule of payment APIs such as Stripe's: one key, one request; the IETF draft's 422 (idempotency.key_reused).
    if (earlier.request_hash !== hash) throw new AppError(422, 'api:recharges.idempotency_key_reused');
    return { id: earlier.id, created: false };
  };
  const offer = await saleOffer(ctx.db, dealer);
  let checked: ReturnType<typeof checkPurchase>;
  try {
    checked = checkPurchase(offer, input);
  } catch (err) {
    // A purchase already made under this key is answered as it was, whatever the offer is now.
    const earlier = await same();
    if (earlier) return earlier;
    throw err;
  }
  const { bundle, method } = checked;
  const walletSale = isWalletSale(input);
  // A test key's sale (docs/api-conventions.md, "Test mode"): paid from the dealer's test wallet,
  // charged and delivered only through the sandbox, whatever the live configuration says.
  const mode = ctx.mode ?? 'live';
  const walletId = mode === 'test' ? await ensureTestWallet(ctx, dealer.id) : offer.walletId;
  let debited: Posted | null = null;
  let missed: MissedSaleInput | null = null;
  const now = toDbTime();
  const row = {
    dealer_id: dealer.id,
    bundle_id: bundle.id,
    provider_id: bundle.provider_id,
    payment_method_id: method?.id ?? null,
    provider_name: bundle.provider_name,
    category_name: bundle.category_name,
    bundle_name: bundle.name,
    data_volume_mb: bundle.data_volume_mb,
    validity_days: bundle.validity_days,
    // A wallet sale is "Cost + Profit" whatever the dealer's model: its wallet pays the cost, the margin is in the customer's cash.
    pricing_model: walletSale ? ('cost' as const) : dealer.pricing_model,
    phone: input.phone,
    payer_phone: walletSale ? null : input.payer_phone,
    ...(walletSale ? { payment_flow: 'wallet' as const } : {}),
    // The gateway the method asks for; the worker records the one it really charged through.
    payment_adapter: method ? (mode === 'test' ? SANDBOX : method.gateway) : null,
    amount: bundle.price,
    cost: bundle.cost,
    profit: bundle.price - bundle.cost,
    currency: offer.currency,
    status: 'pending' as const,
    idempotency_key: key,
    request_hash: hash,
    reference: newReference(),
    client_reference: input.client_reference ?? null,
    mode,
    customer_session_id: opts.customerSessionId ?? null,
    // The language the customer bought in: their SMS receipt is written in it.
    language: ctx.language,
    attempts: 0,
    created_at: now,
    updated_at: now,
  };
  const logged = { amount: bundle.price, cost: bundle.cost, phone: input.phone, bundle: bundle.name };
  const walletPays = (walletSale || dealer.pricing_model === 'cost') && bundle.cost > 0;
  try {
    // MySQL/MariaDB: one wallet's sales arriving together are written as one group (sale-batches.ts).
    // A group refused as a whole (a short balance, a repeated key) leaves each sale to the write below.
    if (saleBatches.applies() && (!walletPays || walletId !== null)) {
      const debitOf = walletPays ? { walletId: walletId as number, amount: bundle.cost } : null;
      const grouped = await saleBatches.write({ ctx, row, logged, debit: debitOf });
      if (grouped) {
        afterSaleCommit(ctx, { type: 'sale.created', rechargeId: grouped.id, lowBalanceWallet: grouped.lowBalanceDue && debitOf ? debitOf.walletId : null });
        return { id: grouped.id, created: true, row: { ...row, id: grouped.id } as RechargeRow };
      }
    }
    // SQLite: purchases arriving together share one transaction, each in its own savepoint (write-batches.ts).
    const id = await saleWrites.write(async (trx) => {
      const tctx: ServiceContext = { ...ctx, db: trx };
      // A batch the database asked to run again starts this sale clean.
      debited = null;
      missed = null;
      const [inserted] = await tctx.db('recharges').insert(row);
      const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
      // Logged before the debit: the wallet's row lock (every sale of the shop waits on it) is then
      // held for the debit and its ledger row only.
      await tctx.db('activity_log').insert(saleLogRow(tctx, { type: 'sale.created', rechargeId: id, after: logged }));
      // The dealer's webhook (nothing without one); the debit's wallet.debited follows (ledger.ts).
      await enqueueRechargeEvent(tctx.db, id, 'recharge.created');
      if (walletPays) {
        try {
          if (walletId === null) throw new InsufficientBalance();
          debited = await debit(tctx, walletId, { kind: 'recharge_debit', amount: bundle.cost, rechargeId: id, reference: row.reference });
        } catch (err) {
          // The customer is told the bundle is unavailable for now; the dealer's balance stays private.
          if (err instanceof InsufficientBalance && walletSale) {
            // The dealer is the caller: it is told plainly, and nothing is kept (no missed sale).
            throw new AppError(
              422,
              'api:errors.validation',
              { payment: ['validation:wallet_balance_too_low'] },
              {
                cost: formatMinor(bundle.cost),
                currency: offer.currency,
              },
            );
          }
          if (err instanceof InsufficientBalance) {
            // A test sale lost to the test wallet is no missed sale of the dealer's.
            if (mode === 'test') throw new AppError(422, 'api:recharges.temporarily_unavailable', { bundle_id: ['api:recharges.temporarily_unavailable'] });
            missed = { dealerId: dealer.id, bundleId: bundle.id, bundleName: bundle.name, amount: bundle.price, cost: bundle.cost, idempotencyKey: key };
            throw new AppError(422, 'api:recharges.temporarily_unavailable', { bundle_id: ['api:recharges.temporarily_unavailable'] });
          }
          throw err;
        }
      }
      return id;
    }, walletId ?? 0);
    // After the commit, never inside the sale: the dealer's low-balance alert (one email per crossing).
    const posted = debited as Posted | null;
    afterSaleCommit(ctx, { type: 'sale.created', rechargeId: id, lowBalanceWallet: posted?.lowBalanceDue ? posted.walletId : null });
    return { id, created: true, row: { ...row, id } as RechargeRow };
  } catch (err) {
    // A sale lost to an empty wallet is kept, so the dealer (and the admin) see what it cost them.
    if (missed) await recordMissedSale(rootKnex(), missed);
    // The same key again (at the same moment, or later): the earlier purchase answers.
    if (isUniqueViolation(err)) {
      const winner = await same();
      if (winner) return winner;
    }
    throw err;
  }
}

const mask = (phone: string) => (phone.length > 5 ? `${phone.slice(0, 2)}${'*'.repeat(phone.length - 5)}${phone.slice(-3)}` : phone);

/** After this long without an approved payment the customer hears that the prompt may not have been sent yet. */
export const PROMPT_LATE_MS = 20_000;

/**
 * What the customer is told (docs/data-model.md, "Recharges"): each outcome has its
 * own words, and what happened to their money is never guessed. `released` after a
 * pre-authorisation took nothing; after a purchase it was given back. `detail` adds what the
 * customer does about it: a payment still not approved after PROMPT_LATE_MS (the payment
 * service may be slow to send the prompt: wait, or try later; nothing is taken), a sale that
 * failed before any payment was taken (the payment could not be started: nothing to do with
 * the delivery).
 */
export function customerOutcome(r: RechargeRow): { outcome: CustomerOutcome; money: CustomerMoney; detail: CustomerDetail | null } {
  const { outcome, money } = outcomeOf(r);
  const payment: string = r.payment_state ?? 'none';
  const delivery: string = r.delivery_state ?? 'none';
  const noPayment = (payment === 'none' || payment === 'sent') && r.payment_flow !== 'wallet';
  if ((outcome === 'awaiting_payment' || (outcome === 'delayed' && r.status !== 'needs_review')) && noPayment) {
    // Since the prompt was asked for (or the purchase, while the charge waits its turn).
    const since = fromDbTime(r.unsure_since) ?? fromDbTime(r.created_at);
    const waited = since ? Date.now() - new Date(since).getTime() : 0;
    return { outcome, money, detail: outcome === 'delayed' || waited >= PROMPT_LATE_MS ? 'payment_slow' : null };
  }
  const beforePayment = (payment === 'none' || payment === 'absent') && delivery === 'none' && r.payment_flow !== 'wallet';
  return { outcome, money, detail: outcome === 'not_delivered' && beforePayment ? 'payment_not_started' : null };
}

function outcomeOf(r: RechargeRow): { outcome: CustomerOutcome; money: CustomerMoney } {
  const payment: string = r.payment_state ?? 'none';
  const delivery: string = r.delivery_state ?? 'none';
  const purchase = r.payment_flow === 'purchase';
  const afterFailure = (): CustomerMoney => {
    if (payment === 'released') return purchase ? 'returned' : 'nothing_taken';
    if (payment === 'refunded' || payment === 'paid_back') return 'returned';
    if (payment === 'refund_due') return 'to_be_paid_back';
    if (payment === 'none' || payment === 'absent' || payment === 'declined') return 'nothing_taken';
    return 'unknown';
  };
  const held = (): CustomerMoney =>
    payment === 'reserved'
      ? 'reserved'
      : payment === 'collected' || payment === 'committing'
        ? 'charged'
        : payment === 'none' || payment === 'absent'
          ? 'nothing_taken'
          : 'unknown';
  if (r.status === 'completed')
    return { outcome: 'delivered', money: ['collected', 'committing', 'reserved', 'sent'].includes(payment) ? 'charged' : 'nothing_taken' };
  // Delivered, then refunded by hand: the bundle stays, the payment goes back (or is being confirmed).
  if (r.status === 'refunded' && delivery === 'delivered')
    return {
      outcome: 'delivered',
      money:
        payment === 'refunded' || payment === 'released' || payment === 'paid_back'
          ? 'returned'
          : payment === 'refund_due'
            ? 'to_be_paid_back'
            : payment === 'none' || payment === 'absent'
              ? 'nothing_taken'
              : 'unknown',
    };
  if (r.status === 'failed' || r.status === 'refunded')
    return payment === 'declined' ? { outcome: 'declined', money: 'nothing_taken' } : { outcome: 'not_delivered', money: afterFailure() };
  if (r.status === 'needs_review') return { outcome: 'delayed', money: held() };
  if (delivery === 'delivered') return { outcome: 'delivered', money: 'charged' };
  if (delivery === 'failed') return { outcome: 'not_delivered', money: afterFailure() };
  const waited = r.unsure_since ? Date.now() - new Date(fromDbTime(r.unsure_since)!).getTime() : 0;
  if (payment === 'none' || payment === 'sent') return { outcome: waited > 180_000 ? 'delayed' : 'awaiting_payment', money: 'nothing_taken' };
  return { outcome: waited > 60_000 ? 'delayed' : 'delivering', money: held() };
}

/** The cases of a failed sale as staff read it (api:recharge_failures.*), one sentence each. */
export type FailureCase =
  | 'declined'
  | 'payment_not_started'
  | 'refund_due'
  | 'settled_in_review'
  | 'no_route'
  | 'wallet_refunded'
  | 'wallet_not_debited'
  | 'returned'
  | 'nothing_taken'
  | 'payment_open';

/**
 * Why a sale failed, for staff, from its state (customerOutcome's, then what staff act on):
 * failure_reason is free text, often the vendor's own English, so the console and the CSV show
 * this sentence in the reader's language and keep that text beside it. Money still to pay back by
 * hand comes first (someone must act); "No route can deliver this bundle" is our own text
 * (sale-steps.ts deliver). Null when the sale did not fail (a delivered sale refunded by hand too).
 */
export function failureCase(r: RechargeRow): FailureCase | null {
  if (r.status !== 'failed' && r.status !== 'refunded') return null;
  const { outcome, money, detail } = customerOutcome(r);
  if (outcome === 'declined') return 'declined';
  if (outcome !== 'not_delivered') return null;
  if (money === 'to_be_paid_back') return 'refund_due';
  if (detail === 'payment_not_started') return 'payment_not_started';
  if (r.review_outcome === 'not_delivered') return 'settled_in_review';
  if (r.failure_reason?.startsWith('No route can deliver this bundle')) return 'no_route';
  // failRecharge credits back a wallet debit and marks the sale refunded; a sale never debited (a
  // zero-cost bundle, or one that failed before its debit) stays failed: nothing went back.
  if (r.payment_flow === 'wallet') return r.status === 'refunded' ? 'wallet_refunded' : 'wallet_not_debited';
  return money === 'returned' ? 'returned' : money === 'nothing_taken' ? 'nothing_taken' : 'payment_open';
}

export function presentPublic(r: RechargeRow, t: (key: string) => string): PublicRecharge {
  const { outcome, money, detail } = customerOutcome(r);
  const message = t(
    detail
      ? `api:recharges.outcome.${detail}`
      : outcome === 'not_delivered'
        ? `api:recharges.outcome.not_delivered_${money === 'returned' || money === 'unknown' || money === 'to_be_paid_back' ? money : 'nothing_taken'}`
        : `api:recharges.outcome.${outcome}`,
  );
  return {
    id: r.id,
    h_id: encodeId(r.id),
    reference: r.reference ?? '',
    status: r.status,
    provider_name: r.provider_name,
    bundle_name: r.bundle_name,
    phone: mask(r.phone),
    amount: formatMinor(Number(r.amount)),
    currency: r.currency,
    failure_reason: r.status === 'failed' || r.status === 'refunded' ? message : null,
    outcome,
    money,
    detail,
    message,
    // Declined, or never started: nothing was taken, and buying again is the way on.
    can_retry: outcome === 'declined' || detail === 'payment_not_started',
    created_at: fromDbTime(r.created_at),
    completed_at: fromDbTime(r.completed_at),
  };
}

/** A recharge of this dealer by id, h_id or public reference (the storefront's status check). */
/**
 * A purchase as its storefront may read it: by its public reference (random, so knowing it is
 * the proof), or by id / h_id only from the browser session that made it (ids can be walked).
 * Anything else is the same 404 as an unknown purchase.
 */
export async function findForStorefront(db: Db, dealerId: number, raw: string, sessionId: string | null) {
  const reference = /^RC[A-Z0-9]{10}$/.test(raw.toUpperCase()) ? raw.toUpperCase() : null;
  const id = reference ? null : decodeId(raw);
  const qb = db('recharges').where('dealer_id', dealerId);
  let row;
  if (reference) row = await qb.where('reference', reference).first();
  else if (id && sessionId) row = await qb.where({ id, customer_session_id: sessionId }).first();
  if (!row) throw notFound('api:recharges.not_found');
  return row as RechargeRow;
}

export const rechargeQuery = (db: Db) =>
  db('recharges')
    .join('users', 'users.id', 'recharges.dealer_id')
    .leftJoin('payment_methods', 'payment_methods.id', 'recharges.payment_method_id')
    .leftJoin('users as reviewers', 'reviewers.id', 'recharges.reviewed_by')
    .leftJoin('users as payers_back', 'payers_back.id', 'recharges.paid_back_by')
    .select(
      'recharges.*',
      'users.name as dealer_name',
      'users.dealer_code',
      'payment_methods.name as payment_method_name',
      'reviewers.name as reviewer_name',
      'payers_back.name as paid_back_by_name',
    );

/** Money of the vendors' that is nullable in the row: a decimal string, or null when the vendor did not say. */
const vendorMoney = (v: number | string | null | undefined) => (v === null || v === undefined ? null : formatMinor(Number(v)));

/**
 * `company`: what only the company's staff may see of a sale: the gateway's charges and the
 * aggregator's cost and rate (those who see cost prices) and the real margin (margins.service.ts, seesMargin). A dealer never gets either.
 */
const reviewCodeOf = (code: string | null | undefined): ReviewCode | null =>
  (REVIEW_CODES as readonly string[]).includes(code ?? '') ? (code as ReviewCode) : null;

export function presentRecharge(
  r: RechargeListRow,
  seesCost: boolean,
  company: { cost: boolean; margin: boolean } = { cost: false, margin: false },
  /** The request's language: failure_summary is always a sentence, never a raw case code. */
  t: (key: string) => unknown,
): RechargeResponse {
  const failed = failureCase(r);
  return {
    id: r.id,
    h_id: encodeId(r.id),
    reference: r.reference ?? '',
    client_reference: r.client_reference ?? null,
    mode: modeOf(r.mode),
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    status: r.status,
    provider_id: r.provider_id ?? null,
    provider_name: r.provider_name,
    category_name: r.category_name,
    bundle_id: r.bundle_id ?? null,
    bundle_name: r.bundle_name,
    data_volume_mb: r.data_volume_mb ?? null,
    validity_days: r.validity_days ?? null,
    pricing_model: r.pricing_model === 'profit' ? 'profit' : 'cost',
    phone: r.phone,
    payer_phone: r.payer_phone ?? null,
    payment_method: r.payment_method_name ?? null,
    amount: formatMinor(Number(r.amount)),
    // A sale earns its profit only when delivered and kept: failed, refunded or pending ones earn none.
    ...(seesCost ? { cost: formatMinor(Number(r.cost)), profit: formatMinor(r.status === 'completed' ? Number(r.profit) : 0) } : {}),
    currency: r.currency,
    gateway_amount: vendorMoney(r.gateway_amount),
    gateway_currency: r.gateway_currency ?? null,
    // The company's costs on the sale (the gateway's charges, the aggregator's cost and rate): staff who see cost prices.
    ...(company.cost
      ? {
          gateway_charges: vendorMoney(r.gateway_charges),
          aggregator_cost: vendorMoney(r.aggregator_cost),
          aggregator_currency: r.aggregator_currency ?? null,
          fx_rate: r.fx_rate ?? null,
        }
      : {}),
    delivered_amount: vendorMoney(r.delivered_amount),
    delivered_currency: r.delivered_currency ?? null,
    ...(company.margin ? { margin: vendorMoney(saleMargin(r)) } : {}),
    attempts: Number(r.attempts),
    payment_reference: r.payment_reference ?? null,
    operator_reference: r.operator_reference ?? null,
    failure_reason: r.failure_reason ?? null,
    failure_summary: failed ? String(t(`api:recharge_failures.${failed}`)) : null,
    payment_state: r.payment_state ?? 'none',
    payment_flow: r.payment_flow ?? null,
    delivery_state: r.delivery_state ?? 'none',
    delivery_id: r.delivery_id ?? null,
    payment_gateway: r.payment_flow === 'wallet' ? null : (r.payment_adapter ?? null),
    route: r.operator_adapter ?? null,
    review_reason: r.review_reason ?? null,
    review_code: reviewCodeOf(r.review_code),
    // Why it waits for a person, in the request's language; a sale sent before codes existed keeps its sentence.
    review_summary: r.review_reason ? (reviewCodeOf(r.review_code) ? String(t(`api:review_reasons.${r.review_code}`)) : r.review_reason) : null,
    needs_review_at: fromDbTime(r.needs_review_at),
    reviewed_by: r.reviewed_by ? { id: r.reviewed_by, name: r.reviewer_name ?? '' } : null,
    reviewed_at: fromDbTime(r.reviewed_at),
    review_outcome: r.review_outcome ?? null,
    paid_back: r.paid_back_at
      ? {
          by: r.paid_back_by ? { id: Number(r.paid_back_by), name: r.paid_back_by_name ?? '' } : null,
          at: fromDbTime(r.paid_back_at)!,
          note: r.paid_back_note ?? '',
          reference: r.paid_back_reference ?? null,
        }
      : null,
    created_at: fromDbTime(r.created_at),
    processing_started_at: fromDbTime(r.processing_started_at),
    completed_at: fromDbTime(r.completed_at),
    failed_at: fromDbTime(r.failed_at),
    refunded_at: fromDbTime(r.refunded_at),
  };
}

/* ---------- settlement: the worker's (and an admin's) last step, one short transaction each ---------- */

interface SettleOptions {
  /** The worker's claim: the row must still be the one it claimed (docs/architecture.md, "Recharges"). */
  claimedAt?: string | null;
}

/**
 * A "Profit Only" dealer earns its profit on money the company collected: once the sale is
 * completed and its payment collected (now, or later when the reconciliation takes it). Once: the
 * ledger's unique (recharge_id, kind) stands behind the check.
 */
export async function creditProfitIfDue(ctx: ServiceContext, r: RechargeRow): Promise<void> {
  if (r.status !== 'completed' || r.pricing_model !== 'profit' || !(Number(r.profit) > 0) || r.payment_state !== 'collected') return;
  if (await ctx.db('wallet_transactions').where({ recharge_id: r.id, kind: 'profit_credit' }).first('id')) return;
  // A test sale's profit goes to the test wallet it was sold from (never the live one).
  const wallet = await ctx
    .db('wallets')
    .where({ dealer_id: r.dealer_id, mode: modeOf(r.mode) })
    .first('id');
  if (wallet) await credit(ctx, wallet.id, { kind: 'profit_credit', amount: Number(r.profit), rechargeId: r.id, reference: r.reference });
}

/** Delivered: completed, and under "Profit Only" the dealer's profit credited (once) when the payment was collected. */
export async function completeRecharge(
  ctx: ServiceContext,
  id: number,
  operatorReference: string,
  opts: SettleOptions & { note?: string | null } = {},
): Promise<boolean> {
  return transact(ctx, async (tctx) => {
    const now = toDbTime();
    const qb = tctx.db('recharges').where({ id, status: 'processing' });
    if (opts.claimedAt) qb.where('processing_started_at', opts.claimedAt);
    const won = await qb.update({
      status: 'completed',
      operator_reference: operatorReference,
      completed_at: now,
      failure_reason: opts.note ?? null,
      next_attempt_at: null,
      unsure_since: null,
      updated_at: now,
    });
    if (!won) return false;
    const r: RechargeRow = await tctx.db('recharges').where({ id }).first();
    await creditProfitIfDue(tctx, r);
    // Delivered while the payment's outcome is still open: the reconciliation asks until the reserve is taken.
    if (paymentAwaitsCheck(r)) await tctx.db('recharges').where({ id }).update({ next_check_at: now, checks: 0, check_leased_until: null });
    await raiseSaleEvent(tctx, {
      type: 'sale.completed',
      rechargeId: id,
      after: { operator_reference: operatorReference, payment_state: r.payment_state, ...(opts.note ? { note: opts.note } : {}) },
    });
    return true;
  });
}

/**
 * Not delivered: failed, and whatever the dealer was debited credited back (a `recharge_refund`).
 * The status says what became of the money of whoever paid for the sale (issue 28 item 3):
 * `refunded` when money taken came back to them (a purchase reversed or a payment refunded at the
 * gateway: `paymentReturned`; a reseller's wallet sale: its debit credited back); `failed` when
 * nothing was taken (declined, a reserve let go, never charged) or while money taken is still on its
 * way back (the reconciliation makes it `refunded` once the gateway confirms, paidBack by hand too).
 */
export async function failRecharge(
  ctx: ServiceContext,
  id: number,
  reason: string,
  opts: SettleOptions & { from?: ('processing' | 'pending')[]; paymentReturned?: boolean } = {},
): Promise<boolean> {
  return transact(ctx, async (tctx) => {
    const now = toDbTime();
    const r = await tctx.db('recharges').where({ id }).first();
    if (!r) return false;
    const qb = tctx
      .db('recharges')
      .where({ id })
      .whereIn('status', opts.from ?? ['processing']);
    if (opts.claimedAt) qb.where('processing_started_at', opts.claimedAt);
    const won = await qb.update({
      status: 'failed',
      failed_at: now,
      failure_reason: reason.slice(0, 500),
      next_attempt_at: null,
      unsure_since: null,
      updated_at: now,
    });
    if (!won) return false;
    const debited = await tctx.db('wallet_transactions').where({ recharge_id: id, kind: 'recharge_debit' }).first('amount', 'wallet_id');
    const refunded = await tctx.db('wallet_transactions').where({ recharge_id: id, kind: 'recharge_refund' }).first('id');
    if (debited && !refunded) {
      await credit(tctx, debited.wallet_id, { kind: 'recharge_refund', amount: Number(debited.amount), rechargeId: id, reference: r.reference });
    }
    const moneyBack = Boolean(opts.paymentReturned) || (Boolean(debited) && r.payment_flow === 'wallet');
    if (moneyBack) await tctx.db('recharges').where({ id }).update({ status: 'refunded', refunded_at: now, updated_at: now });
    // Not delivered while the payment's outcome is still open: the reconciliation asks until the reserve is let go.
    if (paymentAwaitsCheck({ status: 'failed', payment_state: r.payment_state }))
      await tctx.db('recharges').where({ id }).update({ next_check_at: now, checks: 0, check_leased_until: null });
    await raiseSaleEvent(tctx, { type: moneyBack ? 'sale.refunded' : 'sale.failed', rechargeId: id, after: { reason, payment_state: r.payment_state } });
    return true;
  });
}
