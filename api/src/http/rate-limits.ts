import { Redis } from 'ioredis';
import { rateLimit, type IncrementResponse, type Options, type RateLimitRequestHandler, type Store } from 'express-rate-limit';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type pino from 'pino';
import { rateLimited } from './error-handler.ts';

/**
 * The API's rate ceilings (docs/decisions.md, "Rate limits"): the per-address ceiling, the reseller
 * API's per-key and per-address limits, the storefront's per-session and per-address ceilings. Each
 * is express-rate-limit (its headers, its Retry-After, the API's one 429 answer); where the count is
 * kept is decided here, once, so a route never knows:
 * - without REDIS_URL, in this process's memory (express-rate-limit's own store): each process
 *   counts its share, and N processes let N times the ceiling through;
 * - with REDIS_URL, in Redis through rate-limiter-flexible (one atomic INCR with its expiry per
 *   call), so every process counts against one ceiling.
 * Redis unreachable while running (refused, or silent for REDIS_COMMAND_TIMEOUT_MS): each count goes
 * to an in-memory limiter of the same ceiling (rate-limiter-flexible's insurance limiter), so the
 * ceilings still hold, per process, as without Redis; never open. Back to Redis once it answers.
 * Sign-in and two-factor throttles are not here: they are counted in the database (auth/login-throttle.ts),
 * shared by every process with or without Redis.
 */
export interface RateLimits {
  /** True when the counts are shared through Redis. */
  readonly shared: boolean;
  /**
   * A ceiling of `limit` calls a minute per key (by default the client's address under TRUST_PROXY),
   * named `name` in the store: two ceilings never share counts.
   */
  perMinute(name: string, limit: number, options?: Partial<Options>): RateLimitRequestHandler;
  /** Closes the Redis connection (nothing without Redis). */
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;
/** A Redis that neither answers nor refuses costs a request at most this long, then memory counts. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** express-rate-limit's store over a rate-limiter-flexible limiter: one atomic increment per call. */
class FlexibleStore implements Store {
  readonly localKeys = false;
  constructor(
    private readonly limiter: RateLimiterRedis,
    readonly prefix: string,
  ) {}

  async increment(key: string): Promise<IncrementResponse> {
    // penalty adds a point whatever the count (consume would reject past the ceiling); express-rate-limit compares.
    const res = await this.limiter.penalty(key, 1);
    return { totalHits: res.consumedPoints, resetTime: new Date(Date.now() + res.msBeforeNext) };
  }

  async decrement(key: string): Promise<void> {
    await this.limiter.reward(key, 1);
  }

  async resetKey(key: string): Promise<void> {
    await this.limiter.delete(key);
  }
}

export interface RateLimitSettings {
  /** REDIS_URL, or null: counted in process memory. */
  redisUrl: string | null;
  /** REDIS_KEY_PREFIX: the start of every key this deployment writes. */
  keyPrefix: string;
  logger?: pino.Logger;
}

export function createRateLimits({ redisUrl, keyPrefix, logger }: RateLimitSettings): RateLimits {
  const base = (limit: number, options: Partial<Options>): Partial<Options> => ({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: rateLimited,
    ...options,
  });
  if (!redisUrl) {
    return {
      shared: false,
      perMinute: (_name, limit, options = {}) => rateLimit(base(limit, options)),
      close: async () => undefined,
    };
  }

  const redis = new Redis(redisUrl, {
    // A call is never queued while Redis is away: it is counted in memory at once instead.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 250, 2_000),
  });
  // Said once per outage, not once per reconnection attempt.
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger?.warn({ err: err.message }, 'Redis (REDIS_URL) unreachable: rate limits counted in each process until it answers');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger?.info('Redis (REDIS_URL) answers again: rate limits shared again');
  });
  const names = new Set<string>();
  return {
    shared: true,
    perMinute(name, limit, options = {}) {
      if (names.has(name)) throw new Error(`Two rate limits named ${name}`);
      names.add(name);
      const prefix = `${keyPrefix}rl:${name}`;
      const duration = WINDOW_MS / 1000;
      const limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: prefix,
        points: limit,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: prefix, points: limit, duration }),
      });
      return rateLimit(base(limit, { ...options, store: new FlexibleStore(limiter, prefix) }));
    },
    async close() {
      // quit() waits for Redis; a Redis that is away is simply disconnected.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
