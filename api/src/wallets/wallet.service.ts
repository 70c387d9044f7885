import type { Knex } from 'knex';
import { formatMinor, MAX_MONEY_LIMIT_MINOR, type WalletResponse, type WalletTransactionResponse } from '@app/contracts';
import { encodeId, decodeId } from '../http/ids.ts';
import { AppError, fieldError, forbidden, notFound } from '../http/errors.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { readMoneyLimits, type MoneyLimits } from '../settings/money-settings.ts';
import { credit, debit } from './ledger.ts';
import { keyedRow, keyReused, ledgerIdempotency, type Idempotency } from './idempotency.ts';
import { alreadyCredited, creditOfReference, referenceConflict } from './bank-references.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { likePattern, pageOf, type Page, type PageRequest } from '../http/list-query.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import type { WalletListRow, WalletRow, WalletTransactionListRow } from './wallet-rows.ts';
import type { SaleMode } from '../platform/sale-mode.ts';
import { ensureTestWallet } from './test-wallet.ts';

/**
 * Wallet reads and the admin's money actions (docs/data-model.md, Wallets and the ledger). Every
 * write runs in the caller's unit of work and goes through the ledger (ledger.ts).
 */
type Db = Knex | Knex.Transaction;

const walletColumns = [
  'wallets.id',
  'wallets.dealer_id',
  'wallets.balance',
  'wallets.currency',
  'wallets.low_balance_threshold',
  'wallets.created_at',
  'wallets.updated_at',
  'users.name as dealer_name',
  'users.dealer_code',
  'dealer_details.pricing_model',
];

/** Wallets of one mode (live unless asked: the console never shows the test wallets' sandbox money as a dealer's). */
export function walletQuery(db: Db, mode: SaleMode = 'live') {
  return db('wallets')
    .join('users', 'users.id', 'wallets.dealer_id')
    .leftJoin('dealer_details', 'dealer_details.user_id', 'users.id')
    .where('wallets.mode', mode)
    .select(walletColumns);
}

export function presentWallet(r: WalletListRow): WalletResponse {
  const threshold = r.low_balance_threshold === null || r.low_balance_threshold === undefined ? null : Number(r.low_balance_threshold);
  return {
    id: r.id,
    h_id: encodeId(r.id),
    dealer_id: r.dealer_id,
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    balance: formatMinor(Number(r.balance)),
    currency: r.currency,
    pricing_model: r.pricing_model === 'profit' ? 'profit' : 'cost',
    low_balance_threshold: threshold === null ? null : formatMinor(threshold),
    low_balance: threshold !== null && Number(r.balance) < threshold,
    created_at: fromDbTime(r.created_at),
    updated_at: fromDbTime(r.updated_at),
  };
}

/** A wallet the caller may see (a dealer only its own), or 404. */
export async function findWallet(ctx: ServiceContext, rawId: string | number): Promise<WalletResponse> {
  const id = decodeId(rawId);
  const qb = walletQuery(ctx.db).where('wallets.id', id ?? 0);
  if (isDealer(ctx.actor)) qb.where('wallets.dealer_id', ctx.actor.id!);
  const row: WalletListRow | undefined = id ? await qb.first() : undefined;
  if (!row) throw notFound();
  return presentWallet(row);
}

/** A dealer's wallet row of a mode (balance in integer minor units), or null when it has none. */
export async function walletOfDealer(db: Db, dealerId: number, mode: SaleMode = 'live'): Promise<WalletListRow | null> {
  const row: WalletListRow | undefined = await walletQuery(db, mode).where('wallets.dealer_id', dealerId).first();
  return row ?? null;
}

/**
 * The signed-in dealer's own wallet row (a test key's: its test wallet, made on first use); anyone
 * else (or a dealer without one) has no wallet (404).
 */
export async function ownWallet(ctx: ServiceContext): Promise<WalletListRow> {
  if (!isDealer(ctx.actor)) throw noWallet();
  const mode = ctx.mode ?? 'live';
  if (mode === 'test') await ensureTestWallet(ctx, ctx.actor.id!);
  const wallet = await walletOfDealer(ctx.db, ctx.actor.id!, mode);
  if (!wallet) throw noWallet();
  return wallet;
}

