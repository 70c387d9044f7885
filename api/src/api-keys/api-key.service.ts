import type { Knex } from 'knex';
import {
  apiKeyMark,
  type ApiKeyMode,
  type ApiKeyResponse,
  type ApiKeyScope,
  type ApiKeyUseResponse,
  type CreateApiKey,
  type CreatedApiKey,
  type WalletResponse,
} from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { notFound } from '../http/errors.ts';
import { pageOf, type Page, type PageRequest } from '../http/list-query.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { resolveDealer } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { newApiKey } from './api-key-secrets.ts';
import { modeOf } from '../platform/sale-mode.ts';
import { ensureTestWallet, resetTestWallet } from '../wallets/test-wallet.ts';
import { presentWallet, walletOfDealer } from '../wallets/wallet.service.ts';

/**
 * The console's side of API keys (GET/POST/DELETE /dealer/api-keys): a dealer makes, lists and
 * revokes its own keys; an admin with the permission does so for any dealer (?dealer_id=). The
 * whole key is answered once, at creation; afterwards only its public prefix is.
 */
type Db = Knex | Knex.Transaction;

export interface ApiKeyRow {
  id: number;
  dealer_id: number;
  name: string;
  prefix: string;
  secret_hash: string;
  mode: string;
  scopes: string;
  ip_allowlist: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  created_by: number | null;
  revoked_at: string | null;
  revoked_by: number | null;
  created_at: string;
  updated_at: string;
}

interface ApiKeyListRow extends ApiKeyRow {
  dealer_name: string;
  dealer_code: string | null;
  creator_name: string | null;
  revoker_name: string | null;
}

export const parseList = <T extends string>(json: string | null): T[] => {
  if (!json) return [];
  const list: unknown = JSON.parse(json);
  return Array.isArray(list) ? (list as T[]) : [];
};

const keyQuery = (db: Db) =>
  db('api_keys')
    .join('users as dealers', 'dealers.id', 'api_keys.dealer_id')
    .leftJoin('users as creators', 'creators.id', 'api_keys.created_by')
    .leftJoin('users as revokers', 'revokers.id', 'api_keys.revoked_by')
    .select('api_keys.*', 'dealers.name as dealer_name', 'dealers.dealer_code', 'creators.name as creator_name', 'revokers.name as revoker_name');

export function presentApiKey(r: ApiKeyListRow): ApiKeyResponse {
  return {
    id: r.id,
    h_id: encodeId(r.id),
    dealer: dealerRef(r.dealer_id, r.dealer_name, r.dealer_code),
    name: r.name,
    prefix: `${apiKeyMark(modeOf(r.mode))}${r.prefix}`,
    mode: modeOf(r.mode),
    scopes: parseList<ApiKeyScope>(r.scopes),
    ip_allowlist: parseList<string>(r.ip_allowlist),
    last_used_at: fromDbTime(r.last_used_at),
    last_used_ip: r.last_used_ip ?? null,
    created_by: r.created_by ? { id: r.created_by, name: r.creator_name ?? '' } : null,
    created_at: fromDbTime(r.created_at)!,
    revoked_at: fromDbTime(r.revoked_at),
    revoked_by: r.revoked_by ? { id: r.revoked_by, name: r.revoker_name ?? '' } : null,
  };
}

/** One key the caller may see: a dealer only its own (another's is the same 404 as none). */
async function findKey(ctx: ServiceContext, rawId: string): Promise<ApiKeyListRow> {
  const id = decodeId(rawId);
  const qb = keyQuery(ctx.db).where('api_keys.id', id ?? 0);
  if (isDealer(ctx.actor)) qb.where('api_keys.dealer_id', ctx.actor.id!);
  const row: ApiKeyListRow | undefined = id ? await qb.first() : undefined;
  if (!row) throw notFound('api:api_keys.not_found');
  return row;
}

export const showApiKey = async (ctx: ServiceContext, rawId: string) => presentApiKey(await findKey(ctx, rawId));

export interface ApiKeyFilters extends PageRequest {
  dealer_id?: string;
  status?: 'active' | 'revoked';
  mode?: ApiKeyMode;
}

/** A page of keys, newest first: a dealer's own; an admin's all, or one dealer's with dealer_id. */
export async function listApiKeys(ctx: ServiceContext, f: ApiKeyFilters): Promise<Page<ApiKeyResponse>> {
  const qb = keyQuery(ctx.db);
  if (isDealer(ctx.actor)) qb.where('api_keys.dealer_id', ctx.actor.id!);
  else if (f.dealer_id) qb.where('api_keys.dealer_id', decodeId(f.dealer_id) ?? 0);
  if (f.status === 'active') qb.whereNull('api_keys.revoked_at');
  if (f.status === 'revoked') qb.whereNotNull('api_keys.revoked_at');
  if (f.mode) qb.where('api_keys.mode', f.mode);
  return pageOf(qb, f, 'api_keys.id', presentApiKey, 'api_keys.id');
}

