import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../db/config.ts';
import { TEST_DATABASE } from './harness.ts';

/**
 * Real server processes on a database of their own, with the stand-ins as a process of their own
 * (a gateway and an aggregator that outlive the servers, as real ones do), and the money checks
 * made in the database and in the vendors' books. Used by every test that starts, kills, drains,
 * backs up or restores server processes.
 */
const MYSQL_URL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/** A database (and DATA_DIR) of its own: an SQLite file, or a new MariaDB database dropped afterwards. */
export interface ProcessDatabase {
  dataDir: string;
  /** '' for SQLite (the server then uses DATA_DIR/app.sqlite). */
  databaseUrl: string;
  knex: Knex;
  cleanup: () => Promise<void>;
}

export async function processDatabase(prefix: string): Promise<ProcessDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
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
  const name = `${prefix.replace(/\W/g, '_')}_${crypto.randomBytes(4).toString('hex')}`;
  const u = new URL(MYSQL_URL);
  const connection = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  const admin = knexFactory({ client: 'mysql2', connection });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  u.pathname = `/${name}`;
  const knex = knexFactory({ client: 'mysql2', connection: { ...connection, database: name, timezone: 'Z', dateStrings: true } });
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

/** The environment a server or a CLI gets for this database. */
export const databaseEnv = (db: ProcessDatabase) => ({ DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl });

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * A server process (`node --import tsx api/src/server.ts`) with the demo data and warnings logged,
 * on the settings in `env` (its database's among them); resolves once `healthPath` answers.
 */
export async function spawnServer(env: Record<string, string>, { healthPath = '/api/v1/health' }: { healthPath?: string } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: 'test', SEED_DEMO: 'true', SEED_DEMO_HISTORY: 'false', LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  // Up to 2 minutes: a start resumes every sale left in processing, and on SQLite (one
  // connection) /health queues behind them when the machine is also running other tests.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    try {
      if ((await fetch(`${url}${healthPath}`)).ok) return { child, url, exited, output: () => output };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${output}`);
}

/** A server on `db`, its API limits out of the way (the tests here count money, not calls). */
export const startServer = (db: ProcessDatabase, env: Record<string, string>, options?: { healthPath?: string }): Promise<ServerProcess> =>
  spawnServer({ ...databaseEnv(db), API_RATE_LIMIT_PER_MINUTE: '1000000', ...env }, options);

export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (server.child.exitCode === null) server.child.kill(signal);
  await server.exited;
}

/** An npm script run as an operator runs it (`npm run --silent NAME -- ARGS`), with its exit status and output. */
export function runScript(name: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', name, '--', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function adminToken(url: string) {
  const res = await fetch(`${url}/api/v1/auth/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
  });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

/** Tops up the demo dealer's live wallet through the API. */
export async function topUpDemo(url: string, knex: Knex, amount: string) {
  const token = await adminToken(url);
  const wallet = (
    await knex('wallets').join('users', 'users.id', 'wallets.dealer_id').where({ 'users.dealer_code': 'DEMO', 'wallets.mode': 'live' }).first('wallets.id')
  ).id;
  const res = await fetch(`${url}/api/v1/wallets/${wallet}/top-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ amount, reference: `top-up-${crypto.randomBytes(3).toString('hex')}` }),
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`top-up: ${res.status} ${await res.text()}`);
}

export async function demoShop(url: string) {
  const providers = (await (await fetch(`${url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'DEMO' } })).json()) as {
    data: { providers: { categories: { bundles: { id: number; price: string }[] }[] }[] };
  };
  const bundle = providers.data.providers[0].categories[0].bundles[0];
  const methods = (await (await fetch(`${url}/api/v1/client/payment-methods`, { headers: { dealer_code: 'DEMO' } })).json()) as { data: { id: number }[] };
  return { bundleId: bundle.id, methodId: methods.data[0].id };
}

