import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * A new dealer ready to sell: created with a starter margin, its shop offers the company's
 * catalogue at cost + margin at once (the storefront's own read says so); without one it starts
 * empty; a bad margin is a 422 that creates nothing.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const p = await h.http().post('/api/v1/internet-providers').set(bearer(root)).send({ name: 'Hormuud', code: 'HOR', phone_prefixes: ['61', '77'] });
  const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: p.body.data.id, name: 'Daily' });
  for (const [name, cost, price] of [['1 GB Daily', '0.40', '0.50'], ['3 GB Daily', '1.00', '1.20']]) {
    expect((await h.http().post('/api/v1/bundles').set(bearer(root)).send({ category_id: c.body.data.id, name, validity_days: 1, cost_price: cost, selling_price: price })).status).toBe(201);
  }
});
afterAll(() => h.close());

const newDealer = (code: string, extra: Record<string, string> = {}) => {
  const req = h.http().post('/api/v1/users').set(bearer(root));
  const fields: Record<string, string> = { name: `Shop ${code}`, email: `${code.toLowerCase()}@test.example`, password: 'Secret@1234', password_confirmation: 'Secret@1234', user_type: 'dealer', dealer_code: code, pricing_model: 'cost', ...extra };
  for (const [k, v] of Object.entries(fields)) req.field(k, v);
  return req.attach('dealer_logo', PNG_1PX, 'l.png');
};

const offered = async (code: string) => {
  const res = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', code);
  return (res.body.data.providers as { name: string; categories: { bundles: { name: string; price: string }[] }[] }[]).flatMap((p) => p.categories.flatMap((c) => c.bundles.map((b) => [p.name, b.name, b.price])));
};

describe('a new dealer ready to sell', () => {
  it("starts from the company's catalogue at cost plus the margin", async () => {
    const res = await newDealer('READY', { starter_margin: '0.15' });
    expect(res.status).toBe(201);
    expect(await offered('READY')).toEqual([
      ['Hormuud', '1 GB Daily', '0.55'],
      ['Hormuud', '3 GB Daily', '1.15'],
    ]);
  });

  it('sells at cost with a margin of 0, and starts empty without one', async () => {
    expect((await newDealer('ATCOST', { starter_margin: '0' })).status).toBe(201);
    expect((await offered('ATCOST')).map((r) => r[2])).toEqual(['0.40', '1.00']);
    expect((await newDealer('EMPTY', { starter_margin: '' })).status).toBe(201);
    expect(await offered('EMPTY')).toEqual([]);
  });

  it('refuses a bad margin with a clear message and creates nothing', async () => {
    for (const margin of ['-1', 'ten', '0.001']) {
      const res = await newDealer(`BAD${margin.length}`, { starter_margin: margin });
      expect(res.status).toBe(422);
      expect(res.body.errors.starter_margin).toEqual(['Enter the margin as an amount such as 0.10 (0 sells at cost)']);
    }
    expect(await h.knex('users').where('dealer_code', 'like', 'BAD%').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });
});
