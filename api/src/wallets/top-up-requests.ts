import type { Knex } from 'knex';
import { formatMinor, type PayoutRequestInput, type TopUpRequestKind, type TopUpRequestResponse } from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { AppError, fieldError, forbidden, notFound } from '../http/errors.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { credit, debit } from './ledger.ts';
import { checkOperationLimit, noWallet } from './wallet.service.ts';
import { pageOf, type Page, type PageRequest } from '../http/list-query.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { readMoneyLimits } from '../settings/money-settings.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { bankReferenceKey } from './idempotency.ts';
import { alreadyCredited, alreadyPending, creditOfReference, pendingOfReference, referenceConflict } from './bank-references.ts';
import type { TopUpRequestListRow, TopUpRequestRow, TopUpRequestStatus, WalletRow } from './wallet-rows.ts';

/**
 * A dealer asks for a top-up (what it paid in, the payment's reference, a receipt); an admin
 * approves it (the wallet is credited exactly once) or rejects it with a reason. The decision is
 * one conditional UPDATE from `pending`, so two admins deciding at once cannot both win. One bank
 * transfer, one credit (bank-references.ts): a reference already credited to the wallet, or
 * already in a pending request of it, is refused at creation, and one credited meanwhile at
 * approval (the request stays pending, for a rejection with its reason).
 *
 * A "Profit Only" dealer's wallet holds its profit, so it asks for a payout instead (`kind`
 * payout; its reference is the mobile number to pay): at most its balance less its other pending
 * payouts, and the approval debits the wallet (a `payout` ledger row) in the same conditional
 * decision, so ten approvals at once debit it once.
 */
type Db = Knex | Knex.Transaction;

export const requestQuery = (db: Db) =>
  db('wallet_top_up_requests')
    .join('users', 'users.id', 'wallet_top_up_requests.dealer_id')
    .leftJoin('users as reviewers', 'reviewers.id', 'wallet_top_up_requests.reviewed_by')
    .select('wallet_top_up_requests.*', 'users.name as dealer_name', 'users.dealer_code', 'reviewers.name as reviewer_name');

export function presentRequest(r: TopUpRequestListRow): TopUpRequestResponse {
  return {
    id: r.id,
    h_id: encodeId(r.id),
    wallet_id: r.wallet_id,
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    kind: r.kind ?? 'top_up',
    amount: formatMinor(Number(r.amount)),
    reference: r.reference,
    note: r.note ?? null,
    receipt: r.receipt_path ?? null,
    status: r.status,
    reason: r.reason ?? null,
    reviewed_by: r.reviewed_by ? { id: r.reviewed_by, name: r.reviewer_name ?? '' } : null,
    reviewed_at: fromDbTime(r.reviewed_at),
    wallet_transaction_id: r.wallet_transaction_id === null || r.wallet_transaction_id === undefined ? null : Number(r.wallet_transaction_id),
    created_at: fromDbTime(r.created_at),
    updated_at: fromDbTime(r.updated_at),
  };
}

/**
 * Who reads which request, in the list and by id alike: a dealer, and anyone who may not review,
 * only their own; a reviewer every dealer's. Deciding (approve, reject) needs the review permission
 * and staff: a dealer never decides a request, not even one whose role was given that permission
 * (it would credit its own wallet).
 */
function readsOnlyOwn(ctx: ServiceContext): boolean {
  return isDealer(ctx.actor) || !ctx.actor.permissions.has('review wallet top-ups');
}

export interface TopUpRequestFilters {
  status?: TopUpRequestStatus;
  kind?: TopUpRequestKind;
  dealer_id?: string;
}

