import type { TopUpRequestKind, TransactionKind } from '@app/contracts';

/**
 * The money tables' rows as the database returns them (docs/data-model.md, "Wallets and the
 * ledger"). Amounts are integer minor units (BIGINT): mysql2 answers them as numbers
 * (supportBigNumbers, within 2^53, which the ledger's ceiling guarantees) and SQLite as numbers;
 * SUM()s are the exception (a DECIMAL string on MySQL), read with Number(). Times are the
 * database's strings (database/time.ts).
 */
export type TopUpRequestStatus = 'pending' | 'approved' | 'rejected';

export interface WalletRow {
  id: number;
  dealer_id: number;
  balance: number;
  currency: string;
  /** Minor units; null: no alert. */
  low_balance_threshold: number | null;
  low_balance_notified_at: string | null;
  created_at: string | null;
  updated_at: string | null;
}

/** A wallet with its dealer, as walletQuery selects it. */
export interface WalletListRow extends Omit<WalletRow, 'low_balance_notified_at'> {
  dealer_name: string;
  dealer_code: string | null;
  pricing_model: string | null;
}

export interface WalletTransactionRow {
  id: number;
  wallet_id: number;
  type: 'credit' | 'debit';
  kind: TransactionKind;
  amount: number;
  balance_before: number;
  balance_after: number;
  reference: string | null;
  recharge_id: number | null;
  note: string | null;
  actor_id: number | null;
  idempotency_key: string | null;
  request_hash: string | null;
  /** A top-up's bank reference, normalized (bank-references.ts); null for every other kind. */
  bank_reference_key: string | null;
  created_at: string;
}

/** A ledger row with its wallet's dealer and the acting user, as transactionQuery selects it. */
export interface WalletTransactionListRow extends WalletTransactionRow {
  dealer_id: number;
  dealer_name: string;
  dealer_code: string | null;
  actor_name: string | null;
}

export interface TopUpRequestRow {
  id: number;
  wallet_id: number;
  dealer_id: number;
  /** top_up: money paid in; payout: profit to pay out (the reference is then the mobile number). */
  kind: TopUpRequestKind;
  amount: number;
  reference: string;
  note: string | null;
  receipt_path: string | null;
  status: TopUpRequestStatus;
  reason: string | null;
  reviewed_by: number | null;
  reviewed_at: string | null;
  wallet_transaction_id: number | null;
  /** The reference's key while pending (bank-references.ts), null once decided. */
  pending_reference_key: string | null;
  created_at: string | null;
  updated_at: string | null;
}

/** A top-up request with its dealer and reviewer, as requestQuery selects it. */
export interface TopUpRequestListRow extends TopUpRequestRow {
  dealer_name: string;
  dealer_code: string | null;
  reviewer_name: string | null;
}

export interface MissedSaleListRow {
  id: number;
  dealer_id: number;
  bundle_id: number | null;
  bundle_name: string;
  amount: number;
  cost: number;
  created_at: string;
  dealer_name: string | null;
  dealer_code: string | null;
}