/** A new key for a dealer (a dealer: itself; an admin names one), logged; the whole key is in this answer only. */
export async function createApiKey(ctx: ServiceContext, rawDealerId: unknown, input: CreateApiKey): Promise<CreatedApiKey> {
  const dealer = await resolveDealer(ctx, rawDealerId);
  const { key, prefix, secretHash } = newApiKey(input.mode);
  const id = await transact(ctx, async (tctx) => {
    const now = toDbTime();
    const [inserted] = await tctx.db('api_keys').insert({
      dealer_id: dealer.id,
      name: input.name,
      prefix,
      secret_hash: secretHash,
      mode: input.mode,
      scopes: JSON.stringify(input.scopes),
      ip_allowlist: input.ip_allowlist.length ? JSON.stringify(input.ip_allowlist) : null,
      created_by: ctx.actor.id,
      created_at: now,
      updated_at: now,
    });
    const newId = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
    await recordActivity(tctx, {
      action: 'api_key_created',
      subjectType: 'api_key',
      subjectId: newId,
      // The secret is never logged: the prefix names the key.
      after: {
        name: input.name,
        prefix: `${apiKeyMark(input.mode)}${prefix}`,
        mode: input.mode,
        dealer_id: dealer.id,
        scopes: input.scopes,
        ip_allowlist: input.ip_allowlist,
      },
    });
    return newId;
  });
  // A test key's sandbox has its wallet from the start (its own unit of work: two keys made at once make one).
  if (input.mode === 'test') await ensureTestWallet(ctx, dealer.id);
  return { api_key: presentApiKey(await findKey(ctx, String(id))), key };
}

/**
 * Revokes a key at once: its next call is a 401. Revoking a revoked key changes nothing and logs
 * nothing; two revocations at once log one (the update is conditional).
 */
export async function revokeApiKey(ctx: ServiceContext, rawId: string): Promise<ApiKeyResponse> {
  const row = await findKey(ctx, rawId);
  await transact(ctx, async (tctx) => {
    const now = toDbTime();
    const changed = await tctx
      .db('api_keys')
      .where({ id: row.id })
      .whereNull('revoked_at')
      .update({ revoked_at: now, revoked_by: ctx.actor.id, updated_at: now });
    if (changed)
      await recordActivity(tctx, {
        action: 'api_key_revoked',
        subjectType: 'api_key',
        subjectId: row.id,
        before: { name: row.name, prefix: `${apiKeyMark(modeOf(row.mode))}${row.prefix}`, mode: modeOf(row.mode), dealer_id: row.dealer_id },
      });
  });
  return presentApiKey(await findKey(ctx, String(row.id)));
}

interface ApiKeyUseRow {
  id: number;
  method: string;
  path: string;
  status: number;
  ip: string | null;
  user_agent: string | null;
  duration_ms: number;
  created_at: string;
}

const presentUse = (r: ApiKeyUseRow): ApiKeyUseResponse => ({
  id: Number(r.id),
  method: r.method,
  path: r.path,
  status: Number(r.status),
  ip: r.ip ?? null,
  user_agent: r.user_agent ?? null,
  duration_ms: Number(r.duration_ms),
  created_at: fromDbTime(r.created_at)!,
});

/** A key's uses, newest first (every call made with it, refused ones included). */
export async function listApiKeyUses(ctx: ServiceContext, rawId: string, p: PageRequest): Promise<Page<ApiKeyUseResponse>> {
  const key = await findKey(ctx, rawId);
  return pageOf(ctx.db('api_key_uses').where('api_key_id', key.id).select('*'), p, 'id', presentUse, 'id');
}

/** The dealer's test wallet as the console shows it (a dealer: its own; an admin names one), or null before its first test key. */
export async function testWalletOf(ctx: ServiceContext, rawDealerId: unknown): Promise<WalletResponse | null> {
  const dealer = await resolveDealer(ctx, rawDealerId);
  const wallet = await walletOfDealer(ctx.db, dealer.id, 'test');
  return wallet ? presentWallet(wallet) : null;
}

/** Resets the dealer's test wallet to its starting balance (logged; made first if it has none yet). */
export async function resetDealerTestWallet(ctx: ServiceContext, rawDealerId: unknown): Promise<WalletResponse> {
  const dealer = await resolveDealer(ctx, rawDealerId);
  await resetTestWallet(ctx, dealer.id);
  return presentWallet((await walletOfDealer(ctx.db, dealer.id, 'test'))!);
}
