import { fromDbTime } from '../database/time.ts';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE } from '../../../tests/api/harness.ts';
import {
  freePort,
  liveEnv,
  processDatabase,
  startServer as startProcess,
  startStandIns,
  type ProcessDatabase,
  type ServerProcess,
  type StandIns,
} from '../../../tests/api/server-processes.ts';

/**
 * The SIGTERM drain of a real server process (server.ts drainOnSignal), on the engine named by
 * TEST_DATABASE, with the stand-ins in a process of their own (vendors that outlive the server):
 * not ready at once while live still answers, the sales it holds finished, or handed back at the
 * deadline and taken at once by the next process (charged once), and exit 0 in bounded time.
 */
const APP_KEY = crypto.randomBytes(32).toString('hex');

interface Server extends ServerProcess {
  metricsUrl: string;
}

/** A server on the live adapters to the stand-ins, with its metrics on a port of their own; resolves once ready. */
async function startServer(place: ProcessDatabase, standIns: StandIns, extra: Record<string, string>): Promise<Server> {
  const metricsPort = await freePort();
  const env = { APP_KEY, METRICS_PORT: String(metricsPort), ...liveEnv(standIns), PAYMENT_TIMEOUT_MS: '30000', ...extra };
  const server = await startProcess(place, env, { healthPath: '/api/v1/health/ready' });
  return { ...server, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** The demo shop, selling through the out-of-process aggregator, with money in its wallet (once per database). */
async function demoShop(url: string, knex: Knex) {
  if (!(await knex('providers').where({ adapter_key: 'reloadly' }).first('id'))) {
    await knex('providers').update({ adapter_key: 'reloadly' });
    const login = await fetch(`${url}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const wallet = (await knex('wallets').join('users', 'users.id', 'wallets.dealer_id').where('users.dealer_code', 'DEMO').first('wallets.id')).id;
    const topUp = await fetch(`${url}/api/v1/wallets/${wallet}/top-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ amount: '100.00', reference: 'drain' }),
    });
    expect(topUp.status).toBe(200);
  }
  const providers = (await (await fetch(`${url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'DEMO' } })).json()) as {
    data: { providers: { categories: { bundles: { id: number }[] }[] }[] };
  };
  const methods = (await (await fetch(`${url}/api/v1/client/payment-methods`, { headers: { dealer_code: 'DEMO' } })).json()) as { data: { id: number }[] };
  return { bundleId: providers.data.providers[0].categories[0].bundles[0].id, methodId: methods.data[0].id };
}

async function purchase(url: string, shop: { bundleId: number; methodId: number }): Promise<string> {
  const res = await fetch(`${url}/api/v1/client/recharge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', dealer_code: 'DEMO' },
    body: JSON.stringify({
      bundle_id: shop.bundleId,
      payment_method_id: shop.methodId,
      phone: '0615123456',
      payer_phone: '0617000021',
      idempotency_key: `drain-${crypto.randomBytes(6).toString('hex')}`,
    }),
  });
  if (res.status !== 201) throw new Error(`purchase refused: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { reference: string } }).data.reference;
}

/** The sales, once each is held by the worker with its PIN prompt out (payment sent, the payer still reading). */
async function whenPrompted(knex: Knex, references: string[]) {
  await expect
    .poll(async () => (await knex('recharges').whereIn('reference', references).where({ status: 'processing', payment_state: 'sent' })).length, {
      timeout: 20_000,
      interval: 100,
    })
    .toBe(references.length);
}

const status = async (url: string, p: string) => {
  const res = await fetch(`${url}${p}`);
  return { status: res.status, body: (await res.json()) as { data: { reasons?: string[]; draining?: boolean; status: string } } };
};

/** The gateway's own books: how many charge requests each sale made. */
async function chargeRequests(waafipay: string, references: string[]): Promise<number[]> {
  const books = (await (await fetch(`${waafipay}/_standin/books`)).json()) as { entries: { referenceId: string; requests: number }[] };
  return references.map((ref) => books.entries.find((e) => e.referenceId === ref)?.requests ?? 0);
}

describe(`the SIGTERM drain of a server process (${TEST_DATABASE})`, () => {
  let place: ProcessDatabase;
  let standIns: StandIns;
  beforeAll(async () => {
    place = await processDatabase('drain');
    // Each payer takes 4 s to approve: the sales are held by the worker through their PIN prompts.
    standIns = await startStandIns({ PAYMENT_SANDBOX_APPROVAL_MS: '4000-4000', OPERATOR_SANDBOX_LATENCY_MS: '50' });
  }, 60_000);
  afterAll(async () => {
    standIns?.child.kill('SIGTERM');
    await place?.cleanup();
  });

  it('turns not ready at once while live still answers, finishes the sales it holds, and exits 0', async () => {
    const server = await startServer(place, standIns, { DRAIN_TIMEOUT_SECONDS: '20', DRAIN_NOT_READY_SECONDS: '1' });
    const shop = await demoShop(server.url, place.knex);
    const ready = await status(server.url, '/api/v1/health/ready');
    expect(ready.body.data).toMatchObject({ status: 'ready', database: 'ok', draining: false, loops: { 'recharge worker': 'ok' }, reasons: [] });
    const references = [await purchase(server.url, shop), await purchase(server.url, shop)];
    await whenPrompted(place.knex, references);
    // The process's own metrics listener shows them held.
    const metrics = await (await fetch(server.metricsUrl)).text();
    expect(metrics).toMatch(/^databundles_sales_in_flight 2$/m);

    const stopped = Date.now();
    server.child.kill('SIGTERM');
    await expect.poll(async () => (await status(server.url, '/api/v1/health/ready')).status, { interval: 50, timeout: 2_000 }).toBe(503);
    const draining = await status(server.url, '/api/v1/health/ready');
    expect(draining.body).toMatchObject({ success: false, code: 'health.not_ready', data: { status: 'not_ready', draining: true } });
    expect(draining.body.data.reasons).toContain('draining');
    expect((await status(server.url, '/api/v1/health/live')).status).toBe(200);
    // Requests are still served meanwhile: the old health check too.
    expect((await status(server.url, '/api/v1/health')).status).toBe(200);

    expect(await server.exited).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(20_000);
    // What it held was finished: delivered, charged once.
    const rows = await place.knex('recharges').whereIn('reference', references);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['completed', 'completed']);
    expect(await chargeRequests(standIns.waafipay, references)).toEqual([1, 1]);
  }, 90_000);

  it('hands back what is still running at its deadline; the next process takes it at once, charged once', async () => {
    // Vendor calls time out within 2 s here: a sale handed back is due again 2 s after the drain.
    const server = await startServer(place, standIns, { DRAIN_TIMEOUT_SECONDS: '2', PAYMENT_CALL_TIMEOUT_MS: '2000', OPERATOR_TIMEOUT_MS: '2000' });
    const shop = await demoShop(server.url, place.knex);
    const references = [await purchase(server.url, shop), await purchase(server.url, shop)];
    await whenPrompted(place.knex, references);

    const stopped = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // Within the drain's bound (and well before the payers approve).
    expect(Date.now() - stopped).toBeLessThan(4_000);
    // Handed back: pending, the prompt on record (the next process asks, never prompts again), due
    // once a call still in the air would have landed: the longer of the vendor calls' timeouts.
    const left = await place.knex('recharges').whereIn('reference', references);
    for (const r of left) {
      expect(r).toMatchObject({ status: 'pending', payment_state: 'sent' });
      const dueIn = new Date(fromDbTime(r.next_attempt_at)!).getTime() - stopped;
      expect(dueIn).toBeGreaterThan(1_000);
      expect(dueIn).toBeLessThan(6_000);
    }
    expect(server.output()).toMatch(/2 sale\(s\) still running at the end of the drain handed back/);

    // The next process (its lease 3 minutes: it could not take them over before then had they been left in processing).
    const next = await startServer(place, standIns, { RECHARGE_LEASE_MS: '180000' });
    try {
      await expect
        .poll(async () => (await place.knex('recharges').whereIn('reference', references).where({ status: 'completed' })).length, {
          timeout: 30_000,
          interval: 200,
        })
        .toBe(2);
      expect(await chargeRequests(standIns.waafipay, references)).toEqual([1, 1]);
      const rows = await place.knex('recharges').whereIn('reference', references);
      for (const r of rows) expect(r).toMatchObject({ payment_state: 'collected', delivery_state: 'delivered', crashes: 0 });
    } finally {
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    }
  }, 120_000);
});
