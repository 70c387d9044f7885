import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { makeShop, type Shop } from '../recharges/recharge-fixtures.ts';

/**
 * GET /api/reseller/v1/recharges, docs/api-conventions.md "Reseller API": every parameter filters
 * (q, status, phone, client_reference, from, to), sorts or pages, always within the key's dealer
 * (another dealer's sale sharing a phone, a client_reference or named by its reference never
 * shows), and anything else, or a bad value, is a 422 naming the parameter, in the caller's
 * language. Two real sales go through POST /recharges; the rest is sale history written as rows.
 */
let h: Harness;
let a: Shop;
let b: Shop;
let keyA: string;
let keyB: string;
/** Dealer A's sales by name, as their references. */
const ref: Record<string, string> = {};
let realA: { id: number; reference: string };
let realB: { id: number; reference: string };

const keyOf = async (shop: Shop) =>
  (
    await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shop.token))
      .send({ name: 'POS', scopes: ['recharges:write', 'recharges:read', 'catalogue:read', 'wallet:read'] })
  ).body.data.key as string;

const sell = async (key: string, shop: Shop, body: Record<string, unknown>) => {
  const res = await h
    .http()
    .post('/api/reseller/v1/recharges')
    .set('Authorization', `Bearer ${key}`)
    .set('Idempotency-Key', `filters-${Math.random().toString(36).slice(2)}`)
    .send({ bundle_id: shop.bundleId, payment: 'wallet', ...body });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; reference: string };
};

/**
 * Sale history of a dealer: [name, status, amount (minor), created_at (UTC), completed_at, phone, client_reference].
 * Created times straddle the company day boundary (Africa/Mogadishu, UTC+3): 21:30 UTC on Nov 1 is Nov 2 there.
 */
type Row = [string, string, number, string, string | null, string, string | null];
const HISTORY_A: Row[] = [
  ['a1', 'completed', 55, '2026-11-01 08:00:00', '2026-11-01 08:01:00', '615000001', 'INV-1'],
  ['a2', 'failed', 110, '2026-11-01 12:00:00', null, '615000002', null],
  ['a3', 'completed', 55, '2026-11-01 21:30:00', '2026-11-01 21:35:00', '615000001', 'INV-2'],
  ['a4', 'refunded', 220, '2026-11-02 09:00:00', null, '615000003', 'INV-3'],
  ['a5', 'pending', 110, '2026-11-03 10:00:00', null, '615000002', null],
  ['a6', 'completed', 330, '2026-11-03 11:00:00', '2026-11-03 10:59:00', '615000004', 'inv-1'],
  ['a7', 'needs_review', 55, '2026-11-04 07:00:00', null, '615000001', null],
];
/** Dealer B shares A's phones and client references: none of it may reach A's answers. */
const HISTORY_B: Row[] = [
  ['b1', 'completed', 55, '2026-11-01 09:00:00', '2026-11-01 09:01:00', '615000001', 'INV-1'],
  ['b2', 'failed', 110, '2026-11-02 09:30:00', null, '615000002', 'INV-2'],
];

async function insertHistory(shop: Shop, rows: Row[]) {
  const provider = await h.knex('providers').where({ code: 'HORSHOP' }).first('id');
  let n = 0;
  for (const [name, status, amount, at, completed, phone, clientRef] of rows) {
    n += 1;
    const reference = `RC${name.toUpperCase()}${String(shop.dealerId).padStart(4, '0')}${'X'.repeat(10)}`.slice(0, 12);
    ref[name] = reference;
    await h.knex('recharges').insert({
      dealer_id: shop.dealerId,
      provider_id: provider.id,
      provider_name: 'Hormuud',
      category_name: 'Daily',
      bundle_name: '1 GB',
      pricing_model: 'cost',
      phone,
      payer_phone: null,
      amount,
      cost: 40,
      profit: amount - 40,
      currency: 'USD',
      status,
      idempotency_key: `history-${name}-${n}`,
      reference,
      client_reference: clientRef,
      attempts: 1,
      created_at: at,
      updated_at: at,
      completed_at: completed,
    });
  }
}

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '10000' } });
  const root = await h.adminToken();
  a = await makeShop(h, root, 'cost', { balance: '5.00' });
  b = await makeShop(h, root, 'cost', { balance: '5.00' });
  keyA = await keyOf(a);
  keyB = await keyOf(b);
  await insertHistory(a, HISTORY_A);
  await insertHistory(b, HISTORY_B);
  // Real sales through the one sale path: the same client_reference and phone at both dealers.
  realA = await sell(keyA, a, { phone: '+252 61 777 0001', client_reference: 'POS-77' });
  realB = await sell(keyB, b, { phone: '0617770001', client_reference: 'POS-77' });
}, 60_000);
afterAll(() => h.close());

const list = (query: string, key = keyA) =>
  h
    .http()
    .get(`/api/reseller/v1/recharges${query ? `?${query}` : ''}`)
    .set('Authorization', `Bearer ${key}`);
const refs = (res: { body: { data: { reference: string }[] } }) => res.body.data.map((r) => r.reference);
/** All of dealer A's sales, as the answer's references in order. */
const names = (...n: string[]) => n.map((x) => (x === 'realA' ? realA.reference : ref[x]));

