import net from 'node:net';
import type { Request, Response } from 'express';
import type pino from 'pino';
import type { ApiKeyScope } from '@app/contracts';
import { AppError, unauthorized } from '../http/errors.ts';
import { db, rootKnex } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { User } from '../users/user.model.ts';
import { loadPermissions } from '../auth/access.ts';
import { AccessCache, ACCESS_VERSION_TABLE, frozenAccess } from '../auth/access-cache.ts';
import { userActor, type Actor, type ServiceContext } from '../platform/context.ts';
import { parseApiKey, secretMatches } from './api-key-secrets.ts';
import { parseList, type ApiKeyRow } from './api-key.service.ts';
import { modeOf, type SaleMode } from '../platform/sale-mode.ts';
import { createRateLimits, type RateLimits } from '../http/rate-limits.ts';

/**
 * The reseller API's authentication (docs/api-conventions.md, "Reseller API"): the Bearer key is
 * found by its public prefix and its secret compared in constant time (api-key-secrets.ts); then,
 * in this order, a revoked key or a dealer no longer active is a 401, an address outside the key's
 * allow-list a 403, the per-key rate limit a 429, a missing scope a 403 naming the scope.
 * Every call made with a real key (refused ones included) is one row of api_key_uses.
 */
export interface ApiKeyCaller {
  id: number;
  dealerId: number;
  scopes: ApiKeyScope[];
  /** live, or test: the key acts on the dealer's sandbox only (ServiceContext.mode). */
  mode: SaleMode;
  /** The dealer the key acts for, with its effective permissions (what it sees of costs, for one). */
  actor: Actor;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      apiKey?: ApiKeyCaller;
    }
  }
}

/** The service context of a reseller call: the key's dealer acts, in the key's mode. */
export function keyContext(req: Request, ctx: ServiceContext): ServiceContext {
  if (!req.apiKey) throw unauthorized('api:api_keys.missing');
  return { ...ctx, actor: req.apiKey.actor, mode: req.apiKey.mode };
}

// last_used_at is shown to the minute; writing it on every call would be a write per call.
const LAST_USED_RESOLUTION_MS = 60_000;

interface KeyLookupRow extends ApiKeyRow {
  dealer_status: string;
  dealer_type: string;
  dealer_deleted_at: string | null;
  access_version: string | number | null;
}

/** The key with this prefix, its dealer's state and the access version, in one query. */
async function keyByPrefix(prefix: string): Promise<KeyLookupRow | undefined> {
  const knex = db();
  return knex('api_keys')
    .join('users', 'users.id', 'api_keys.dealer_id')
    .where('api_keys.prefix', prefix)
    .first(
      'api_keys.*',
      'users.status as dealer_status',
      'users.user_type as dealer_type',
      'users.deleted_at as dealer_deleted_at',
      knex(ACCESS_VERSION_TABLE).where('id', 1).select('version').as('access_version'),
    );
}

