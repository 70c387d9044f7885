/**
 * `npm run bench:live-money`: what the HTTP hop to the payment gateway and the aggregator costs.
 * The real server (fresh SQLite, or BENCH_DATABASES=mysql, demo data) takes storefront purchases
 * from 50 autocannon clients while its worker fulfils them through the WaafiPay and Reloadly
 * adapters, once with the stand-ins over loopback HTTP and once with the same stand-ins called in
 * process (STAND_INS_TRANSPORT=inprocess: the same protocol code, no network). The stand-ins answer
 * at once (no PIN wait, no operator latency) so the worker runs flat out and the hop is all that
 * differs. Rounds alternate; the best of each counts. Prints purchases/s and sales settled/s.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knexFactory from 'knex';

const PORT = Number(process.env.BENCH_PORT || 3998);
const base = `http://127.0.0.1:${PORT}`;
const DURATION = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
const databases = (process.env.BENCH_DATABASES || 'sqlite')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

async function waitForHealth() {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('server did not start');
}

async function fresh(database: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-money-'));
  if (database === 'sqlite')
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      count: () => knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'app.sqlite') }, useNullAsDefault: true }),
      cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  const name = `bench_money_${crypto.randomBytes(4).toString('hex')}`;
  const u = new URL(MYSQL_URL);
  const connection = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  const admin = knexFactory({ client: 'mysql2', connection });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  u.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: u.toString() },
    count: () => knexFactory({ client: 'mysql2', connection: { ...connection, database: name } }),
    cleanup: async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function round(database: string, transport: 'http' | 'inprocess') {
  const db = await fresh(database);
  const server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    env: {
      ...process.env,
      ...db.env,
      PORT: String(PORT),
      SEED_DEMO: 'true',
      SEED_DEMO_HISTORY: 'false',
      LOG_LEVEL: 'warn',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      STOREFRONT_SESSION_LIMIT_PER_MINUTE: '100000000',
      STAND_INS_TRANSPORT: transport,
      PAYMENT_SANDBOX_APPROVAL_MS: '0',
      OPERATOR_SANDBOX_LATENCY_MS: '0',
      RECHARGE_WORKER_CONCURRENCY: '16',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => server.once('exit', r));
  try {
    await waitForHealth();
    const login = await fetch(`${base}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    const auth = { authorization: `Bearer ${((await login.json()) as { data: { token: string } }).data.token}`, 'content-type': 'application/json' };
    await fetch(`${base}/api/v1/settings/money`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ max_operation: '100000000', max_balance: '1000000000' }),
    });
    const wallets = (await (await fetch(`${base}/api/v1/wallets?q=DEMO`, { headers: auth })).json()) as { data: { id: number }[] };
    await fetch(`${base}/api/v1/wallets/${wallets.data[0].id}/top-up`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ amount: '10000000', reference: 'bench' }),
    });
    const shop = { dealer_code: 'DEMO', 'content-type': 'application/json' };
    const catalogue = (await (await fetch(`${base}/api/v1/client/dealer/providers`, { headers: shop })).json()) as {
      data: { providers: { categories: { bundles: { id: number }[] }[] }[] };
    };
    const methods = (await (await fetch(`${base}/api/v1/client/payment-methods`, { headers: shop })).json()) as { data: { id: number }[] };
    const bundleId = catalogue.data.providers[0].categories[0].bundles[0].id;
    let n = 0;
    const result = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon(
        {
          url: `${base}/api/v1/client/recharge`,
          duration: DURATION,
          connections: 50,
          requests: [
            {
              method: 'POST',
              headers: shop,
              setupRequest: (req) => ({
                ...req,
                body: JSON.stringify({
                  bundle_id: bundleId,
                  payment_method_id: methods.data[0].id,
                  phone: '0615123456',
                  payer_phone: '0617000021',
                  idempotency_key: `bm-${transport}-${n++}`,
                }),
              }),
            },
          ],
        },
        (err, r) => (err ? reject(err) : resolve(r)),
      ),
    );
    const knex = db.count();
    const settled = Number(((await knex('recharges').where('status', 'completed').count({ n: '*' }).first()) as { n: number }).n);
    await knex.destroy();
    return { rps: Math.round(result.requests.average), p99: result.latency.p99, non2xx: result.non2xx, settledPerSecond: Math.round(settled / DURATION) };
  } finally {
    server.kill('SIGTERM');
    await exited;
    await db.cleanup();
  }
}

for (const database of databases) {
  const best: Record<string, { rps: number; p99: number; non2xx: number; settledPerSecond: number }> = {};
  for (let i = 0; i < ROUNDS; i++) {
    for (const transport of ['inprocess', 'http'] as const) {
      const r = await round(database, transport);
      console.error(`  ${database} ${transport}: ${r.rps} purchases/s, ${r.settledPerSecond} settled/s`);
      if (!best[transport] || r.rps > best[transport].rps) best[transport] = r;
    }
  }
  console.log(`\n${database}, ${DURATION} s, 50 connections, best of ${ROUNDS}:\n`);
  console.log('| stand-ins | purchases/s | p99 | non-2xx | sales settled/s |');
  console.log('|---|---|---|---|---|');
  for (const t of ['inprocess', 'http'])
    console.log(
      `| ${t === 'http' ? 'over loopback HTTP' : 'in process (no hop)'} | ${best[t].rps} | ${best[t].p99} ms | ${best[t].non2xx} | ${best[t].settledPerSecond} |`,
    );
  console.log(
    `\nHTTP hop: purchases ${((best.http.rps / best.inprocess.rps) * 100).toFixed(1)}% of in-process, settlement ${((best.http.settledPerSecond / Math.max(1, best.inprocess.settledPerSecond)) * 100).toFixed(1)}%`,
  );
}
