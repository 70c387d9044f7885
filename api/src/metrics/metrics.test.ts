import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop } from '../recharges/recharge-fixtures.ts';
import { RechargeWorker } from '../recharges/recharge-worker.ts';
import { databaseTrail } from '../recharges/remote-calls.ts';
import { moneyAdapters, readMoneyEnv, startStandIns, type MoneyAdapters } from '../connectors/money-adapters.ts';
import { readFloat } from '../aggregators/float.service.ts';
import { startMetricsListener } from './metrics.routes.ts';
import type { ServiceMetrics } from './service-metrics.ts';

/**
 * /metrics on the real app, with real sales through the stand-ins (over loopback HTTP): the
 * token, the names, and the values moving with what the sales did.
 */
const TOKEN = `metrics-${crypto.randomBytes(12).toString('hex')}`;
let h: Harness;
let root: string;
let metrics: ServiceMetrics;
let money: MoneyAdapters;
let worker: RechargeWorker;

beforeAll(async () => {
  h = await createHarness({ env: { METRICS_TOKEN: TOKEN } });
  root = await h.adminToken();
  metrics = h.app.locals.metrics as ServiceMetrics;
  // Every scrape reads the database here (the server reuses a read for a few seconds).
  metrics.snapshotMs = 0;
  const standIns = await startStandIns({ approvalMs: 5, latencyMs: 5, processingPolls: 2 });
  const env = readMoneyEnv({ WAAFIPAY_MODE: 'preauthorize', PAYMENT_TIMEOUT_MS: '1500', PAYMENT_CALL_TIMEOUT_MS: '400', OPERATOR_TIMEOUT_MS: '400' });
  // As server.ts wires them: the vendors' calls counted through the trail, the worker reporting to the metrics.
  money = await moneyAdapters(env, { trail: metrics.observeTrail(databaseTrail(h.knex)), standIns });
  worker = new RechargeWorker({
    db: h.knex,
    client: h.db.client,
    payment: money.gateways,
    operators: money.operators,
    retryBaseMs: 10,
    maxRetryMs: 40,
    paymentTimeoutMs: 300,
    reviewAfterMs: 1200,
    reconcileMs: 60_000,
    observer: metrics,
  });
  metrics.watchWorker(worker);
});
afterAll(async () => {
  await money.close();
  await h.close();
});