/** An allow-list entry as net.BlockList takes it. */
function blockListOf(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** Whether `ip` (as Express computes it under its trust-proxy setting) is on the list; an empty list allows any. */
export function ipAllowed(entries: string[], ip: string | null | undefined, lists = new Map<string, net.BlockList>()): boolean {
  if (!entries.length) return true;
  if (!ip) return false;
  // A dual-stack socket reports IPv4 clients as ::ffff:a.b.c.d.
  const plain = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  const cacheKey = entries.join(',');
  let list = lists.get(cacheKey);
  if (!list) {
    list = blockListOf(entries);
    if (lists.size > 1000) lists.clear();
    lists.set(cacheKey, list);
  }
  return list.check(plain, net.isIPv6(plain) ? 'ipv6' : 'ipv4');
}

export interface KeyAuthOptions {
  /** Calls per minute per key (API_KEY_RATE_LIMIT_PER_MINUTE). */
  perMinute: number;
  /** Where the calls are counted (http/rate-limits.ts: shared through Redis when REDIS_URL is set); default: this process's memory. */
  limits?: RateLimits;
  logger?: pino.Logger;
}

/** The ApiRouter `keyAuth` of the reseller API (one per app: its rate counts and caches are its own). */
export function apiKeyAuthenticator(opts: KeyAuthOptions) {
  const dealers = new AccessCache(1_000);
  const blockLists = new Map<string, net.BlockList>();
  const touched = new Map<number, number>();
  // Counted per key where the API's other ceilings are (one count for every process with REDIS_URL).
  const limits = opts.limits ?? createRateLimits({ redisUrl: null, keyPrefix: '' });
  const limiter = limits.perMinute('api-key', opts.perMinute, {
    keyGenerator: (req) => `api-key:${req.apiKey!.id}`,
    handler: (_req, res, next) => next(new AppError(429, 'api:api_keys.rate_limited', undefined, { seconds: res.getHeader('Retry-After') })),
  });

  const actorOf = async (dealerId: number, version: string): Promise<Actor> => {
    const cacheKey = String(dealerId);
    let access = version ? dealers.get(cacheKey, version) : undefined;
    if (!access) {
      const user = await User.query().findById(dealerId).withGraphFetched('[roles, dealer_details]');
      if (!user) throw unauthorized('api:api_keys.dealer_inactive');
      const { permissions, isSuperAdmin } = await loadPermissions(dealerId);
      access = frozenAccess(version, user, permissions, isSuperAdmin);
      if (version) dealers.set(cacheKey, access);
    }
    return userActor(access.user, access.permissions, false);
  };

  const recordUse = (req: Request, res: Response, key: KeyLookupRow, startedAt: number) => {
    // 'close', not 'finish': a call whose client went away before the answer is a use too.
    res.once('close', () => {
      void rootKnex()('api_key_uses')
        .insert({
          api_key_id: key.id,
          dealer_id: key.dealer_id,
          method: req.method.slice(0, 8),
          path: req.originalUrl.slice(0, 255),
          status: res.statusCode,
          ip: req.ip?.slice(0, 64) ?? null,
          user_agent: req.get('user-agent')?.slice(0, 255) ?? null,
          duration_ms: Math.max(0, Math.round(performance.now() - startedAt)),
          created_at: toDbTime(),
        })
        .catch((err: unknown) => opts.logger?.warn({ err, apiKey: key.id }, 'api key use not recorded'));
    });
  };

  const touch = async (key: KeyLookupRow, ip: string | null) => {
    const now = Date.now();
    const last = Math.max(touched.get(key.id) ?? 0, key.last_used_at ? Date.parse(`${key.last_used_at.replace(' ', 'T')}Z`) : 0);
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    touched.set(key.id, now);
    if (touched.size > 10_000) touched.clear();
    // Conditional: of the calls that arrive together, at most one writes.
    await db()('api_keys')
      .where('id', key.id)
      .where((w) => w.whereNull('last_used_at').orWhere('last_used_at', '<', toDbTime(new Date(now - LAST_USED_RESOLUTION_MS))))
      .update({ last_used_at: toDbTime(new Date(now)), last_used_ip: ip?.slice(0, 64) ?? null });
  };

  return async function keyAuth(req: Request, res: Response, scope: string): Promise<void> {
    const startedAt = performance.now();
    const header = req.get('authorization') ?? '';
    const raw = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!raw) throw unauthorized('api:api_keys.missing');
    const parsed = parseApiKey(raw);
    const key = parsed ? await keyByPrefix(parsed.prefix) : undefined;
    // Compared whether or not a key has this prefix, so an unknown prefix takes as long as a wrong secret.
    const matches = secretMatches(parsed?.secret ?? raw, key?.secret_hash ?? null);
    // The mark is part of the key: a live key sent as rk_test_ (or the reverse) is not a key of ours.
    if (!key || !matches || modeOf(key.mode) !== parsed?.mode) throw unauthorized('api:api_keys.invalid');
    recordUse(req, res, key, startedAt);
    if (key.revoked_at) throw unauthorized('api:api_keys.revoked');
    if (key.dealer_type !== 'dealer' || key.dealer_status !== 'active' || key.dealer_deleted_at) throw unauthorized('api:api_keys.dealer_inactive');
    const actor = await actorOf(key.dealer_id, key.access_version === null || key.access_version === undefined ? '' : String(key.access_version));
    const scopes = parseList<ApiKeyScope>(key.scopes);
    req.apiKey = { id: key.id, dealerId: key.dealer_id, scopes, mode: modeOf(key.mode), actor };
    // The allow-list first: calls from elsewhere (a leaked key) must not use up the owner's rate.
    if (!ipAllowed(parseList<string>(key.ip_allowlist), req.ip, blockLists))
      throw new AppError(403, 'api:api_keys.ip_not_allowed', undefined, { ip: req.ip ?? '' });
    await new Promise<void>((resolve, reject) => {
      void limiter(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
    if (!scopes.includes(scope as ApiKeyScope)) throw new AppError(403, 'api:api_keys.scope_missing', undefined, { scope });
    await touch(key, req.ip ?? null);
  };
}
