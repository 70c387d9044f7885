import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, bearer, FORBIDDEN, type Harness } from '../../../tests/api/harness.ts';
import { makeShop, type Shop } from '../recharges/recharge-fixtures.ts';
import { hashSecret, parseApiKey, secretMatches } from './api-key-secrets.ts';
import { ipAllowed } from './api-key-auth.ts';

/**
 * API keys on the real app and database: made, listed and revoked by a dealer and by an admin for
 * a dealer, shown once and stored hashed; and the reseller API's door: scopes, revocation, the IP
 * allow-list (through the app's trust-proxy setting), the per-key rate limit, constant-time
 * comparison, and one dealer's key never reading another's data.
 */
let h: Harness;
let root: string;
let shopA: Shop;
let shopB: Shop;
const RATE = 8;

beforeAll(async () => {
  // One proxy in front (the X-Forwarded-For address counts) and a small per-key limit to reach.
  h = await createHarness({ env: { TRUST_PROXY: '1', API_KEY_RATE_LIMIT_PER_MINUTE: String(RATE) } });
  root = await h.adminToken();
  shopA = await makeShop(h, root, 'cost', { balance: '5.00' });
  shopB = await makeShop(h, root, 'cost', { balance: '7.00' });
});
afterAll(() => h.close());
afterEach(() => vi.restoreAllMocks());

const ALL = ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read'];

