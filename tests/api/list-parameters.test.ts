import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from './harness.ts';
import { API_KEY_SCOPES } from '@app/contracts';
import { makeShop } from '../../api/src/recharges/recharge-fixtures.ts';

/**
 * Every list of both APIs, found in their OpenAPI documents (an answer with `meta`), so a new list
 * is covered without being named here: a parameter it does not declare is refused with a 422
 * naming it (docs/api-conventions.md, "Lists"), each parameter is documented once, page and
 * per_page as integers, every sort field it documents really sorts (never a 500), and the
 * parameters every list shares (page, per_page, lng) are never refused.
 */
let h: Harness;
let root: string;
let resellerKey: string;

interface Op {
  api: 'console' | 'reseller';
  path: string;
  parameters: { name: string; in: string; schema?: { type?: string; enum?: string[] } }[];
}
const lists: Op[] = [];

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '10000', API_RATE_LIMIT_PER_MINUTE: '100000' } });
  root = await h.adminToken();
  const shop = await makeShop(h, root, 'cost');
  resellerKey = (
    await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shop.token))
      .send({ name: 'All', scopes: [...API_KEY_SCOPES] })
  ).body.data.key;
  for (const [api, url] of [
    ['console', '/api/v1/openapi.json'],
    ['reseller', '/api/reseller/v1/openapi.json'],
  ] as const) {
    const doc = (await h.http().get(url).expect(200)).body as { paths: Record<string, Record<string, { parameters?: Op['parameters']; responses: unknown }>> };
    for (const [path, ops] of Object.entries(doc.paths)) {
      const get = ops.get;
      if (get && JSON.stringify(get.responses).includes('#/components/schemas/ListMeta')) lists.push({ api, path, parameters: get.parameters ?? [] });
    }
  }
}, 60_000);
afterAll(() => h.close());

/** The list's URL: any path parameter will do, the query is checked before anything is looked up. */
const call = (op: Op, query: string) => {
  const path = op.path.replace(/\{aggregator\}/g, 'reloadly').replace(/\{[^}]+\}/g, '1');
  const base = op.api === 'console' ? '/api/v1' : '/api/reseller/v1';
  const req = h.http().get(`${base}${path}?${query}`);
  return op.api === 'console' ? req.set(bearer(root)) : req.set('Authorization', `Bearer ${resellerKey}`);
};
const queryParams = (op: Op) => op.parameters.filter((p) => p.in === 'query');

describe('every list', () => {
  it('is found in the documents: the console’s resources, the custom lists and the reseller’s', () => {
    const paths = lists.map((l) => `${l.api} ${l.path}`);
    expect(lists.length).toBeGreaterThan(25);
    expect(paths).toEqual(
      expect.arrayContaining([
        'console /users',
        'console /users/trashed/list',
        'console /users/search',
        'console /recharges',
        'console /wallets',
        'console /wallet-transactions',
        'console /logs',
        'console /daily-close',
        'console /dealer/api-keys',
        'console /webhook-deliveries',
        'console /missed-sales',
        'console /user-options',
        'reseller /recharges',
      ]),
    );
  });

  it('refuses a parameter it does not declare, with a 422 naming it (English and Arabic)', async () => {
    const wrong: string[] = [];
    for (const op of lists) {
      const res = await call(op, 'zz_unknown=1&per_page=5');
      if (res.status !== 422 || res.body.errors?.zz_unknown?.[0] !== 'Unknown parameter: zz_unknown. This call takes only the parameters in its documentation.')
        wrong.push(`${op.api} ${op.path}: ${res.status} ${JSON.stringify(res.body.errors ?? res.body.message)}`);
    }
    expect(wrong).toEqual([]);
    const ar = await call(
      lists.find((l) => l.path === '/recharges' && l.api === 'console')!,
      'lng=ae&filter=x',
    );
    expect(ar.status).toBe(422);
    expect(ar.body.errors.filter[0]).toContain('filter');
    expect(ar.body.errors.filter[0]).toMatch(/[\u0600-\u06FF]/);
  });

  it('documents each parameter once; page and per_page as integers (per_page at most 100), order as asc|desc, sort as its fields', () => {
    const wrong: string[] = [];
    for (const op of lists) {
      const names = queryParams(op).map((p) => p.name);
      if (new Set(names).size !== names.length) wrong.push(`${op.path}: twice: ${names.filter((n, i) => names.indexOf(n) !== i).join(', ')}`);
      for (const p of queryParams(op)) {
        if ((p.name === 'page' || p.name === 'per_page') && p.schema?.type !== 'integer') wrong.push(`${op.path}: ${p.name} is ${p.schema?.type}`);
        if (p.name === 'order' && JSON.stringify(p.schema?.enum) !== '["asc","desc"]') wrong.push(`${op.path}: order is ${JSON.stringify(p.schema)}`);
        if (p.name === 'sort' && !p.schema?.enum?.length) wrong.push(`${op.path}: sort has no list of fields`);
      }
      if (!names.includes('page') || !names.includes('per_page')) wrong.push(`${op.path}: no page/per_page`);
    }
    expect(wrong).toEqual([]);
  });

  it('accepts every query parameter it documents (none is documented and then refused as unknown)', async () => {
    const wrong: string[] = [];
    for (const op of lists) {
      for (const p of queryParams(op)) {
        const value = p.schema?.enum?.[0] ?? (p.schema?.type === 'integer' ? '1' : 'x');
        const res = await call(op, `${p.name}=${encodeURIComponent(value)}`);
        if (res.body.errors?.[p.name]?.[0]?.startsWith('Unknown parameter')) wrong.push(`${op.api} ${op.path}: ${p.name}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('never refuses page, per_page or lng, and refuses a bad page or per_page by name', async () => {
    const wrong: string[] = [];
    for (const op of lists) {
      const ok = await call(op, 'page=1&per_page=5&lng=so');
      const named = Object.keys(ok.body.errors ?? {}).filter((k) => ['page', 'per_page', 'lng'].includes(k));
      if (ok.status >= 500 || named.length) wrong.push(`${op.path}: ${ok.status} ${named.join(',')}`);
      const bad = await call(op, 'page=x&per_page=500');
      if (bad.status !== 422 || !bad.body.errors?.page || !bad.body.errors?.per_page) wrong.push(`${op.path}: bad page answered ${bad.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('sorts by every field it documents, both ways, and refuses another field naming the ones it has', async () => {
    const wrong: string[] = [];
    let sorted = 0;
    for (const op of lists) {
      const fields = queryParams(op).find((p) => p.name === 'sort')?.schema?.enum;
      if (!fields) continue;
      for (const field of fields)
        for (const order of ['asc', 'desc']) {
          const res = await call(op, `sort=${field}&order=${order}`);
          sorted += 1;
          if (res.status >= 500 || res.body.errors?.sort || res.body.errors?.order) wrong.push(`${op.path} sort=${field}&order=${order}: ${res.status}`);
        }
      const bad = await call(op, 'sort=zz_bogus');
      if (bad.status !== 422 || bad.body.errors?.sort?.[0] !== `Sorting is possible by: ${fields.join(', ')}`)
        wrong.push(`${op.path} sort=zz_bogus: ${bad.status} ${JSON.stringify(bad.body.errors)}`);
    }
    expect(wrong).toEqual([]);
    expect(sorted).toBeGreaterThan(50);
  });
});
