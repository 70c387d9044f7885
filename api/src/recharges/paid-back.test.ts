import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * A gateway without refunds (eDahab: no documented refund or reversal). Money it took for a bundle
 * that was not delivered, or for a sale refunded by hand, is never "returned" by a call that
 * cannot exist: the sale says the payment is to be paid back by hand (payment_state refund_due),
 * the customer is told the shop will pay it back, nothing is asked of the gateway, and a person
 * records paying it back (who, when, how) once, on SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;
let methodId: number;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '20' });
  kit = await moneyKit(h, { money });
  const m = await h.http().post('/api/v1/payment-methods').set(bearer(shop.token)).send({ name: 'eDahab', type: 'edahab', account_number: '625000000' });
  expect(m.body.data.gateway).toBe('edahab');
  methodId = m.body.data.id;
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
const edahabCalls = async (id: number) => h.knex('remote_calls').where({ recharge_id: id, system: 'edahab' }).orderBy('id');
const paidBack = (id: number, body: object, token = root) => h.http().post(`/api/v1/recharges/${id}/paid-back`).set(bearer(token)).send(body);

describe('a payment eDahab took for a bundle that was not delivered', () => {
  it('is to be paid back by hand: no call to eDahab, the dealer debit returned, the customer told', async () => {
    const before = await walletBalance(h, shop.walletId);
    // The Reloadly stand-in refuses numbers ending 9999.
    const sale = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5552001', phone: '0615559999' });
    expect(sale.status).toBe(201);
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    // Taken and not yet given back: Failed until a person records paying it back (then Refunded).
    expect(r).toMatchObject({ status: 'failed', payment_adapter: 'edahab', payment_state: 'refund_due', delivery_state: 'failed' });
    expect((await edahabCalls(r.id)).map((c: { operation: string }) => c.operation)).toEqual(['IssueInvoice']);
    expect(await walletBalance(h, shop.walletId)).toBe(before);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(before);

    const told = await h.http().get(`/api/v1/client/recharge/${r.reference}`).set('dealer_code', shop.code);
    expect(told.body.data).toMatchObject({ outcome: 'not_delivered', money: 'to_be_paid_back' });
    expect(told.body.data.message).toMatch(/pay your money back/);

    // The reconciliation leaves it alone: nothing to ask a gateway that cannot give money back.
    await kit.worker.reconcile();
    expect((await edahabCalls(r.id)).length).toBe(1);
  });

  it('a person records paying it back once (ten clicks at once: one), with a note; refused without one, and for a sale not due', async () => {
    const sale = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5552003', phone: '0615559999' });
    await kit.worker.drain();
    const id = sale.body.data.id as number;
    const empty = await paidBack(id, { note: ' ' });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(['note']);
    expect((await paidBack(id, { note: 'x' }, shop.token)).status).toBe(403);

    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => paidBack(id, { note: `Sent from the shop's eDahab (${i})`, reference: `ED-${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const won = answers.find((a) => a.status === 200)!;
    expect(won.body.data).toMatchObject({
      status: 'refunded',
      payment_state: 'paid_back',
      paid_back: { by: { name: expect.any(String) }, reference: expect.stringMatching(/^ED-/) },
    });
    expect(answers.find((a) => a.status === 409)!.body.message).toMatch(/no payment waiting/);
    const logged = await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: id, action: 'recharge_paid_back_by_hand' });
    expect(logged).toHaveLength(1);
    // The dealer hears of the refund once, now that the customer has the money back.
    expect(await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: id, action: 'recharge_refunded' })).toHaveLength(1);
    const told = await h.http().get(`/api/v1/client/recharge/${sale.body.data.reference}`).set('dealer_code', shop.code);
    expect(told.body.data.money).toBe('returned');

    const other = await buy(h, shop, { payer_phone: '+252 61 7000021' });
    await kit.worker.drain();
    expect((await paidBack(other.body.data.id, { note: 'no' })).status).toBe(409);
  });

  it('a delivered eDahab sale refunded by hand: the dealer debit back, the payment to be paid back by hand, nothing sent to eDahab', async () => {
    const sale = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5552004' });
    await kit.worker.drain();
    const id = sale.body.data.id as number;
    expect(await row(id)).toMatchObject({ status: 'completed', payment_state: 'collected' });
    const before = await walletBalance(h, shop.walletId);
    const refund = await h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root));
    expect(refund.status).toBe(200);
    expect(refund.body.data).toMatchObject({ status: 'refunded', payment_state: 'refund_due' });
    expect(await walletBalance(h, shop.walletId)).toBe(before + 40);
    expect((await edahabCalls(id)).map((c: { operation: string }) => c.operation)).toEqual(['IssueInvoice']);
    const again = await h.http().post(`/api/v1/recharges/${id}/refund`).set(bearer(root));
    expect(again.status).toBe(409);
    expect((await paidBack(id, { note: 'Cash at the counter' })).status).toBe(200);
  });
});

describe('an eDahab payment whose answer was lost before its invoice id was known', () => {
  it('waits for a person, who settles it with what the eDahab portal shows: paid (its invoice id) and not delivered is to be paid back by hand', async () => {
    const worker = kit.newWorker({ reviewAfterMs: 300 });
    // 0002: paid at eDahab, the answer lost every time; eDahab cannot be asked by our reference.
    const sale = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5550002' });
    await worker.drain();
    const id = sale.body.data.id as number;
    expect(await row(id)).toMatchObject({ status: 'needs_review', payment_state: 'sent', payment_reference: null });
    const [invoice] = kit.standIns.edahab.byNumber('625550002');

    const settle = (body: object) => h.http().post(`/api/v1/recharges/${id}/settle`).set(bearer(root)).send(body);
    const noId = await settle({ outcome: 'not_delivered', note: 'Portal: paid', payment: { paid: true } });
    expect(noId.status).toBe(422);
    expect(Object.keys(noId.body.errors)).toEqual(['payment.reference']);
    expect((await settle({ outcome: 'not_delivered', note: 'Portal: paid', payment: { paid: true, reference: String(invoice.invoiceId) } })).status).toBe(200);
    await worker.drain();
    expect(await row(id)).toMatchObject({ status: 'failed', payment_state: 'refund_due', payment_reference: String(invoice.invoiceId) });
    // Listed among the payments to pay back by hand.
    const due = await h.http().get('/api/v1/recharges?payment_state=refund_due&per_page=100').set(bearer(root));
    expect(due.body.data.map((r: { id: number }) => r.id)).toContain(id);
    expect(due.body.data.every((r: { payment_state: string }) => r.payment_state === 'refund_due')).toBe(true);
    expect((await h.http().get('/api/v1/recharges?payment_state=bogus').set(bearer(root))).status).toBe(422);
  });

  it("not paid on the portal: the sale fails with nothing taken; a payment's outcome is refused once it is known", async () => {
    const worker = kit.newWorker({ reviewAfterMs: 300 });
    const sale = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5560002' });
    await worker.drain();
    const id = sale.body.data.id as number;
    const settled = await h
      .http()
      .post(`/api/v1/recharges/${id}/settle`)
      .set(bearer(root))
      .send({ outcome: 'not_delivered', note: 'Portal: no invoice paid', payment: { paid: false } });
    expect(settled.status).toBe(200);
    await worker.drain();
    expect(await row(id)).toMatchObject({ status: 'failed', payment_state: 'absent' });
    const known = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5552009', phone: '0615559999' });
    await kit.worker.drain();
    const again = await h
      .http()
      .post(`/api/v1/recharges/${known.body.data.id}/settle`)
      .set(bearer(root))
      .send({ outcome: 'not_delivered', note: 'x', payment: { paid: false } });
    expect(again.status).toBe(422);
  });
});