describe('filters: each returns exactly the matching sales of the key’s dealer', () => {
  it('without filters: A’s sales only, newest first', async () => {
    const res = await list('per_page=100');
    expect(res.status).toBe(200);
    expect(refs(res)).toEqual(names('realA', 'a7', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1'));
    expect(res.body.meta).toMatchObject({ total: 8, per_page: 100, current_page: 1, last_page: 1 });
  });

  it('q: a reference (any case), a phone in any accepted form, or a client_reference, each exactly', async () => {
    expect(refs(await list(`q=${ref.a4}`))).toEqual(names('a4'));
    expect(refs(await list(`q=${ref.a4.toLowerCase()}`))).toEqual(names('a4'));
    expect(refs(await list(`q=${encodeURIComponent(' +252 61 500 0001 ')}`))).toEqual(names('a7', 'a3', 'a1'));
    expect(refs(await list('q=0615000002'))).toEqual(names('a5', 'a2'));
    expect(refs(await list('q=00252615000002'))).toEqual(names('a5', 'a2'));
    expect(refs(await list('q=INV-1'))).toEqual(names('a1'));
    expect(refs(await list('q=inv-1'))).toEqual(names('a6'));
    expect(refs(await list('q=POS-77'))).toEqual([realA.reference]);
    // Part of a reference is not a match: q finds a sale, it does not browse.
    expect(refs(await list(`q=${ref.a4.slice(0, 6)}`))).toEqual([]);
  });

  it('q never reaches another dealer’s sale: its reference, a shared phone or client_reference', async () => {
    expect((await list(`q=${ref.b1}`)).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await list(`q=${realB.reference}`)).body.data).toEqual([]);
    expect(refs(await list('q=INV-2'))).toEqual(names('a3'));
    expect(refs(await list('q=INV-2', keyB))).toEqual([ref.b2]);
    expect(refs(await list('q=POS-77', keyB))).toEqual([realB.reference]);
    expect(refs(await list('q=0617770001', keyB))).toEqual([realB.reference]);
  });

  it('status: one or several, comma-separated', async () => {
    expect(refs(await list('status=completed'))).toEqual(names('a6', 'a3', 'a1'));
    expect(refs(await list('status=failed,refunded'))).toEqual(names('a4', 'a2'));
    expect(refs(await list('status=pending'))).toEqual(names('realA', 'a5'));
    expect(refs(await list('status=needs_review,completed&per_page=2'))).toEqual(names('a7', 'a6'));
  });

  it('phone: normalised like the sale’s phone, any accepted form, exact', async () => {
    expect(refs(await list('phone=615000001'))).toEqual(names('a7', 'a3', 'a1'));
    expect(refs(await list(`phone=${encodeURIComponent('+252 61 500-0001')}`))).toEqual(names('a7', 'a3', 'a1'));
    expect(refs(await list('phone=0615000004'))).toEqual(names('a6'));
    expect(refs(await list('phone=0617770001'))).toEqual([realA.reference]);
    expect(refs(await list('phone=615000009'))).toEqual([]);
  });

  it('client_reference: exact and case-sensitive, the dealer’s own only', async () => {
    expect(refs(await list('client_reference=INV-1'))).toEqual(names('a1'));
    expect(refs(await list('client_reference=inv-1'))).toEqual(names('a6'));
    expect(refs(await list('client_reference=INV'))).toEqual([]);
    expect(refs(await list('client_reference=POS-77'))).toEqual([realA.reference]);
    expect(refs(await list('client_reference=INV-1', keyB))).toEqual([ref.b1]);
  });

  it('from and to: company days (Africa/Mogadishu), both included', async () => {
    // 21:30 UTC on Nov 1 is 00:30 on Nov 2 in Mogadishu.
    expect(refs(await list('from=2026-11-01&to=2026-11-01'))).toEqual(names('a2', 'a1'));
    expect(refs(await list('from=2026-11-02&to=2026-11-02'))).toEqual(names('a4', 'a3'));
    expect(refs(await list('from=2026-11-03&to=2026-11-04'))).toEqual(names('a7', 'a6', 'a5'));
    expect(refs(await list('to=2026-11-01'))).toEqual(names('a2', 'a1'));
  });

  it('filters combine (and), still within the dealer', async () => {
    expect(refs(await list('status=completed&phone=615000001&from=2026-11-02'))).toEqual(names('a3'));
    expect(refs(await list('q=615000001&status=needs_review'))).toEqual(names('a7'));
    expect(refs(await list('client_reference=INV-1&status=failed'))).toEqual([]);
  });
});

describe('sort and order, with stable pages', () => {
  /** Every page of `per` rows under this sort, concatenated. */
  const walk = async (query: string, per: number) => {
    const out: string[] = [];
    for (let page = 1; page <= 10; page += 1) {
      const res = await list(`${query}&per_page=${per}&page=${page}&status=completed,failed,refunded,pending,needs_review`);
      expect(res.status).toBe(200);
      out.push(...refs(res));
      if (page >= res.body.meta.last_page) break;
    }
    return out;
  };
  const history = HISTORY_A.map(([name, status, amount, at, completed]) => ({ name, status, amount, at, completed }));
  // Fixture ids grow with the list's order of insertion, so id order is HISTORY_A's order.
  const expected = (key: (r: (typeof history)[number]) => string | number | null, order: 'asc' | 'desc') => {
    const idx = (n: string) => HISTORY_A.findIndex((r) => r[0] === n);
    const sorted = [...history].sort((x, y) => {
      const kx = key(x);
      const ky = key(y);
      // NULLs sort first ascending (both engines), last descending.
      const c = kx === ky ? idx(x.name) - idx(y.name) : kx === null ? -1 : ky === null ? 1 : kx < ky ? -1 : 1;
      return order === 'asc' ? c : -c;
    });
    return sorted.map((r) => ref[r.name]);
  };

  const cases: [string, (r: (typeof history)[number]) => string | number | null][] = [
    ['created_at', (r) => r.at],
    ['amount', (r) => r.amount],
    ['status', (r) => r.status],
    ['completed_at', (r) => r.completed],
  ];
  for (const [field, key] of cases) {
    for (const order of ['asc', 'desc'] as const) {
      it(`sort=${field}&order=${order}: each sale once, in order, ties by id the same way, pages of 3 and of 2 agreeing`, async () => {
        const want = expected(key, order);
        const byThree = (await walk(`sort=${field}&order=${order}&to=2026-11-30`, 3)).filter((r) => r !== realA.reference);
        expect(byThree).toEqual(want);
        const byTwo = (await walk(`sort=${field}&order=${order.toUpperCase()}&to=2026-11-30`, 2)).filter((r) => r !== realA.reference);
        expect(byTwo).toEqual(want);
      });
    }
  }

  it('the default is created_at, newest first', async () => {
    expect(refs(await list('to=2026-11-30&per_page=100'))).toEqual(refs(await list('to=2026-11-30&per_page=100&sort=created_at&order=desc')));
  });
});

describe('refusals: 422 naming the parameter, nothing answered', () => {
  const refused = async (query: string, field: string, lng = 'en') => {
    const res = await list(`${query}&lng=${lng}`);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(res.body).not.toHaveProperty('data');
    return res.body.errors[field][0] as string;
  };

  it('an unknown parameter, named, in English and in Arabic', async () => {
    expect(await refused('statuses=completed', 'statuses')).toBe('Unknown parameter: statuses. This call takes only the parameters in its documentation.');
    const ar = await refused('statuses=completed', 'statuses', 'ae');
    expect(ar).toContain('statuses');
    expect(ar).toMatch(/[\u0600-\u06FF]/);
    expect(await refused('reference=RC1', 'reference', 'so')).toContain('Halbeeg aan la aqoon: reference');
    // Two at once: both named.
    const res = await list('foo=1&bar=2');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['bar', 'foo']);
    expect(res.body.errors.foo[0]).toContain('foo, bar');
  });

  it('bad values of known parameters, each named', async () => {
    expect(await refused('status=lost', 'status')).toBe('Status must be pending, processing, completed, failed or refunded');
    await refused('status=completed,lost', 'status');
    await refused('phone=12345', 'phone');
    await refused('phone=0615abc123', 'phone');
    await refused('client_reference=has%20space', 'client_reference');
    await refused(`q=${'x'.repeat(101)}`, 'q');
    await refused('from=yesterday', 'from');
    await refused('to=2026-02-30', 'to');
    expect(await refused('sort=bogus', 'sort')).toBe('Sorting is possible by: created_at, amount, status, completed_at');
    expect(await refused('sort=bogus', 'sort', 'ae')).toContain('created_at, amount, status, completed_at');
    await refused('sort=id', 'sort');
    await refused('order=up', 'order');
    expect(await refused('per_page=abc', 'per_page')).toBe('Rows per page must be a whole number from 1 to 100.');
    expect(await refused('per_page=abc', 'per_page', 'ae')).toMatch(/[\u0600-\u06FF]/);
    await refused('per_page=0', 'per_page');
    await refused('per_page=101', 'per_page');
    await refused('per_page=2.5', 'per_page');
    await refused('page=0', 'page');
    await refused('page=two', 'page');
  });

  it('the reseller API\u2019s other reads refuse what they do not declare too', async () => {
    for (const path of ['/catalogue?currency=USD', '/wallet?limit=5&since=2026-01-01', '/wallet/statement?format=csv']) {
      const res = await h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${keyA}`);
      expect(res.status, path).toBe(422);
      expect(res.body.code).toBe('validation.unknown_parameter');
      expect(res.body.errors_detail).toEqual([expect.objectContaining({ code: 'validation.unknown_parameter' })]);
    }
    const ok = await h.http().get('/api/reseller/v1/wallet?limit=5&lng=so').set('Authorization', `Bearer ${keyA}`);
    expect(ok.status).toBe(200);
  });

  it('lng is always allowed, and valid values pass', async () => {
    const res = await list('lng=so&per_page=1&page=2&order=asc&sort=amount');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });
});