/** A storefront purchase; numbers ending 9999 are refused by the stand-in operator. */
export const purchase = (url: string, shop: { bundleId: number; methodId: number }, key: string, phone = '0615123456') =>
  fetch(`${url}/api/v1/client/recharge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', dealer_code: 'DEMO' },
    body: JSON.stringify({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone, payer_phone: '0617000021', idempotency_key: key }),
  });

export async function waitUntilSettled(knex: Knex, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await knex('recharges').whereIn('status', ['pending', 'processing']).count({ n: '*' }).first();
    if (Number(open!.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${open!.n} recharges still open`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every wallet equal to the sum of its ledger, never below 0; returns how many wallets were checked. */
export async function assertWalletsEqualLedgers(knex: Knex): Promise<number> {
  const wallets = await knex('wallets');
  for (const w of wallets) {
    const row = await knex('wallet_transactions')
      .where({ wallet_id: w.id })
      .select(knex.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total"))
      .first();
    expect(Number((row as { total: number }).total), `wallet ${w.id}`).toBe(Number(w.balance));
    expect(Number(w.balance)).toBeGreaterThanOrEqual(0);
  }
  return wallets.length;
}

/** The money invariants once every sale has ended, checked in the database itself; returns the sales. */
export async function assertMoneyRight(knex: Knex) {
  const recharges = await knex('recharges');
  for (const r of recharges) {
    // Failed: not delivered and nothing taken from the customer (its debit back all the same).
    expect(['completed', 'refunded', 'failed'], `${r.reference}: ${r.status} ${r.review_code ?? ''} ${r.review_reason ?? ''}`).toContain(r.status);
    // Completed only with a delivery on record.
    if (r.status === 'completed') expect(r.delivery_state).toBe('delivered');
    const kinds = (await knex('wallet_transactions').where({ recharge_id: r.id }).orderBy('id')).map((t: { kind: string }) => t.kind);
    expect(kinds).toEqual(r.status === 'completed' ? ['recharge_debit'] : ['recharge_debit', 'recharge_refund']);
    const log = await knex('activity_log')
      .where({ subject_type: 'recharge', subject_id: r.id })
      .whereIn('action', ['recharge_completed', 'recharge_refunded', 'recharge_failed']);
    expect(log).toHaveLength(1);
  }
  await assertWalletsEqualLedgers(knex);
  return recharges as { id: number; reference: string; status: string; phone: string; payment_state: string }[];
}

export interface StandIns {
  child: ChildProcess;
  waafipay: string;
  reloadly: string;
}

/** The stand-ins as a process of their own (`npm run stand-ins`'s program). */
export async function startStandIns(env: Record<string, string>): Promise<StandIns> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/connectors/stand-ins/serve.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
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

/** A server's settings for the out-of-process stand-ins (the live adapters, over HTTP). */
export const liveEnv = (standIns: { waafipay: string; reloadly: string }) => ({
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
  PAYMENT_TIMEOUT_MS: '20000',
});

/** What the gateway and the aggregator themselves say of a sale, asked through their protocols. */
export async function remoteBooks(standIns: { waafipay: string; reloadly: string }, reference: string) {
  const info = await (
    await fetch(`${standIns.waafipay}/asm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schemaVersion: '1.0',
        requestId: crypto.randomUUID(),
        timestamp: new Date().toISOString(),
        channelName: 'WEB',
        serviceName: 'HPP_GETTRANINFO',
        serviceParams: { merchantUid: 'M0910291', storeId: '1000201', hppKey: 'HPP-STANDIN-KEY', referenceId: reference },
      }),
    })
  ).json();
  const token = (
    await (
      await fetch(`${standIns.reloadly}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'standin-client', client_secret: 'standin-secret', grant_type: 'client_credentials', audience: standIns.reloadly }),
      })
    ).json()
  ).access_token;
  const report = await (
    await fetch(`${standIns.reloadly}/topups/reports/transactions?customIdentifier=${reference}`, { headers: { authorization: `Bearer ${token}` } })
  ).json();
  return {
    payment: info.responseCode === '2001' ? (info.params.status as string) : null,
    topups: (report.content as { status: string }[]).map((t) => t.status),
  };
}
