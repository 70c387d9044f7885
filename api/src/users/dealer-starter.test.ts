import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localDiskStorage } from '../uploads/storage.ts';
import { PaymentMethod } from '../settings/settings.models.ts';
import { decodeId } from '../http/ids.ts';
import { systemContext, transact } from '../platform/context.ts';
import { copyStarterPaymentMethods } from './dealer-starter.ts';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * A new dealer ready to sell: created with a starter margin, its shop offers the company's
 * catalogue at cost + margin at once (the storefront's own read says so); without one it starts
 * empty; a bad margin is a 422 that creates nothing. A "Cost + Profit" dealer may also start from
 * the company's payment methods with its own numbers, which its shop then offers.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const p = await h
    .http()
    .post('/api/v1/internet-providers')
    .set(bearer(root))
    .send({ name: 'Hormuud', code: 'HOR', phone_prefixes: ['61', '77'] });
  const c = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: p.body.data.id, name: 'Daily' });
  for (const [name, cost, price] of [
    ['1 GB Daily', '0.40', '0.50'],
    ['3 GB Daily', '1.00', '1.20'],
  ]) {
    expect(
      (
        await h
          .http()
          .post('/api/v1/bundles')
          .set(bearer(root))
          .send({ category_id: c.body.data.id, name, validity_days: 1, cost_price: cost, selling_price: price })
      ).status,
    ).toBe(201);
  }
});
afterAll(() => h.close());