/** A page request as the list routes take it (strings from the query; bad values fall back). */
export const transactionQuery = (db: Db) =>
  db('wallet_transactions')
    .join('wallets', 'wallets.id', 'wallet_transactions.wallet_id')
    .join('users', 'users.id', 'wallets.dealer_id')
    .leftJoin('users as actors', 'actors.id', 'wallet_transactions.actor_id')
    .select('wallet_transactions.*', 'wallets.dealer_id', 'users.name as dealer_name', 'users.dealer_code', 'actors.name as actor_name');

export function presentTransaction(r: WalletTransactionListRow): WalletTransactionResponse {
  return {
    id: Number(r.id),
    wallet_id: r.wallet_id,
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    type: r.type,
    kind: r.kind,
    amount: formatMinor(Number(r.amount)),
    balance_before: formatMinor(Number(r.balance_before)),
    balance_after: formatMinor(Number(r.balance_after)),
    reference: r.reference ?? null,
    note: r.note ?? null,
    recharge_id: r.recharge_id ?? null,
    actor: r.actor_id ? { id: r.actor_id, name: r.actor_name ?? '' } : null,
    created_at: fromDbTime(r.created_at)!,
  };
}

export interface TransactionFilters {
  wallet_id?: string;
  dealer_id?: string;
  type?: string;
  kind?: string;
  from?: string;
  to?: string;
  recharge_id?: string;
  q?: string;
}