type Labels = Record<string, string>;
/** The samples of a Prometheus text answer: name, labels, value. */
function samples(text: string): { name: string; labels: Labels; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}
/** The sum of a metric's samples whose labels include `labels`. */
const valueOf = (text: string, name: string, labels: Labels = {}) =>
  samples(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
const namesOf = (text: string) => new Set(samples(text).map((s) => s.name));

async function scrape(): Promise<string> {
  const res = await h.http().get('/metrics').set(bearer(TOKEN));
  expect(res.status).toBe(200);
  return res.text;
}

const NAMES = [
  'databundles_sales',
  'databundles_sales_in_flight',
  'databundles_worker_claim_limit',
  'databundles_tap_to_prompt_seconds_count',
  'databundles_tap_to_delivered_seconds_count',
  'databundles_oldest_unsure_sale_age_seconds',
  'databundles_review_backlog',
  'databundles_review_oldest_age_seconds',
  'databundles_webhook_outbox_backlog',
  'databundles_webhook_outbox_oldest_age_seconds',
  'databundles_http_requests_total',
  'databundles_http_request_duration_seconds_bucket',
  'databundles_db_pool_pending_acquires',
  'databundles_db_pool_connections',
  'databundles_db_pool_acquire_wait_seconds_count',
  'databundles_db_pool_acquire_failures_total',
  'databundles_nodejs_eventloop_lag_seconds',
  'databundles_process_cpu_seconds_total',
];

describe('/metrics with METRICS_TOKEN', () => {
  it('answers 401 without the bearer token or with another, and Prometheus text with it', async () => {
    const none = await h.http().get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.body.code).toBe('auth.unauthenticated');
    expect(
      (
        await h
          .http()
          .get('/metrics')
          .set(bearer(`${TOKEN}x`))
      ).status,
    ).toBe(401);
    expect(
      (
        await h
          .http()
          .get('/metrics')
          .set(bearer(TOKEN.slice(0, -1)))
      ).status,
    ).toBe(401);
    expect((await h.http().get('/metrics').set('Authorization', TOKEN)).status).toBe(401);
    const res = await h.http().get('/metrics').set(bearer(TOKEN));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const names = namesOf(res.text);
    for (const name of NAMES) expect(names, name).toContain(name);
    // Every name carries the prefix, Node's own included.
    for (const name of names) expect(name).toMatch(/^databundles_/);
  });

  it('moves with real sales: states, prompts, deliveries, vendor calls, lookups, review, webhooks, HTTP, floats', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    // The dealer listens for webhooks (nobody sends them here: no dispatcher runs), so its sales fill the outbox.
    expect((await h.http().put('/api/v1/dealer/webhook').set(bearer(shop.token)).send({ url: 'http://127.0.0.1:9/hook' })).status).toBe(201);
    const before = await scrape();
    expect(valueOf(before, 'databundles_review_backlog')).toBe(0);
    expect(valueOf(before, 'databundles_webhook_outbox_backlog')).toBe(0);

    const sales = [];
    for (const phone of ['0615123456', '0615123457', '0615558888', '0615553333'])
      sales.push(await buy(h, shop, { phone, idempotency_key: `metrics-${phone}-${crypto.randomBytes(4).toString('hex')}` }));
    for (const s of sales) expect(s.status).toBe(201);
    const pending = await scrape();
    expect(valueOf(pending, 'databundles_sales', { state: 'pending' })).toBe(4);
    expect(valueOf(pending, 'databundles_http_requests_total', { method: 'POST', route: '/api/v1/client/recharge', status: '201' })).toBe(4);
    expect(valueOf(pending, 'databundles_http_request_duration_seconds_count', { route: '/api/v1/client/recharge' })).toBe(4);

    // Three delivered (one after a lost answer and a lookup), one processing for ever: handed to review.
    await worker.drain();
    const after = await scrape();
    const rows = await h
      .knex('recharges')
      .whereIn(
        'id',
        sales.map((s) => s.body.data.id),
      )
      .select('status');
    expect(rows.map((r: { status: string }) => r.status).sort()).toEqual(['completed', 'completed', 'completed', 'needs_review']);
    expect(valueOf(after, 'databundles_sales', { state: 'pending' })).toBe(0);
    expect(valueOf(after, 'databundles_sales', { state: 'completed' }) - valueOf(before, 'databundles_sales', { state: 'completed' })).toBe(3);
    expect(valueOf(after, 'databundles_sales', { state: 'needs_review' })).toBe(1);
    expect(valueOf(after, 'databundles_review_backlog')).toBe(1);
    expect(valueOf(after, 'databundles_review_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    // Every sale prompted its payer; three were delivered.
    expect(valueOf(after, 'databundles_tap_to_prompt_seconds_count') - valueOf(before, 'databundles_tap_to_prompt_seconds_count')).toBe(4);
    expect(valueOf(after, 'databundles_tap_to_delivered_seconds_count') - valueOf(before, 'databundles_tap_to_delivered_seconds_count')).toBe(3);
    expect(valueOf(after, 'databundles_tap_to_delivered_seconds_sum')).toBeGreaterThan(0);
    // The vendors' calls as the trail recorded them: the lost send is one unknown outcome.
    expect(valueOf(after, 'databundles_remote_calls_total', { vendor: 'reloadly', operation: 'POST /topups', outcome: 'unknown' })).toBe(1);
    expect(valueOf(after, 'databundles_remote_calls_total', { vendor: 'waafipay', operation: 'API_PREAUTHORIZE', outcome: 'ok' })).toBe(4);
    expect(valueOf(after, 'databundles_remote_call_duration_seconds_count', { vendor: 'waafipay' })).toBe(
      valueOf(after, 'databundles_remote_calls_total', { vendor: 'waafipay' }),
    );
    // ... exactly the calls the sales' trails hold.
    const trail = await h.knex('remote_calls').whereIn('system', ['waafipay', 'reloadly']).groupBy('system').select('system').count({ n: '*' });
    for (const t of trail as { system: string; n: number | string }[])
      expect(valueOf(after, 'databundles_remote_calls_total', { vendor: t.system }), t.system).toBe(Number(t.n));
    // The lost send was looked up (found), the processing top-up polled.
    expect(valueOf(after, 'databundles_status_lookups_total', { vendor: 'reloadly' })).toBeGreaterThanOrEqual(2);
    // The webhook events wait in the outbox.
    const outbox = Number((await h.knex('webhook_events').where({ status: 'pending' }).count({ n: '*' }).first())!.n);
    expect(outbox).toBeGreaterThan(0);
    expect(valueOf(after, 'databundles_webhook_outbox_backlog')).toBe(outbox);
    expect(valueOf(after, 'databundles_webhook_outbox_oldest_age_seconds')).toBeGreaterThan(0);
    expect(valueOf(after, 'databundles_sales_in_flight')).toBe(0);
    expect(valueOf(after, 'databundles_worker_claim_limit')).toBeGreaterThan(0);
    // The pool was waited on (at least each query's acquire), and never ran dry.
    expect(valueOf(after, 'databundles_db_pool_acquire_wait_seconds_count')).toBeGreaterThan(0);
    expect(valueOf(after, 'databundles_db_pool_acquire_failures_total')).toBe(0);

    // The aggregator's float, read from the stand-in, in minor units.
    await readFloat(h.knex, money.operators.reloadly!);
    const float = await h.knex('aggregator_floats').where({ aggregator: 'reloadly' }).first();
    expect(float.balance).not.toBeNull();
    const floats = await scrape();
    expect(valueOf(floats, 'databundles_aggregator_float_minor_units', { aggregator: 'reloadly', currency: float.currency })).toBe(Number(float.balance));
  });

  it('the oldest unsure sale and the sales in flight, while a sale waits on its aggregator', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '10.00' });
    const slow = new RechargeWorker({
      db: h.knex,
      client: h.db.client,
      payment: money.gateways,
      operators: money.operators,
      retryBaseMs: 50,
      maxRetryMs: 100,
      reviewAfterMs: 600_000,
      reconcileMs: 60_000,
      observer: metrics,
    });
    const unwatch = metrics.watchWorker(slow);
    try {
      // Processing for ever at the aggregator: unsure, polled again and again, held in memory.
      const sale = await buy(h, shop, { phone: '0615553333' });
      slow.start();
      await expect.poll(async () => (await h.knex('recharges').where({ id: sale.body.data.id }).first()).unsure_since, { timeout: 10_000 }).not.toBeNull();
      await new Promise((r) => setTimeout(r, 1100));
      const text = await scrape();
      expect(valueOf(text, 'databundles_oldest_unsure_sale_age_seconds')).toBeGreaterThanOrEqual(1);
      expect(valueOf(text, 'databundles_sales_in_flight')).toBe(1);
    } finally {
      await slow.stop({ timeoutMs: 2_000 });
      unwatch();
    }
  });

  it('counts HTTP answers by route template, never by raw path', async () => {
    await h.http().get('/api/v1/users/12345').set(bearer(root));
    await h.http().get('/api/v1/no-such-path-here');
    const text = await scrape();
    const routes = new Set(
      samples(text)
        .filter((s) => s.name === 'databundles_http_requests_total')
        .map((s) => s.labels.route),
    );
    expect(routes).toContain('/api/v1/users/:id');
    expect(routes).toContain('unmatched');
    for (const route of routes) expect(route).not.toMatch(/12345|no-such-path/);
  });
});

