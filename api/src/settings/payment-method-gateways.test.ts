import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, liveGatewayOn, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';

/**
 * A payment method names the gateway that takes its payments (issue 25): cash and bank transfers
 * are `manual` (paid to the dealer in person: never a PIN prompt, never bought online), mobile
 * wallets `waafipay`; the storefront is told which prompt the payer; a sale is charged through its
 * method's gateway. On SQLite and MariaDB.
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

const addMethod = (body: Record<string, unknown>) => h.http().post('/api/v1/payment-methods').set(bearer(shop.token)).send(body);
const shopMethods = async () => (await h.http().get('/api/v1/client/payment-methods').set('dealer_code', shop.code)).body.data as Record<string, unknown>[];

describe('a payment method’s gateway', () => {
  it('defaults by type (cash and bank: manual; wallets: waafipay), and cash or bank can never take a gateway', async () => {
    const cash = await addMethod({ name: 'Cash at the shop', type: 'cash', instructions: 'Pay at the counter.' });
    expect(cash.status).toBe(201);
    expect(cash.body.data).toMatchObject({ type: 'cash', gateway: 'manual' });
    const bank = await addMethod({ name: 'Bank', type: 'bank', account_number: 'SO12 3456' });
    expect(bank.body.data.gateway).toBe('manual');
    const evc = await addMethod({ name: 'EVC Plus 2', type: 'evc_plus', account_number: '615000001' });
    expect(evc.body.data.gateway).toBe('waafipay');
    // A transfer to the dealer's own number, checked by hand: a wallet type may be manual.
    const byHand = await addMethod({ name: 'Zaad to our number', type: 'zaad', account_number: '634000000', gateway: 'manual' });
    expect(byHand.body.data.gateway).toBe('manual');

    const wrong = await addMethod({ name: 'Cash by gateway', type: 'cash', gateway: 'waafipay' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.gateway[0]).toContain('in person');
    const changed = await h.http().patch(`/api/v1/payment-methods/${cash.body.data.id}`).set(bearer(shop.token)).send({ gateway: 'waafipay' });
    expect(changed.status).toBe(422);
    expect((await h.knex('payment_methods').where({ id: cash.body.data.id }).first()).gateway).toBe('manual');
    const bogus = await addMethod({ name: 'Other', type: 'evc_plus', account_number: '615000002', gateway: 'paypal' });
    expect(bogus.status).toBe(422);
    expect(bogus.body.errors.gateway).toBeDefined();
    // A type changed to cash takes `manual` with it.
    const retyped = await h.http().patch(`/api/v1/payment-methods/${evc.body.data.id}`).set(bearer(shop.token)).send({ type: 'cash' });
    expect(retyped.status).toBe(200);
    expect(retyped.body.data.gateway).toBe('manual');
    // The console filters by it.
    const manual = await h.http().get('/api/v1/payment-methods?gateway=manual&per_page=50').set(bearer(shop.token));
    expect(manual.body.data.every((m: { gateway: string }) => m.gateway === 'manual')).toBe(true);
    expect(manual.body.data.length).toBeGreaterThanOrEqual(3);
  });

  it('the storefront is told which methods prompt the payer; a purchase with an in-person method is refused and writes nothing', async () => {
    const methods = await shopMethods();
    const cash = methods.find((m) => m.type === 'cash')!;
    const evc = methods.find((m) => m.id === shop.methodId)!;
    expect(evc).toMatchObject({ gateway: 'waafipay', prompts_payer: true });
    expect(cash).toMatchObject({ gateway: 'manual', prompts_payer: false });

    const before = { sales: Number((await h.knex('recharges').count({ n: '*' }).first())!.n), balance: await walletBalance(h, shop.walletId) };
    const refused = await buy(h, shop, { payment_method_id: Number(cash.id) });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.payment_method_id[0]).toContain('paid to the dealer in person');
    const inSomali = await buy(h, shop, { payment_method_id: Number(cash.id) }).query({ lng: 'so' });
    expect(inSomali.body.errors.payment_method_id[0]).toContain('ganacsadaha');
    expect(Number((await h.knex('recharges').count({ n: '*' }).first())!.n)).toBe(before.sales);
    expect(await walletBalance(h, shop.walletId)).toBe(before.balance);
    expect(kit.standIns.waafipay.transactions().length).toBe(0);
  });

  it('a wallet method’s sale is charged through its gateway and records the one that charged it', async () => {
    const sale = await buy(h, shop);
    expect(sale.status).toBe(201);
    expect((await h.knex('recharges').where({ id: sale.body.data.id }).first()).payment_adapter).toBe('waafipay');
    await kit.worker.drain();
    const r = await h.knex('recharges').where({ id: sale.body.data.id }).first();
    // No real WaafiPay here: `waafipay` is the embedded stand-in, recorded by its own name.
    expect(r).toMatchObject({ status: 'completed', payment_adapter: 'sandbox', payment_state: 'collected' });
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
  });

  it('a method left on the sandbox gateway takes no payment once a real gateway is configured: nothing taken, the debit returned', async () => {
    const sandbox = await addMethod({ name: 'Test wallet', type: 'evc_plus', account_number: '615000009', gateway: 'sandbox' });
    expect(sandbox.body.data.gateway).toBe('sandbox');
    const balance = await walletBalance(h, shop.walletId);
    const sale = await buy(h, shop, { payment_method_id: sandbox.body.data.id });
    expect(sale.status).toBe(201);
    const other = await moneyKit(h);
    try {
      const live = liveGatewayOn(h, other);
      await kit.newWorker({ payment: new PaymentGateways(live, [kit.payment]) }).drain();
      const r = await h.knex('recharges').where({ id: sale.body.data.id }).first();
      expect(r.status).toBe('failed');
      expect(r.failure_reason).toContain('sandbox gateway');
      expect(kit.standIns.waafipay.byReference(r.reference)).toBeUndefined();
      expect(other.standIns.waafipay.byReference(r.reference)).toBeUndefined();
      expect(await walletBalance(h, shop.walletId)).toBe(balance);
    } finally {
      await other.close();
    }
  });

  it("a failed sale is tried again through its method's gateway now, and not at all once the method is paid in person", async () => {
    const profitShop = await makeShop(h, root, 'profit');
    // The charge never reaches the gateway (0003): nothing taken, the sale fails.
    const sale = await buy(h, profitShop, { payer_phone: '0617770003' });
    await kit.newWorker({ paymentTimeoutMs: 50 }).drain();
    await new Promise((r) => setTimeout(r, 80));
    await h.knex('recharges').where({ id: sale.body.data.id }).update({ next_attempt_at: null });
    await kit.newWorker({ paymentTimeoutMs: 50 }).drain();
    const failed = await h.knex('recharges').where({ id: sale.body.data.id }).first();
    expect(failed).toMatchObject({ status: 'failed', payment_state: 'absent' });
    const toManual = await h.http().patch(`/api/v1/payment-methods/${profitShop.methodId}`).set(bearer(root)).send({ gateway: 'manual' });
    expect(toManual.status).toBe(200);
    const retried = await h.http().post(`/api/v1/recharges/${failed.id}/retry`).set(bearer(root)).send({});
    expect(retried.status).toBe(409);
    expect((await h.knex('recharges').where({ id: failed.id }).first()).status).toBe('failed');
    await h.http().patch(`/api/v1/payment-methods/${profitShop.methodId}`).set(bearer(root)).send({ gateway: 'waafipay' });
    const again = await h.http().post(`/api/v1/recharges/${failed.id}/retry`).set(bearer(root)).send({});
    expect(again.status).toBe(200);
    expect(await h.knex('recharges').where({ id: failed.id }).first()).toMatchObject({ status: 'pending', payment_state: 'none', payment_adapter: 'waafipay' });
  });
});
