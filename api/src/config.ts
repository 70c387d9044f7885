import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { dataDir } from '../../db/config.ts';

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  port: number;
  dataDir: string;
  appKey: string;
  seedDemo: boolean;
  /** Trust X-Forwarded-For from this many proxies (0 = none). */
  trustProxy: number;
  logLevel: string;
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
  const nodeEnv = (env.NODE_ENV === 'production' || env.NODE_ENV === 'test' ? env.NODE_ENV : 'development') as AppConfig['env'];
  const dir = dataDir(env);
  return {
    env: nodeEnv,
    port: Number(env.PORT || 3000),
    dataDir: dir,
    appKey: resolveAppKey(env, dir, nodeEnv),
    seedDemo: env.SEED_DEMO ? env.SEED_DEMO !== 'false' : nodeEnv !== 'production',
    trustProxy: Number(env.TRUST_PROXY || 0),
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
  };
}
