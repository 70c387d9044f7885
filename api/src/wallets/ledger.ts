import type { Knex } from 'knex';
import { formatMinor, MAX_MONEY_LIMIT_MINOR, type TransactionKind } from '@app/contracts';
import { AppError, fieldError } from '../http/errors.ts';
import { toDbTime } from '../database/time.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * The only code that changes a wallet's balance (docs/data-model.md, "Wallets and the ledger": the five invariants). Every
 * change is one conditional UPDATE of the balance plus one ledger row with balance_before and
 * balance_after, on the caller's transaction. Call inside a unit of work.
 *
 * Safety net: no amount and no resulting balance above MAX_MONEY_LIMIT_MINOR, so every figure stays
 * an exact integer far below 2^53. An admin's credit also passes its balance ceiling (`maxBalance`,
 * settings `money`); sales, refunds and profit credits do not, so a lowered ceiling never blocks
 * money owed to a dealer. A credit that brings the balance back to its low-balance threshold
 * re-arms the alert (low-balance.ts), in the same transaction.
 */
export interface LedgerEntry {
  kind: TransactionKind;
  /** Positive cents. */
  amount: number;
  reference?: string | null;
  note?: string | null;
  rechargeId?: number | null;
  /** The highest balance this credit may reach (an admin's operation; the company's ceiling). */
  maxBalance?: number;
  /** An admin request's idempotency key (unique per wallet) and the hash of what it asked. */
  idempotencyKey?: string | null;
  requestHash?: string | null;
}

export interface Posted {
  id: number;
  walletId: number;
  balance_before: number;
  balance_after: number;
  /** A debit left the balance below the wallet's threshold, and the dealer has not been told yet (low-balance.ts). */
  lowBalanceDue: boolean;
}

/** Raised when a debit would take the balance below zero: nothing was written. */
export class InsufficientBalance extends AppError {
  constructor(field = 'amount') {
    super(422, 'api:errors.validation', { [field]: ['validation:insufficient_balance'] });
  }
}

/** A refusal that names the ceiling in the wallet's currency. */
async function ceilingError(ctx: ServiceContext, walletId: number, message: string, max: number): Promise<AppError> {
  const wallet = await ctx.db('wallets').where({ id: walletId }).first('currency');
  if (!wallet) return new AppError(404, 'api:errors.not_found');
  return fieldError('amount', message, { max: formatMinor(max), currency: wallet.currency ?? '' });
}

/** What a posting reads back of its wallet, as it now is. */
const WALLET_STATE = ['balance', 'low_balance_threshold', 'low_balance_notified_at'];
interface WalletState {
  balance: number | string;
  low_balance_threshold: number | string | null;
  low_balance_notified_at: string | null;
}

async function post(ctx: ServiceContext, walletId: number, type: 'credit' | 'debit', entry: LedgerEntry): Promise<Posted> {
  if (!Number.isSafeInteger(entry.amount) || entry.amount <= 0) throw fieldError('amount', 'validation:amount_invalid');
  if (entry.amount > MAX_MONEY_LIMIT_MINOR) throw await ceilingError(ctx, walletId, 'validation:amount_above_operation_limit', MAX_MONEY_LIMIT_MINOR);
  const ceiling = Math.min(entry.maxBalance ?? MAX_MONEY_LIMIT_MINOR, MAX_MONEY_LIMIT_MINOR);
  const now = toDbTime();
  // Atomic on both engines: no read-then-write, so parallel debits can never lose an update, and a
  // debit that would go below zero (or a credit that would pass the ceiling) matches no row.
  // SQLite answers a debit's new state with the UPDATE itself (RETURNING); MySQL has no RETURNING on UPDATE.
  let changed: number;
  let state: WalletState | undefined;
  if (type === 'credit') {
    changed = await ctx
      .db('wallets')
      .where({ id: walletId })
      .andWhereRaw('balance + ? <= ?', [entry.amount, ceiling])
      .update({ balance: ctx.db.raw('balance + ?', [entry.amount]), updated_at: now });
  } else {
    const qb = ctx.db('wallets').where({ id: walletId }).andWhere('balance', '>=', entry.amount);
    const patch = { balance: ctx.db.raw('balance - ?', [entry.amount]), updated_at: now };
    if (ctx.db.client.config.client === 'better-sqlite3') {
      [state] = (await qb.update(patch, WALLET_STATE)) as unknown as WalletState[];
      changed = state ? 1 : 0;
    } else changed = await qb.update(patch);
  }
  if (changed === 0) {
    if (!(await ctx.db('wallets').where({ id: walletId }).first('id'))) throw new AppError(404, 'api:errors.not_found');
    if (type === 'credit') throw await ceilingError(ctx, walletId, 'validation:balance_above_ceiling', ceiling);
    throw new InsufficientBalance();
  }
  if (type === 'credit') {
    // Back at or above the threshold: the next crossing alerts again. A separate statement, since
    // MySQL would read the new balance inside the same UPDATE and SQLite the old one.
    await ctx
      .db('wallets')
      .where({ id: walletId })
      .whereNotNull('low_balance_notified_at')
      .where((w) => w.whereNull('low_balance_threshold').orWhereRaw('balance >= low_balance_threshold'))
      .update({ low_balance_notified_at: null });
  }
  // Our own row, locked by the update: read it as it now is (a locking read on MySQL).
  const row: WalletState =
    state ??
    (await ctx
      .db('wallets')
      .where({ id: walletId })
      .forUpdate()
      .first(...WALLET_STATE));
  const after = Number(row.balance);
  const lowBalanceDue =
    type === 'debit' && row.low_balance_threshold !== null && row.low_balance_notified_at === null && after < Number(row.low_balance_threshold);
  const before = type === 'credit' ? after - entry.amount : after + entry.amount;
  const [inserted] = await ctx.db('wallet_transactions').insert({
    wallet_id: walletId,
    type,
    kind: entry.kind,
    amount: entry.amount,
    balance_before: before,
    balance_after: after,
    reference: entry.reference ?? null,
    note: entry.note ?? null,
    recharge_id: entry.rechargeId ?? null,
    idempotency_key: entry.idempotencyKey ?? null,
    request_hash: entry.requestHash ?? null,
    actor_id: ctx.actor.id,
    created_at: now,
  });
  const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
  return { id, walletId, balance_before: before, balance_after: after, lowBalanceDue };
}

export const credit = (ctx: ServiceContext, walletId: number, entry: LedgerEntry) => post(ctx, walletId, 'credit', entry);
export const debit = (ctx: ServiceContext, walletId: number, entry: LedgerEntry) => post(ctx, walletId, 'debit', entry);

/** Sum of credits minus debits of a wallet's ledger (the invariant the tests check against the balance). */
export async function ledgerSum(db: Knex | Knex.Transaction, walletId: number): Promise<number> {
  const row = await db('wallet_transactions')
    .where({ wallet_id: walletId })
    .select(db.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total"))
    .first();
  return Number((row as { total: number | string }).total);
}
