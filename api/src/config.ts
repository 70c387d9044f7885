import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { z } from 'zod';
import { dataDir } from '../../db/config.ts';

/**
 * The API's settings, read from the environment in this one place and checked at start: a bad
 * value stops the server with a message naming the variable, never a silent default. The
 * database's own settings (DATABASE_URL, DB_*_TIMEOUT_SECONDS) live in db/config.ts, shared with
 * the knex CLI; the money adapters' (WAAFIPAY_*, RELOADLY_*) in connectors/money-adapters.ts.
 */
export interface AppConfig {
  env: 'development' | 'production' | 'test';
  port: number;
  dataDir: string;
  appKey: string;
  seedDemo: boolean;
  /** Also a few weeks of demo sales behind the demo dealer (SEED_DEMO_HISTORY, default on with the demo). */
  seedDemoHistory: boolean;
  /** Trust X-Forwarded-For from this many proxies (0 = none). */
  trustProxy: number;
  logLevel: LogLevel;
  /** The console's public address, for links in emails (APP_URL; empty: relative links). */
  appUrl: string;
  /** How long a start waits for the database before giving up (DB_CONNECT_TIMEOUT_SECONDS). */
  dbConnectTimeoutSeconds: number;
  /** Fulfilment runs in this process unless RECHARGE_WORKER=false (a web-only instance). */
  rechargeWorker: boolean;
  /** Requests per minute per client address on /api (API_RATE_LIMIT_PER_MINUTE). */
  apiRateLimitPerMinute: number;
  /** Calls per minute per reseller API key (API_KEY_RATE_LIMIT_PER_MINUTE). */
  apiKeyRateLimitPerMinute: number;
  /**
   * Where the rate limits are counted (REDIS_URL, redis:// or rediss://): unset, each process counts its own
   * (http/rate-limits.ts); set, every process shares one count per ceiling. Keys start with `redisKeyPrefix`
   * (REDIS_KEY_PREFIX), so two deployments (or test runs) can share one Redis.
   */
  redisUrl: string | null;
  redisKeyPrefix: string;
  /** The storefront's ceilings (storefront/storefront-limits.ts): per session, per address, per address without a session. */
  storefrontLimits: { perSession: number; perAddress: number; perAddressWithoutSession: number };
  /** Webhook URLs may point at this machine's loopback (WEBHOOK_ALLOW_LOOPBACK; default: not in production). */
  webhookAllowLoopback: boolean;
  /** `/metrics` on the main app, for a caller sending `Authorization: Bearer <token>` (METRICS_TOKEN; empty: 404 there). */
  metricsToken: string;
  /** `/metrics` on a listener of its own, without a token (METRICS_PORT; null: none), bound to metricsHost (METRICS_HOST, default 127.0.0.1). */
  metricsPort: number | null;
  metricsHost: string;
  /** After SIGTERM, the longest the process takes to finish or hand back its sales and close (DRAIN_TIMEOUT_SECONDS, default 25). */
  drainTimeoutSeconds: number;
  /** After SIGTERM, how long it keeps answering (ready says 503) before closing its listener, at least (DRAIN_NOT_READY_SECONDS, default 0). */
  drainNotReadySeconds: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const flag = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', ''], { message: `${name} must be true or false` })
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1'));
const wholeNumber = (name: string, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const envSchema = z.object({
  NODE_ENV: z.string().optional(),
  PORT: wholeNumber('PORT', 0, 65535),
  SEED_DEMO: flag('SEED_DEMO'),
  SEED_DEMO_HISTORY: flag('SEED_DEMO_HISTORY'),
  TRUST_PROXY: wholeNumber('TRUST_PROXY', 0, 10),
  LOG_LEVEL: z
    .enum(['', ...LOG_LEVELS], { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
    .optional()
    .transform((v) => (v ? (v as LogLevel) : undefined)),
  APP_URL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const url = (v ?? '').trim().replace(/\/+$/, '');
      if (url && !/^https?:\/\/[^\s/]+/.test(url)) {
        ctx.addIssue({ code: 'custom', message: 'APP_URL must be an http(s) address such as https://office.example.so' });
        return z.NEVER;
      }
      return url;
    }),
  DB_CONNECT_TIMEOUT_SECONDS: wholeNumber('DB_CONNECT_TIMEOUT_SECONDS', 1, 3600),
  RECHARGE_WORKER: flag('RECHARGE_WORKER'),
  API_RATE_LIMIT_PER_MINUTE: wholeNumber('API_RATE_LIMIT_PER_MINUTE', 1, 100_000_000),
  API_KEY_RATE_LIMIT_PER_MINUTE: wholeNumber('API_KEY_RATE_LIMIT_PER_MINUTE', 1, 100_000_000),
  REDIS_URL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const url = (v ?? '').trim();
      if (!url) return null;
      let ok = false;
      try {
        const u = new URL(url);
        ok = (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
      } catch {
        ok = false;
      }
      if (!ok) {
        ctx.addIssue({ code: 'custom', message: 'REDIS_URL must be a redis:// or rediss:// address such as redis://127.0.0.1:6379' });
        return z.NEVER;
      }
      return url;
    }),
  REDIS_KEY_PREFIX: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^[\w:.-]{1,64}$/.test(v), {
      message: 'REDIS_KEY_PREFIX must be 1 to 64 letters, digits, _ - . or :',
    }),
  STOREFRONT_SESSION_LIMIT_PER_MINUTE: wholeNumber('STOREFRONT_SESSION_LIMIT_PER_MINUTE', 1, 100_000_000),
  STOREFRONT_ADDRESS_LIMIT_PER_MINUTE: wholeNumber('STOREFRONT_ADDRESS_LIMIT_PER_MINUTE', 1, 100_000_000),
  STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE: wholeNumber('STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE', 1, 100_000_000),
  WEBHOOK_ALLOW_LOOPBACK: flag('WEBHOOK_ALLOW_LOOPBACK'),
  METRICS_TOKEN: z
    .string()
    .optional()
    .refine((v) => !v || /^[\x21-\x7e]{16,256}$/.test(v), { message: 'METRICS_TOKEN must be 16 to 256 printable characters without spaces' }),
  METRICS_PORT: wholeNumber('METRICS_PORT', 1, 65535),
  METRICS_HOST: z
    .string()
    .optional()
    .refine((v) => !v || /^[\w.:-]{1,253}$/.test(v), { message: 'METRICS_HOST must be an address to listen on, such as 127.0.0.1 or 0.0.0.0' }),
  DRAIN_TIMEOUT_SECONDS: wholeNumber('DRAIN_TIMEOUT_SECONDS', 1, 3600),
  DRAIN_NOT_READY_SECONDS: wholeNumber('DRAIN_NOT_READY_SECONDS', 0, 3600),
});

