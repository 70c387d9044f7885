import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { makeShop, type Shop } from '../recharges/recharge-fixtures.ts';
import { toDbTime } from '../database/time.ts';

/**
 * One currency (docs/decisions.md): the company currency is the currency of every wallet, sale and
 * answer. It changes, moving the wallets with it, only while no money exists; once a live ledger
 * row or a live sale exists the change is refused and nothing moves.
 */
const LOCKED = {
  en: 'The currency cannot change once money exists: wallets or sales are in SOS. Changing it needs every balance and price converted, which an operator does by hand.',
  so: 'Nooca lacagta lama beddeli karo marka lacag jirto: boorsooyinka ama iibka waxay ku jiraan SOS. Beddelkiisu wuxuu u baahan yahay in haraa kasta iyo qiime kasta la beddelo, taas oo hawl-wadeen gacanta ku sameeyo.',
  ae: 'لا يمكن تغيير العملة بعد وجود أموال: المحافظ أو المبيعات بعملة SOS. تغييرها يتطلب تحويل كل الأرصدة والأسعار، ويقوم بذلك مشغّل النظام يدويًا.',
};

const company = (currency: string) => ({ company_name: 'Somali Data Co', currency, timezone: 'Africa/Mogadishu' });

async function newKey(h: Harness, token: string, mode: 'live' | 'test') {
  const res = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(token))
    .send({ name: `Till ${mode}`, mode, scopes: ['catalogue:read', 'wallet:read'] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key as string;
}

const reseller = (h: Harness, key: string, path: string) => h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${key}`);

const walletCurrencies = async (h: Harness) => (await h.knex('wallets').orderBy('id').select('mode', 'currency')).map((w) => `${w.mode}:${w.currency}`);

describe('the company currency before and after money exists', () => {
  let h: Harness;
  let root: string;
  let shop: Shop;

  beforeAll(async () => {
    h = await createHarness();
    root = await h.adminToken();
    shop = await makeShop(h, root, 'cost');
  });
  afterAll(() => h.close());

  it('changes with every wallet while no money exists; sandbox money does not count', async () => {
    // A test key makes the test wallet with its opening sandbox credit: not money.
    await newKey(h, shop.token, 'test');
    expect(await walletCurrencies(h)).toEqual(['live:USD', 'test:USD']);
    const open = await h.http().get('/api/v1/settings/company').set(bearer(root));
    expect(open.body.data).toMatchObject({ currency: 'USD', currency_locked: false, currency_locked_reason: null });

    const moved = await h.http().put('/api/v1/settings/company').set(bearer(root)).send(company('SOS'));
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.data).toMatchObject({ currency: 'SOS', currency_locked: false });
    expect(await walletCurrencies(h)).toEqual(['live:SOS', 'test:SOS']);
    expect((await h.http().get('/api/v1/settings/public')).body.data.currency).toBe('SOS');
  });

  it("makes a new dealer's wallet in the company currency, and the reseller API answers it", async () => {
    const second = await makeShop(h, root, 'cost');
    expect((await h.knex('wallets').where({ id: second.walletId }).first('currency')).currency).toBe('SOS');
    const key = await newKey(h, second.token, 'live');
    const catalogue = await reseller(h, key, '/catalogue');
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.data.currency).toBe('SOS');
    const wallet = await reseller(h, key, '/wallet');
    expect(wallet.status).toBe(200);
    expect(wallet.body.data.wallet.currency).toBe('SOS');
    // The console's wallet answer too.
    expect((await h.http().get(`/api/v1/wallets/${second.walletId}`).set(bearer(root))).body.data.currency).toBe('SOS');
  });

  it('is refused once a ledger row exists, in the reader\u2019s language, and nothing changes', async () => {
    const topUp = await h.http().post(`/api/v1/wallets/${shop.walletId}/top-up`).set(bearer(root)).send({ amount: '5.00', reference: 'first money' });
    expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);
    const logged = await h.knex('activity_log').where({ subject_type: 'settings', description: 'company' }).count({ n: '*' });

    const refused = await h
      .http()
      .put('/api/v1/settings/company')
      .set(bearer(root))
      .send({ ...company('USD'), footer_text: 'changed' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ message: VALIDATION, errors: { currency: [LOCKED.en] } });
    for (const lng of ['so', 'ae'] as const) {
      const told = await h.http().put(`/api/v1/settings/company?lng=${lng}`).set(bearer(root)).send(company('USD'));
      expect(told.body.errors).toEqual({ currency: [LOCKED[lng]] });
    }
    // Nothing moved: the settings (the footer of the same save included), the wallets, the log.
    const now = await h.http().get('/api/v1/settings/company').set(bearer(root));
    expect(now.body.data).toMatchObject({ currency: 'SOS', footer_text: null, currency_locked: true, currency_locked_reason: LOCKED.en });
    expect(await walletCurrencies(h)).toEqual(['live:SOS', 'test:SOS', 'live:SOS']);
    expect(await h.knex('activity_log').where({ subject_type: 'settings', description: 'company' }).count({ n: '*' })).toEqual(logged);
    const so = await h.http().get('/api/v1/settings/company?lng=so').set(bearer(root));
    expect(so.body.data.currency_locked_reason).toBe(LOCKED.so);

    // The rest of the form still saves with the currency it has.
    const kept = await h
      .http()
      .put('/api/v1/settings/company')
      .set(bearer(root))
      .send({ ...company('SOS'), footer_text: 'Somali Data Co' });
    expect(kept.status).toBe(200);
    expect(kept.body.data).toMatchObject({ currency: 'SOS', footer_text: 'Somali Data Co', currency_locked: true });
  });
});

describe('a sale alone', () => {
  let h: Harness;
  let root: string;

  beforeAll(async () => {
    h = await createHarness();
    root = await h.adminToken();
  });
  afterAll(() => h.close());

  it('locks the currency, even one that took no money from a wallet', async () => {
    const shop = await makeShop(h, root, 'profit');
    expect((await h.http().get('/api/v1/settings/company').set(bearer(root))).body.data.currency_locked).toBe(false);
    const provider = await h.knex('providers').where({ code: 'HORSHOP' }).first('id');
    const at = toDbTime();
    // A customer's declined payment: a live sale in USD, no ledger row.
    await h.knex('recharges').insert({
      dealer_id: shop.dealerId,
      provider_id: provider.id,
      provider_name: 'Hormuud',
      category_name: 'Daily',
      bundle_name: '1 GB',
      pricing_model: 'profit',
      phone: '615123456',
      amount: 55,
      cost: 40,
      profit: 15,
      currency: 'USD',
      status: 'failed',
      idempotency_key: 'declined-1',
      reference: 'RCDECLINED01',
      attempts: 1,
      created_at: at,
      updated_at: at,
      failed_at: at,
    });
    expect(await h.knex('wallet_transactions').count({ n: '*' })).toEqual([{ n: 0 }]);

    const refused = await h.http().put('/api/v1/settings/company').set(bearer(root)).send(company('SOS'));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ currency: [LOCKED.en.replace('are in SOS', 'are in USD')] });
    expect((await h.http().get('/api/v1/settings/company').set(bearer(root))).body.data).toMatchObject({ currency: 'USD', currency_locked: true });
    expect(await walletCurrencies(h)).toEqual(['live:USD']);
  });
});

describe('a currency change and the first top-ups at the same moment', () => {
  let h: Harness;
  let root: string;

  beforeAll(async () => {
    h = await createHarness();
    root = await h.adminToken();
  });
  afterAll(() => h.close());

  it('no 5xx; every top-up lands, and the wallets, their ledger and the company stay in one currency', async () => {
    const shop = await makeShop(h, root, 'cost');
    const changes = ['SOS', 'USD', 'SOS', 'USD', 'SOS'].map((c) => h.http().put('/api/v1/settings/company').set(bearer(root)).send(company(c)));
    const topUps = Array.from({ length: 5 }, (_, i) =>
      h
        .http()
        .post(`/api/v1/wallets/${shop.walletId}/top-up`)
        .set(bearer(root))
        .send({ amount: '1.00', reference: `race ${i}` }),
    );
    const answers = await Promise.all([...changes, ...topUps]);
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
    const changed = answers.slice(0, 5);
    for (const a of changed) expect([200, 422]).toContain(a.status);
    for (const a of answers.slice(5)) expect(a.status, JSON.stringify(a.body)).toBe(200);

    // One currency: the company's, every wallet's; the money is all there and the currency now locked.
    const settings = (await h.http().get('/api/v1/settings/company').set(bearer(root))).body.data;
    expect(settings.currency_locked).toBe(true);
    expect(await walletCurrencies(h)).toEqual([`live:${settings.currency}`]);
    const wallet = await h.knex('wallets').where({ id: shop.walletId }).first('balance');
    expect(Number(wallet.balance)).toBe(500);
    expect(await h.knex('wallet_transactions').where({ wallet_id: shop.walletId }).count({ n: '*' })).toEqual([{ n: 5 }]);
    // Never relabelled: every change of currency that was saved was logged before the first money.
    const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as { currency?: string } | null;
    const firstMoney = (await h.knex('activity_log').where({ action: 'wallet_topped_up' }).min({ id: 'id' }).first())!.id;
    const moves = (await h.knex('activity_log').where({ subject_type: 'settings', description: 'company' }).select('id', 'before', 'after')).filter(
      (r: { before: unknown; after: unknown }) => json(r.before)?.currency !== json(r.after)?.currency,
    );
    for (const m of moves) expect(m.id).toBeLessThan(firstMoney);
  });
});
