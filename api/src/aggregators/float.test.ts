import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { startMailCatcher, type CaughtMail } from '../../../tests/api/mail-catcher.ts';
import { bearer, createHarness, FORBIDDEN, TEST_DATABASE, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import type { OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { makeShop, moneyKit, buy, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RoutingDeps } from '../routing/routing.routes.ts';
import { RouteChooser } from '../routing/route-choice.ts';
import { startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { floatAlertsSettled, noticeFloatSale, readFloat, scheduleFloatChecks, setFloatCheckEverySales } from './float.service.ts';

/**
 * The aggregators' float (issue 26, part 3): reads on a schedule, after every few sales and on
 * demand; one email per crossing of the threshold to the staff who manage delivery routes (also
 * with two processes reading at once), re-armed by a read back above it; the threshold; the list's
 * forecast; the route a low float cannot pay skipped; permissions. Mail goes to a real SMTP server
 * on loopback; the aggregators are fakes whose balance the test sets.
 */
let h: Harness;
let root: string;
let shop: Shop;
let manager: { id: number; email: string; token: string };
let viewer: { id: number; email: string; token: string };
let smtp: Awaited<ReturnType<typeof startMailCatcher>>;
let mails: CaughtMail[] = [];
const routing: RoutingDeps = {};

interface Fake {
  adapter: OperatorAdapter;
  state: { amount: number; fail: string | null; calls: number };
}
function fakeAggregator(name: string, amount: number, balance = true): Fake {
  const state = { amount, fail: null as string | null, calls: 0 };
  const adapter = {
    name,
    system: name,
    sendOperation: 'send',
    capabilities: { lookupByOwnReference: true, balance, productList: false, transactionReport: false },
    async balance() {
      state.calls += 1;
      await sleep(5);
      return state.fail ? { status: 'unknown' as const, error: state.fail } : { status: 'ok' as const, amount: state.amount, currency: 'USD' };
    },
  } as unknown as OperatorAdapter;
  return { adapter, state };
}
const reloadly = fakeAggregator('reloadly', 100_000);
const dtone = fakeAggregator('dtone', 250_000);
const noBalance = fakeAggregator('sandbox', 0, false);

const api = (token = root) => ({
  get: (path: string) => h.http().get(`/api/v1${path}`).set(bearer(token)),
  put: (path: string, body: object) => h.http().put(`/api/v1${path}`).set(bearer(token)).send(body),
  post: (path: string, body: object = {}) => h.http().post(`/api/v1${path}`).set(bearer(token)).send(body),
});
const floatOf = async (name: string) =>
  ((await api().get('/aggregators')).body.data as { name: string }[]).find((f) => f.name === name) as Record<string, unknown>;
const row = (name: string) => h.knex('aggregator_floats').where({ aggregator: name }).first();
const alertsSent = () => h.knex('activity_log').where({ action: 'aggregator_float_alert_sent' });
async function eventually(check: () => Promise<boolean> | boolean, ms = 8000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await sleep(25);
  }
}
/** A read now, and the email it may have sent delivered. */
const check = async (name = 'reloadly') => {
  const res = await api().post(`/aggregators/${name}/check`);
  await floatAlertsSettled();
  return res;
};

beforeAll(async () => {
  routing.operators = { reloadly: reloadly.adapter, dtone: dtone.adapter, sandbox: noBalance.adapter };
  routing.live = ['reloadly'];
  h = await createHarness({ routing, env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '100.00' });
  manager = await h.userWith(['view delivery routes', 'manage delivery routes']);
  viewer = await h.userWith(['view delivery routes', 'view dashboard']);
  smtp = await startMailCatcher();
  mails = smtp.mails;
  const port = smtp.port;
  const saved = await api().put('/settings/mail', { host: '127.0.0.1', port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  setFloatCheckEverySales(0);
  await smtp.close();
  await h.close();
});

describe('GET /aggregators, POST /aggregators/{name}/check', () => {
  it('lists the aggregators whose float this server reads, unread at first', async () => {
    const res = await api().get('/aggregators');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        name: 'reloadly',
        label: 'Reloadly',
        live: true,
        balance: null,
        currency: null,
        threshold: null,
        checked_at: null,
        check_error: null,
        below_threshold: false,
        days_left: null,
        daily_spend: null,
      },
      expect.objectContaining({ name: 'dtone', label: 'DT One', live: false, balance: null }),
    ]);
  });

  it('reads a float now; an aggregator that does not answer keeps the last balance with the reason', async () => {
    const res = await check();
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Balance read from Reloadly.');
    expect(res.body.data).toMatchObject({ name: 'reloadly', balance: '1000.00', currency: 'USD', check_error: null, below_threshold: false });
    const first = res.body.data.checked_at;
    expect(Date.now() - Date.parse(first)).toBeLessThan(60_000);
    reloadly.state.fail = 'No answer in time.';
    const failed = await check();
    expect(failed.status).toBe(200);
    expect(failed.body.message).toBe('Reloadly did not answer the balance request; the last known balance was kept.');
    expect(failed.body.data).toMatchObject({ balance: '1000.00', checked_at: first, check_error: 'No answer in time.' });
    reloadly.state.fail = null;
    expect((await check()).body.data.check_error).toBeNull();
    expect((await api().post('/aggregators/unknown/check')).status).toBe(404);
    // An aggregator that cannot tell its balance has no float here.
    const none = await api().post('/aggregators/sandbox/check');
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('This aggregator was not found.');
  });

  it('forecasts the days left from the average spend of the last 7 full company days', async () => {
    const tz = 'Africa/Mogadishu';
    const today = zonedDay(new Date(), tz);
    const dayAt = (daysAgo: number) => toDbTime(new Date(startOfZonedDay(today, tz).getTime() - daysAgo * 86_400_000 + 10 * 3_600_000));
    const key = (
      await h
        .http()
        .post('/api/v1/dealer/api-keys')
        .set(bearer(shop.token))
        .send({ name: 'Till', scopes: ['recharges:write'] })
    ).body.data.key;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const sale = await h
        .http()
        .post('/api/reseller/v1/recharges')
        .set('Authorization', `Bearer ${key}`)
        .set('Idempotency-Key', `float-${i}-000`)
        .send({ bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' });
      expect(sale.status).toBe(201);
      ids.push(sale.body.data.id);
    }
    // In the window: 35.00 two days ago and 14.00 (the aggregator's own cost of a 35.00 sale) six days ago.
    // Out of it: today's, eight days ago, and one through DT One.
    const set = (id: number, fields: Record<string, unknown>) =>
      h
        .knex('recharges')
        .where({ id })
        .update({ status: 'completed', ...fields });
    await set(ids[0], { operator_adapter: 'reloadly', cost: 3500, created_at: dayAt(2) });
    const hasAggregatorCost = await h.knex.schema.hasColumn('recharges', 'aggregator_cost');
    await set(ids[1], {
      operator_adapter: 'reloadly',
      cost: hasAggregatorCost ? 3500 : 1400,
      created_at: dayAt(6),
      ...(hasAggregatorCost ? { aggregator_cost: 1400 } : {}),
    });
    await set(ids[2], { operator_adapter: 'reloadly', cost: 9900, created_at: dayAt(0) });
    await set(ids[3], { operator_adapter: 'reloadly', cost: 9900, created_at: dayAt(8) });
    await set(ids[4], { operator_adapter: 'dtone', cost: 9900, created_at: dayAt(1) });
    // 49.00 over 7 days: 7.00 a day; 1000.00 lasts 142.857... days, rounded down to 142.8.
    expect(await floatOf('reloadly')).toMatchObject({ balance: '1000.00', daily_spend: '7.00', days_left: 142.8 });
    expect(await floatOf('dtone')).toMatchObject({ balance: null, daily_spend: '14.14', days_left: null });
  });
});

describe('PUT /aggregators/{name}', () => {
  it('sets and clears the threshold, logged; refuses a bad amount and an unknown aggregator', async () => {
    const set = await api(manager.token).put('/aggregators/dtone', { threshold: '50.00' });
    expect(set.status).toBe(200);
    expect(set.body.message).toBe('Float alert threshold saved.');
    expect(set.body.data).toMatchObject({ name: 'dtone', threshold: '50.00' });
    const logged = await h.knex('activity_log').where({ action: 'aggregator_float_threshold_changed' }).orderBy('id');
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0].after)).toEqual({ aggregator: 'dtone', threshold: '50.00' });
    // The same value again changes (and logs) nothing.
    expect((await api(manager.token).put('/aggregators/dtone', { threshold: 50 })).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'aggregator_float_threshold_changed' })).toHaveLength(1);
    for (const threshold of ['abc', '-5', '0', '1.234', {}]) {
      const bad = await api(manager.token).put('/aggregators/dtone', { threshold });
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        success: false,
        code: 'validation.failed',
        errors_detail: expect.any(Array),
        message: VALIDATION,
        errors: { threshold: ['Enter an amount greater than zero with at most two decimals, such as 12.50'] },
      });
    }
    const arabic = await h.http().put('/api/v1/aggregators/dtone?lng=ae').set(bearer(manager.token)).send({ threshold: 'x' });
    expect(arabic.status).toBe(422);
    expect(arabic.body.errors.threshold[0]).not.toBe('Enter an amount greater than zero with at most two decimals, such as 12.50');
    expect((await api(manager.token).put('/aggregators/nowhere', { threshold: '5.00' })).status).toBe(404);
    const cleared = await api(manager.token).put('/aggregators/dtone', { threshold: '' });
    expect(cleared.body.message).toBe('Float alert turned off.');
    expect(cleared.body.data.threshold).toBeNull();
    expect(await h.knex('activity_log').where({ action: 'aggregator_float_threshold_changed' })).toHaveLength(2);
  });

  it('needs "manage delivery routes" to change and "view delivery routes" to read; dealers never', async () => {
    expect((await api(viewer.token).get('/aggregators')).status).toBe(200);
    expect((await api(viewer.token).get('/aggregators/alerts')).status).toBe(200);
    expect((await api(viewer.token).put('/aggregators/reloadly', { threshold: '1.00' })).body).toEqual(FORBIDDEN);
    expect((await api(viewer.token).post('/aggregators/reloadly/check')).body).toEqual(FORBIDDEN);
    const stranger = await h.userWith(['view recharges']);
    expect((await api(stranger.token).get('/aggregators')).status).toBe(403);
    expect((await api(stranger.token).get('/aggregators/alerts')).status).toBe(403);
    expect((await api(shop.token).get('/aggregators')).status).toBe(403);
    expect((await h.http().get('/api/v1/aggregators')).status).toBe(401);
    // The routing's own /aggregators routes still answer beside these.
    expect((await api().get('/aggregators/reloadly/products')).status).toBe(200);
  });
});

