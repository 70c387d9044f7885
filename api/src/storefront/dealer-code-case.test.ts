import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, type Shop } from '../recharges/recharge-fixtures.ts';

/**
 * Letter case means the same on SQLite and MariaDB: a dealer code is one shop in any case (links,
 * headers, uniqueness, the database's own index), and a purchase's idempotency key is exact.
 */
let h: Harness;
let root: string;
let shop: Shop;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '5' });
  // A code saved in lower case, as a dealer might type it.
  await h.knex('users').where({ id: shop.dealerId }).update({ dealer_code: 'qaran' });
  shop = { ...shop, code: 'qaran' };
});
afterAll(() => h.close());

const newDealer = (code: string) =>
  h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', `Shop ${code}`)
    .field('email', `${code.toLowerCase()}-${Date.now()}@test.example`)
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', code)
    .field('pricing_model', 'cost')
    .attach('dealer_logo', PNG_1PX, 'l.png');

describe('dealer codes are case-insensitive', () => {
  it('the storefront calls answer the shop for any case of its code, from one cache entry', async () => {
    for (const code of ['qaran', 'QARAN', 'Qaran']) {
      const res = await h.http().get('/api/v1/client/dealer').set('dealer_code', code);
      expect(res.status).toBe(200);
      expect(res.body.data.dealer.code).toBe('qaran');
    }
    const upper = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'QARAN');
    const lower = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'qaran');
    expect(upper.headers.etag).toBe(lower.headers.etag);
    expect((await buy(h, { ...shop, code: 'QARAN' })).status).toBe(201);
  });

  it('a link in another case is sent to the shop’s own address (query kept); an unknown code is still a 404 page', async () => {
    const res = await h.http().get('/dealer/QARAN/order/RC0000000000?lng=so');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/dealer/qaran/order/RC0000000000?lng=so');
    expect((await h.http().get('/dealer/QARAN')).headers.location).toBe('/dealer/qaran');
    expect((await h.http().get('/dealer/NOSUCHSHOP')).status).toBe(404);
  });

  it('a second dealer cannot take the code in another case: a 422 on the field, and the database refuses it too', async () => {
    const taken = await newDealer('QARAN');
    expect(taken.status).toBe(422);
    expect(taken.body.errors.dealer_code).toEqual(['The dealer code has already been taken.']);
    const direct = await h
      .knex('users')
      .insert({
        name: 'Direct',
        email: `direct-${Date.now()}@test.example`,
        password: 'x',
        user_type: 'dealer',
        dealer_code: 'QaRaN',
        status: 'active',
        created_at: '2026-01-01 00:00:00.000',
        updated_at: '2026-01-01 00:00:00.000',
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(direct).toBeInstanceOf(Error);
  });
});

describe('purchase idempotency keys are exact', () => {
  it('keys that differ only by case are two purchases; the same key is one', async () => {
    const a = await buy(h, shop, { idempotency_key: 'casekey-abcdef', phone: '0615123401' });
    const b = await buy(h, shop, { idempotency_key: 'CASEKEY-ABCDEF', phone: '0615123402' });
    const again = await buy(h, shop, { idempotency_key: 'casekey-abcdef', phone: '0615123401' });
    expect([a.status, b.status, again.status]).toEqual([201, 201, 200]);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(again.body.data.id).toBe(a.body.data.id);
  });
});
