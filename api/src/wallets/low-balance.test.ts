import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailCatcher, type CaughtMail } from '../../../tests/api/mail-catcher.ts';
import { createHarness, bearer, FORBIDDEN, NOT_FOUND, PNG_1PX, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { systemContext, transact } from '../platform/context.ts';
import { debit } from './ledger.ts';
import { noticeLowBalance } from './low-balance.ts';

/**
 * The low-balance alert: a dealer (or an admin for it) sets a threshold; the first debit that
 * leaves the balance below it sends the dealer ONE email through the saved mail server, and the
 * next only after a credit has brought the balance back up. Mail goes to a real SMTP server on
 * loopback.
 */
let h: Harness;
let root: string;
let n = 0;
let server: Awaited<ReturnType<typeof startMailCatcher>>;
let port: number;
let received: CaughtMail[] = [];

async function makeDealer() {
  n += 1;
  const code = `LOWBAL${n}`;
  const email = `${code.toLowerCase()}@test.example`;
  const res = await h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', `Dealer ${code}`)
    .field('email', email)
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', code)
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(res.status).toBe(201);
  const wallet = await h.knex('wallets').where({ dealer_id: res.body.data.id }).first();
  return { id: res.body.data.id as number, email, token: await h.login(email), walletId: wallet.id as number };
}
const topUp = (walletId: number, amount: string, reference: string) =>
  h.http().post(`/api/v1/wallets/${walletId}/top-up`).set(bearer(root)).send({ amount, reference });
const alerts = (walletId: number, action = 'low_balance_alert_sent') => h.knex('activity_log').where({ action, subject_type: 'wallet', subject_id: walletId });
const mailsTo = (email: string) => received.filter((m) => m.to.includes(email));
/** Polls until `check` holds (an after-commit alert is not awaited by the route that caused it). */
async function eventually(check: () => Promise<boolean> | boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
/** What a sale does: debit in its own transaction, then, committed, the alert check. */
const sale = async (walletId: number, cents: number) => {
  const ctx = systemContext({ db: h.knex });
  try {
    await transact(ctx, (tctx) => debit(tctx, walletId, { kind: 'recharge_debit', amount: cents, reference: 'sale' }));
  } catch {
    return;
  }
  await noticeLowBalance(ctx, walletId);
};

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  server = await startMailCatcher();
  received = server.mails;
  port = server.port;
});
afterAll(async () => {
  await server.close();
  await h.close();
});

