import type { Knex } from 'knex';
import { formatMinor } from '@app/contracts';
import { AppError, conflict } from '../http/errors.ts';
import { zonedIsoTime } from '../http/csv.ts';
import { fromDbTime } from '../database/time.ts';
import { isUniqueViolation, violatedConstraint } from '../database/db-errors.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { bankReferenceKey } from './idempotency.ts';

/**
 * One bank transfer, one credit (docs/data-model.md, "Wallets and the ledger"): a bank reference
 * is credited to a wallet once, whether it comes as an admin's top-up or as an approved top-up
 * request, and a wallet has at most one pending request per reference. The services check first,
 * with the wallet row locked, so the 409 can name the first credit or the pending request; two
 * unique indexes (db/migrations/20261127A-wallet-bank-references.ts) decide whatever a check
 * cannot see, and their violations are answered with the same 409s.
 */
type Db = Knex | Knex.Transaction;

// The migration's index names, which are also the names db-errors.ts gives SQLite's messages.
const CREDITED_INDEX = 'wallet_transactions_wallet_id_bank_reference_key_unique';
const PENDING_INDEX = 'wallet_top_up_requests_pending_reference_key_wallet_id_unique';

/** The ledger row (or the request) a reference already belongs to. */
interface Holder {
  id: number;
  amount: number;
  created_at: string;
}

const holder = (row: { id: number | string; amount: number | string; created_at: string } | undefined): Holder | undefined =>
  row ? { id: Number(row.id), amount: Number(row.amount), created_at: row.created_at } : undefined;

/**
 * The top-up that already credited this reference to the wallet. `lock`: a locking read, which on
 * MySQL sees what committed after this transaction's snapshot (a concurrent credit).
 */
export async function creditOfReference(db: Db, walletId: number, reference: string, lock = false): Promise<Holder | undefined> {
  const qb = db('wallet_transactions').where({ wallet_id: walletId, bank_reference_key: bankReferenceKey(reference) });
  if (lock) qb.forUpdate();
  return holder(await qb.first('id', 'amount', 'created_at'));
}

/** The wallet's request still pending under this reference. `lock` as above. */
export async function pendingOfReference(db: Db, walletId: number, reference: string, lock = false): Promise<Holder | undefined> {
  const qb = db('wallet_top_up_requests').where({ wallet_id: walletId, pending_reference_key: bankReferenceKey(reference) });
  if (lock) qb.forUpdate();
  return holder(await qb.first('id', 'amount', 'created_at'));
}

/**
 * A 409 on `reference` whose message names the holder: when (the company's clock, to the minute),
 * how much, and its id as `idVar` (the ledger row's `transaction`, the request's `request`). The
 * vars fill the field's message too.
 */
async function refusal(db: Db, walletId: number, first: Holder, message: string, idVar: 'transaction' | 'request'): Promise<AppError> {
  const [{ timezone }, wallet] = await Promise.all([readCompanySettings(db), db('wallets').where({ id: walletId }).first('currency')]);
  const at = zonedIsoTime(fromDbTime(first.created_at), timezone);
  const vars = { date: at.slice(0, 16).replace('T', ' '), amount: formatMinor(first.amount), currency: wallet?.currency ?? '', [idVar]: first.id };
  return new AppError(409, message, { reference: [message] }, vars);
}

/** Which message a refusal takes: an admin's top-up, a dealer's new request, an approval. */
export type CreditedBy = 'top_up' | 'request' | 'approval';
const CREDITED: Record<CreditedBy, string> = {
  top_up: 'api:wallets.reference_already_credited',
  request: 'api:wallets.request_reference_credited',
  approval: 'api:wallets.approval_reference_credited',
};

export const alreadyCredited = (db: Db, walletId: number, first: Holder, by: CreditedBy) => refusal(db, walletId, first, CREDITED[by], 'transaction');
export const alreadyPending = (db: Db, walletId: number, pending: Holder) => refusal(db, walletId, pending, 'api:wallets.reference_pending', 'request');

/**
 * After a unit of work failed: the 409 that a violation of either index stands for, read once
 * the winner has committed; null for any other error (the caller rethrows it).
 */
export async function referenceConflict(db: Db, walletId: number, reference: string, err: unknown, by: CreditedBy): Promise<AppError | null> {
  if (!isUniqueViolation(err)) return null;
  const index = violatedConstraint(err);
  if (index === CREDITED_INDEX) {
    const first = await creditOfReference(db, walletId, reference);
    return first ? alreadyCredited(db, walletId, first, by) : conflict('api:errors.duplicate');
  }
  if (index === PENDING_INDEX) {
    const pending = await pendingOfReference(db, walletId, reference);
    return pending ? alreadyPending(db, walletId, pending) : conflict('api:errors.duplicate');
  }
  return null;
}