describe('the alert: one email per crossing', () => {
  beforeEach(async () => {
    await api().put('/aggregators/reloadly', { threshold: null });
    reloadly.state.amount = 100_000;
    await check();
    mails.length = 0;
  });

  it('emails the staff who manage delivery routes once when a read first finds the float below the threshold, and again only after it was back up', async () => {
    expect((await api(manager.token).put('/aggregators/reloadly', { threshold: '500.00' })).status).toBe(200);
    await floatAlertsSettled();
    expect(mails).toHaveLength(0);
    const before = (await alertsSent()).length;

    reloadly.state.amount = 40_000;
    const below = await check();
    expect(below.body.data).toMatchObject({ balance: '400.00', threshold: '500.00', below_threshold: true });
    expect(mails).toHaveLength(1);
    // Every holder of "manage delivery routes" (super admins included), in one email; not those who only view.
    expect(mails[0].to.sort()).toEqual([manager.email, 'root@test.example'].sort());
    expect(mails[0].body).toContain('Subject: Low float at Reloadly: 400.00 USD left');
    // Quoted-printable: soft line breaks joined.
    const text = mails[0].body.replace(/=\r?\n/g, '');
    expect(text).toContain('The balance of our account at Reloadly is now 400.00 USD, below the alert threshold of 500.00 USD.');
    expect(text).toContain('/aggregators');
    expect((await row('reloadly')).alerted_at).not.toBeNull();
    expect(await alertsSent()).toHaveLength(before + 1);

    // Still below: no second email, however often it is read.
    reloadly.state.amount = 30_000;
    await check();
    await check();
    expect(mails).toHaveLength(1);

    // Back at the threshold re-arms; the next crossing alerts again.
    reloadly.state.amount = 50_000;
    expect((await check()).body.data.below_threshold).toBe(false);
    expect((await row('reloadly')).below_since).toBeNull();
    reloadly.state.amount = 10_000;
    await check();
    expect(mails).toHaveLength(2);
  });

  it('alerts at once when a threshold is set above the last balance read, and a cleared threshold re-arms', async () => {
    await api(manager.token).put('/aggregators/reloadly', { threshold: '2000.00' });
    await floatAlertsSettled();
    expect(mails).toHaveLength(1);
    await api(manager.token).put('/aggregators/reloadly', { threshold: null });
    expect((await row('reloadly')).below_since).toBeNull();
    await check();
    expect(mails).toHaveLength(1);
  });

  it("shows the banner list (GET /aggregators/alerts) and the dashboard's floats to staff who view delivery routes only", async () => {
    expect((await api().get('/aggregators/alerts')).body.data).toEqual([]);
    await api(manager.token).put('/aggregators/reloadly', { threshold: '2000.00' });
    await floatAlertsSettled();
    const alerts = await api(viewer.token).get('/aggregators/alerts');
    expect(alerts.body.data).toEqual([{ name: 'reloadly', label: 'Reloadly', balance: '1000.00', currency: 'USD', threshold: '2000.00', days_left: 142.8 }]);
    expect((await api(viewer.token).get('/dashboard')).body.data.floats).toEqual(alerts.body.data);
    const salesOnly = await h.userWith(['view dashboard']);
    expect((await api(salesOnly.token).get('/dashboard')).body.data).not.toHaveProperty('floats');
    expect((await api(shop.token).get('/dashboard')).body.data).not.toHaveProperty('floats');
  });

  it('sends one email when two processes read the float at once', { timeout: 60_000 }, async () => {
    await api(manager.token).put('/aggregators/reloadly', { threshold: '500.00' });
    await floatAlertsSettled();
    expect(mails).toHaveLength(0);
    const before = (await alertsSent()).length;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATA_DIR: h.dataDir,
      RACE_AGGREGATOR: 'reloadly',
      RACE_BALANCE: '12000',
      RACE_READS: '6',
    };
    if (TEST_DATABASE === 'mysql') {
      const u = new URL(process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test');
      u.pathname = `/${h.databaseName}`;
      env.DATABASE_URL = u.toString();
    } else delete env.DATABASE_URL;
    env.RACE_AT = String(Date.now() + 4000);
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/aggregators/float-race.child.ts'], {
          cwd: PROJECT_ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`race process exited ${code}: ${err}`))));
      });
    const outs = await Promise.all([run(), run()]);
    expect(outs.map((o) => JSON.parse(o.trim().split('\n').at(-1)!).reads)).toEqual([6, 6]);
    await eventually(() => mails.length >= 1);
    await sleep(300);
    expect(mails).toHaveLength(1);
    expect(await alertsSent()).toHaveLength(before + 1);
    expect((await row('reloadly')).below_since).not.toBeNull();
  });
});

