import crypto from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { createApp } from '../app.ts';
import { loadConfig } from '../config.ts';

/**
 * The rate ceilings with and without Redis (http/rate-limits.ts), on real apps and the Redis of this
 * machine (REDIS_TEST_URL, default redis://127.0.0.1:6379), under a key prefix of this run's own.
 */
const REDIS = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379';
const CEILING = 5;
const RATE_LIMITED = { success: false, message: 'Too many requests. Please slow down and try again in a minute.', code: 'rate_limited' };

/** A TCP relay in front of Redis that can be cut (connections refused) or silenced (nothing forwarded). */
async function redisRelay() {
  const target = new URL(REDIS);
  const sockets = new Set<net.Socket>();
  let silent = false;
  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d) => !silent && upstream.write(d));
    upstream.on('data', (d) => !silent && client.write(d));
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(s);
      });
    }
  };
  let server = net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Redis gone: the relay's port refuses, and every open connection drops. */
    cut: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    /** Redis back at the same address. */
    restore: async () => {
      server = net.createServer(onConnection);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    /** Connections stay up, but nothing comes back. */
    silence: (on: boolean) => {
      silent = on;
    },
  };
}

/** An app of its own settings (its own limits) on the one test database: what a server process is to the others. */
interface App {
  app: Express;
  http: () => ReturnType<typeof request>;
}
let h: Harness;
const apps: App[] = [];
const redis = new Redis(REDIS);
const prefix = `rl-test-${crypto.randomBytes(4).toString('hex')}:`;
beforeAll(async () => {
  h = await createHarness();
});