/** A page of the requests the caller may read, newest first unless `order` is asc. */
export function listRequests(ctx: ServiceContext, f: TopUpRequestFilters, p: PageRequest): Promise<Page<TopUpRequestResponse>> {
  const qb = requestQuery(ctx.db);
  if (readsOnlyOwn(ctx)) qb.where('wallet_top_up_requests.dealer_id', ctx.actor.id ?? 0);
  if (f.status) qb.where('wallet_top_up_requests.status', f.status);
  if (f.kind) qb.where('wallet_top_up_requests.kind', f.kind);
  if (f.dealer_id) qb.where('wallet_top_up_requests.dealer_id', decodeId(f.dealer_id) ?? 0);
  return pageOf(qb, p, 'wallet_top_up_requests.id', presentRequest, 'wallet_top_up_requests.id');
}

export async function findRequest(ctx: ServiceContext, rawId: string | number): Promise<TopUpRequestResponse> {
  const id = decodeId(rawId);
  const qb = requestQuery(ctx.db).where('wallet_top_up_requests.id', id ?? 0);
  if (readsOnlyOwn(ctx)) qb.where('wallet_top_up_requests.dealer_id', ctx.actor.id ?? 0);
  const row: TopUpRequestListRow | undefined = id ? await qb.first() : undefined;
  if (!row) throw notFound();
  return presentRequest(row);
}

export interface TopUpRequestInput {
  /** Minor units. */
  amount: number;
  reference: string;
  note?: string | null;
}

/**
 * A dealer asks for a top-up, with an optional receipt (an image whose bytes were checked). The
 * receipt is stored first and removed again when the request is refused.
 */
export async function submitRequest(
  ctx: ServiceContext,
  storage: FileStorage,
  input: TopUpRequestInput,
  receipt: { bytes: Buffer; extension: string } | null,
): Promise<TopUpRequestResponse> {
  const receiptPath = receipt ? await storage.put('receipts', receipt.extension, receipt.bytes) : null;
  try {
    const id = await transact(ctx, (tctx) => createRequest(tctx, { ...input, receipt_path: receiptPath }));
    return await findRequest(ctx, id);
  } catch (err) {
    if (receiptPath) await storage.remove(receiptPath);
    if (!isUniqueViolation(err) || !isDealer(ctx.actor)) throw err;
    // Lost to a request (or a credit) of the same reference that the check could not see yet.
    const wallet: Pick<WalletRow, 'id'> | undefined = await ctx.db('wallets').where({ dealer_id: ctx.actor.id!, mode: 'live' }).first('id');
    throw (wallet && (await referenceConflict(ctx.db, wallet.id, input.reference, err, 'request'))) || err;
  }
}

export async function createRequest(
  ctx: ServiceContext,
  input: { amount: number; reference: string; note?: string | null; receipt_path?: string | null },
): Promise<number> {
  if (!isDealer(ctx.actor)) throw new AppError(403, 'api:wallets.only_dealers_request');
  // A "Profit Only" wallet is never paid into: its dealer asks for a payout of its profit instead.
  if ((await pricingModelOf(ctx, ctx.actor.id!)) === 'profit') throw new AppError(422, 'api:wallets.profit_only_top_up');
  // Locked as a top-up locks it: one wallet's requests and credits are checked one at a time.
  const wallet: Pick<WalletRow, 'id' | 'currency'> | undefined = await ctx
    .db('wallets')
    .where({ dealer_id: ctx.actor.id!, mode: 'live' })
    .forUpdate()
    .first('id', 'currency');
  if (!wallet) throw noWallet();
  checkOperationLimit(input.amount, await readMoneyLimits(ctx.db), wallet.currency);
  const credited = await creditOfReference(ctx.db, wallet.id, input.reference, true);
  if (credited) throw await alreadyCredited(ctx.db, wallet.id, credited, 'request');
  const pending = await pendingOfReference(ctx.db, wallet.id, input.reference, true);
  if (pending) throw await alreadyPending(ctx.db, wallet.id, pending);
  const now = toDbTime();
  const [inserted] = await ctx.db('wallet_top_up_requests').insert({
    wallet_id: wallet.id,
    dealer_id: ctx.actor.id,
    amount: input.amount,
    reference: input.reference,
    note: input.note ?? null,
    receipt_path: input.receipt_path ?? null,
    status: 'pending',
    // Unique per wallet while pending; cleared by the decision, so a rejected reference may be asked for again.
    pending_reference_key: bankReferenceKey(input.reference),
    created_at: now,
    updated_at: now,
  });
  const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
  await recordActivity(ctx, {
    action: 'top_up_requested',
    subjectType: 'wallet_top_up_request',
    subjectId: id,
    after: { amount: input.amount, reference: input.reference },
  });
  return id;
}

