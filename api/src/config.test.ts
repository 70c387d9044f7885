import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appUrlOf, loadConfig, logLevelOf } from './config.ts';

/** Settings come from one place, checked at start: a bad value names its variable, nothing is guessed. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-'));
const base = { DATA_DIR: dir, APP_KEY: 'k'.repeat(40) };
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('settings from the environment', () => {
  it('has sensible defaults for a fresh machine', () => {
    expect(loadConfig(base)).toMatchObject({
      env: 'development',
      port: 3000,
      seedDemo: true,
      seedDemoHistory: true,
      trustProxy: 0,
      logLevel: 'info',
      appUrl: '',
      dbConnectTimeoutSeconds: 60,
      rechargeWorker: true,
      apiRateLimitPerMinute: 1200,
      apiKeyRateLimitPerMinute: 120,
      webhookAllowLoopback: true,
    });
    expect(loadConfig({ ...base, NODE_ENV: 'production' })).toMatchObject({
      seedDemo: false,
      seedDemoHistory: false,
      webhookAllowLoopback: false,
    });
  });

  it('reads every setting it documents', () => {
    const config = loadConfig({
      ...base,
      PORT: '8080',
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
      APP_URL: 'https://office.example.so/',
      DB_CONNECT_TIMEOUT_SECONDS: '5',
      RECHARGE_WORKER: 'false',
      API_RATE_LIMIT_PER_MINUTE: '600',
      API_KEY_RATE_LIMIT_PER_MINUTE: '30',
      SEED_DEMO_HISTORY: 'false',
      WEBHOOK_ALLOW_LOOPBACK: 'false',
    });
    expect(config).toMatchObject({
      port: 8080,
      trustProxy: 1,
      logLevel: 'warn',
      appUrl: 'https://office.example.so',
      dbConnectTimeoutSeconds: 5,
      rechargeWorker: false,
      apiRateLimitPerMinute: 600,
      apiKeyRateLimitPerMinute: 30,
      webhookAllowLoopback: false,
      seedDemo: true,
      seedDemoHistory: false,
    });
  });

  it('refuses bad values, naming each variable', () => {
    expect(() => loadConfig({ ...base, PORT: 'eighty', RECHARGE_WORKER: 'no', LOG_LEVEL: 'loud' })).toThrow(
      'Invalid settings: PORT must be a whole number from 0 to 65535; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; RECHARGE_WORKER must be true or false',
    );
    expect(() => loadConfig({ ...base, API_RATE_LIMIT_PER_MINUTE: '0' })).toThrow('API_RATE_LIMIT_PER_MINUTE must be a whole number from 1 to 100000000');
    expect(() => loadConfig({ ...base, APP_URL: 'office.example.so' })).toThrow('APP_URL must be an http(s) address');
    expect(() => loadConfig({ DATA_DIR: dir, NODE_ENV: 'production' })).toThrow('APP_KEY must be set when NODE_ENV=production');
  });

  it('reads the service log level and the public address on their own', () => {
    expect(logLevelOf({ NODE_ENV: 'test' })).toBe('silent');
    expect(logLevelOf({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(appUrlOf({ APP_URL: 'https://office.example.so//' })).toBe('https://office.example.so');
    expect(appUrlOf({})).toBe('');
  });
});
