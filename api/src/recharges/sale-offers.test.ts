import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit } from './recharge-fixtures.ts';
import { OFFER_TTL_MS } from './sale-offers.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * A purchase is priced from the shop's offer kept in process (sale-offers.ts). What it must never
 * do: sell at a price, to a shop or through a method that a committed change in this process has
 * already withdrawn; keep a change made elsewhere for longer than OFFER_TTL_MS; let a changed offer
 * turn a replayed purchase key into a refusal.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await kit.close();
  await h.close();
});

describe('the offer a purchase is priced from', () => {
  it('follows a change made through the API at once: new price, bundle switched off, dealer deactivated', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    expect((await buy(h, shop)).body.data.amount).toBe('0.55');
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ selling_price: '0.70' }).expect(200);
    const repriced = await buy(h, shop);
    expect(repriced.status).toBe(201);
    expect(repriced.body.data.amount).toBe('0.70');
    expect(Number((await h.knex('recharges').where({ id: repriced.body.data.id }).first()).amount)).toBe(70);

    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'inactive' }).expect(200);
    const off = await buy(h, shop);
    expect(off.status).toBe(422);
    expect(off.body.errors.bundle_id).toBeDefined();

    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'active' }).expect(200);
    await h.http().patch(`/api/v1/users/${shop.dealerId}`).set(bearer(root)).send({ status: 'inactive' }).expect(200);
    expect((await buy(h, shop)).status).toBe(404);
    const wallet = await walletBalance(h, shop.walletId);
    expect(wallet).toBe(1000 - 40 - 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(wallet);
  });

  it('follows a change made by another process (straight into the database) within OFFER_TTL_MS', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    expect((await buy(h, shop)).body.data.amount).toBe('0.55');
    // No API call, so nothing in this process drops the kept offer: only its age does.
    await h.knex('dealer_bundles').where({ dealer_id: shop.dealerId, bundle_id: shop.bundleId }).update({ selling_price: 80 });
    const realNow = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(realNow + OFFER_TTL_MS + 1);
    try {
      const later = await buy(h, shop);
      expect(later.status).toBe(201);
      expect(later.body.data.amount).toBe('0.80');
    } finally {
      clock.mockRestore();
    }
  });

  it('answers a replayed purchase key with the first purchase even after the offer changed', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const first = await buy(h, shop, { idempotency_key: 'offer-replay-0001' });
    expect(first.status).toBe(201);
    await h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ status: 'inactive' }).expect(200);
    const again = await buy(h, shop, { idempotency_key: 'offer-replay-0001' });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    // Another body under the same key is still the key's refusal, not the refusal of the changed offer.
    const reused = await buy(h, shop, { idempotency_key: 'offer-replay-0001', phone: '0615999888' });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency.key_reused']);
    expect(await walletBalance(h, shop.walletId)).toBe(960);
  });

  it('a purchase without the storefront cookie opens no session; one from a browser session joins it', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const sessions = async () => Number((await h.knex('customer_sessions').count({ n: '*' }).first())!.n);
    const before = await sessions();
    const bare = await buy(h, shop);
    expect(bare.status).toBe(201);
    expect(bare.headers['set-cookie']).toBeUndefined();
    expect(await sessions()).toBe(before);
    expect((await h.knex('recharges').where({ id: bare.body.data.id }).first()).customer_session_id).toBeNull();

    const browser = h.agent();
    const token = (await browser.get('/api/v1/client/session').set('dealer_code', shop.code)).body.data.csrf_token as string;
    const bought = await browser
      .post('/api/v1/client/recharge')
      .set('dealer_code', shop.code)
      .set('X-CSRF-Token', token)
      .send({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone: '0615123456', payer_phone: '0617000021', idempotency_key: 'browser-0001' });
    expect(bought.status).toBe(201);
    const mine = await browser.get('/api/v1/client/recharges').set('dealer_code', shop.code);
    expect(mine.body.data.map((r: { id: number }) => r.id)).toEqual([bought.body.data.id]);
  });

  it('fifty purchases while the price changes under them: each sale and its debit agree, the ledger is exact', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '100.00' });
    const sales = Array.from({ length: 50 }, (_, i) => buy(h, shop, { idempotency_key: `offer-race-${String(i).padStart(4, '0')}` }));
    const changes = ['0.60', '0.65', '0.70'].map((price) =>
      h.http().patch(`/api/v1/dealer-bundles/${shop.bundleId}`).set(bearer(shop.token)).send({ selling_price: price }),
    );
    const answers = await Promise.all([...sales, ...changes]);
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const rows = await h.knex('recharges').where({ dealer_id: shop.dealerId });
    expect(rows).toHaveLength(50);
    for (const r of rows) expect([55, 60, 65, 70]).toContain(Number(r.amount));
    const debits = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId, kind: 'recharge_debit' });
    expect(debits).toHaveLength(50);
    expect(debits.reduce((sum: number, d: { amount: number }) => sum + Number(d.amount), 0)).toBe(50 * 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });
});