describe('setting the threshold', () => {
  it('a dealer sets its own, answered in every wallet answer, logged, and cleared with null or ""', async () => {
    const shop = await makeDealer();
    await topUp(shop.walletId, '8.00', 'EVC-1');
    const set = await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: '10' });
    expect(set.status).toBe(200);
    expect(set.body.message).toBe('Low-balance alert saved');
    expect(set.body.data).toMatchObject({ id: shop.walletId, balance: '8.00', low_balance_threshold: '10.00', low_balance: true });
    expect((await h.http().get('/api/v1/my-wallet').set(bearer(shop.token))).body.data.wallet).toMatchObject({
      low_balance_threshold: '10.00',
      low_balance: true,
    });
    const list = await h.http().get(`/api/v1/wallets?q=${'LOWBAL1'}`).set(bearer(root));
    expect(list.body.data[0]).toMatchObject({ low_balance_threshold: '10.00', low_balance: true });
    const log = await alerts(shop.walletId, 'low_balance_alert_changed');
    expect(log).toHaveLength(1);
    expect([JSON.parse(log[0].before), JSON.parse(log[0].after), log[0].actor_id]).toEqual([{ threshold: null }, { threshold: '10.00' }, shop.id]);
    // The same value again changes nothing and logs nothing.
    await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: 10 });
    expect(await alerts(shop.walletId, 'low_balance_alert_changed')).toHaveLength(1);
    const lower = await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: '5.50' });
    expect(lower.body.data).toMatchObject({ low_balance_threshold: '5.50', low_balance: false });
    const cleared = await h.http().put('/api/v1/my-wallet/low-balance-alert?lng=so').set(bearer(shop.token)).send({ threshold: '' });
    expect(cleared.body.message).toBe('Digniinta haraaga yar waa la damiyay');
    expect(cleared.body.data).toMatchObject({ low_balance_threshold: null, low_balance: false });
    expect((await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: null })).status).toBe(200);
    const bad = await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: '-1' });
    expect(bad.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { threshold: ['Enter an amount greater than zero with at most two decimals, such as 12.50'] },
    });
    const huge = await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: '9999999999999' });
    expect(huge.body.errors).toEqual({ threshold: ['The most allowed is 1,000,000,000,000.00.'] });
  });

  it('an admin with "adjust wallets" sets any wallet’s; others may not', async () => {
    const shop = await makeDealer();
    const res = await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert?lng=ae`).set(bearer(root)).send({ threshold: 3 });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('تم حفظ تنبيه انخفاض الرصيد');
    expect(res.body.data).toMatchObject({ low_balance_threshold: '3.00', low_balance: true, dealer: { id: shop.id } });
    expect(await alerts(shop.walletId, 'low_balance_alert_changed')).toHaveLength(1);
    const viewer = await h.userWith(['view wallets']);
    expect((await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(viewer.token)).send({ threshold: 1 })).body).toEqual(FORBIDDEN);
    expect((await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(shop.token)).send({ threshold: 1 })).status).toBe(403);
    expect((await h.http().put('/api/v1/wallets/999999/low-balance-alert').set(bearer(root)).send({ threshold: 1 })).body).toEqual(NOT_FOUND);
    // /my-wallet is a dealer's own: an admin has none.
    expect((await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(root)).send({ threshold: 1 })).status).toBe(404);
    expect((await h.http().put('/api/v1/my-wallet/low-balance-alert').send({ threshold: 1 })).status).toBe(401);
  });
});

describe('the alert', () => {
  it('without saved mail settings: nothing is sent, the caller is not disturbed, the miss is logged', async () => {
    const shop = await makeDealer();
    await topUp(shop.walletId, '2.00', 'EVC-1');
    await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(root)).send({ threshold: '1.50' });
    await sale(shop.walletId, 100);
    expect(await alerts(shop.walletId, 'low_balance_alert_failed')).toHaveLength(1);
    expect((await alerts(shop.walletId, 'low_balance_alert_failed'))[0].description).toBe('low-balance alert not sent: the mail settings are not saved');
    expect(await alerts(shop.walletId)).toHaveLength(0);
    // Once per crossing, even so.
    await sale(shop.walletId, 10);
    expect(await alerts(shop.walletId, 'low_balance_alert_failed')).toHaveLength(1);
    // A wallet unknown, or with no threshold: nothing at all.
    await noticeLowBalance(systemContext({ db: h.knex }), 999999);
  });

  it('30 sales at once crossing the threshold send exactly one email; a top-up above re-arms it, the next crossing sends a second', async () => {
    process.env.APP_URL = 'https://office.example.so/';
    try {
      expect(
        (
          await h
            .http()
            .put('/api/v1/settings/mail')
            .set(bearer(root))
            .send({ host: '127.0.0.1', port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' })
        ).status,
      ).toBe(200);
      const shop = await makeDealer();
      await topUp(shop.walletId, '10.00', 'EVC-1');
      await h.http().put('/api/v1/my-wallet/low-balance-alert').set(bearer(shop.token)).send({ threshold: '5.00' });
      // 30 x 0.25: the balance goes 10.00 -> 2.50, below 5.00 from the 21st on.
      await Promise.all(Array.from({ length: 30 }, () => sale(shop.walletId, 25)));
      expect(Number((await h.knex('wallets').where({ id: shop.walletId }).first()).balance)).toBe(250);
      expect(mailsTo(shop.email)).toHaveLength(1);
      expect(await alerts(shop.walletId)).toHaveLength(1);
      const mail = mailsTo(shop.email)[0].body.replace(/=\r?\n/g, '');
      expect(mail).toContain('Subject: Low balance: 2.50 USD left in your wallet');
      expect(mail).toContain('Your wallet balance is now 2.50 USD, below your alert threshold of 5.00 USD.');
      expect(mail).toContain('https://office.example.so/my-wallet');
      expect(JSON.parse((await alerts(shop.walletId))[0].after)).toMatchObject({ balance: '2.50', threshold: '5.00', currency: 'USD', to: shop.email });
      // Still below: more sales send nothing.
      await Promise.all(Array.from({ length: 5 }, () => sale(shop.walletId, 10)));
      expect(mailsTo(shop.email)).toHaveLength(1);
      // A top-up that stays below the threshold does not re-arm it; one that reaches it does.
      await topUp(shop.walletId, '1.00', 'EVC-2');
      expect((await h.knex('wallets').where({ id: shop.walletId }).first()).low_balance_notified_at).not.toBeNull();
      await topUp(shop.walletId, '2.50', 'EVC-3');
      expect((await h.knex('wallets').where({ id: shop.walletId }).first()).low_balance_notified_at).toBeNull();
      const shown = await h.http().get('/api/v1/my-wallet').set(bearer(shop.token));
      expect(shown.body.data.wallet).toMatchObject({ balance: '5.50', low_balance: false });
      // An admin's debit crosses again: the route sends the second email after its commit.
      const debit = await h
        .http()
        .post(`/api/v1/wallets/${shop.walletId}/adjust`)
        .set(bearer(root))
        .send({ type: 'debit', amount: '1.00', reference: 'FIX-1', note: 'Correction' });
      expect(debit.status).toBe(200);
      await eventually(async () => mailsTo(shop.email).length === 2 && (await alerts(shop.walletId)).length === 2);
      expect(mailsTo(shop.email)[1].body.replace(/=\r?\n/g, '')).toContain('Subject: Low balance: 4.50 USD left in your wallet');
      // A replay of that debit debits nothing and alerts nothing.
      await h
        .http()
        .post(`/api/v1/wallets/${shop.walletId}/adjust`)
        .set(bearer(root))
        .send({ type: 'debit', amount: '1.00', reference: 'FIX-1', note: 'Correction' });
      await new Promise((r) => setTimeout(r, 200));
      expect(mailsTo(shop.email)).toHaveLength(2);
    } finally {
      delete process.env.APP_URL;
    }
  });

  it('a new threshold re-arms the alert; a refusing mail server is logged, never thrown', async () => {
    const shop = await makeDealer();
    await topUp(shop.walletId, '10.00', 'EVC-1');
    await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(root)).send({ threshold: '9.00' });
    await sale(shop.walletId, 200);
    expect(mailsTo(shop.email)).toHaveLength(1);
    await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(root)).send({ threshold: '7.00' });
    expect((await h.knex('wallets').where({ id: shop.walletId }).first()).low_balance_notified_at).toBeNull();
    await sale(shop.walletId, 200);
    expect(mailsTo(shop.email)).toHaveLength(2);
    // The mail server goes away: the next crossing is logged as not sent, and the sale goes on.
    await h.http().put('/api/v1/settings/mail').set(bearer(root)).send({ host: '127.0.0.1', port: 1, security: 'none', from_address: 'noreply@example.so' });
    await h.http().put(`/api/v1/wallets/${shop.walletId}/low-balance-alert`).set(bearer(root)).send({ threshold: '5.00' });
    await sale(shop.walletId, 200);
    expect(Number((await h.knex('wallets').where({ id: shop.walletId }).first()).balance)).toBe(400);
    const failed = await alerts(shop.walletId, 'low_balance_alert_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].description).toMatch(/^low-balance alert not sent: /);
    expect(mailsTo(shop.email)).toHaveLength(2);
  });
});