/** The ledger filters of GET /wallet-transactions (and its CSV export); dates are days in the company's time zone. */
export function applyTransactionFilters(qb: Knex.QueryBuilder, ctx: ServiceContext, f: TransactionFilters, timeZone: string): void {
  // The console's ledger is live money's: a test wallet's rows are the reseller API's (by its wallet).
  qb.where('wallets.mode', 'live');
  if (isDealer(ctx.actor)) qb.where('wallets.dealer_id', ctx.actor.id!);
  if (f.wallet_id) qb.where('wallet_transactions.wallet_id', decodeId(f.wallet_id) ?? 0);
  if (f.dealer_id) qb.where('wallets.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.type) qb.where('wallet_transactions.type', f.type);
  if (f.kind) qb.where('wallet_transactions.kind', f.kind);
  if (f.recharge_id) qb.where('wallet_transactions.recharge_id', decodeId(f.recharge_id) ?? 0);
  if (f.from) qb.where('wallet_transactions.created_at', '>=', toDbTime(startOfZonedDay(f.from, timeZone)));
  if (f.to) qb.where('wallet_transactions.created_at', '<', toDbTime(new Date(startOfZonedDay(f.to, timeZone).getTime() + 86_400_000)));
  if (f.q) qb.where('wallet_transactions.reference', 'like', `%${f.q.replace(/[!%_]/g, (c) => `!${c}`)}%`);
}

export interface WalletListFilters {
  /** A dealer's name or code. */
  q?: string;
  /** 'true': only the wallets under their low-balance alert; 'false' or absent: no filter. */
  below_alert?: 'true' | 'false';
  sort?: 'balance' | 'dealer' | 'updated_at' | 'id';
}

/** Keeps the wallets under their low-balance alert: a threshold is set and the balance is below it (as `low_balance` says). */
const underAlert = (qb: Knex.QueryBuilder) => qb.whereNotNull('wallets.low_balance_threshold').whereRaw('wallets.balance < wallets.low_balance_threshold');

/**
 * How many of the wallets GET /wallets lists (live, dealers not deleted) are under their
 * low-balance alert: the Wallets menu's red badge and the dashboard's card. Staff only.
 */
export async function belowAlertCount(ctx: ServiceContext): Promise<number> {
  if (isDealer(ctx.actor)) throw forbidden();
  const qb = ctx.db('wallets').join('users', 'users.id', 'wallets.dealer_id').where('wallets.mode', 'live').whereNull('users.deleted_at');
  const row = await underAlert(qb).count({ n: '*' }).first();
  return Number((row as { n: number | string } | undefined)?.n ?? 0);
}

/** A page of the live dealers' wallets, by dealer name (A to Z) unless sorted otherwise (then newest or largest first). */
export function listWallets(ctx: ServiceContext, f: WalletListFilters, p: PageRequest): Promise<Page<WalletResponse>> {
  const qb = walletQuery(ctx.db).whereNull('users.deleted_at');
  if (f.below_alert === 'true') underAlert(qb);
  const q = (f.q ?? '').trim();
  if (q)
    qb.where((w) =>
      w
        .whereRaw("LOWER(users.name) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)])
        .orWhereRaw("LOWER(users.dealer_code) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)]),
    );
  const sort = { balance: 'wallets.balance', dealer: 'users.name', updated_at: 'wallets.updated_at', id: 'wallets.id' }[f.sort ?? 'dealer'] ?? 'users.name';
  return pageOf(qb, { ...p, order: p.order || (sort === 'users.name' ? 'asc' : 'desc') }, sort, presentWallet, 'wallets.id');
}

/** The ledger rows the caller may read (a dealer: its own), filtered, and the company time zone they were read in. */
async function filteredTransactions(ctx: ServiceContext, f: TransactionFilters) {
  const { timezone } = await readCompanySettings(ctx.db);
  const qb = transactionQuery(ctx.db);
  applyTransactionFilters(qb, ctx, f, timezone);
  // Wrapped: a knex builder is thenable, so returning it from an async function would run it.
  return { qb, timezone };
}

const LEDGER_SORT_COLUMNS = { id: 'wallet_transactions.id', created_at: 'wallet_transactions.created_at' } as const;

/** A page of the filtered ledger by `sort` (id or created_at, then id), newest first unless `order` is asc. */
export async function listTransactions(
  ctx: ServiceContext,
  f: TransactionFilters,
  p: PageRequest & { sort?: string },
): Promise<Page<WalletTransactionResponse>> {
  const column = LEDGER_SORT_COLUMNS[(p.sort ?? 'id') as keyof typeof LEDGER_SORT_COLUMNS] ?? LEDGER_SORT_COLUMNS.id;
  return pageOf((await filteredTransactions(ctx, f)).qb, p, column, presentTransaction, 'wallet_transactions.id');
}

/** The filtered ledger for the CSV, newest first, at most `limit` rows. */
export async function exportTransactions(ctx: ServiceContext, f: TransactionFilters, limit: number) {
  const { qb, timezone } = await filteredTransactions(ctx, f);
  const rows: WalletTransactionListRow[] = await qb.orderBy('wallet_transactions.id', 'desc').limit(limit);
  return { rows: rows.map(presentTransaction), timezone };
}

/** Locks the wallet row for this unit of work and says whose it is (a dealer may only act on its own). */
async function lockWallet(ctx: ServiceContext, rawId: string | number) {
  const id = decodeId(rawId);
  const row: Pick<WalletRow, 'id' | 'dealer_id' | 'currency' | 'low_balance_threshold'> | undefined = id
    ? await ctx.db('wallets').where({ id, mode: 'live' }).forUpdate().first('id', 'dealer_id', 'currency', 'low_balance_threshold')
    : undefined;
  if (!row) throw notFound();
  return row;
}

/** An admin credit (a top-up, an adjustment credit, an approved top-up request) above the company's ceiling on one operation: 422. */
export function checkOperationLimit(amount: number, limits: MoneyLimits, currency: string): void {
  if (amount > limits.max_operation)
    throw fieldError('amount', 'validation:amount_above_operation_limit', { max: formatMinor(limits.max_operation), currency });
}

/** What an admin's money action did: the ledger row it wrote, or the one an earlier request with the same key wrote. */
export interface MoneyOutcome {
  walletId: number;
  transactionId: number;
  replayed: boolean;
}

/** The same key seen before: its result, or a 409 when it asked for something else. */
async function earlier(ctx: ServiceContext, walletId: number, idem: Idempotency, lock: boolean): Promise<MoneyOutcome | null> {
  const row = await keyedRow(ctx.db, walletId, idem.key, lock);
  if (!row) return null;
  if (row.request_hash !== idem.hash) throw keyReused(idem);
  return { walletId, transactionId: row.id, replayed: true };
}

type TopUpInput = { amount: number; reference: string; note?: string | null };
type AdjustInput = { type: 'credit' | 'debit'; amount: number; reference: string; note: string };

/**
 * Credits money the dealer paid in. Idempotent by `idem` (by default the reference): a key seen
 * before answers its first result and writes nothing. A bank reference already credited to the
 * wallet by anything else (another key, an approved request) is a 409 naming that credit
 * (bank-references.ts). Call inside a unit of work.
 */
export async function topUp(
  ctx: ServiceContext,
  rawId: string | number,
  input: TopUpInput,
  idem: Idempotency = ledgerIdempotency('top_up', { type: 'credit', ...input }),
): Promise<MoneyOutcome> {
  const wallet = await lockWallet(ctx, rawId);
  const seen = await earlier(ctx, wallet.id, idem, true);
  if (seen) return seen;
  // One bank transfer, one credit, whatever the key: checked after the replay above, so the same
  // request again still answers its first result. The wallet row is locked; the unique index on
  // (wallet_id, bank_reference_key) covers what this read cannot see.
  const first = await creditOfReference(ctx.db, wallet.id, input.reference, true);
  if (first) throw await alreadyCredited(ctx.db, wallet.id, first, 'top_up');
  const limits = await readMoneyLimits(ctx.db);
  checkOperationLimit(input.amount, limits, wallet.currency);
  const posted = await credit(ctx, wallet.id, {
    kind: 'top_up',
    amount: input.amount,
    reference: input.reference,
    note: input.note,
    maxBalance: limits.max_balance,
    idempotencyKey: idem.key,
    requestHash: idem.hash,
  });
  await recordActivity(ctx, {
    action: 'wallet_topped_up',
    subjectType: 'wallet',
    subjectId: wallet.id,
    after: { amount: input.amount, reference: input.reference, balance_after: posted.balance_after, idempotency_key: idem.key },
  });
  return { walletId: wallet.id, transactionId: posted.id, replayed: false };
}

/** A correction, credit or debit, idempotent like a top-up. A credit passes the ceilings; a debit never goes below zero. Call inside a unit of work. */
export async function adjust(
  ctx: ServiceContext,
  rawId: string | number,
  input: AdjustInput,
  idem: Idempotency = ledgerIdempotency('adjustment', input),
): Promise<MoneyOutcome> {
  const wallet = await lockWallet(ctx, rawId);
  const seen = await earlier(ctx, wallet.id, idem, true);
  if (seen) return seen;
  const entry = {
    kind: 'adjustment' as const,
    amount: input.amount,
    reference: input.reference,
    note: input.note,
    idempotencyKey: idem.key,
    requestHash: idem.hash,
  };
  let posted;
  if (input.type === 'credit') {
    const limits = await readMoneyLimits(ctx.db);
    checkOperationLimit(input.amount, limits, wallet.currency);
    posted = await credit(ctx, wallet.id, { ...entry, maxBalance: limits.max_balance });
  } else {
    posted = await debit(ctx, wallet.id, entry);
  }
  await recordActivity(ctx, {
    action: 'wallet_adjusted',
    subjectType: 'wallet',
    subjectId: wallet.id,
    after: {
      type: input.type,
      amount: input.amount,
      reference: input.reference,
      note: input.note,
      balance_after: posted.balance_after,
      idempotency_key: idem.key,
    },
  });
  return { walletId: wallet.id, transactionId: posted.id, replayed: false };
}

/**
 * Runs a keyed money action as its own unit of work. Two requests with one key at the same moment:
 * the unique index on (wallet_id, idempotency_key) lets one write, and the other answers the
 * winner's result (or 409 when it asked for something else). A top-up (`reference`) that lost to
 * another credit of its bank reference under another key gets that one's 409.
 */
async function once(
  ctx: ServiceContext,
  rawId: string | number,
  idem: Idempotency,
  work: (tctx: ServiceContext) => Promise<MoneyOutcome>,
  reference?: string,
): Promise<MoneyOutcome> {
  try {
    return await transact(ctx, work);
  } catch (err) {
    const walletId = decodeId(rawId);
    if (!isUniqueViolation(err) || !walletId) throw err;
    const winner = await earlier(ctx, walletId, idem, false);
    if (winner) return winner;
    throw (reference !== undefined && (await referenceConflict(ctx.db, walletId, reference, err, 'top_up'))) || err;
  }
}

/** POST /wallets/{id}/top-up: the key is the Idempotency-Key header when sent, else the reference. */
export function topUpOnce(ctx: ServiceContext, rawId: string | number, input: TopUpInput, header?: string | null): Promise<MoneyOutcome> {
  const idem = ledgerIdempotency('top_up', { header, type: 'credit', ...input });
  return once(ctx, rawId, idem, (tctx) => topUp(tctx, rawId, input, idem), input.reference);
}

/** POST /wallets/{id}/adjust, keyed like a top-up. */
export function adjustOnce(ctx: ServiceContext, rawId: string | number, input: AdjustInput, header?: string | null): Promise<MoneyOutcome> {
  const idem = ledgerIdempotency('adjustment', { header, ...input });
  return once(ctx, rawId, idem, (tctx) => adjust(tctx, rawId, input, idem));
}

/**
 * Sets (or with null clears) a wallet's low-balance threshold. A new threshold re-arms the alert:
 * the next sale that leaves the balance below it sends one email (low-balance.ts). Call inside a
 * unit of work; logs the change, and nothing when nothing changed.
 */
export async function setLowBalanceThreshold(ctx: ServiceContext, rawId: string | number, threshold: number | null): Promise<void> {
  if (threshold !== null && threshold > MAX_MONEY_LIMIT_MINOR) throw fieldError('threshold', 'validation:money_limit_too_high');
  const wallet = await lockWallet(ctx, rawId);
  if (isDealer(ctx.actor) && wallet.dealer_id !== ctx.actor.id) throw notFound();
  const before = wallet.low_balance_threshold === null ? null : Number(wallet.low_balance_threshold);
  if (before === threshold) return;
  await ctx.db('wallets').where({ id: wallet.id }).update({ low_balance_threshold: threshold, low_balance_notified_at: null, updated_at: toDbTime() });
  await recordActivity(ctx, {
    action: 'low_balance_alert_changed',
    subjectType: 'wallet',
    subjectId: wallet.id,
    before: { threshold: before === null ? null : formatMinor(before) },
    after: { threshold: threshold === null ? null : formatMinor(threshold) },
  });
}

/**
 * The dealer's last 30 days, oldest first: credits and debits per day and the balance at each
 * day's end (replayed backwards from the current balance, so it needs one grouped query).
 */
export async function dailySeries(db: Db, walletId: number, balance: number, timeZone: string, days = 30) {
  const today = zonedDay(new Date(), timeZone);
  const dates: string[] = [];
  for (let i = days - 1; i >= 0; i--) dates.push(zonedDay(new Date(startOfZonedDay(today, timeZone).getTime() - i * 86_400_000 + 12 * 3_600_000), timeZone));
  const since = toDbTime(startOfZonedDay(dates[0], timeZone));
  const rows: { type: string; amount: number | string; created_at: string }[] = await db('wallet_transactions')
    .where('wallet_id', walletId)
    .where('created_at', '>=', since)
    .select('type', 'amount', 'created_at');
  const perDay = new Map(dates.map((d) => [d, { credits: 0, debits: 0 }]));
  for (const r of rows) {
    const day = perDay.get(zonedDay(new Date(fromDbTime(r.created_at)!), timeZone));
    if (!day) continue;
    if (r.type === 'credit') day.credits += Number(r.amount);
    else day.debits += Number(r.amount);
  }
  let closing = balance;
  const out: { date: string; credits: string; debits: string; balance: string }[] = [];
  for (const date of [...dates].reverse()) {
    const d = perDay.get(date)!;
    out.push({ date, credits: formatMinor(d.credits), debits: formatMinor(d.debits), balance: formatMinor(closing) });
    closing = closing - d.credits + d.debits;
  }
  return out.reverse();
}

export const noWallet = () => new AppError(404, 'api:wallets.no_wallet');
