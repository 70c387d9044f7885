import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../http/errors.ts';

/**
 * Idempotency of an admin's top-up or adjustment (docs/data-model.md, Wallets and the ledger).
 * The key is the `Idempotency-Key` header when sent, else the bank reference, within one wallet,
 * prefixed by the kind: `top_up:hdr:<key>`, `top_up:ref:<reference>`, `adjustment:...`. It is kept
 * on the ledger row (`wallet_transactions.idempotency_key`, unique per wallet) with the sha256 of
 * what was asked (`request_hash`): the same key again answers the first result, the same key
 * with another request is a 409.
 */
export type KeyedKind = 'top_up' | 'adjustment';

export interface Idempotency {
  key: string;
  hash: string;
  source: 'header' | 'reference';
}

const MAX_KEY = 160;
// Strings both engines compare alike: SQLite byte for byte, MariaDB's utf8mb4_unicode_ci ignoring
// case, accents and trailing spaces. Anything else is stored as its hash, so a key means one thing
// on both databases.
const PLAIN = /^[a-z0-9_.:#/+-]+(?: [a-z0-9_.:#/+-]+)*$/;

const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** `raw` under its prefix when both engines compare it alike and it fits, else `<prefix>sha256:<hex>`. */
function comparable(prefix: string, raw: string): string {
  const readable = `${prefix}${raw}`;
  return PLAIN.test(raw) && readable.length <= MAX_KEY ? readable : `${prefix}sha256:${sha256(raw)}`;
}

/**
 * One bank transfer's identity within a wallet (`wallet_transactions.bank_reference_key`,
 * `wallet_top_up_requests.pending_reference_key`): the reference trimmed and in lower case, so
 * `EVC-1`, ` evc-1 ` and `Evc-1` are one payment; kept as its hash when the engines would compare
 * it differently. db/migrations/20261127A-wallet-bank-references.ts computes the same for old rows.
 */
export function bankReferenceKey(reference: string): string {
  return comparable('', reference.trim().toLowerCase());
}

export function ledgerIdempotency(
  kind: KeyedKind,
  request: { header?: string | null; type: 'credit' | 'debit'; amount: number; reference: string; note?: string | null },
): Idempotency {
  const header = request.header?.trim() || null;
  // A bank reference names one payment whatever its case; an Idempotency-Key is opaque, case and all.
  const reference = request.reference.trim().toLowerCase();
  const raw = header ?? reference;
  const key = comparable(`${kind}:${header ? 'hdr' : 'ref'}:`, raw);
  const hash = sha256(JSON.stringify({ kind, type: request.type, amount: request.amount, reference, note: request.note?.trim() || null }));
  return { key, hash, source: header ? 'header' : 'reference' };
}

/** The ledger row already written under this key, if any (a locking read inside a unit of work on MySQL). */
export async function keyedRow(
  db: Knex | Knex.Transaction,
  walletId: number,
  key: string,
  lock = false,
): Promise<{ id: number; request_hash: string | null } | undefined> {
  const qb = db('wallet_transactions').where({ wallet_id: walletId, idempotency_key: key });
  if (lock) qb.forUpdate();
  const row = await qb.first('id', 'request_hash');
  return row ? { id: Number(row.id), request_hash: row.request_hash ?? null } : undefined;
}

/**
 * The same key with a different request: refused, never a second credit. An Idempotency-Key is
 * the IETF draft's 422 (as on the reseller API and the storefront); a bank reference already
 * credited is a conflict with that credit (409).
 */
export function keyReused(idem: Idempotency): AppError {
  return idem.source === 'header'
    ? new AppError(422, 'api:wallets.idempotency_key_reused')
    : new AppError(409, 'api:wallets.reference_reused', { reference: ['api:wallets.reference_reused'] });
}
