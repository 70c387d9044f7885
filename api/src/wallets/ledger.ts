import type { Knex } from 'knex';
import type { TransactionKind } from '@app/contracts';
import { AppError, fieldError } from '../http/errors.ts';
import { toDbTime } from '../database/time.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * The only code that changes a wallet's balance (docs/data-model.md, the five invariants). Every
 * change is one conditional UPDATE of the balance plus one ledger row with balance_before and
 * balance_after, on the caller's transaction. Call inside a unit of work.
 */
export interface LedgerEntry {
  kind: TransactionKind;
  /** Positive cents. */
  amount: number;
  reference?: string | null;
  note?: string | null;
  rechargeId?: number | null;
}

export interface Posted {
  id: number;
  balance_before: number;
  balance_after: number;
}

/** Raised when a debit would take the balance below zero: nothing was written. */
export class InsufficientBalance extends AppError {
  constructor(field = 'amount') {
    super(422, 'api:errors.validation', { [field]: ['validation:insufficient_balance'] });
  }
}

async function post(ctx: ServiceContext, walletId: number, type: 'credit' | 'debit', entry: LedgerEntry): Promise<Posted> {
  if (!Number.isSafeInteger(entry.amount) || entry.amount <= 0) throw fieldError('amount', 'validation:amount_invalid');
  const now = toDbTime();
  // Atomic on both engines: no read-then-write, so parallel debits can never lose an update, and a
  // debit that would go below zero matches no row.
  const changed =
    type === 'credit'
      ? await ctx.db('wallets').where({ id: walletId }).update({ balance: ctx.db.raw('balance + ?', [entry.amount]), updated_at: now })
      : await ctx.db('wallets').where({ id: walletId }).andWhere('balance', '>=', entry.amount).update({ balance: ctx.db.raw('balance - ?', [entry.amount]), updated_at: now });
  if (changed === 0) {
    if (!(await ctx.db('wallets').where({ id: walletId }).first('id'))) throw new AppError(404, 'api:errors.not_found');
    throw new InsufficientBalance();
  }
  // Our own row, locked by the update: read it as it now is (a locking read on MySQL).
  const row = await ctx.db('wallets').where({ id: walletId }).forUpdate().first('balance');
  const after = Number(row.balance);
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
    actor_id: ctx.actor.id,
    created_at: now,
  });
  const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
  return { id, balance_before: before, balance_after: after };
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