let evc: { h_id: string; logo: string | null };
let cash: { h_id: string };
let zaadInactive: { h_id: string };
beforeAll(async () => {
  const made = await h
    .http()
    .post('/api/v1/payment-methods')
    .set(bearer(root))
    .field('name', 'EVC Plus')
    .field('type', 'evc_plus')
    .field('account_number', '615000000')
    .field('instructions', 'Approve the prompt')
    .field('translations', JSON.stringify({ ae: { name: 'إي في سي بلس' } }))
    .attach('logo', PNG_1PX, 'evc.png');
  expect(made.status).toBe(201);
  evc = made.body.data;
  cash = (await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Cash at the shop', type: 'cash' })).body.data;
  zaadInactive = (
    await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Zaad', type: 'zaad', account_number: '634000000', status: 'inactive' })
  ).body.data;
});

const newDealer = (code: string, extra: Record<string, string> = {}) => {
  const req = h.http().post('/api/v1/users').set(bearer(root));
  const fields: Record<string, string> = {
    name: `Shop ${code}`,
    email: `${code.toLowerCase()}@test.example`,
    password: 'Secret@1234',
    password_confirmation: 'Secret@1234',
    user_type: 'dealer',
    dealer_code: code,
    pricing_model: 'cost',
    ...extra,
  };
  for (const [k, v] of Object.entries(fields)) req.field(k, v);
  return req.attach('dealer_logo', PNG_1PX, 'l.png');
};

const offered = async (code: string) => {
  const res = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', code);
  return (res.body.data.providers as { name: string; categories: { bundles: { name: string; price: string }[] }[] }[]).flatMap((p) =>
    p.categories.flatMap((c) => c.bundles.map((b) => [p.name, b.name, b.price])),
  );
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

describe("a new Cost + Profit dealer starts from the company's payment methods", () => {
  const methodsOf = async (code: string, lang = 'en') =>
    (await h.http().get('/api/v1/client/payment-methods').set('dealer_code', code).set('Accept-Language', lang)).body.data as {
      name: string;
      type: string;
      account_number: string | null;
      instructions: string | null;
      logo: string | null;
    }[];

  it("copies the ticked methods with the shop's own numbers; its shop offers them", async () => {
    const res = await newDealer('PAYS', { starter_payment_methods: JSON.stringify({ [evc.h_id]: '61 7000001', [cash.h_id]: '' }) });
    expect(res.status).toBe(201);
    const offered = await methodsOf('PAYS');
    expect(offered.map((m) => [m.name, m.type, m.account_number, m.instructions])).toEqual([
      ['EVC Plus', 'evc_plus', '61 7000001', 'Approve the prompt'],
      ['Cash at the shop', 'cash', null, null],
    ]);
    // Its own logo file (the company's stays if the shop replaces or deletes its copy), and the translations.
    expect(offered[0].logo).toMatch(/^\/storage\/payment-methods\//);
    expect(offered[0].logo).not.toBe(evc.logo);
    expect((await h.http().get(offered[0].logo!)).status).toBe(200);
    // The translations are copied (the console shows them); customers read a wallet by its own name.
    const dealerId = (await h.knex('users').where('dealer_code', 'PAYS').first('id')).id;
    expect((await h.knex('payment_methods').where({ dealer_id: dealerId, type: 'evc_plus' }).first('translations')).translations).toContain('إي في سي بلس');
    expect((await methodsOf('PAYS', 'ar'))[0].name).toBe('EVC Plus');
    const logged = await h
      .knex('activity_log')
      .where({ subject_type: 'payment_method', action: 'created' })
      .whereIn('subject_id', h.knex('payment_methods').where('dealer_id', dealerId).select('id'));
    expect(logged).toHaveLength(2);
  });

  it("refuses the company's own number, a missing number, an unknown or inactive method, and any for a Profit Only shop; nothing is created", async () => {
    const res = await newDealer('NOPAY1', {
      starter_payment_methods: JSON.stringify({ [evc.h_id]: '+252 615-000-000', [zaadInactive.h_id]: '634111111', nope: '1' }),
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      [`starter_payment_methods.${evc.h_id}`]: ["Enter this shop's own number: customers of a Cost + Profit shop pay the shop, not the company."],
      [`starter_payment_methods.${zaadInactive.h_id}`]: ["This is not one of the company's active payment methods."],
      'starter_payment_methods.nope': ["This is not one of the company's active payment methods."],
    });
    const missing = await newDealer('NOPAY2', { starter_payment_methods: JSON.stringify({ [evc.h_id]: '' }) });
    expect(missing.body.errors).toEqual({ [`starter_payment_methods.${evc.h_id}`]: ['Enter the account or merchant number customers pay to'] });
    const profit = await newDealer('NOPAY3', { pricing_model: 'profit', starter_payment_methods: JSON.stringify({ [evc.h_id]: '617000002' }) });
    expect(profit.status).toBe(422);
    expect(profit.body.errors.starter_payment_methods).toEqual([
      "A Profit Only shop's customers pay through the company's payment methods; leave these empty.",
    ]);
    const arabic = await newDealer('NOPAY4', { starter_payment_methods: JSON.stringify({ [evc.h_id]: '615000000' }) }).set('Accept-Language', 'ar');
    expect(arabic.body.errors[`starter_payment_methods.${evc.h_id}`]).toEqual([
      'أدخل رقم هذا المتجر نفسه: عملاء متجر «التكلفة + الربح» يدفعون للمتجر لا للشركة.',
    ]);
    expect(await h.knex('users').where('dealer_code', 'like', 'NOPAY%').count({ n: '*' }).first()).toMatchObject({ n: 0 });
    expect(await h.knex('payment_methods').whereNotNull('dealer_id').count({ n: '*' }).first()).toMatchObject({ n: 2 });
  });

  it('the same new shop sent five times at once: one dealer, its methods copied once, the rest refused, no 5xx', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => newDealer('TWICE', { starter_margin: '0.10', starter_payment_methods: JSON.stringify({ [evc.h_id]: '617000777' }) })),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 201)) expect(refused.status).toBe(422);
    const dealers = await h.knex('users').whereRaw('LOWER(dealer_code) = ?', ['twice']).select('id');
    expect(dealers).toHaveLength(1);
    // Nothing of the refused attempts stayed behind: one copy of the method, the shop's own.
    const copies = await h.knex('payment_methods').where({ account_number: '617000777' }).select('dealer_id');
    expect(copies).toEqual([{ dealer_id: dealers[0].id }]);
    expect((await methodsOf('TWICE')).map((m) => m.account_number)).toEqual(['617000777']);
  });

  it('a creation that fails after the logo was copied leaves no file behind', async () => {
    const folder = path.join(h.dataDir, 'storage', 'payment-methods');
    const storage = localDiskStorage(path.join(h.dataDir, 'storage'));
    const source = await PaymentMethod.query(h.knex).findById(decodeId(evc.h_id)!);
    const dealerId = (await h.knex('users').where('dealer_code', 'PAYS').first('id')).id as number;
    const before = fs.readdirSync(folder).sort();
    const failing = transact(systemContext({ db: h.knex }), async (tctx) => {
      await copyStarterPaymentMethods(tctx, dealerId, [{ source: source!, accountNumber: '617000888' }], storage);
      expect(fs.readdirSync(folder)).toHaveLength(before.length + 1);
      throw new Error('the creation failed later');
    });
    await expect(failing).rejects.toThrow('the creation failed later');
    await vi.waitFor(() => expect(fs.readdirSync(folder).sort()).toEqual(before));
    expect(await h.knex('payment_methods').where({ account_number: '617000888' })).toEqual([]);
  });
});
