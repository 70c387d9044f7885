import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { CUSTOMER_SESSION_COOKIE, signedSessionIdOf } from './customer-session.ts';

/**
 * The storefront's ceilings (storefront-limits.ts) in one app, counted in memory: per session, per
 * address without a session, per address in all. Shared through Redis across processes:
 * tests/api/rate-limit-processes.test.ts.
 */
let h: Harness;
let shop: string;
beforeAll(async () => {
  h = await createHarness({
    env: {
      TRUST_PROXY: '1',
      API_RATE_LIMIT_PER_MINUTE: '1000',
      STOREFRONT_SESSION_LIMIT_PER_MINUTE: '5',
      STOREFRONT_NO_SESSION_LIMIT_PER_MINUTE: '3',
      STOREFRONT_ADDRESS_LIMIT_PER_MINUTE: '30',
    },
  });
  shop = (await h.makeDealer('LIMITS')).code;
});
afterAll(() => h.close());

/** A new browser session from `address`: its cookie. */
async function openSession(address: string): Promise<string> {
  const res = await h.http().get('/api/v1/client/session').set('X-Forwarded-For', address).set('dealer_code', shop);
  expect(res.status).toBe(200);
  return (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
}
/** The order list of a browser (`cookie`) or of a cookie-less client, from `address`. */
const orders = (address: string, cookie?: string) => {
  const req = h.http().get('/api/v1/client/recharges').set('X-Forwarded-For', address).set('dealer_code', shop);
  return cookie ? req.set('Cookie', cookie) : req;
};
async function statuses(n: number, send: () => PromiseLike<{ status: number }>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

describe('the session a cookie names', () => {
  // express-session's cookie: s:<id>.<HMAC-SHA256 of the id, base64 without padding>, URL-encoded.
  const signed = (id: string, secret: string) =>
    `${CUSTOMER_SESSION_COOKIE}=${encodeURIComponent(`s:${id}.${crypto.createHmac('sha256', secret).update(id).digest('base64').replace(/=+$/, '')}`)}`;

  it('is read only from a cookie signed with the secret', () => {
    expect(signedSessionIdOf(`a=1; ${signed('abcDEF123_-', 'key')}; b=2`, 'key')).toBe('abcDEF123_-');
    expect(signedSessionIdOf(signed('abcDEF123_-', 'other key'), 'key')).toBeNull();
    expect(signedSessionIdOf(undefined, 'key')).toBeNull();
    expect(signedSessionIdOf('other=1', 'key')).toBeNull();
    expect(signedSessionIdOf(`${CUSTOMER_SESSION_COOKIE}=s%3Aabc.def`, 'key')).toBeNull();
    expect(signedSessionIdOf(`${CUSTOMER_SESSION_COOKIE}=abc`, 'key')).toBeNull();
    expect(signedSessionIdOf(`${CUSTOMER_SESSION_COOKIE}=%E0%A4%A`, 'key')).toBeNull();
  });

  it('the app signs its session cookies that way', async () => {
    const cookie = await openSession('192.0.2.1');
    expect(decodeURIComponent(cookie.slice(CUSTOMER_SESSION_COOKIE.length + 1))).toMatch(/^s:[\w-]{20,}\.[\w+/]{43}$/);
  });
});

describe('per session', () => {
  it('a session’s sixth call in a minute is a 429; another session behind the same address is served', async () => {
    const address = '192.0.2.10';
    const busy = await openSession(address);
    const calm = await openSession(address);
    expect(await statuses(6, () => orders(address, busy))).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await orders(address, busy);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: 'Too many requests. Please slow down and try again in a minute.', code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-policy']).toContain('"storefront-session"; q=5; w=60');
    expect((await orders(address, calm)).status).toBe(200);
  });

  it('storefront calls count in the storefront’s ceilings, not the API’s per-address one', async () => {
    const address = '192.0.2.11';
    const res = await orders(address, await openSession(address));
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toContain('"storefront-address"; q=30; w=60');
    expect(res.headers['ratelimit-policy']).toContain('"storefront-session"; q=5; w=60');
    expect(res.headers['ratelimit-policy']).not.toContain('1000-in-1min');
    const staff = await h.http().get('/api/v1/auth/me').set('X-Forwarded-For', address);
    expect(staff.headers['ratelimit-policy']).toMatch(/^"1000-in-1min"; q=1000; w=60/);
  });
});

describe('without a session', () => {
  it('an address’s fourth cookie-less call is a 429; opening sessions is still served, and their calls too', async () => {
    const address = '192.0.2.20';
    expect(await statuses(4, () => orders(address))).toEqual([200, 200, 200, 429]);
    const limited = await orders(address);
    expect(limited.headers['ratelimit-policy']).toContain('"storefront-no-session"; q=3; w=60');
    // A rush of new visitors: each opens its session, then uses it.
    const cookies = [await openSession(address), await openSession(address), await openSession(address), await openSession(address)];
    for (const cookie of cookies) expect((await orders(address, cookie)).status).toBe(200);
  });

  it('a cookie this server did not sign counts as no session', async () => {
    const address = '192.0.2.21';
    const forged = `${CUSTOMER_SESSION_COOKIE}=s%3A${'x'.repeat(32)}.${'y'.repeat(43)}`;
    expect(await statuses(4, () => orders(address, forged))).toEqual([200, 200, 200, 429]);
  });
});

describe('per address', () => {
  it('every call from an address counts: the 31st in a minute is a 429 whatever its session; another address is served', async () => {
    const address = '192.0.2.30';
    const cookies: string[] = [];
    for (let i = 0; i < 6; i++) cookies.push(await openSession(address));
    const spread: number[] = [];
    for (const cookie of cookies) spread.push(...(await statuses(4, () => orders(address, cookie))));
    expect(spread.every((s) => s === 200)).toBe(true);
    expect((await orders(address, cookies[0])).status).toBe(429);
    const fresh = await h.http().get('/api/v1/client/session').set('X-Forwarded-For', address).set('dealer_code', shop);
    expect(fresh.status).toBe(429);
    expect(fresh.headers['ratelimit-policy']).toContain('"storefront-address"; q=30; w=60');
    expect((await orders('192.0.2.31', await openSession('192.0.2.31'))).status).toBe(200);
  });
});