function app(env: Record<string, string>): App {
  const config = loadConfig({ ...process.env, DATA_DIR: h.dataDir, TRUST_PROXY: '1', API_RATE_LIMIT_PER_MINUTE: String(CEILING), ...env });
  const made = createApp({ config, db: h.db });
  const one = { app: made, http: () => request(made) };
  apps.push(one);
  return one;
}
/** A call under the per-address ceiling, from `address` (X-Forwarded-For under TRUST_PROXY=1). */
const call = (a: App, address: string) => a.http().get('/api/v1/auth/me').set('X-Forwarded-For', address);
const statuses = async (a: App, address: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(a, address)).status);
  return out;
};
const passed = (list: number[]) => list.filter((s) => s !== 429).length;
/** Until the app's Redis connection is up (calls before it are counted in memory), from an address of its own. */
async function untilConnected(a: App) {
  const address = `203.0.113.${apps.indexOf(a) + 1}`;
  for (let i = 0; i < 100; i++) {
    await call(a, address);
    if ((await redis.get(`${prefix}rl:address:${address}`)) !== null) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the app never reached Redis');
}

afterAll(async () => {
  for (const a of apps) await (a.app.locals.closeRateLimits as () => Promise<void>)();
  await h?.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('REDIS_URL', () => {
  it('is optional, and must be a redis:// or rediss:// address', () => {
    const base = { NODE_ENV: 'test', APP_KEY: 'k'.repeat(32) };
    expect(loadConfig(base).redisUrl).toBeNull();
    expect(loadConfig({ ...base, REDIS_URL: 'rediss://user:secret@cache.example:6380/2' }).redisUrl).toBe('rediss://user:secret@cache.example:6380/2');
    const message = 'REDIS_URL must be a redis:// or rediss:// address such as redis://127.0.0.1:6379';
    expect(() => loadConfig({ ...base, REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(message);
    expect(() => loadConfig({ ...base, REDIS_URL: '127.0.0.1:6379' })).toThrow(message);
    expect(() => loadConfig({ ...base, REDIS_KEY_PREFIX: 'has space' })).toThrow('REDIS_KEY_PREFIX must be');
    expect(loadConfig(base).redisKeyPrefix).toBe('bundle-reseller:');
  });

  it('the storefront ceilings: 120 a session, 30 000 an address (never below the API ceiling), the API ceiling without a session', () => {
    const base = { NODE_ENV: 'test', APP_KEY: 'k'.repeat(32) };
    expect(loadConfig({ ...base, API_RATE_LIMIT_PER_MINUTE: '' }).storefrontLimits).toEqual({
      perSession: 120,
      perAddress: 30_000,
      perAddressWithoutSession: 1200,
    });
    expect(loadConfig({ ...base, API_RATE_LIMIT_PER_MINUTE: '100000' }).storefrontLimits).toEqual({
      perSession: 120,
      perAddress: 100_000,
      perAddressWithoutSession: 100_000,
    });
    const set = { STOREFRONT_SESSION_LIMIT_PER_MINUTE: '30', STOREFRONT_ADDRESS_LIMIT_PER_MINUTE: '5000', STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE: '60' };
    expect(loadConfig({ ...base, ...set }).storefrontLimits).toEqual({ perSession: 30, perAddress: 5000, perAddressWithoutSession: 60 });
    expect(() => loadConfig({ ...base, STOREFRONT_SESSION_LIMIT_PER_MINUTE: '0' })).toThrow(
      'STOREFRONT_SESSION_LIMIT_PER_MINUTE must be a whole number from 1 to 100000000',
    );
  });
});

describe('the per-address ceiling', () => {
  let memory: App;
  let first: App;
  let second: App;
  beforeAll(async () => {
    memory = app({});
    first = app({ REDIS_URL: REDIS, REDIS_KEY_PREFIX: prefix });
    second = app({ REDIS_URL: REDIS, REDIS_KEY_PREFIX: prefix });
    await untilConnected(first);
    await untilConnected(second);
  });

  it('without REDIS_URL, is counted by each app on its own', async () => {
    expect(memory.app.locals.closeRateLimits).toBeTypeOf('function');
    expect(passed(await statuses(memory, '198.51.100.1', CEILING + 2))).toBe(CEILING);
  });

  it('with REDIS_URL, is one count for two apps; the 429 is the same answer, headers and all', async () => {
    const a = await statuses(first, '198.51.100.2', 4);
    const b = await statuses(second, '198.51.100.2', 4);
    expect(passed([...a, ...b])).toBe(CEILING);
    expect(a).toEqual([401, 401, 401, 401]);
    expect(await redis.get(`${prefix}rl:address:198.51.100.2`)).toBe('8');

    const shared = await call(first, '198.51.100.2');
    const own = await call(memory, '198.51.100.1');
    for (const res of [shared, own]) {
      expect(res.status).toBe(429);
      expect(res.body).toEqual(RATE_LIMITED);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(res.headers['ratelimit']).toMatch(/^"5-in-1min"; r=0; t=\d+$/);
      expect(res.headers['ratelimit-policy']).toMatch(/^"5-in-1min"; q=5; w=60; pk=:[\w+/=]+:$/);
    }
    // Another address has its own count.
    expect((await call(second, '198.51.100.3')).status).toBe(401);
  });
});

describe('Redis unreachable while running', () => {
  it('counts in each process’s memory at the same ceiling (never open), then in Redis again once it answers', async () => {
    const relay = await redisRelay();
    const a = app({ REDIS_URL: relay.url, REDIS_KEY_PREFIX: prefix });
    await untilConnected(a);
    const key = `${prefix}rl:address:198.51.100.10`;
    expect(await statuses(a, '198.51.100.10', 2)).toEqual([401, 401]);
    expect(await redis.get(key)).toBe('2');

    await relay.cut();
    const started = Date.now();
    const during = await statuses(a, '198.51.100.10', CEILING + 3);
    // The memory count starts at 0: the ceiling again, then 429s; and no call waited on Redis.
    expect(during).toEqual([...Array(CEILING).fill(401), 429, 429, 429]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await redis.get(key)).toBe('2');

    await relay.restore();
    const countAfterACall = async () => {
      await call(a, '198.51.100.10');
      return redis.get(key);
    };
    await expect.poll(countAfterACall, { timeout: 10_000, interval: 300 }).not.toBe('2');
    // Back in Redis: the count there goes on from where it was.
    const before = Number(await redis.get(key));
    await call(a, '198.51.100.10');
    expect(Number(await redis.get(key))).toBe(before + 1);
  }, 30_000);

  it('a Redis that stops answering costs a call at most about half a second, and the ceiling holds in memory', async () => {
    const relay = await redisRelay();
    const a = app({ REDIS_URL: relay.url, REDIS_KEY_PREFIX: prefix });
    await untilConnected(a);
    expect(await statuses(a, '198.51.100.11', 1)).toEqual([401]);
    expect(await redis.get(`${prefix}rl:address:198.51.100.11`)).toBe('1');
    relay.silence(true);
    const started = Date.now();
    const during = await statuses(a, '198.51.100.11', CEILING + 1);
    expect(during).toEqual([...Array(CEILING).fill(401), 429]);
    expect(Date.now() - started).toBeLessThan((CEILING + 1) * 1_500);
    relay.silence(false);
    await relay.cut();
  }, 30_000);
});

describe('sign-in throttles', () => {
  it('are counted in the database, Redis or not: with Redis gone, the sixth wrong password is still refused', async () => {
    const relay = await redisRelay();
    const a = app({ REDIS_URL: relay.url, REDIS_KEY_PREFIX: prefix, API_RATE_LIMIT_PER_MINUTE: '100' });
    await h.insertUser({ name: 'Guessed', email: 'guessed@test.example' });
    await relay.cut();
    const tries: { status: number; message: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await a
        .http()
        .post('/api/v1/auth/admin/login')
        .set('X-Forwarded-For', '198.51.100.20')
        .send({ email: 'guessed@test.example', password: `Wrong@${i}xyz` });
      tries.push({ status: res.status, message: res.body.message });
    }
    expect(tries.map((t) => t.status)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(tries[5].message).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
  }, 30_000);
});
