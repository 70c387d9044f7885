import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { toDbTime } from '../database/time.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';

/**
 * What the storefront's customer is told of a purchase when the payment service is slow or down:
 * within a short time that the prompt has not come yet and nothing is taken (`detail`
 * payment_slow), and a sale that failed before any payment was taken says the payment could not
 * be started (payment_not_started), never that the bundle "could not be delivered". The fields
 * the storefront already read stay as they were (outcome, money).
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  shop = await makeShop(h, root, 'profit');
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const view = async (reference: string, lang = 'en') =>
  (await h.http().get(`/api/v1/client/recharge/${reference}`).set('dealer_code', shop.code).set('Accept-Language', lang)).body.data;
const ago = (ms: number) => toDbTime(new Date(Date.now() - ms));

/** A purchase left as the worker would have left it (no worker runs here unless asked). */
async function sale(fields: Record<string, unknown>) {
  const res = await buy(h, shop);
  expect(res.status).toBe(201);
  await h.knex('recharges').where({ id: res.body.data.id }).update(fields);
  return res.body.data.reference as string;
}

describe('a payment not approved yet', () => {
  it('just bought: approve on the phone, no more words', async () => {
    const ref = await sale({ payment_state: 'sent', unsure_since: ago(3000) });
    expect(await view(ref)).toMatchObject({
      outcome: 'awaiting_payment',
      money: 'nothing_taken',
      detail: null,
      message: 'Approve the payment: enter your PIN in the prompt on your phone.',
    });
  });

  it('no approval 20 s after the prompt was asked for: the prompt may not have been sent, nothing taken, wait or try later', async () => {
    const ref = await sale({ payment_state: 'sent', unsure_since: ago(25_000) });
    expect(await view(ref)).toMatchObject({
      outcome: 'awaiting_payment',
      money: 'nothing_taken',
      detail: 'payment_slow',
      can_retry: false,
      message:
        'No payment prompt yet? The payment service is slow and may not have sent it. Nothing has been taken from your account. Keep this page open to wait for the prompt, or try again later.',
    });
    expect((await view(ref, 'so')).message).toMatch(/^Weli ma helin codsiga lacag bixinta\?/);
    expect((await view(ref, 'ar')).message).toMatch(/^لم يصلك طلب الدفع بعد؟/);
  });

  it('the charge not even sent 20 s after the purchase (the worker busy or the gateway refused to connect): the same words', async () => {
    const ref = await sale({ payment_state: 'none', created_at: ago(30_000) });
    expect(await view(ref)).toMatchObject({ outcome: 'awaiting_payment', detail: 'payment_slow' });
  });

  it('minutes without an approval: delayed, and it is the payment service, not the operator, being waited for', async () => {
    const ref = await sale({ payment_state: 'sent', unsure_since: ago(200_000) });
    const seen = await view(ref);
    expect(seen).toMatchObject({ outcome: 'delayed', money: 'nothing_taken', detail: 'payment_slow' });
    expect(seen.message).not.toMatch(/operator/);
  });

  it('a sale in review is a person confirming it: no payment words added', async () => {
    const ref = await sale({ status: 'needs_review', payment_state: 'sent', unsure_since: ago(200_000) });
    expect(await view(ref)).toMatchObject({ outcome: 'delayed', detail: null });
  });
});

describe('failed before any payment was taken', () => {
  it('the gateway never had the payment (a 503): "the payment could not be started; nothing was taken", with buy again', async () => {
    const res = await buy(h, shop, { payer_phone: '0617770002' });
    await kit.worker.drain();
    const row = await h.knex('recharges').where({ id: res.body.data.id }).first();
    expect(row).toMatchObject({ status: 'failed', payment_state: 'absent', delivery_state: 'none' });
    const words = 'The payment could not be started: nothing was taken from your account. The bundle was not sent; you can try again.';
    expect(await view(row.reference)).toMatchObject({
      outcome: 'not_delivered',
      money: 'nothing_taken',
      detail: 'payment_not_started',
      can_retry: true,
      message: words,
      failure_reason: words,
    });
    expect((await view(row.reference, 'so')).message).toMatch(/^Lacag bixinta lama bilaabi karin/);
    expect((await view(row.reference, 'ar')).message).toMatch(/^تعذّر بدء الدفع/);
  });

  it('a delivery that failed after the payment was held is still "could not be delivered"', async () => {
    const ref = await sale({ status: 'failed', payment_state: 'released', payment_flow: 'preauthorize', delivery_state: 'failed' });
    expect(await view(ref)).toMatchObject({
      outcome: 'not_delivered',
      money: 'nothing_taken',
      detail: null,
      can_retry: false,
      message: 'The bundle could not be delivered. Nothing was taken from your account.',
    });
  });

  it('a declined payment keeps its own words', async () => {
    const ref = await sale({ status: 'failed', payment_state: 'declined' });
    expect(await view(ref)).toMatchObject({ outcome: 'declined', detail: null, can_retry: true });
  });
});

describe('a bundle switched off while the page is open', () => {
  it("the purchase is refused with the bundle's own words, and the shop's bundles no longer list it", async () => {
    const before = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', shop.code);
    const listed = (body: { data: { providers: { categories: { bundles: { id: number }[] }[] }[] } }) =>
      body.data.providers.flatMap((p) => p.categories.flatMap((c) => c.bundles.map((b) => b.id)));
    expect(listed(before.body)).toContain(shop.bundleId);
    expect((await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'inactive' })).status).toBe(200);
    const refused = await buy(h, shop);
    expect([refused.status, refused.body.errors]).toEqual([422, { bundle_id: ['This bundle is not available in this shop.'] }]);
    const after = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', shop.code);
    expect(listed(after.body)).not.toContain(shop.bundleId);
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'active' });
  });
});
