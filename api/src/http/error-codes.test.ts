import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'supertest';
import { createHarness, bearer, PASSWORD, type Harness } from '../../../tests/api/harness.ts';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { makeShop, buy, type Shop } from '../recharges/recharge-fixtures.ts';
import { ERROR_CODES, FIELD_ERROR_CODES, errorCodeOf, topLevelCode } from './error-codes.ts';
import { problemType } from './error-handler.ts';

/**
 * Machine codes on every error answer (error-codes.ts): the lists are complete (every key the API
 * throws maps to a listed code, and the docs' table is the list), and on the real app the console
 * (/api/v1), the storefront's calls (/api/v1/client) and the reseller API (/api/reseller/v1) answer
 * each kind of refusal with a listed code beside the translated message, in the envelope or as
 * RFC 9457 problem details when asked.
 */
const LISTED = new Set(ERROR_CODES.map((e) => e.code));
const CODE_SHAPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

/** The message keys the API's source throws: top-level ones (AppError and its helpers) and field ones. */
function keysInSource(): { top: Map<string, string>; field: Map<string, string> } {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) files.push(p);
    }
  };
  walk(path.join(PROJECT_ROOT, 'api', 'src'));
  const KEY = /'((?:api|validation):[a-z_][\w.]*)'/g;
  // An argument: anything up to the next comma or object, parentheses kept whole (a ternary of keys is one).
  const ARG = String.raw`((?:[^,{()]|\([^)]*\))*)`;
  const top = new Map<string, string>();
  const field = new Map<string, string>();
  for (const file of files) {
    const where = path.relative(PROJECT_ROOT, file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(new RegExp(String.raw`new AppError\(\s*\d{3}\s*,\s*` + ARG, 'g'))) for (const k of m[1].matchAll(KEY)) top.set(k[1], where);
    for (const m of text.matchAll(new RegExp(String.raw`\b(?:unauthorized|forbidden|notFound|conflict)\(\s*` + ARG + String.raw`\)`, 'g'))) {
      for (const k of m[1].matchAll(KEY)) top.set(k[1], where);
    }
    for (const m of text.matchAll(new RegExp(String.raw`fieldError\(\s*[^,]+,\s*` + ARG, 'g'))) for (const k of m[1].matchAll(KEY)) field.set(k[1], where);
    // A field's list of messages: { phone: ['validation:phone_required'] }.
    for (const m of text.matchAll(/\[\s*('(?:api|validation):[\w.]+'(?:\s*,\s*'(?:api|validation):[\w.]+')*)\s*\]/g)) {
      for (const k of m[1].matchAll(KEY)) field.set(k[1], where);
    }
    // Every 'validation:' key is a field message (zod schemas, checks).
    for (const k of text.matchAll(/'(validation:[a-z_][\w.]*)'/g)) if (!field.has(k[1])) field.set(k[1], where);
  }
  return { top, field };
}