async function newKey(token: string, body: Record<string, unknown> = {}, dealerId?: number) {
  const res = await h
    .http()
    .post(`/api/v1/dealer/api-keys${dealerId ? `?dealer_id=${dealerId}` : ''}`)
    .set(bearer(token))
    .send({ name: 'Till 1', scopes: ALL, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { key: string; api_key: { id: number; h_id: string; prefix: string; scopes: string[] } };
}

const reseller = (key: string, path: string, ip?: string) => {
  const req = h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${key}`);
  return ip ? req.set('X-Forwarded-For', ip) : req;
};

const uses = (keyId: number) => h.knex('api_key_uses').where({ api_key_id: keyId }).orderBy('id');

describe('POST/GET/DELETE /api/v1/dealer/api-keys', () => {
  it('a dealer makes a key: shown once in full, stored as the hash of its secret, logged without it', async () => {
    const res = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shopA.token))
      .send({ name: '  Shop till  ', scopes: ['wallet:read', 'catalogue:read', 'wallet:read'], ip_allowlist: '203.0.113.7\n198.51.100.0/24, 2001:db8::/32' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('API key created. Copy it now: it will not be shown again.');
    const { key, api_key } = res.body.data;
    expect(key).toMatch(/^rk_live_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(api_key).toMatchObject({
      name: 'Shop till',
      prefix: key.slice(0, 20),
      scopes: ['catalogue:read', 'wallet:read'],
      ip_allowlist: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'],
      dealer: { id: shopA.dealerId, dealer_code: shopA.code },
      last_used_at: null,
      revoked_at: null,
    });
    expect(JSON.stringify(api_key)).not.toContain(key.slice(21));
    const row = await h.knex('api_keys').where({ id: api_key.id }).first();
    const { secret } = parseApiKey(key)!;
    expect(row.secret_hash).toBe(crypto.createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);
    // Never again: neither the list, nor the record, nor the log holds the secret.
    const list = await h.http().get('/api/v1/dealer/api-keys').set(bearer(shopA.token));
    const one = await h.http().get(`/api/v1/dealer/api-keys/${api_key.h_id}`).set(bearer(shopA.token));
    const log = await h.knex('activity_log').where({ action: 'api_key_created', subject_id: api_key.id });
    expect(log).toHaveLength(1);
    for (const text of [JSON.stringify(list.body), JSON.stringify(one.body), JSON.stringify(log)]) expect(text).not.toContain(secret);
    expect(one.body.data.prefix).toBe(api_key.prefix);
  });

  it('refuses bad input with every field named, in the caller’s language, writing nothing', async () => {
    const before = Number((await h.knex('api_keys').count({ n: '*' }).first())!.n);
    const res = await h
      .http()
      .post('/api/v1/dealer/api-keys?lng=so')
      .set(bearer(shopA.token))
      .send({ name: '', scopes: ['wallet:write'], ip_allowlist: ['10.0.0.300'] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['ip_allowlist', 'name', 'scopes.0']);
    expect(res.body.errors.ip_allowlist[0]).not.toMatch(/Each entry/);
    const none = await h.http().post('/api/v1/dealer/api-keys').set(bearer(shopA.token)).send({ name: 'x', scopes: [] });
    expect(none.body.errors.scopes).toEqual(['Choose at least one scope.']);
    const ae = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shopA.token))
      .set('Accept-Language', 'ar')
      .send({ name: 'x', scopes: ALL, ip_allowlist: 'nope' });
    expect(ae.status).toBe(422);
    expect(ae.body.errors.ip_allowlist[0]).toMatch(/[\u0600-\u06FF]/);
    expect(Number((await h.knex('api_keys').count({ n: '*' }).first())!.n)).toBe(before);
  });

  it('an admin manages a dealer’s keys with dealer_id; a dealer only ever its own (another’s is a 404)', async () => {
    const admin = await h.userWith(['view api keys', 'manage api keys']);
    const missing = await h.http().post('/api/v1/dealer/api-keys').set(bearer(admin.token)).send({ name: 'x', scopes: ALL });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.dealer_id).toBeDefined();
    const made = await newKey(admin.token, { name: 'Made by ops' }, shopB.dealerId);
    expect(made.api_key).toMatchObject({ dealer: { id: shopB.dealerId } });
    // Dealer A: a dealer_id naming B is ignored (always itself), B's key is not found, and cannot be revoked.
    const forced = await newKey(shopA.token, { name: 'Mine anyway' }, shopB.dealerId);
    expect((forced.api_key as unknown as { dealer: { id: number } }).dealer.id).toBe(shopA.dealerId);
    const listA = await h.http().get(`/api/v1/dealer/api-keys?dealer_id=${shopB.dealerId}`).set(bearer(shopA.token));
    expect(listA.body.data.every((k: { dealer: { id: number } }) => k.dealer.id === shopA.dealerId)).toBe(true);
    expect((await h.http().get(`/api/v1/dealer/api-keys/${made.api_key.id}`).set(bearer(shopA.token))).status).toBe(404);
    expect((await h.http().get(`/api/v1/dealer/api-keys/${made.api_key.id}/uses`).set(bearer(shopA.token))).status).toBe(404);
    const stolen = await h.http().delete(`/api/v1/dealer/api-keys/${made.api_key.id}`).set(bearer(shopA.token));
    expect(stolen.status).toBe(404);
    expect((await h.knex('api_keys').where({ id: made.api_key.id }).first()).revoked_at).toBeNull();
    // The admin lists one dealer's keys, paginated.
    const listB = await h.http().get(`/api/v1/dealer/api-keys?dealer_id=${shopB.dealerId}&per_page=1`).set(bearer(admin.token));
    expect(listB.body.meta).toMatchObject({ current_page: 1, per_page: 1 });
    expect(listB.body.data.every((k: { dealer: { id: number } }) => k.dealer.id === shopB.dealerId)).toBe(true);
    // And revokes it: logged once, even when asked twice.
    const revoked = await h.http().delete(`/api/v1/dealer/api-keys/${made.api_key.h_id}`).set(bearer(admin.token));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ message: 'API key revoked.', data: { revoked_by: { id: admin.id } } });
    expect((await h.http().delete(`/api/v1/dealer/api-keys/${made.api_key.h_id}`).set(bearer(admin.token))).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'api_key_revoked', subject_id: made.api_key.id })).toHaveLength(1);
    const active = await h.http().get(`/api/v1/dealer/api-keys?dealer_id=${shopB.dealerId}&status=active`).set(bearer(admin.token));
    expect(active.body.data.map((k: { id: number }) => k.id)).not.toContain(made.api_key.id);
  });

  it('needs its permissions: without them 403, anonymous 401', async () => {
    const viewer = await h.userWith(['view api keys']);
    expect((await h.http().get('/api/v1/dealer/api-keys').set(bearer(viewer.token))).status).toBe(200);
    const refused = await h.http().post(`/api/v1/dealer/api-keys?dealer_id=${shopA.dealerId}`).set(bearer(viewer.token)).send({ name: 'x', scopes: ALL });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
    const nobody = await h.userWith(['view dashboard']);
    expect((await h.http().get('/api/v1/dealer/api-keys').set(bearer(nobody.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/dealer/api-keys')).status).toBe(401);
  });

  it('two revocations of one key at once: both answer 200, one log line', async () => {
    const { api_key } = await newKey(shopA.token);
    const answers = await Promise.all(Array.from({ length: 6 }, () => h.http().delete(`/api/v1/dealer/api-keys/${api_key.id}`).set(bearer(shopA.token))));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(await h.knex('activity_log').where({ action: 'api_key_revoked', subject_id: api_key.id })).toHaveLength(1);
  });
});

describe('the reseller API’s door', () => {
  it('no key, a malformed key, an unknown prefix or a wrong secret: 401, the envelope’s error shape', async () => {
    const { key } = await newKey(shopA.token);
    expect((await h.http().get('/api/reseller/v1/wallet')).body).toEqual({
      success: false,
      code: 'api_key.missing',
      message: 'An API key is required: send it as Authorization: Bearer rk_live_…',
    });
    for (const wrong of ['nonsense', `rk_live_ZZZZZZZZZZZZ_${'a'.repeat(40)}`, `${key.slice(0, 21)}${'b'.repeat(40)}`]) {
      const res = await reseller(wrong, '/wallet');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'api_key.invalid', message: 'This API key is not valid.' });
    }
  });

  it('compares secrets in constant time: equal-length digests through timingSafeEqual, for a known and an unknown prefix alike', async () => {
    const { key } = await newKey(shopA.token);
    const spy = vi.spyOn(crypto, 'timingSafeEqual');
    await reseller(`${key.slice(0, 21)}${'c'.repeat(40)}`, '/wallet');
    await reseller(`rk_live_YYYYYYYYYYYY_${'c'.repeat(40)}`, '/wallet');
    await reseller('not-even-a-key', '/wallet');
    expect((await reseller(key, '/wallet')).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(4);
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
    // The unit: only the right secret matches; no stored hash (unknown prefix) never does, even for the dummy's own input.
    const { secret } = parseApiKey(key)!;
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`, hashSecret(secret))).toBe(false);
    expect(secretMatches('no such key', null)).toBe(false);
  });

  it('scopes: a call outside the key’s scopes is a 403 naming the missing scope', async () => {
    const { key } = await newKey(shopA.token, { scopes: ['catalogue:read'] });
    expect((await reseller(key, '/catalogue')).status).toBe(200);
    for (const [path, scope] of [
      ['/wallet', 'wallet:read'],
      ['/recharges', 'recharges:read'],
    ]) {
      const res = await reseller(key, path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, code: 'api_key.scope_missing', message: `This API key lacks the scope ${scope}, which this call needs.` });
    }
    const write = await h
      .http()
      .post('/api/reseller/v1/recharges?lng=ae')
      .set('Authorization', `Bearer ${key}`)
      .set('Idempotency-Key', 'scope-test-1')
      .send({});
    expect(write.status).toBe(403);
    expect(write.body.message).toContain('recharges:write');
    expect(write.body.message).toMatch(/[\u0600-\u06FF]/);
  });

  it('a revoked key is a 401 at once; a deactivated or trashed dealer’s keys stop working', async () => {
    const { key, api_key } = await newKey(shopA.token);
    expect((await reseller(key, '/wallet')).status).toBe(200);
    await h.http().delete(`/api/v1/dealer/api-keys/${api_key.id}`).set(bearer(shopA.token));
    const res = await reseller(key, '/wallet');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, code: 'api_key.revoked', message: 'This API key has been revoked.' });

    const other = await makeShop(h, root, 'cost');
    const live = await newKey(other.token);
    expect((await reseller(live.key, '/wallet')).status).toBe(200);
    expect((await h.http().patch(`/api/v1/users/${other.dealerId}`).set(bearer(root)).send({ status: 'inactive' })).status).toBe(200);
    expect((await reseller(live.key, '/wallet')).body).toEqual({
      success: false,
      code: 'api_key.dealer_inactive',
      message: 'This API key’s dealer account is inactive or closed.',
    });
    expect((await h.http().patch(`/api/v1/users/${other.dealerId}`).set(bearer(root)).send({ status: 'active' })).status).toBe(200);
    expect((await reseller(live.key, '/wallet')).status).toBe(200);
    expect((await h.http().delete(`/api/v1/users/${other.dealerId}`).set(bearer(root))).status).toBe(200);
    expect((await reseller(live.key, '/wallet')).status).toBe(401);
  });

  it('IP allow-list: addresses and ranges, IPv4 and IPv6, from the address the app computes (trust proxy)', async () => {
    const { key } = await newKey(shopA.token, { ip_allowlist: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'] });
    expect((await reseller(key, '/wallet', '203.0.113.7')).status).toBe(200);
    expect((await reseller(key, '/wallet', '198.51.100.200')).status).toBe(200);
    expect((await reseller(key, '/wallet', '2001:db8:1::5')).status).toBe(200);
    const out = await reseller(key, '/wallet', '203.0.113.8');
    expect(out.status).toBe(403);
    expect(out.body).toEqual({ success: false, code: 'api_key.address_not_allowed', message: 'This API key may not be used from your address (203.0.113.8).' });
    expect((await reseller(key, '/wallet', '2001:db9::1')).status).toBe(403);
    // The unit, with the dual-stack spelling of an IPv4 client.
    expect(ipAllowed(['127.0.0.1'], '::ffff:127.0.0.1')).toBe(true);
    expect(ipAllowed([], null)).toBe(true);
    expect(ipAllowed(['10.0.0.0/8'], null)).toBe(false);
  });

  it('rate limit per key: over the limit a 429 with Retry-After, while another key of the same dealer goes on', async () => {
    const first = await newKey(shopA.token);
    const second = await newKey(shopA.token);
    const answers = await Promise.all(Array.from({ length: RATE + 3 }, () => reseller(first.key, '/wallet')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE);
    const limited = answers.find((a) => a.status === 429)!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toEqual({
      success: false,
      code: 'rate_limited',
      message: `Too many calls with this API key. Please try again in ${limited.headers['retry-after']} seconds.`,
    });
    expect((await reseller(second.key, '/wallet')).status).toBe(200);
  });

  it('logs every use (refused ones too) and keeps last_used_at to the minute', async () => {
    const { key, api_key } = await newKey(shopA.token, { scopes: ['wallet:read'] });
    await reseller(key, '/wallet', '203.0.113.9').set('User-Agent', 'till/1.0');
    await reseller(key, '/catalogue');
    await vi.waitFor(async () => expect(await uses(api_key.id)).toHaveLength(2));
    // Each use is written when its answer ends, on its own connection: two calls in a row may be
    // stored in either order (on MySQL), so they are compared by path.
    const logged = [...(await uses(api_key.id))].sort((a: { path: string }, b: { path: string }) => b.path.localeCompare(a.path));
    expect(logged.map((u: { status: number; path: string }) => [u.status, u.path])).toEqual([
      [200, '/api/reseller/v1/wallet'],
      [403, '/api/reseller/v1/catalogue'],
    ]);
    expect(logged[0]).toMatchObject({ ip: '203.0.113.9', user_agent: 'till/1.0', dealer_id: shopA.dealerId });
    const row = await h.knex('api_keys').where({ id: api_key.id }).first();
    expect(row.last_used_at).not.toBeNull();
    expect(row.last_used_ip).toBe('203.0.113.9');
    // Within the minute, more calls write no new last-used time.
    await reseller(key, '/wallet');
    expect((await h.knex('api_keys').where({ id: api_key.id }).first()).last_used_at).toBe(row.last_used_at);
    // The console pages through them, newest first.
    const page = await h.http().get(`/api/v1/dealer/api-keys/${api_key.id}/uses?per_page=2`).set(bearer(shopA.token));
    expect(page.status).toBe(200);
    expect(page.body.meta).toMatchObject({ per_page: 2 });
    expect(page.body.data[0]).toMatchObject({ method: 'GET', path: expect.stringContaining('/api/reseller/v1/') });
  });

  it('one dealer’s key never reads another dealer’s wallet, sales or catalogue', async () => {
    const keyA = (await newKey(shopA.token)).key;
    const keyB = (await newKey(shopB.token)).key;
    const walletA = await reseller(keyA, '/wallet');
    const walletB = await reseller(keyB, '/wallet');
    expect(walletA.body.data.wallet).toMatchObject({ dealer_id: shopA.dealerId, balance: '5.00' });
    expect(walletB.body.data.wallet).toMatchObject({ dealer_id: shopB.dealerId, balance: '7.00' });
    expect(walletA.body.data.transactions.every((t: { dealer: { id: number } }) => t.dealer.id === shopA.dealerId)).toBe(true);
    // A sale of B's: A's key cannot read it by reference (404, as an unknown one), nor list it.
    const sale = await h
      .http()
      .post('/api/reseller/v1/recharges')
      .set('Authorization', `Bearer ${keyB}`)
      .set('Idempotency-Key', 'isolation-b-1')
      .send({ bundle_id: shopB.bundleId, phone: '0615123456', payment: 'wallet' });
    expect(sale.status).toBe(201);
    expect((await reseller(keyB, `/recharges/${sale.body.data.reference}`)).status).toBe(200);
    const probe = await reseller(keyA, `/recharges/${sale.body.data.reference}`);
    expect(probe.status).toBe(404);
    expect(probe.body).toEqual({ success: false, code: 'recharges.not_found', message: (await reseller(keyA, '/recharges/RC2222222222')).body.message });
    const listA = await reseller(keyA, '/recharges');
    expect(listA.body.data.every((r: { dealer: { id: number } }) => r.dealer.id === shopA.dealerId)).toBe(true);
    // A's catalogue is A's offer: B's bundle is not in it, and A cannot sell it.
    const catalogueA = await reseller(keyA, '/catalogue');
    const bundlesA = catalogueA.body.data.providers.flatMap((p: { categories: { bundles: { id: number }[] }[] }) =>
      p.categories.flatMap((c) => c.bundles.map((b) => b.id)),
    );
    expect(bundlesA).toContain(shopA.bundleId);
    expect(bundlesA).not.toContain(shopB.bundleId);
    const crossSale = await h
      .http()
      .post('/api/reseller/v1/recharges')
      .set('Authorization', `Bearer ${keyA}`)
      .set('Idempotency-Key', 'isolation-a-1')
      .send({ bundle_id: shopB.bundleId, phone: '0615123456', payment: 'wallet' });
    expect(crossSale.status).toBe(422);
    expect(crossSale.body.errors.bundle_id).toBeDefined();
  });
});
