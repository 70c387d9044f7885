import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';
import { encodeId } from '../http/ids.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import { storefrontCache } from '../storefront/storefront-cache.ts';
import { toDbTime } from '../database/time.ts';
import { up as manualPaymentMethods } from '../../../db/migrations/20261127M-manual-payment-methods.ts';

/**
 * Cash and bank transfers are paid to the dealer in person (issue 28): whatever a request sends,
 * such a method is stored `manual`; a row that still names a gateway (written before the rule) is
 * never charged through it, the storefront offers it as in person, and the migration puts it right.
 * On SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '20' });
  kit = await moneyKit(h);
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const method = (id: number) => h.http().patch(`/api/v1/payment-methods/${id}`).set(bearer(shop.token));
const stored = async (id: number) => (await h.knex('payment_methods').where({ id }).first()).gateway as string;
/** A method as a row written before the rule: a cash or bank type that still names WaafiPay. */
async function oldRow(type: 'cash' | 'bank', name: string, dealerId: number | null = shop.dealerId): Promise<number> {
  const now = toDbTime();
  const [id] = await h.knex('payment_methods').insert({
    dealer_id: dealerId,
    name,
    type,
    gateway: 'waafipay',
    account_number: type === 'bank' ? 'SO12 3456' : null,
    status: 'active',
    sort_order: 0,
    created_at: now,
    updated_at: now,
  });
  storefrontCache.clear();
  return Number(id);
}
const count = async (table: string) => Number((await h.knex(table).count({ n: '*' }).first())!.n);

describe('a cash or bank method is always manual', () => {
  it('a wallet switched to cash by its type alone becomes manual; a gateway named with cash is refused', async () => {
    const evc = await h
      .http()
      .post('/api/v1/payment-methods')
      .set(bearer(shop.token))
      .send({ name: 'EVC Plus 2', type: 'evc_plus', account_number: '615000001' });
    expect(evc.body.data.gateway).toBe('waafipay');
    const retyped = await method(evc.body.data.id).send({ type: 'cash' });
    expect(retyped.status).toBe(200);
    expect(retyped.body.data).toMatchObject({ type: 'cash', gateway: 'manual' });
    expect(await stored(evc.body.data.id)).toBe('manual');

    const both = await method(evc.body.data.id).send({ type: 'bank', account_number: 'SO99', gateway: 'waafipay' });
    expect(both.status).toBe(422);
    expect(both.body.errors.gateway[0]).toContain('in person');
    expect(await stored(evc.body.data.id)).toBe('manual');

    // Created with a gateway named in the same form: refused too, nothing written.
    const before = await count('payment_methods');
    const created = await h
      .http()
      .post('/api/v1/payment-methods')
      .set(bearer(shop.token))
      .send({ name: 'Bank by WaafiPay', type: 'bank', account_number: 'SO1', gateway: 'edahab' });
    expect(created.status).toBe(422);
    expect(await count('payment_methods')).toBe(before);
  });

  it('an old cash row that names WaafiPay is made manual by any edit (its name alone), not refused', async () => {
    const id = await oldRow('cash', 'Cash (old)');
    const renamed = await method(id).send({ name: 'Cash at the counter' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Cash at the counter', gateway: 'manual' });
    expect(await stored(id)).toBe('manual');
  });

  it('a company cash method copied to a new dealer is manual even when the company row names WaafiPay', async () => {
    const source = await oldRow('cash', 'Company cash (old)', null);
    const code = `STARTER${Date.now() % 100000}`;
    const req = h.http().post('/api/v1/users').set(bearer(root));
    const fields: Record<string, string> = {
      name: `Shop ${code}`,
      email: `${code.toLowerCase()}@test.example`,
      password: 'Secret@1234',
      password_confirmation: 'Secret@1234',
      user_type: 'dealer',
      dealer_code: code,
      pricing_model: 'cost',
      starter_payment_methods: JSON.stringify({ [encodeId(source)]: '' }),
    };
    for (const [k, v] of Object.entries(fields)) req.field(k, v);
    const dealer = await req.attach('dealer_logo', PNG_1PX, 'l.png');
    expect(dealer.status).toBe(201);
    const copies = await h.knex('payment_methods').where({ dealer_id: dealer.body.data.id, type: 'cash' });
    expect(copies.map((c: { gateway: string }) => c.gateway)).toEqual(['manual']);
    await h.knex('payment_methods').where({ id: source }).del();
  });

  it('the sale and the storefront treat an old cash row naming WaafiPay as in person: refused, nothing reaches the gateway', async () => {
    const id = await oldRow('cash', 'Cash in the shop');
    const offered = (await h.http().get('/api/v1/client/payment-methods').set('dealer_code', shop.code)).body.data as Record<string, unknown>[];
    expect(offered.find((m) => m.id === id)).toMatchObject({ type: 'cash', gateway: 'manual', prompts_payer: false });

    const before = { sales: await count('recharges'), calls: await count('remote_calls'), balance: await walletBalance(h, shop.walletId) };
    const refused = await buy(h, shop, { payment_method_id: id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.payment_method_id[0]).toBe(
      'Cash in the shop is paid to the dealer in person: ask the dealer for your bundle, or choose a mobile wallet to buy here.',
    );
    const inArabic = await buy(h, shop, { payment_method_id: id }).query({ lng: 'ae' });
    expect(inArabic.status).toBe(422);
    expect(inArabic.body.errors.payment_method_id[0]).toContain('Cash in the shop');
    expect(inArabic.body.errors.payment_method_id[0]).not.toContain('paid to the dealer');
    await kit.worker.drain();
    expect(await count('recharges')).toBe(before.sales);
    expect(await count('remote_calls')).toBe(before.calls);
    expect(kit.standIns.waafipay.transactions()).toHaveLength(0);
    expect(await walletBalance(h, shop.walletId)).toBe(before.balance);
    // A wallet method of the same shop still sells through its gateway.
    expect((await buy(h, shop)).status).toBe(201);
  });

  it('the migration makes old cash and bank rows manual and leaves wallets alone', async () => {
    const cash = await oldRow('cash', 'Old cash');
    const bank = await oldRow('bank', 'Old bank');
    const wallet = await h.http().post('/api/v1/payment-methods').set(bearer(shop.token)).send({ name: 'Zaad', type: 'zaad', account_number: '634000001' });
    const byHand = await h
      .http()
      .post('/api/v1/payment-methods')
      .set(bearer(shop.token))
      .send({ name: 'Sahal to our number', type: 'sahal', account_number: '904000001', gateway: 'manual' });
    await manualPaymentMethods(h.knex);
    expect(await stored(cash)).toBe('manual');
    expect(await stored(bank)).toBe('manual');
    expect(await stored(wallet.body.data.id)).toBe('waafipay');
    expect(await stored(byHand.body.data.id)).toBe('manual');
    expect(await h.knex('payment_methods').whereIn('type', ['cash', 'bank']).whereNot('gateway', 'manual')).toEqual([]);
  });
});
