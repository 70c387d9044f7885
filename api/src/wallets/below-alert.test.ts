import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, FORBIDDEN, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { systemContext } from '../platform/context.ts';
import { ensureTestWallet } from './test-wallet.ts';

/**
 * Dealers under their low-balance alert, as staff see them: GET /wallets?below_alert=true, GET
 * /wallets/below-alert-count (the Wallets menu's red badge) and the dashboard's `attention`, which
 * also carries the top-up and payout requests waiting. Live wallets only.
 */
let h: Harness;
let root: string;
let n = 0;

const makeDealer = () => h.makeDealer(`BELOW${(n += 1)}`);
const topUp = (walletId: number, amount: string, reference: string) =>
  h.http().post(`/api/v1/wallets/${walletId}/top-up`).set(bearer(root)).send({ amount, reference });
const setAlert = (walletId: number, threshold: string | null) =>
  h.http().put(`/api/v1/wallets/${walletId}/low-balance-alert`).set(bearer(root)).send({ threshold });
const count = async (token = root) => {
  const res = await h.http().get('/api/v1/wallets/below-alert-count').set(bearer(token));
  expect(res.status).toBe(200);
  return res.body.data.count as number;
};
/** The codes of the listed wallets of this file's dealers (other files' rows may share the database). */
const listed = async (query: string) => {
  const res = await h.http().get(`/api/v1/wallets?per_page=100&q=BELOW${query}`).set(bearer(root));
  expect(res.status).toBe(200);
  return res.body.data.map((w: { dealer: { dealer_code: string } }) => w.dealer.dealer_code).sort();
};

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(async () => {
  await h.close();
});

describe('wallets under their alert', () => {
  it('are listed with below_alert=true and counted: a threshold set and the balance below it, live wallets only', async () => {
    const before = await count();
    const below = await makeDealer(); // 2.00 under an alert of 10.00
    const above = await makeDealer(); // 20.00 over an alert of 10.00
    const none = await makeDealer(); // 0.00, no alert
    const equal = await makeDealer(); // 10.00 at its alert of 10.00: not below
    expect((await topUp(below.walletId, '2.00', 'EVC-B1')).status).toBe(200);
    expect((await topUp(above.walletId, '20.00', 'EVC-B2')).status).toBe(200);
    expect((await topUp(equal.walletId, '10.00', 'EVC-B4')).status).toBe(200);
    for (const w of [below, above, equal]) expect((await setAlert(w.walletId, '10.00')).status).toBe(200);
    // A test wallet (a reseller's sandbox) under a threshold is nobody's live money: never counted nor listed.
    const testWallet = await ensureTestWallet(systemContext({ db: h.knex }), none.id);
    await h.knex('wallets').where({ id: testWallet }).update({ low_balance_threshold: 1_000_000_000 });

    expect(await count()).toBe(before + 1);
    expect(await listed('&below_alert=true')).toEqual([below.code]);
    expect(await listed('&below_alert=false')).toEqual([below.code, above.code, none.code, equal.code].sort());
    expect(await listed('')).toEqual([below.code, above.code, none.code, equal.code].sort());
    const one = await h.http().get(`/api/v1/wallets?below_alert=true&q=${below.code}`).set(bearer(root));
    expect(one.body.data).toEqual([expect.objectContaining({ id: below.walletId, balance: '2.00', low_balance_threshold: '10.00', low_balance: true })]);
    expect(one.body.meta.total).toBe(1);

    // A credit that lifts the wallet to its alert takes it off; an alert raised above the balance puts one on.
    expect((await topUp(below.walletId, '8.00', 'EVC-B5')).status).toBe(200);
    expect(await count()).toBe(before);
    expect(await listed('&below_alert=true')).toEqual([]);
    expect((await setAlert(above.walletId, '25.00')).status).toBe(200);
    expect(await count()).toBe(before + 1);
    expect(await listed('&below_alert=true')).toEqual([above.code]);
    // Cleared, the alert no longer counts.
    expect((await setAlert(above.walletId, null)).status).toBe(200);
    expect(await count()).toBe(before);
  });

  it('a filter value other than true or false is a 422 on the field, in the reader’s language', async () => {
    const bad = await h.http().get('/api/v1/wallets?below_alert=maybe').set(bearer(root));
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ success: false, code: 'validation.failed', message: VALIDATION, errors: { below_alert: ['Use true or false'] } });
    const ae = await h.http().get('/api/v1/wallets?below_alert=1&lng=ae').set(bearer(root));
    expect(ae.status).toBe(422);
    expect(ae.body.errors).toEqual({ below_alert: ['استخدم true أو false'] });
  });

  it("needs 'view wallets': a dealer and a role without it get a 403", async () => {
    const shop = await makeDealer();
    const noWallets = await h.userWith(['view dashboard']);
    for (const token of [shop.token, noWallets.token]) {
      expect((await h.http().get('/api/v1/wallets/below-alert-count').set(bearer(token))).body).toEqual(FORBIDDEN);
      expect((await h.http().get('/api/v1/wallets?below_alert=true').set(bearer(token))).status).toBe(403);
    }
    const viewer = await h.userWith(['view wallets']);
    expect(await count(viewer.token)).toBe(await count());
  });
});

describe("the dashboard's attention", () => {
  const attention = async (token: string) => {
    const res = await h.http().get('/api/v1/dashboard').set(bearer(token));
    expect(res.status).toBe(200);
    return res.body.data.attention;
  };

  it('counts for an admin the requests waiting and the wallets under their alert, as the badges do', async () => {
    const first = await attention(root);
    const pendingNow = Number((await h.knex('wallet_top_up_requests').where({ status: 'pending' }).count({ n: '*' }).first())!.n);
    expect(first).toEqual({ money_requests: pendingNow, below_alert: await count() });
    const shop = await makeDealer();
    expect((await h.http().post('/api/v1/wallet-top-up-requests').set(bearer(shop.token)).send({ amount: '5.00', reference: 'EVC-ATT-1' })).status).toBe(201);
    expect((await setAlert(shop.walletId, '1.00')).status).toBe(200);
    expect(await attention(root)).toEqual({ money_requests: first.money_requests + 1, below_alert: first.below_alert + 1 });
    expect((await h.http().get('/api/v1/wallet-top-up-requests/pending-count').set(bearer(root))).body.data.count).toBe(first.money_requests + 1);
  });

  it('says null for what a limited role may not see, and nothing to a dealer', async () => {
    const dashboardOnly = await h.userWith(['view dashboard']);
    expect(await attention(dashboardOnly.token)).toEqual({ money_requests: null, below_alert: null });
    const viewer = await h.userWith(['view dashboard', 'view wallets']);
    expect(await attention(viewer.token)).toEqual({ money_requests: null, below_alert: await count() });
    const reviewer = await h.userWith(['view dashboard', 'review wallet top-ups']);
    expect((await attention(reviewer.token)).below_alert).toBeNull();
    expect(typeof (await attention(reviewer.token)).money_requests).toBe('number');
    const shop = await makeDealer();
    expect(await attention(shop.token)).toBeUndefined();
  });
});