describe('when the float is read', () => {
  it('a slow read begun before a newer one (another process) never overwrites the newer balance', async () => {
    const slow = fakeAggregator('dtone', 999_999);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const answer = slow.adapter.balance.bind(slow.adapter);
    slow.adapter.balance = async (forWhom) => {
      await gate;
      return answer(forWhom);
    };
    const reading = readFloat(h.knex, slow.adapter);
    await sleep(20);
    // Meanwhile another process read the float later and found it low.
    const newer = toDbTime(new Date(Date.now() + 1_000));
    await h.knex('aggregator_floats').where({ aggregator: 'dtone' }).update({ balance: 1_000, currency: 'USD', checked_at: newer });
    release();
    await reading;
    expect(await row('dtone')).toMatchObject({ balance: 1_000 });
    // Forgotten again, for the reads of the tests below.
    await h.knex('aggregator_floats').where({ aggregator: 'dtone' }).update({ balance: null, currency: null, checked_at: null });
  });

  it('on a schedule, every FLOAT_CHECK_MINUTES (0: never)', async () => {
    const calls = dtone.state.calls;
    expect(scheduleFloatChecks(h.knex, routing, 0, 10)()).toBeUndefined();
    await sleep(50);
    expect(dtone.state.calls).toBe(calls);
    const stop = scheduleFloatChecks(h.knex, routing, 10, 10);
    try {
      await eventually(async () => dtone.state.calls > calls && (await row('dtone'))?.checked_at !== null && (await row('dtone'))?.checked_at !== undefined);
    } finally {
      stop();
    }
    expect((await row('dtone')).balance).toBe(250_000);
  });

  it('after every FLOAT_CHECK_EVERY_SALES sales delivered through it, counted atomically (one read for each N, whoever counts)', async () => {
    setFloatCheckEverySales(3);
    try {
      const calls = dtone.state.calls;
      await h.knex('aggregator_floats').where({ aggregator: 'dtone' }).update({ sales_since_check: 0 });
      noticeFloatSale(h.knex, dtone.adapter);
      noticeFloatSale(h.knex, dtone.adapter);
      await eventually(async () => (await row('dtone')).sales_since_check === 2);
      expect(dtone.state.calls).toBe(calls);
      noticeFloatSale(h.knex, dtone.adapter);
      await eventually(() => dtone.state.calls === calls + 1);
      // Nine at once from two connections: every sale counted, three claims of three (reads a process
      // has under way already answer the claims that come meanwhile).
      const other = h.directKnex();
      try {
        for (let i = 0; i < 9; i++) noticeFloatSale(i % 2 ? other : h.knex, dtone.adapter);
        await eventually(async () => dtone.state.calls > calls + 1);
        await sleep(300);
        expect((await row('dtone')).sales_since_check).toBe(0);
        expect(dtone.state.calls - calls - 1).toBeGreaterThanOrEqual(1);
        expect(dtone.state.calls - calls - 1).toBeLessThanOrEqual(3);
      } finally {
        await other.destroy();
      }
      // An aggregator that cannot tell its balance is not counted.
      noticeFloatSale(h.knex, noBalance.adapter);
      await sleep(50);
      expect(await row('sandbox')).toBeUndefined();
    } finally {
      setFloatCheckEverySales(0);
    }
  });

  it('by the worker as it records a delivery', { timeout: 60_000 }, async () => {
    const kit = await moneyKit(h);
    setFloatCheckEverySales(2);
    try {
      const sold = await Promise.all([buy(h, shop), buy(h, shop)]);
      expect(sold.map((s) => s.status)).toEqual([201, 201]);
      await kit.worker.drain();
      const delivered = await h
        .knex('recharges')
        .whereIn(
          'id',
          sold.map((s) => s.body.data.id),
        )
        .select('status', 'operator_adapter');
      expect(delivered.map((d) => d.status)).toEqual(['completed', 'completed']);
      const through = delivered[0].operator_adapter;
      // The stand-in aggregator's float, read after its second sale.
      await eventually(async () => (await row(through))?.checked_at != null);
      expect(Number((await row(through)).balance)).toBeGreaterThan(0);
      expect((await row(through)).sales_since_check).toBe(0);
    } finally {
      setFloatCheckEverySales(0);
      await kit.close();
    }
  });
});