async function pricingModelOf(ctx: ServiceContext, dealerId: number): Promise<string> {
  const d: { pricing_model: string } | undefined = await ctx.db('dealer_details').where({ user_id: dealerId }).first('pricing_model');
  return d?.pricing_model ?? 'cost';
}

/**
 * A "Profit Only" dealer asks for a payout of its profit to a mobile number: at most what its
 * balance holds beyond its payouts already pending (read with the wallet's row locked, so two
 * requests at once cannot both take the same money).
 */
export async function requestPayout(ctx: ServiceContext, input: PayoutRequestInput): Promise<TopUpRequestResponse> {
  const id = await transact(ctx, async (tctx) => {
    if (!isDealer(tctx.actor)) throw new AppError(403, 'api:wallets.only_dealers_request');
    if ((await pricingModelOf(tctx, tctx.actor.id!)) !== 'profit') throw new AppError(422, 'api:wallets.payout_profit_only');
    const wallet: Pick<WalletRow, 'id' | 'currency' | 'balance'> | undefined = await tctx
      .db('wallets')
      .where({ dealer_id: tctx.actor.id!, mode: 'live' })
      .forUpdate()
      .first('id', 'currency', 'balance');
    if (!wallet) throw noWallet();
    const pending = await tctx.db('wallet_top_up_requests').where({ wallet_id: wallet.id, kind: 'payout', status: 'pending' }).sum({ total: 'amount' }).first();
    const available = Number(wallet.balance) - Number((pending as { total: number | string | null } | undefined)?.total ?? 0);
    if (input.amount > available)
      throw fieldError('amount', 'validation:payout_above_balance', { available: formatMinor(Math.max(0, available)), currency: wallet.currency ?? '' });
    const now = toDbTime();
    const [inserted] = await tctx.db('wallet_top_up_requests').insert({
      wallet_id: wallet.id,
      dealer_id: tctx.actor.id,
      kind: 'payout',
      amount: input.amount,
      reference: input.phone,
      note: input.note ?? null,
      receipt_path: null,
      status: 'pending',
      pending_reference_key: null,
      created_at: now,
      updated_at: now,
    });
    const newId = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
    await recordActivity(tctx, {
      action: 'payout_requested',
      subjectType: 'wallet_top_up_request',
      subjectId: newId,
      after: { amount: input.amount, phone: input.phone },
    });
    return newId;
  });
  return findRequest(ctx, id);
}

/** How many requests (top-ups and payouts) wait for a decision: the Wallets menu's badge. */
export async function pendingRequestCount(ctx: ServiceContext): Promise<number> {
  if (isDealer(ctx.actor)) throw forbidden();
  const row = await ctx.db('wallet_top_up_requests').where({ status: 'pending' }).count({ n: '*' }).first();
  return Number((row as { n: number | string } | undefined)?.n ?? 0);
}

/** Moves a pending request to its decision, or says it was already decided (409). */
async function decide(ctx: ServiceContext, rawId: string | number, status: 'approved' | 'rejected', reason: string | null) {
  if (isDealer(ctx.actor)) throw forbidden();
  const id = decodeId(rawId);
  const row: TopUpRequestRow | undefined = id ? await ctx.db('wallet_top_up_requests').where({ id }).first() : undefined;
  if (!row) throw notFound();
  // The wallet before the request, in the order a new request takes them (MySQL would otherwise
  // deadlock an approval against a request of the same reference being made).
  await ctx.db('wallets').where({ id: row.wallet_id }).forUpdate().first('id');
  const now = toDbTime();
  const won = await ctx
    .db('wallet_top_up_requests')
    .where({ id: row.id, status: 'pending' })
    .update({ status, reason, pending_reference_key: null, reviewed_by: ctx.actor.id, reviewed_at: now, updated_at: now });
  if (won === 0) throw new AppError(409, 'api:wallets.request_already_decided');
  return row;
}

