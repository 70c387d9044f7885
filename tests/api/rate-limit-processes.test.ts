import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDatabase, startServer, stopServer, type ServerProcess, type SharedDatabase } from './spawned-servers.ts';

/**
 * The rate limits across real server processes on one database (issue 30): three processes sharing
 * one Redis keep one ceiling in all (per address, per reseller key, the storefront's per session and
 * per address without a session) while a crowd of customer sessions behind one address is served;
 * sign-in and two-factor throttles hold across processes (in the database). Without REDIS_URL:
 * tests/api/unshared-limits-warning.test.ts.
 */
const REDIS = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379';
const RUN = crypto.randomBytes(4).toString('hex');
const PREFIX = `rl-procs-${RUN}:`;
const RATE_LIMITED = { success: false, message: 'Too many requests. Please slow down and try again in a minute.', code: 'rate_limited' };

let db: SharedDatabase;
let servers: ServerProcess[] = [];
beforeAll(async () => {
  db = await sharedDatabase();
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  const redis = new Redis(REDIS);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await db?.cleanup();
});

/** A call to the `i`-th server (round robin) from `address` (X-Forwarded-For, TRUST_PROXY=1). */
function call(i: number, path: string, address: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const server = servers[i % servers.length];
  return fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'X-Forwarded-For': address, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}
/** `n` tasks, `width` at a time. */
async function inParallel<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}
const notLimited = (statuses: number[]) => statuses.filter((s) => s !== 429).length;

