import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../db/config.ts';
import { TEST_DATABASE } from './harness.ts';

/**
 * Recharges across real server processes: a server killed with SIGKILL while recharges are in
 * flight, then started again; and (MariaDB) two servers on one database, both running workers,
 * under load. Every recharge must end completed or refunded, with no payment, debit, refund or
 * completion happening twice, and every wallet equal to its ledger.
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

interface Env {
  dataDir: string;
  databaseUrl: string;
  knex: Knex;
  cleanup: () => Promise<void>;
}

async function prepare(): Promise<Env> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rc-proc-'));
  if (TEST_DATABASE !== 'mysql') {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'app.sqlite') }, useNullAsDefault: true });
    return { dataDir, databaseUrl: '', knex, cleanup: async () => { await knex.destroy(); fs.rmSync(dataDir, { recursive: true, force: true }); } };
  }
  const name = `rcp_${crypto.randomBytes(4).toString('hex')}`;
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

interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

async function startServer(env: Env, extra: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      SEED_DEMO: 'true',
      LOG_LEVEL: 'warn',
      APP_KEY,
      PORT: String(port),
      DATA_DIR: env.dataDir,
      DATABASE_URL: env.databaseUrl,
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      PAYMENT_SANDBOX_APPROVAL_MS: '300',
      OPERATOR_SANDBOX_LATENCY_MS: '300',
      OPERATOR_TIMEOUT_MS: '600',
      RECHARGE_LEASE_MS: '1500',
      SEED_DEMO_HISTORY: 'false',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) return { child, url, exited, output: () => output };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not start:\n${output}`);
}

async function stop(server: Server, signal: NodeJS.Signals = 'SIGTERM') {
  if (server.child.exitCode === null) server.child.kill(signal);
  await server.exited;
}

async function adminToken(url: string) {
  const res = await fetch(`${url}/api/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }) });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

async function demoShop(url: string) {
  const providers = (await (await fetch(`${url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'DEMO' } })).json()) as { data: { providers: { categories: { bundles: { id: number; price: string }[] }[] }[] } };
  const bundle = providers.data.providers[0].categories[0].bundles[0];
  const methods = (await (await fetch(`${url}/api/v1/client/payment-methods`, { headers: { dealer_code: 'DEMO' } })).json()) as { data: { id: number }[] };
  return { bundleId: bundle.id, methodId: methods.data[0].id };
}

const purchase = (url: string, shop: { bundleId: number; methodId: number }, i: number, phone = '0615123456') =>
  fetch(`${url}/api/v1/client/recharge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', dealer_code: 'DEMO' },
    body: JSON.stringify({ bundle_id: shop.bundleId, payment_method_id: shop.methodId, phone, payer_phone: '0617000001', idempotency_key: `proc-${i}-${crypto.randomBytes(4).toString('hex')}` }),
  });

async function waitUntilSettled(knex: Knex, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await knex('recharges').whereIn('status', ['pending', 'processing']).count({ n: '*' }).first();
    if (Number(open!.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${open!.n} recharges still open`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The money invariants, checked in the database itself. */
async function assertMoneyRight(knex: Knex) {
  const recharges = await knex('recharges');
  for (const r of recharges) {
    expect(['completed', 'refunded']).toContain(r.status);
    const kinds = (await knex('wallet_transactions').where({ recharge_id: r.id }).orderBy('id')).map((t: { kind: string }) => t.kind);
    expect(kinds).toEqual(r.status === 'completed' ? ['recharge_debit'] : ['recharge_debit', 'recharge_refund']);
    const log = await knex('activity_log').where({ subject_type: 'recharge', subject_id: r.id }).whereIn('action', ['recharge_completed', 'recharge_refunded']);
    expect(log).toHaveLength(1);
  }
  for (const w of await knex('wallets')) {
    const row = await knex('wallet_transactions').where({ wallet_id: w.id }).select(knex.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total")).first();
    expect(Number((row as { total: number }).total)).toBe(Number(w.balance));
    expect(Number(w.balance)).toBeGreaterThanOrEqual(0);
  }
  return recharges;
}

describe('a server killed while recharges are in flight', () => {
  let env: Env;
  beforeAll(async () => {
    env = await prepare();
  });
  afterAll(() => env.cleanup());

  it('is started again and every recharge ends completed or refunded, paid once', async () => {
    const first = await startServer(env);
    const token = await adminToken(first.url);
    const wallet = (await env.knex('wallets').join('users', 'users.id', 'wallets.dealer_id').where('users.dealer_code', 'DEMO').first('wallets.id')).id;
    await fetch(`${first.url}/api/v1/wallets/${wallet}/top-up`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ amount: '100.00', reference: 'proc' }) });
    const shop = await demoShop(first.url);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => purchase(first.url, shop, i, i % 5 === 0 ? '0615559999' : '0615123456')));
    expect(answers.map((a) => a.status).every((s) => s === 201)).toBe(true);
    // Kill it while some are processing.
    for (let i = 0; i < 100; i++) {
      const processing = await env.knex('recharges').where('status', 'processing').first('id');
      if (processing) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await stop(first, 'SIGKILL');
    expect(Number((await env.knex('recharges').whereIn('status', ['pending', 'processing']).count({ n: '*' }).first())!.n)).toBeGreaterThan(0);
    const second = await startServer(env);
    await waitUntilSettled(env.knex, 60_000);
    const recharges = await assertMoneyRight(env.knex);
    expect(recharges).toHaveLength(20);
    expect(recharges.filter((r: { status: string }) => r.status === 'refunded')).toHaveLength(4);
    await stop(second);
  }, 120_000);
});

describe.runIf(TEST_DATABASE === 'mysql')('two server processes on one MariaDB database, both running workers', () => {
  let env: Env;
  beforeAll(async () => {
    env = await prepare();
  });
  afterAll(() => env.cleanup());

  it('never fulfil, debit or refund a recharge twice under load', async () => {
    const a = await startServer(env, { PAYMENT_SANDBOX_APPROVAL_MS: '50', OPERATOR_SANDBOX_LATENCY_MS: '50', RECHARGE_LEASE_MS: '60000' });
    const b = await startServer(env, { PAYMENT_SANDBOX_APPROVAL_MS: '50', OPERATOR_SANDBOX_LATENCY_MS: '50', RECHARGE_LEASE_MS: '60000' });
    const token = await adminToken(a.url);
    const wallet = (await env.knex('wallets').join('users', 'users.id', 'wallets.dealer_id').where('users.dealer_code', 'DEMO').first('wallets.id')).id;
    await fetch(`${a.url}/api/v1/wallets/${wallet}/top-up`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ amount: '500.00', reference: 'proc' }) });
    const shop = await demoShop(a.url);
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => purchase(i % 2 ? a.url : b.url, shop, i, i % 7 === 0 ? '0615559999' : '0615123456')));
    expect(answers.filter((r) => r.status !== 201).map((r) => r.status)).toEqual([]);
    await waitUntilSettled(env.knex, 90_000);
    const recharges = await assertMoneyRight(env.knex);
    expect(recharges).toHaveLength(120);
    await Promise.all([stop(a), stop(b)]);
  }, 180_000);
});
