import { fromDbTime } from '../database/time.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { TEST_DATABASE } from '../../../tests/api/harness.ts';

/**
 * The SIGTERM drain of a real server process (server.ts drainOnSignal), on the engine named by
 * TEST_DATABASE, with the stand-ins in a process of their own (vendors that outlive the server):
 * not ready at once while live still answers, the sales it holds finished, or handed back at the
 * deadline and taken at once by the next process (charged once), and exit 0 in bounded time.
 */
const MYSQL_URL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
const APP_KEY = crypto.randomBytes(32).toString('hex');

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

interface Place {
  dataDir: string;
  databaseUrl: string;
  knex: Knex;
  cleanup: () => Promise<void>;
}

/** A fresh database: a SQLite file in a temp dir, or a new MariaDB database (dropped after). */
async function freshDatabase(): Promise<Place> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'drain-'));
  if (TEST_DATABASE !== 'mysql') {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'app.sqlite') }, useNullAsDefault: true });
    return {
      dataDir,
      databaseUrl: '',
      knex,
      cleanup: async () => {
        await knex.destroy();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `drain_${crypto.randomBytes(4).toString('hex')}`;
  const u = new URL(MYSQL_URL);
  const connection = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  const admin = knexFactory({ client: 'mysql2', connection });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  u.pathname = `/${name}`;
  const knex = knexFactory({ client: 'mysql2', connection: { ...connection, database: name, timezone: 'Z', dateStrings: true }, pool: { min: 0, max: 2 } });
  return {
    dataDir,
    databaseUrl: u.toString(),
    knex,
    cleanup: async () => {
      await knex.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The stand-ins as a process of their own; the payer takes `approvalMs` to approve each PIN prompt. */
async function startStandIns(approvalMs: number): Promise<{ child: ChildProcess; waafipay: string; reloadly: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/connectors/stand-ins/serve.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PAYMENT_SANDBOX_APPROVAL_MS: `${approvalMs}-${approvalMs}`, OPERATOR_SANDBOX_LATENCY_MS: '50' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.on('exit', () => reject(new Error('stand-ins exited')));
  });
  return { child, ...(JSON.parse(line) as { waafipay: string; reloadly: string }) };
}

interface Server {
  child: ChildProcess;
  url: string;
  metricsUrl: string;
  exited: Promise<number | null>;
  output: () => string;
}

async function startServer(place: Place, standIns: { waafipay: string; reloadly: string }, extra: Record<string, string>): Promise<Server> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      SEED_DEMO: 'true',
      SEED_DEMO_HISTORY: 'false',
      LOG_LEVEL: 'warn',
      APP_KEY,
      PORT: String(port),
      DATA_DIR: place.dataDir,
      DATABASE_URL: place.databaseUrl,
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_PORT: String(metricsPort),
      WAAFIPAY_URL: `${standIns.waafipay}/asm`,
      WAAFIPAY_MERCHANT_UID: 'M0910291',
      WAAFIPAY_API_USER_ID: '1000416',
      WAAFIPAY_API_KEY: 'API-STANDIN-KEY',
      WAAFIPAY_STORE_ID: '1000201',
      WAAFIPAY_HPP_KEY: 'HPP-STANDIN-KEY',
      RELOADLY_API_URL: standIns.reloadly,
      RELOADLY_AUTH_URL: `${standIns.reloadly}/oauth/token`,
      RELOADLY_CLIENT_ID: 'standin-client',
      RELOADLY_CLIENT_SECRET: 'standin-secret',
      RECHARGE_RETRY_BASE_MS: '100',
      PAYMENT_TIMEOUT_MS: '30000',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    try {
      if ((await fetch(`${url}/api/v1/health/ready`)).ok)
        return { child, url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, exited, output: () => output };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not start:\n${output}`);
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
  let place: Place;
  let standIns: Awaited<ReturnType<typeof startStandIns>>;
  beforeAll(async () => {
    place = await freshDatabase();
    // Each payer takes 4 s to approve: the sales are held by the worker through their PIN prompts.
    standIns = await startStandIns(4_000);
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