describe('the code lists', () => {
  it('are well formed: unique codes of one shape, each with an error status and a description', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(30);
    expect(new Set(ERROR_CODES.map((e) => e.code)).size).toBe(ERROR_CODES.length);
    for (const e of ERROR_CODES) {
      expect(e.code, e.code).toMatch(CODE_SHAPE);
      expect(e.status >= 400 && e.status <= 599, e.code).toBe(true);
      expect(e.description.length, e.code).toBeGreaterThan(10);
    }
    for (const c of FIELD_ERROR_CODES) expect(c, c).toMatch(CODE_SHAPE);
  });

  it('map keys by the table, else by a rule on the key, so a new key still answers a stable code', () => {
    expect(errorCodeOf('api:errors.validation')).toBe('validation.failed');
    expect(errorCodeOf('api:errors.not_found')).toBe('not_found');
    expect(errorCodeOf('validation:insufficient_balance')).toBe('wallet.insufficient_balance');
    expect(errorCodeOf('validation:wallet_balance_too_low')).toBe('wallet.insufficient_balance');
    expect(errorCodeOf('api:two_factor.enrolment_required')).toBe('auth.two_factor_enrolment_required');
    // Not in the table: derived from the key itself.
    expect(errorCodeOf('api:recharges.not_found')).toBe('recharges.not_found');
    expect(errorCodeOf('api:some_new_area.gone_wrong')).toBe('some_new_area.gone_wrong');
    expect(errorCodeOf('validation:phone_required')).toBe('validation.phone_required');
    // A 422 of one domain refusal answers its code; plain input checks (or a mix) validation.failed.
    expect(topLevelCode('api:errors.validation', { payment: ['validation:wallet_balance_too_low'] })).toBe('wallet.insufficient_balance');
    expect(topLevelCode('api:errors.validation', { bundle_id: ['validation:bundle_not_offered'] })).toBe('bundle.unavailable');
    expect(topLevelCode('api:errors.validation', { phone: ['validation:phone_required'] })).toBe('validation.failed');
    expect(topLevelCode('api:errors.validation', { bundle_id: ['validation:bundle_not_offered'], phone: ['validation:phone_required'] })).toBe(
      'validation.failed',
    );
    expect(topLevelCode('api:errors.forbidden', undefined, 'custom.code')).toBe('custom.code');
    // A library's plain text (no key): its status's generic code.
    expect(topLevelCode('Unsupported Media Type', undefined, undefined, 415)).toBe('bad_request');
    expect(topLevelCode('request aborted', undefined, undefined, 404)).toBe('not_found');
  });

  it('list every code the source can answer: each thrown key, each field key, each domain refusal', () => {
    const { top, field } = keysInSource();
    // The scan finds the throws it must (a sanity check of the scan itself).
    expect(top.get('api:api_keys.scope_missing')).toBeDefined();
    expect(top.get('api:recharges.idempotency_key_reused')).toBeDefined();
    expect(field.get('validation:bundle_not_offered')).toBeDefined();
    const unlisted = [...top].filter(([key]) => !LISTED.has(errorCodeOf(key))).map(([key, where]) => `${key} -> ${errorCodeOf(key)} (${where})`);
    expect(unlisted, 'add these codes to ERROR_CODES (or map their keys in KEY_CODES)').toEqual([]);
    const unlistedFields = [...field].filter(([key]) => !FIELD_ERROR_CODES.includes(errorCodeOf(key))).map(([key, where]) => `${key} (${where})`);
    expect(unlistedFields, 'add these api: keys to API_FIELD_KEYS in error-codes.ts').toEqual([]);
    // A field refusal that lifts to the top (a short wallet) is a top-level code too.
    const lifted = [...field.keys()].map((key) => topLevelCode('api:errors.validation', { f: [key] })).filter((c) => !LISTED.has(c));
    expect(lifted).toEqual([]);
    // Thrown through variables, out of the scan's sight.
    for (const key of [
      'api:errors.busy',
      'api:errors.database_unavailable',
      'api:errors.server',
      'api:errors.bad_request',
      'api:errors.payload_too_large',
      'api:errors.route_not_found',
      'api:errors.rate_limited',
      'api:errors.idempotency_in_progress',
      'validation:invalid_json',
      'api:wallets.reference_already_credited',
      'api:wallets.request_reference_credited',
      'api:wallets.approval_reference_credited',
      'api:wallets.reference_pending',
    ]) {
      expect(LISTED.has(errorCodeOf(key)), key).toBe(true);
    }
  });

  it('every validation message in the locale has a field code', () => {
    const en = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'locales', 'en', 'validation.json'), 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(en)) expect(FIELD_ERROR_CODES, key).toContain(errorCodeOf(`validation:${key}`));
  });

  it('docs/api-conventions.md lists exactly these codes with their statuses', () => {
    const doc = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'api-conventions.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Error codes'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code |')));
    const rows = [...table.matchAll(/^\| `([^`]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows.sort()).toEqual(ERROR_CODES.map((e) => `${e.code} ${e.status}`).sort());
  });
});

let h: Harness;
let root: string;
let shop: Shop;
let poor: Shop;
let resellerKey: string;
let narrowKey: string;

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '2.00' });
  poor = await makeShop(h, root, 'cost');
  const key = (token: string, scopes: string[]) => h.http().post('/api/v1/dealer/api-keys').set(bearer(token)).send({ name: 'POS', scopes });
  resellerKey = (await key(poor.token, ['catalogue:read', 'recharges:write', 'recharges:read'])).body.data.key;
  narrowKey = (await key(poor.token, ['catalogue:read'])).body.data.key;
});
afterAll(async () => {
  await h?.close();
});

/** An error answer in the envelope, with a listed code; returns the code. */
function codeOf(res: Response, status: number): string {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.success).toBe(false);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message).not.toMatch(/^(api|validation):/);
  expect(LISTED.has(res.body.code), res.body.code).toBe(true);
  return res.body.code;
}

