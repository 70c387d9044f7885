import type { Knex } from 'knex';
import { formatMinor, MAX_MONEY_LIMIT_MINOR, type TransactionKind } from '@app/contracts';
import { AppError, fieldError } from '../http/errors.ts';
import { toDbTime } from '../database/time.ts';
import type { ServiceContext } from '../platform/context.ts';
import { bankReferenceKey } from './idempotency.ts';
import { walletEventData, walletWebhook, webhookEventRow, writeEvents } from '../webhooks/webhook-events.ts';

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
 *
 * A top-up credit carries its bank reference's key (`bank_reference_key`, unique per wallet), so
 * one bank transfer is credited once to a wallet whichever path credits it (bank-references.ts).
 *
 * Each row is told to the dealer's webhook (wallet.credited / wallet.debited) in the same
 * transaction when the dealer has an endpoint: one read before the lock, one insert after.
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

/** What a debit's UPDATE answers: the new balance, and whether the low-balance alert is now due. */
interface Debited {
  after: number;
  due: boolean;
}

/**
 * The conditional debit itself: one UPDATE that matches no row when the balance is short (null).
 * It answers the wallet's new state itself, since every sale of a shop waits on this row until
 * COMMIT: no read may sit between the debit and the commit (issue 17). SQLite: RETURNING. MySQL
 * has no RETURNING on UPDATE, but its OK packet carries LAST_INSERT_ID(expr): the new balance
 * times two, plus one when the alert is due, computed from the row's old values inside this one
 * assignment (no reliance on the order of SET clauses). Balances stay below 2^52
 * (MAX_MONEY_LIMIT_MINOR), so the packed value is an exact JS number.
 */
async function takeFromBalance(db: Knex | Knex.Transaction, walletId: number, amount: number, now: string): Promise<Debited | null> {
  if (db.client.config.client === 'better-sqlite3') {
    const [row] = (await db('wallets')
      .where({ id: walletId })
      .andWhere('balance', '>=', amount)
      .update({ balance: db.raw('balance - ?', [amount]), updated_at: now }, WALLET_STATE)) as unknown as WalletState[];
    if (!row) return null;
    const after = Number(row.balance);
    return { after, due: row.low_balance_threshold !== null && row.low_balance_notified_at === null && after < Number(row.low_balance_threshold) };
  }
  const [result] = (await db.raw(
    `UPDATE wallets SET balance = LAST_INSERT_ID((balance - ?) * 2 +
       CASE WHEN low_balance_threshold IS NOT NULL AND low_balance_notified_at IS NULL AND balance - ? < low_balance_threshold THEN 1 ELSE 0 END) DIV 2,
       updated_at = ?
     WHERE id = ? AND balance >= ?`,
    [amount, amount, now, walletId, amount],
  )) as unknown as [{ affectedRows: number; insertId: number | string }];
  if (!result.affectedRows) return null;
  const value = Number(result.insertId);
  return { after: Math.floor(value / 2), due: value % 2 === 1 };
}