/** Approves a request and credits its wallet; call inside a unit of work (approveRequestOnce is the route's). */
export async function approveRequest(ctx: ServiceContext, rawId: string | number): Promise<void> {
  const row = await decide(ctx, rawId, 'approved', null);
  if (row.kind === 'payout') return approvePayout(ctx, row);
  // Credited meanwhile (an admin's top-up of the same transfer): the throw rolls the decision back.
  const credited = await creditOfReference(ctx.db, row.wallet_id, row.reference, true);
  if (credited) throw await alreadyCredited(ctx.db, row.wallet_id, credited, 'approval');
  // The ceilings of the day of approval (they may have been lowered since the request).
  const limits = await readMoneyLimits(ctx.db);
  const wallet: Pick<WalletRow, 'currency'> | undefined = await ctx.db('wallets').where({ id: row.wallet_id }).first('currency');
  checkOperationLimit(Number(row.amount), limits, wallet?.currency ?? '');
  const posted = await credit(ctx, row.wallet_id, {
    kind: 'top_up',
    amount: Number(row.amount),
    reference: row.reference,
    note: row.note,
    maxBalance: limits.max_balance,
  });
  await ctx.db('wallet_top_up_requests').where({ id: row.id }).update({ wallet_transaction_id: posted.id });
  await recordActivity(ctx, {
    action: 'top_up_approved',
    subjectType: 'wallet_top_up_request',
    subjectId: row.id,
    after: { amount: Number(row.amount), balance_after: posted.balance_after },
  });
}

/**
 * A payout's approval: the wallet is debited (never below zero: a short balance is a 422 and the
 * whole decision rolls back, the request still pending). `decide` won the request from pending.
 */
async function approvePayout(ctx: ServiceContext, row: TopUpRequestRow): Promise<void> {
  const posted = await debit(ctx, row.wallet_id, { kind: 'payout', amount: Number(row.amount), reference: row.reference, note: row.note });
  await ctx.db('wallet_top_up_requests').where({ id: row.id }).update({ wallet_transaction_id: posted.id });
  await recordActivity(ctx, {
    action: 'payout_approved',
    subjectType: 'wallet_top_up_request',
    subjectId: row.id,
    after: { amount: Number(row.amount), phone: row.reference, balance_after: posted.balance_after },
  });
}

/**
 * POST /wallet-top-up-requests/{id}/approve as its own unit of work. Lost to a credit of the same
 * reference committed after the check (the unique index refused the second credit): the same 409
 * as the check's, and the request is still pending.
 */
export async function approveRequestOnce(ctx: ServiceContext, rawId: string | number): Promise<void> {
  try {
    await transact(ctx, (tctx) => approveRequest(tctx, rawId));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const id = decodeId(rawId);
    const row: Pick<TopUpRequestRow, 'wallet_id' | 'reference'> | undefined = id
      ? await ctx.db('wallet_top_up_requests').where({ id }).first('wallet_id', 'reference')
      : undefined;
    throw (row && (await referenceConflict(ctx.db, row.wallet_id, row.reference, err, 'approval'))) || err;
  }
}

export async function rejectRequest(ctx: ServiceContext, rawId: string | number, reason: string): Promise<void> {
  const row = await decide(ctx, rawId, 'rejected', reason);
  await recordActivity(ctx, {
    action: row.kind === 'payout' ? 'payout_rejected' : 'top_up_rejected',
    subjectType: 'wallet_top_up_request',
    subjectId: row.id,
    after: { reason },
  });
}