describe('route choice', () => {
  it('skips a route whose float, read within the hour, cannot pay the sale, unless no other route is left', async () => {
    const providerId = Number((await h.knex('providers').where({ code: 'HORSHOP' }).first()).id);
    const routes = await api().put(`/internet-providers/${providerId}/routes`, {
      routes: [
        { aggregator: 'dtone', operator_id: '2701', products: { [String(shop.bundleId)]: '91001' } },
        { aggregator: 'reloadly', operator_id: '1650', products: { [String(shop.bundleId)]: '0.40' } },
      ],
    });
    expect(routes.status).toBe(200);
    const sale = { id: shop.bundleId, provider_id: providerId, cost: 40, operator_product_code: null, refused: [] as string[] };
    const setFloat = (aggregator: string, balance: number, minutesAgo = 1) =>
      h
        .knex('aggregator_floats')
        .where({ aggregator })
        .update({ balance, currency: 'USD', checked_at: toDbTime(new Date(Date.now() - minutesAgo * 60_000)) });
    const choose = () => new RouteChooser(h.knex, () => true).choose(sale);

    await setFloat('dtone', 39);
    await setFloat('reloadly', 100_000);
    const skipped = await choose();
    expect('route' in skipped && skipped.route.aggregator).toBe('reloadly');
    expect(skipped.passed).toEqual([
      { aggregator: 'dtone', why: expect.stringMatching(/^Float too low: its last balance read \(0\.39 USD at .+\) cannot pay this sale's cost \(0\.40\)\.$/) },
    ]);

    // Enough for the sale, or read over an hour ago: not skipped.
    await setFloat('dtone', 40);
    expect(await choose()).toMatchObject({ route: { aggregator: 'dtone' }, passed: [] });
    await setFloat('dtone', 0, 61);
    expect(await choose()).toMatchObject({ route: { aggregator: 'dtone' }, passed: [] });
    // A float in another currency than the sale's says nothing about its cost: not skipped.
    await setFloat('dtone', 39);
    expect(await new RouteChooser(h.knex, () => true).choose({ ...sale, currency: 'SOS' })).toMatchObject({ route: { aggregator: 'dtone' }, passed: [] });

    // Both too low: the first is taken all the same (the aggregator will say).
    await setFloat('dtone', 10);
    await setFloat('reloadly', 10);
    const last = await choose();
    expect('route' in last && last.route.aggregator).toBe('dtone');
    expect(last.passed.map((p) => p.why.split(':')[0])).toEqual(['Float too low', 'Float too low', 'Taken although its float looked too low']);
    expect(last.passed.at(-1)!.why).toBe('Taken although its float looked too low: no other route can deliver it.');
    await setFloat('dtone', 100_000);
  });
});