describe('three processes sharing one Redis (REDIS_URL)', () => {
  beforeAll(async () => {
    const env = {
      TRUST_PROXY: '1',
      REDIS_URL: REDIS,
      REDIS_KEY_PREFIX: PREFIX,
      API_RATE_LIMIT_PER_MINUTE: '40',
      API_KEY_RATE_LIMIT_PER_MINUTE: '10',
      // The product's defaults (the suite's setup raises them for every other test).
      STOREFRONT_SESSION_LIMIT_PER_MINUTE: '120',
      STOREFRONT_ADDRESS_LIMIT_PER_MINUTE: '30000',
      STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE: '40',
    };
    // The first migrates and seeds; the others find it done.
    servers = [await startServer(db, env)];
    servers.push(...(await Promise.all([startServer(db, env), startServer(db, env)])));
    // Calls before a process reaches Redis are counted in its memory: wait until each counts in Redis.
    const redis = new Redis(REDIS);
    for (const [s, server] of servers.entries()) {
      for (let i = 0; (await redis.get(`${PREFIX}rl:address:10.0.0.${s}`)) === null; i++) {
        if (i > 50) throw new Error(`server ${s} never reached Redis:\n${server.output()}`);
        await (await call(s, '/api/v1/auth/me', `10.0.0.${s}`)).body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    redis.disconnect();
  }, 120_000);

  it('API_RATE_LIMIT_PER_MINUTE=40: 45 calls to each of the three let 40 through in all, the rest the usual 429', async () => {
    const per = await Promise.all(
      [0, 1, 2].map(async (s) => {
        const statuses: number[] = [];
        for (let i = 0; i < 45; i++) {
          const res = await call(s, '/api/v1/auth/me', '10.1.0.1');
          statuses.push(res.status);
          if (res.status === 429) {
            expect(await res.json()).toEqual(RATE_LIMITED);
            expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          } else await res.body?.cancel();
        }
        return statuses;
      }),
    );
    expect(notLimited(per.flat())).toBe(40);
    expect(per.flat().filter((s) => s === 429)).toHaveLength(95);
    // Sharing through Redis, the processes do not watch for one another in the database.
    expect(await db.knex('process_heartbeats')).toEqual([]);
  });

  it('a reseller key limited to 10 a minute makes 10 calls across the three, not 30', async () => {
    const login = await call(0, '/api/v1/auth/admin/login', '10.1.0.2', { method: 'POST', body: { email: 'dealer@example.com', password: 'Dealer@12345' } });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const made = await call(1, '/api/v1/dealer/api-keys', '10.1.0.2', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'Till', scopes: ['wallet:read'] },
    });
    expect(made.status).toBe(201);
    const key = ((await made.json()) as { data: { key: string } }).data.key;
    const statuses = await Promise.all(
      [0, 1, 2].map(async (s) => {
        const out: { status: number; message: string }[] = [];
        for (let i = 0; i < 10; i++) {
          const res = await call(s, '/api/reseller/v1/wallet', '10.1.0.3', { headers: { authorization: `Bearer ${key}` } });
          out.push({ status: res.status, message: ((await res.json()) as { message?: string }).message ?? '' });
        }
        return out;
      }),
    );
    const all = statuses.flat();
    expect(all.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = all.filter((r) => r.status === 429);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r.message).toMatch(/^Too many calls with this API key\. Please try again in \d+ seconds\.$/);
  });

  it('sign-in: the sixth wrong password for an account from one address is refused, whichever process it reaches', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await call(i, '/api/v1/auth/admin/login', '10.1.0.4', { method: 'POST', body: { email: 'hodan@example.com', password: `Wrong@${i}pass` } });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429]);
  });

  it('two-factor: the sixth wrong code is refused across the three, even the right code', async () => {
    const address = '10.1.0.5';
    const signIn = async (i: number) =>
      (await (
        await call(i, '/api/v1/auth/admin/login', address, { method: 'POST', body: { email: 'admin@example.com', password: 'Admin@12345' } })
      ).json()) as {
        data: { token?: string; challenge?: string };
      };
    const token = (await signIn(0)).data.token!;
    const auth = { authorization: `Bearer ${token}` };
    const setup = (await (await call(1, '/api/v1/auth/two-factor/setup', address, { method: 'POST', headers: auth })).json()) as { data: { secret: string } };
    const totp = new TOTP({ secret: Secret.fromBase32(setup.data.secret) });
    const confirmed = await call(2, '/api/v1/auth/two-factor/confirm', address, {
      method: 'POST',
      headers: auth,
      body: { code: totp.generate(), password: 'Admin@12345' },
    });
    expect(confirmed.status).toBe(200);
    const challenge = (await signIn(0)).data.challenge!;
    expect(challenge).toBeTruthy();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await call(i, '/api/v1/auth/two-factor/verify', address, { method: 'POST', body: { challenge, code: String(100000 + i) } });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    const right = await call(1, '/api/v1/auth/two-factor/verify', address, { method: 'POST', body: { challenge, code: totp.generate() } });
    expect([...statuses, right.status]).toEqual([422, 422, 422, 422, 422, 429, 429, 429]);
  });

  describe('the storefront behind one carrier-NAT address', () => {
    let shop: { bundleId: number; methodId: number };
    beforeAll(async () => {
      const providers = (await (await call(0, '/api/v1/client/dealer/providers', '10.9.9.9', { headers: { dealer_code: 'DEMO' } })).json()) as {
        data: { providers: { categories: { bundles: { id: number }[] }[] }[] };
      };
      const methods = (await (await call(0, '/api/v1/client/payment-methods', '10.9.9.9', { headers: { dealer_code: 'DEMO' } })).json()) as {
        data: { id: number }[];
      };
      shop = { bundleId: providers.data.providers[0].categories[0].bundles[0].id, methodId: methods.data[0].id };
      // Enough float in the demo shop's wallet for a hundred sales (this test is about limits, not money).
      const dealer = await db.knex('users').where({ email: 'dealer@example.com' }).first('id');
      await db.knex('wallets').where({ dealer_id: dealer.id, mode: 'live' }).update({ balance: 1_000_000_000 });
    });

    /** A customer's visit: opens a session, looks at its orders, and (every third) buys and follows the sale. */
    async function visit(i: number, address: string): Promise<number[]> {
      const statuses: number[] = [];
      const opened = await call(i, '/api/v1/client/session', address, { headers: { dealer_code: 'DEMO' } });
      statuses.push(opened.status);
      if (opened.status !== 200) return statuses;
      const csrf = ((await opened.json()) as { data: { csrf_token: string } }).data.csrf_token;
      const cookie = opened.headers.getSetCookie()[0].split(';')[0];
      const headers = { dealer_code: 'DEMO', cookie };
      const listed = await call(i + 1, '/api/v1/client/recharges', address, { headers });
      statuses.push(listed.status);
      await listed.body?.cancel();
      if (i % 3 === 0) {
        const bought = await call(i + 2, '/api/v1/client/recharge', address, {
          method: 'POST',
          headers: { ...headers, 'x-csrf-token': csrf },
          body: {
            bundle_id: shop.bundleId,
            payment_method_id: shop.methodId,
            phone: '0615123456',
            payer_phone: '0617000021',
            idempotency_key: `nat-${i}-${RUN}`,
          },
        });
        statuses.push(bought.status);
        const sale = (await bought.json()) as { data?: { reference?: string } };
        const followed = await call(i, `/api/v1/client/recharge/${sale.data?.reference ?? 'none'}`, address, { headers });
        statuses.push(followed.status);
        await followed.body?.cancel();
      }
      return statuses;
    }

    it('300 customers’ sessions from one address, each buying or browsing a little, are all served', async () => {
      const visits = await inParallel(300, 20, (i) => visit(i, '10.2.0.1'));
      const statuses = visits.flat();
      // 300 sessions opened, 300 order lists, 100 purchases and 100 lookups: 800 calls, twenty times the API's ceiling.
      expect(statuses).toHaveLength(800);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      expect(new Set(statuses)).toEqual(new Set([200, 201]));
      expect(Number((await db.knex('recharges').count({ n: '*' }).first())!.n)).toBe(100);
    }, 60_000);

    it('one session hammering is cut at its ceiling (120 a minute) across the three processes; the crowd’s next visitor is still served', async () => {
      const opened = await call(0, '/api/v1/client/session', '10.2.0.1', { headers: { dealer_code: 'DEMO' } });
      const cookie = opened.headers.getSetCookie()[0].split(';')[0];
      const statuses = await inParallel(130, 6, async (i) => {
        const res = await call(i, '/api/v1/client/recharges', '10.2.0.1', { headers: { dealer_code: 'DEMO', cookie } });
        await res.body?.cancel();
        return res.status;
      });
      expect(notLimited(statuses)).toBe(120);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      expect(await visit(1, '10.2.0.1')).toEqual([200, 200]);
    });

    it('a client without a session meets the stricter per-address ceiling (the API’s, 40) across the three', async () => {
      const statuses = await inParallel(45, 3, async (i) => {
        const res = await call(i, '/api/v1/client/recharges', '10.2.0.2', { headers: { dealer_code: 'DEMO' } });
        await res.body?.cancel();
        return res.status;
      });
      expect(notLimited(statuses)).toBe(40);
    });
  });
});
