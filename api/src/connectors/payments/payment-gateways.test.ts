import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../../tests/api/harness.ts';
import { buy, liveGatewayOn, makeShop, moneyKit, type MoneyKit, type Shop } from '../../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../../recharges/recharge.routes.ts';
import { PaymentGateways } from './payment-gateways.ts';

/**
 * A sale is asked about, committed, let go and refunded through the gateway it recorded, never
 * through whichever gateway is configured now (issue 25): a process that switches gateways settles
 * the sales in flight through their own, and one that no longer knows a sale's gateway hands the
 * sale to a person instead of asking another gateway. On SQLite and MariaDB, over loopback HTTP.
 */
let h: Harness;
let root: string;
let shop: Shop;
/** The embedded stand-in (`sandbox`), and a second WaafiPay-speaking gateway standing for the real one. */
let before: MoneyKit;
let other: MoneyKit;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '50' });
  before = await moneyKit(h);
  other = await moneyKit(h);
});
afterAll(async () => {
  await before.close();
  await other.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
/** The "real" gateway: WaafiPay named `waafipay` on the second stand-in. */
const liveGateway = () => liveGatewayOn(h, other);

describe('the gateway a sale recorded', () => {
  it('a sale in flight when the configured gateway changes is settled through its own; new sales go through the new one', async () => {
    expect(before.payment.name).toBe('sandbox');
    // PROCESSING for ever at the aggregator: the payment is reserved and the sale waits for a person.
    const stuck = await buy(h, shop, { phone: '0615553333' });
    await before.worker.drain();
    const r = await row(stuck.body.data.id);
    expect(r).toMatchObject({ status: 'needs_review', payment_state: 'reserved', payment_adapter: 'sandbox' });
    // Configuration changed: a real gateway is primary now, the stand-in still known.
    const live = liveGateway();
    const switched = before.newWorker({ payment: new PaymentGateways(live, [before.payment]) });
    const settled = await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'not_delivered', note: 'Not delivered.' });
    expect(settled.status).toBe(200);
    await switched.drain();
    // A reserve let go took nothing: Failed.
    expect(await row(r.id)).toMatchObject({ status: 'failed', payment_state: 'released' });
    expect(before.standIns.waafipay.byReference(r.reference)?.state).toBe('Cancelled');
    expect(other.standIns.waafipay.byReference(r.reference)).toBeUndefined();
    // A new sale is charged through the new gateway and recorded with its name.
    const fresh = await buy(h, shop);
    await switched.drain();
    const f = await row(fresh.body.data.id);
    expect(f).toMatchObject({ status: 'completed', payment_state: 'collected', payment_adapter: 'waafipay' });
    expect(other.standIns.waafipay.byReference(f.reference)?.state).toBe('Committed');
    expect(before.standIns.waafipay.byReference(f.reference)).toBeUndefined();
    // Each sale's answer names the gateway and the aggregator it used.
    const shown = await h.http().get(`/api/v1/recharges/${f.id}`).set(bearer(root));
    expect(shown.body.data.recharge).toMatchObject({ payment_gateway: 'waafipay', route: 'sandbox' });
    const old = await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root));
    expect(old.body.data.recharge).toMatchObject({ payment_gateway: 'sandbox', route: 'sandbox' });
  });

  it("a process that does not know a sale's gateway never asks another: the sale waits for a person, saying why", async () => {
    const stuck = await buy(h, shop, { phone: '0615553333' });
    await before.worker.drain();
    const r = await row(stuck.body.data.id);
    expect(r).toMatchObject({ status: 'needs_review', payment_adapter: 'sandbox' });
    const onlyLive = before.newWorker({ payment: liveGateway() });
    await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'delivered', note: 'Delivered per the operator.' });
    await onlyLive.drain();
    const after = await row(r.id);
    expect(after).toMatchObject({ status: 'needs_review', payment_state: 'reserved' });
    expect(after.review_reason).toContain('"sandbox"');
    await onlyLive.reconcile();
    expect((await row(r.id)).status).toBe('needs_review');
    expect(other.standIns.waafipay.byReference(r.reference)).toBeUndefined();
    // Configured again, the decision is carried out through the sale's own gateway.
    const restored = before.newWorker({ payment: new PaymentGateways(liveGateway(), [before.payment]) });
    await h.http().post(`/api/v1/recharges/${r.id}/settle`).set(bearer(root)).send({ outcome: 'delivered', note: 'Delivered per the operator.' });
    await restored.drain();
    expect(await row(r.id)).toMatchObject({ status: 'completed', payment_state: 'collected' });
    expect(before.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
  });

  it('a method asking for `waafipay` is charged through the stand-in when no real WaafiPay is configured; a payment asked for is only ever its own gateway', () => {
    const gateways = new PaymentGateways(before.payment, [before.payment], { waafipay: 'sandbox' });
    expect(gateways.of({ payment_adapter: 'waafipay' })).toBe(before.payment);
    expect(gateways.of({ payment_adapter: 'waafipay', payment_state: 'none' })).toBe(before.payment);
    // Once a payment was asked for, the name is the gateway that was asked: never another one.
    expect(gateways.of({ payment_adapter: 'waafipay', payment_state: 'reserved' })).toBeUndefined();
    expect(gateways.of({ payment_adapter: 'sandbox', payment_state: 'reserved' })).toBe(before.payment);
    expect(gateways.of({ payment_adapter: null })).toBe(before.payment);
    expect(gateways.of({ payment_adapter: 'edahab' })).toBeUndefined();
  });
});