const reseller = (method: 'get' | 'post', p: string, key = resellerKey) => h.http()[method](`/api/reseller/v1${p}`).set('Authorization', `Bearer ${key}`);
const sell = (body: object, idempotencyKey: string, lng = 'en') => reseller('post', `/recharges?lng=${lng}`).set('Idempotency-Key', idempotencyKey).send(body);
const BIG = JSON.stringify({ name: 'x'.repeat(1_100_000) });

describe('a domain refusal is told apart by its code, the same in every language', () => {
  it('a short wallet and an unavailable bundle: two codes, in en and in so', async () => {
    const short = { bundle_id: poor.bundleId, phone: '0615123456', payment: 'wallet' };
    const gone = { bundle_id: 999999, phone: '0615123456', payment: 'wallet' };
    const answers = {
      shortEn: await sell(short, 'short-en-0001'),
      shortSo: await sell(short, 'short-so-0001', 'so'),
      goneEn: await sell(gone, 'gone-en-00001'),
      goneSo: await sell(gone, 'gone-so-00001', 'so'),
    };
    expect(codeOf(answers.shortEn, 422)).toBe('wallet.insufficient_balance');
    expect(codeOf(answers.shortSo, 422)).toBe('wallet.insufficient_balance');
    expect(codeOf(answers.goneEn, 422)).toBe('bundle.unavailable');
    expect(codeOf(answers.goneSo, 422)).toBe('bundle.unavailable');
    // The words differ by language; the codes do not.
    expect(answers.shortSo.body.errors.payment[0]).not.toBe(answers.shortEn.body.errors.payment[0]);
    expect(answers.goneSo.body.errors.bundle_id[0]).not.toBe(answers.goneEn.body.errors.bundle_id[0]);
    expect(answers.shortEn.body.errors_detail).toEqual([
      { field: 'payment', code: 'wallet.insufficient_balance', message: answers.shortEn.body.errors.payment[0] },
    ]);
    expect(answers.goneSo.body.errors_detail).toEqual([{ field: 'bundle_id', code: 'bundle.unavailable', message: answers.goneSo.body.errors.bundle_id[0] }]);
    // Nothing was written.
    expect(await h.knex('recharges').where({ dealer_id: poor.dealerId }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('the console: a debit beyond the balance is wallet.insufficient_balance; the storefront keeps the dealer’s balance private', async () => {
    const debit = await h
      .http()
      .post(`/api/v1/wallets/${poor.walletId}/adjust`)
      .set(bearer(root))
      .send({ type: 'debit', amount: '5.00', reference: 'short-debit-1', note: 'test' });
    expect(codeOf(debit, 422)).toBe('wallet.insufficient_balance');
    const customer = await buy(h, poor);
    expect(codeOf(customer, 422)).toBe('recharges.temporarily_unavailable');
    const offered = await buy(h, poor, { bundle_id: 999999 });
    expect(codeOf(offered, 422)).toBe('bundle.unavailable');
  });
});

describe('input validation', () => {
  it('is validation.failed with a code per field in errors_detail, beside the unchanged errors map', async () => {
    const res = await h.http().post('/api/v1/users').set(bearer(root)).send({ email: 'not-an-email' });
    expect(codeOf(res, 422)).toBe('validation.failed');
    const detail = res.body.errors_detail as { field: string; code: string; message: string }[];
    expect(detail.length).toBe(Object.values(res.body.errors as Record<string, string[]>).flat().length);
    expect(detail).toContainEqual({ field: 'email', code: 'validation.email_invalid', message: res.body.errors.email[0] });
    expect(detail).toContainEqual({ field: 'name', code: 'validation.name_required', message: res.body.errors.name[0] });
    for (const d of detail) expect(FIELD_ERROR_CODES).toContain(d.code);
  });
});

describe('problem+json (RFC 9457) when Accept prefers it', () => {
  it('answers the RFC members plus code, errors and errors_detail, as application/problem+json', async () => {
    const res = await sell({ bundle_id: 999999, phone: '0615123456', payment: 'wallet' }, 'problem-00001').set('Accept', 'application/problem+json');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({
      type: problemType('bundle.unavailable'),
      title: 'Validation failed. Please check your inputs.',
      status: 422,
      instance: '/api/reseller/v1/recharges',
      code: 'bundle.unavailable',
      errors: { bundle_id: [expect.any(String)] },
      errors_detail: [{ field: 'bundle_id', code: 'bundle.unavailable', message: expect.any(String) }],
    });
    expect(body.detail).toBe(body.errors.bundle_id[0]);
    expect(body.request_id).toBe(res.headers['x-request-id']);
    expect(body).not.toHaveProperty('success');
    expect(res.headers.vary).toMatch(/Accept/);
  });

  it('on the console and the storefront too; */* or no Accept keeps the envelope', async () => {
    const console404 = await h.http().get('/api/v1/users/99999999').set(bearer(root)).set('Accept', 'application/problem+json, application/json;q=0.5');
    expect(console404.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(console404.text)).toMatchObject({ status: 404, code: 'not_found', instance: '/api/v1/users/99999999', type: problemType('not_found') });
    const store = await h.http().get('/api/v1/client/dealer').set('dealer_code', 'NO-SUCH-SHOP').set('Accept', 'application/problem+json');
    expect(JSON.parse(store.text)).toMatchObject({ status: 404, code: 'storefront.dealer_not_found' });
    expect(codeOf(await h.http().get('/api/v1/users/99999999').set(bearer(root)).set('Accept', '*/*'), 404)).toBe('not_found');
    expect(codeOf(await h.http().get('/api/v1/users/99999999').set(bearer(root)), 404)).toBe('not_found');
  });
});

describe('every kind of refusal carries a code, on each surface', () => {
  it('the console (/api/v1): 400, 401, 403, 404, 404 route, 409, 413, 422, 423', async () => {
    const clerk = await h.userWith([]);
    expect(codeOf(await h.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{"email":'), 400)).toBe('invalid_json');
    expect(codeOf(await h.http().get('/api/v1/users'), 401)).toBe('auth.unauthenticated');
    expect(codeOf(await h.http().get('/api/v1/users').set(bearer(clerk.token)), 403)).toBe('auth.forbidden');
    expect(codeOf(await h.http().get('/api/v1/users/99999999').set(bearer(root)), 404)).toBe('not_found');
    expect(codeOf(await h.http().get('/api/v1/no-such-thing').set(bearer(root)), 404)).toBe('route_not_found');
    const again = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up`).set(bearer(root)).send({ amount: '1.00', reference: 'seed' });
    expect(codeOf(again, 409)).toMatch(/^wallets\.reference_/);
    const big = await h.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send(BIG);
    expect(codeOf(big, 413)).toBe('payload_too_large');
    expect(codeOf(await h.http().post('/api/v1/auth/login').send({}), 422)).toBe('validation.failed');
    expect((await h.http().post('/api/v1/auth/lock').set(bearer(clerk.token)).send({ password: PASSWORD })).status).toBe(200);
    expect(codeOf(await h.http().get('/api/v1/users').set(bearer(clerk.token)), 423)).toBe('auth.session_locked');
  });

  it('the storefront’s calls (/api/v1/client): 400, 403, 404, 404 route, 413, 422', async () => {
    const post = () => h.http().post('/api/v1/client/recharge').set('dealer_code', shop.code).set('Content-Type', 'application/json');
    expect(codeOf(await post().send('{"bundle_id":'), 400)).toBe('invalid_json');
    expect(codeOf(await post().send(BIG), 413)).toBe('payload_too_large');
    expect(codeOf(await h.http().get('/api/v1/client/dealer').set('dealer_code', 'NO-SUCH-SHOP'), 404)).toBe('storefront.dealer_not_found');
    expect(codeOf(await h.http().get('/api/v1/client/no-such-thing'), 404)).toBe('route_not_found');
    expect(codeOf(await buy(h, shop, { idempotency_key: '' }), 422)).toBe('idempotency.key_missing');
    // A browser's session without its CSRF token.
    const browser = h.agent();
    expect((await browser.get('/api/v1/client/session').set('dealer_code', shop.code)).status).toBe(200);
    const forged = await browser
      .post('/api/v1/client/recharge')
      .set('dealer_code', shop.code)
      .send({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone: '0615123456', payer_phone: '0617000021', idempotency_key: 'forged-00001' });
    expect(codeOf(forged, 403)).toBe('storefront.csrf_invalid');
  });

  it('the reseller API: 400, 401, 403 scope, 404, 404 route, 413, 422', async () => {
    const body = { bundle_id: poor.bundleId, phone: '0615123456', payment: 'wallet' };
    const badJson = await reseller('post', '/recharges').set('Idempotency-Key', 'json-000001').set('Content-Type', 'application/json').send('{"x":');
    expect(codeOf(badJson, 400)).toBe('invalid_json');
    expect(codeOf(await reseller('post', '/recharges').send(body), 400)).toBe('idempotency.key_missing');
    expect(codeOf(await reseller('post', '/recharges').set('Idempotency-Key', 'short').send(body), 400)).toBe('idempotency.key_invalid');
    expect(codeOf(await h.http().get('/api/reseller/v1/catalogue'), 401)).toBe('api_key.missing');
    expect(codeOf(await reseller('get', '/catalogue', 'rk_live_nope_nope'), 401)).toBe('api_key.invalid');
    expect(codeOf(await reseller('get', '/recharges', narrowKey), 403)).toBe('api_key.scope_missing');
    expect(codeOf(await reseller('get', '/recharges/RCNOSUCHSALE'), 404)).toBe('recharges.not_found');
    expect(codeOf(await reseller('get', '/no-such-thing'), 404)).toBe('route_not_found');
    const big = await reseller('post', '/recharges').set('Idempotency-Key', 'big-0000001').set('Content-Type', 'application/json').send(BIG);
    expect(codeOf(big, 413)).toBe('payload_too_large');
    expect(codeOf(await sell({ bundle_id: '', phone: '1', payment: 'cash' }, 'invalid-00001'), 422)).toBe('validation.failed');
  });

  it('a key’s address allow-list: 403 api_key.address_not_allowed', async () => {
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(poor.token))
      .send({ name: 'Office', scopes: ['catalogue:read'], ip_allowlist: ['203.0.113.7'] });
    expect(made.status).toBe(201);
    expect(codeOf(await reseller('get', '/catalogue', made.body.data.key), 403)).toBe('api_key.address_not_allowed');
  });
});

describe('429 on every surface', () => {
  const CEILING = 30;
  let low: Harness;
  let lowShop: Shop;
  let lowKey: string;
  beforeAll(async () => {
    low = await createHarness({ env: { API_RATE_LIMIT_PER_MINUTE: String(CEILING), API_KEY_RATE_LIMIT_PER_MINUTE: '1' } });
    lowShop = await makeShop(low, await low.adminToken(), 'cost');
    lowKey = (
      await low
        .http()
        .post('/api/v1/dealer/api-keys')
        .set(bearer(lowShop.token))
        .send({ name: 'POS', scopes: ['catalogue:read'] })
    ).body.data.key;
  });
  afterAll(async () => {
    await low?.close();
  });

  /** Calls `call` until it answers 429 (within the ceiling and one); returns that answer. */
  async function untilLimited(call: () => Promise<Response>): Promise<Response> {
    for (let i = 0; i <= CEILING; i += 1) {
      const res = await call();
      if (res.status === 429) return res;
    }
    throw new Error('never limited');
  }

  it('the reseller per-key limit: rate_limited with Retry-After', async () => {
    const call = () => low.http().get('/api/reseller/v1/catalogue').set('Authorization', `Bearer ${lowKey}`);
    expect((await call()).status).toBe(200);
    const limited = await call();
    expect(codeOf(limited, 429)).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('the per-address ceilings of the storefront’s calls, the console and the reseller API: rate_limited', async () => {
    // The storefront's calls without a session meet their own per-address ceiling (API_RATE_LIMIT_PER_MINUTE by default) ...
    const store = await untilLimited(() => low.http().get('/api/v1/client/dealer').set('dealer_code', 'NOPE'));
    expect(codeOf(store, 429)).toBe('rate_limited');
    expect(Number(store.headers['retry-after'])).toBeGreaterThan(0);
    // ... and the console its own.
    const staff = await untilLimited(() => low.http().get('/api/v1/users').set(bearer(lowShop.token)));
    expect(codeOf(staff, 429)).toBe('rate_limited');
    // The reseller API counts apart, per address.
    await untilLimited(() => low.http().get('/api/reseller/v1/catalogue'));
    const ceiling = await low.http().get('/api/reseller/v1/catalogue').set('Accept', 'application/problem+json');
    expect(ceiling.status).toBe(429);
    expect(JSON.parse(ceiling.text)).toMatchObject({ status: 429, code: 'rate_limited', type: problemType('rate_limited') });
  });
});