/** The environment checked against the schema; every problem is named in one error. */
function parseEnv(env: NodeJS.ProcessEnv) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid settings: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

const nodeEnvOf = (env: NodeJS.ProcessEnv): AppConfig['env'] => (env.NODE_ENV === 'production' || env.NODE_ENV === 'test' ? env.NODE_ENV : 'development');

/** LOG_LEVEL, else silent under tests and info otherwise (also for the service log, read before any config). */
export function logLevelOf(env: NodeJS.ProcessEnv = process.env): LogLevel {
  return parseEnv({ LOG_LEVEL: env.LOG_LEVEL }).LOG_LEVEL ?? (nodeEnvOf(env) === 'test' ? 'silent' : 'info');
}

/** APP_URL without its trailing slash ('' when unset), read when a link is made. */
export function appUrlOf(env: NodeJS.ProcessEnv = process.env): string {
  return parseEnv({ APP_URL: env.APP_URL }).APP_URL;
}

/**
 * APP_KEY signs tokens and seeds the h_id alphabet. On the embedded default it is generated
 * once and kept under DATA_DIR, so restarts keep sessions valid; production must set it.
 */
function resolveAppKey(env: NodeJS.ProcessEnv, dir: string, nodeEnv: string): string {
  if (env.APP_KEY) {
    if (env.APP_KEY.length < 32) throw new Error('APP_KEY must be at least 32 characters');
    return env.APP_KEY;
  }
  if (nodeEnv === 'production') throw new Error('APP_KEY must be set when NODE_ENV=production');
  const file = path.join(dir, 'app.key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dir, { recursive: true });
  const key = crypto.randomBytes(48).toString('base64url');
  fs.writeFileSync(file, key, { mode: 0o600 });
  return key;
}

/**
 * The storefront's ceilings (storefront/storefront-limits.ts). Customers of carriers that put
 * thousands of phones behind a few addresses (carrier-grade NAT) cannot be told apart by address,
 * so a customer is counted by the session its browser holds, and the address gets a ceiling sized
 * for a crowd:
 * - per session, 120 a minute: a visit, a purchase and its status checks (a few a minute, with
 *   backoff) stay far below; a script looping on one session is stopped within the minute;
 * - per address, 30 000 a minute (never below API_RATE_LIMIT_PER_MINUTE): 1 000 customers a minute
 *   behind one address, some 30 calls each;
 * - per address without a session, API_RATE_LIMIT_PER_MINUTE (1 200): what every caller had before;
 *   cookie-less scripts meet it, and opening a session (GET /client/session) is not counted in it,
 *   so a rush of new visitors still gets in.
 */
function storefrontLimitsOf(e: ReturnType<typeof parseEnv>): AppConfig['storefrontLimits'] {
  const api = e.API_RATE_LIMIT_PER_MINUTE ?? 1200;
  return {
    perSession: e.STOREFRONT_SESSION_LIMIT_PER_MINUTE ?? 120,
    perAddress: e.STOREFRONT_ADDRESS_LIMIT_PER_MINUTE ?? Math.max(30_000, api),
    perAddressWithoutSession: e.STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE ?? api,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const nodeEnv = nodeEnvOf(env);
  const e = parseEnv(env);
  const dir = dataDir(env);
  const seedDemo = e.SEED_DEMO ?? nodeEnv !== 'production';
  return {
    env: nodeEnv,
    port: e.PORT ?? 3000,
    dataDir: dir,
    appKey: resolveAppKey(env, dir, nodeEnv),
    seedDemo,
    seedDemoHistory: seedDemo && (e.SEED_DEMO_HISTORY ?? true),
    trustProxy: e.TRUST_PROXY ?? 0,
    logLevel: e.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    appUrl: e.APP_URL,
    dbConnectTimeoutSeconds: e.DB_CONNECT_TIMEOUT_SECONDS ?? 60,
    rechargeWorker: e.RECHARGE_WORKER ?? true,
    apiRateLimitPerMinute: e.API_RATE_LIMIT_PER_MINUTE ?? 1200,
    apiKeyRateLimitPerMinute: e.API_KEY_RATE_LIMIT_PER_MINUTE ?? 120,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX || 'bundle-reseller:',
    storefrontLimits: storefrontLimitsOf(e),
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK ?? nodeEnv !== 'production',
    metricsToken: e.METRICS_TOKEN ?? '',
    metricsPort: e.METRICS_PORT ?? null,
    metricsHost: e.METRICS_HOST || '127.0.0.1',
    drainTimeoutSeconds: e.DRAIN_TIMEOUT_SECONDS ?? 25,
    drainNotReadySeconds: e.DRAIN_NOT_READY_SECONDS ?? 0,
  };
}