// (Neither METRICS_TOKEN nor METRICS_PORT: /metrics is 404, in health/readiness.test.ts.)
describe('/metrics with METRICS_PORT', () => {
  it('is served on its own listener without a token, 404 on the main app; its registry is its own app’s', async () => {
    const own = await createHarness({ env: { METRICS_PORT: '1' } });
    const listener = await startMetricsListener(own.app.locals.metrics as ServiceMetrics, { port: 0, host: '127.0.0.1' });
    try {
      expect((await own.http().get('/metrics')).status).toBe(404);
      expect((await own.http().get('/api/v1/health/live')).status).toBe(200);
      const { port } = listener.address() as AddressInfo;
      const get = (path: string) =>
        new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path }, (res) => {
              let body = '';
              res.on('data', (d) => (body += d));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
            })
            .on('error', reject);
        });
      const res = await get('/metrics');
      expect(res.status).toBe(200);
      expect(res.type).toMatch(/^text\/plain/);
      expect(valueOf(res.body, 'databundles_http_requests_total', { route: '/api/v1/health/live', status: '200' })).toBe(1);
      // Per app: none of the first app's purchases (or its token) here, and its own counts there.
      expect(valueOf(res.body, 'databundles_http_requests_total', { route: '/api/v1/client/recharge' })).toBe(0);
      expect(valueOf(await scrape(), 'databundles_http_requests_total', { route: '/api/v1/client/recharge' })).toBeGreaterThan(0);
      expect((await own.http().get('/metrics').set(bearer(TOKEN))).status).toBe(404);
      expect((await get('/other')).status).toBe(404);
    } finally {
      listener.close();
      await own.close();
    }
  });
});
