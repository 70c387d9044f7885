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
  /** Webhook URLs may point at this machine's loopback (WEBHOOK_ALLOW_LOOPBACK; default: not in production). */
  webhookAllowLoopback: boolean;
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
  WEBHOOK_ALLOW_LOOPBACK: flag('WEBHOOK_ALLOW_LOOPBACK'),
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
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK ?? nodeEnv !== 'production',
  };
}