async function post(ctx: ServiceContext, walletId: number, type: 'credit' | 'debit', entry: LedgerEntry): Promise<Posted> {
  if (!Number.isSafeInteger(entry.amount) || entry.amount <= 0) throw fieldError('amount', 'validation:amount_invalid');
  if (entry.amount > MAX_MONEY_LIMIT_MINOR) throw await ceilingError(ctx, walletId, 'validation:amount_above_operation_limit', MAX_MONEY_LIMIT_MINOR);
  const ceiling = Math.min(entry.maxBalance ?? MAX_MONEY_LIMIT_MINOR, MAX_MONEY_LIMIT_MINOR);
  // Whether the dealer's webhook hears of the row: read before the wallet's row is locked (issue 17).
  const hook = await walletWebhook(ctx.db, walletId, entry.rechargeId);
  const now = toDbTime();
  // Atomic on both engines: no read-then-write, so parallel debits can never lose an update, and a
  // debit that would go below zero (or a credit that would pass the ceiling) matches no row.
  let changed: number;
  let state: WalletState | undefined;
  let debited: Debited | null = null;
  if (type === 'credit') {
    changed = await ctx
      .db('wallets')
      .where({ id: walletId })
      .andWhereRaw('balance + ? <= ?', [entry.amount, ceiling])
      .update({ balance: ctx.db.raw('balance + ?', [entry.amount]), updated_at: now });
  } else {
    debited = await takeFromBalance(ctx.db, walletId, entry.amount, now);
    changed = debited ? 1 : 0;
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
    // Our own row, locked by the update: read it as it now is (a locking read on MySQL).
    state = await ctx
      .db('wallets')
      .where({ id: walletId })
      .forUpdate()
      .first(...WALLET_STATE);
  }
  // A credit read its row back above; a debit's UPDATE answered for itself.
  const after = debited ? debited.after : Number((state as WalletState).balance);
  const lowBalanceDue = debited?.due ?? false;
  const before = type === 'credit' ? after - entry.amount : after + entry.amount;
  // Timed once the wallet's row is locked (not before the wait): rows then follow the balance
  // chain in time as well as in id, which a statement's opening and closing balances rely on.
  const postedAt = toDbTime();
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
    bank_reference_key: type === 'credit' && entry.kind === 'top_up' && entry.reference?.trim() ? bankReferenceKey(entry.reference) : null,
    actor_id: ctx.actor.id,
    created_at: postedAt,
  });
  const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
  if (hook) {
    const data = walletEventData(
      { kind: entry.kind, amount: entry.amount, balance_after: after, reference: entry.reference ?? null, created_at: postedAt },
      hook.currency,
      hook.clientReference,
    );
    await writeEvents(ctx.db, [
      webhookEventRow(hook.dealerId, type === 'credit' ? 'wallet.credited' : 'wallet.debited', data, { at: postedAt, mode: hook.mode }),
    ]);
  }
  return { id, walletId, balance_before: before, balance_after: after, lowBalanceDue };
}

export const credit = (ctx: ServiceContext, walletId: number, entry: LedgerEntry) => post(ctx, walletId, 'credit', entry);
export const debit = (ctx: ServiceContext, walletId: number, entry: LedgerEntry) => post(ctx, walletId, 'debit', entry);

/** One of several debits posted together (debitMany), by the actor it is written for. */
export interface BatchDebit extends Pick<LedgerEntry, 'kind' | 'amount' | 'reference' | 'rechargeId'> {
  actorId: number | null;
}

/**
 * Several debits of one wallet in one go (a batch of sales, recharges/sale-batches.ts): one
 * conditional UPDATE for their total, then one ledger row each, their balances chained in the
 * given order exactly as if posted one by one. Null when the wallet cannot pay them all: nothing
 * was written, and the caller posts them one at a time (each then refused or paid on its own).
 */
export async function debitMany(
  db: Knex | Knex.Transaction,
  walletId: number,
  debits: BatchDebit[],
): Promise<{ balanceAfter: number; lowBalanceDue: boolean } | null> {
  for (const d of debits) {
    if (!Number.isSafeInteger(d.amount) || d.amount <= 0 || d.amount > MAX_MONEY_LIMIT_MINOR) throw fieldError('amount', 'validation:amount_invalid');
  }
  const total = debits.reduce((sum, d) => sum + d.amount, 0);
  if (!debits.length || !Number.isSafeInteger(total)) return null;
  const now = toDbTime();
  const debited = await takeFromBalance(db, walletId, total, now);
  if (!debited) return null;
  let balance = debited.after + total;
  const rows = debits.map((d) => {
    const before = balance;
    balance -= d.amount;
    return {
      wallet_id: walletId,
      type: 'debit',
      kind: d.kind,
      amount: d.amount,
      balance_before: before,
      balance_after: balance,
      reference: d.reference ?? null,
      note: null,
      recharge_id: d.rechargeId ?? null,
      idempotency_key: null,
      request_hash: null,
      actor_id: d.actorId,
    };
  });
  // Timed once the wallet's row is locked, like post().
  const postedAt = toDbTime();
  await db('wallet_transactions').insert(rows.map((r) => ({ ...r, created_at: postedAt })));
  // The caller writes the rows' webhook events (sale-batches.ts: one insert with the sales' own).
  return { balanceAfter: debited.after, lowBalanceDue: debited.due };
}

/** Sum of credits minus debits of a wallet's ledger (the invariant the tests check against the balance). */
export async function ledgerSum(db: Knex | Knex.Transaction, walletId: number): Promise<number> {
  const row = await db('wallet_transactions')
    .where({ wallet_id: walletId })
    .select(db.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total"))
    .first();
  return Number((row as { total: number | string }).total);
}
