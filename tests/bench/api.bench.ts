/**
 * `npm run bench:api` (part of `npm run bench`): starts the real server with the demo data on each
 * database named in BENCH_DATABASES (default "sqlite,mysql": a fresh SQLite file, and a fresh
 * database on the MariaDB/MySQL server of BENCH_MYSQL_URL, dropped afterwards) and measures with
 * autocannon on loopback: the health check (before and after the rest: the reference), the current
 * user and a paginated user list (signed in), storefront purchases (POST /client/recharge, 50
 * concurrent clients, each with its own idempotency key, the worker fulfilling in the background)
 * and sign-in (argon2id bound), beside a bare Express route for scale. After the purchases the
 * server is stopped and the ledger checked: every wallet's balance equals the sum of its ledger,
 * every "Cost + Profit" sale has exactly one debit and at most one refund. Prints one table; the
 * README records it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { freshDatabase } from './fresh-database.ts';
import { percent, recordFigure } from './results.ts';

const PORT = Number(process.env.BENCH_PORT || 3999);
const base = `http://127.0.0.1:${PORT}`;
const DURATION = Number(process.env.BENCH_SECONDS || 10);
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
const databases = (process.env.BENCH_DATABASES || 'sqlite,mysql')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

interface Row {
  database: string;
  call: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}
const rows: Row[] = [];

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

function measure(database: string, call: string, opts: autocannon.Options) {
  return new Promise<void>((resolve, reject) => {
    autocannon({ duration: DURATION, connections: 20, ...opts }, (err, r) => {
      if (err) return reject(err);
      rows.push({ database, call, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx });
      console.error(`  ${database} ${call}: ${Math.round(r.requests.average)} req/s`);
      resolve();
    });
  });
}

/** CPU seconds a process has used so far (Linux /proc; the server's own cost, whatever else the machine runs). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The ledger after the purchases: each wallet's balance is its ledger's sum; one debit per "Cost + Profit" sale, at most one refund. */
async function ledgerExact(knex: Knex): Promise<{ exact: boolean; sales: number; settled: number }> {
  const wallets: { id: number; balance: number | string }[] = await knex('wallets').select('id', 'balance');
  let exact = true;
  for (const w of wallets) {
    const row = await knex('wallet_transactions')
      .where({ wallet_id: w.id })
      .first(knex.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total"));
    if (Number((row as { total: number | string }).total) !== Number(w.balance) || Number(w.balance) < 0) exact = false;
  }
  const sales: { id: number; status: string }[] = await knex('recharges').where('pricing_model', 'cost').where('cost', '>', 0).select('id', 'status');
  const moves: { recharge_id: number; kind: string; n: number | string }[] = await knex('wallet_transactions')
    .whereNotNull('recharge_id')
    .groupBy('recharge_id', 'kind')
    .select('recharge_id', 'kind', knex.raw('COUNT(*) as n'));
  const count = new Map(moves.map((m) => [`${m.recharge_id}:${m.kind}`, Number(m.n)]));
  for (const sale of sales) {
    const refunds = count.get(`${sale.id}:recharge_refund`) ?? 0;
    if ((count.get(`${sale.id}:recharge_debit`) ?? 0) !== 1 || refunds > 1 || (refunds === 1 && sale.status !== 'refunded')) exact = false;
  }
  return { exact, sales: sales.length, settled: sales.filter((r) => r.status !== 'pending' && r.status !== 'processing').length };
}

const row = (database: string, call: string) => rows.find((r) => r.database === database && r.call === call)!;
const HEALTH = 'GET /api/v1/health';
const HEALTH_AFTER = 'GET /api/v1/health (again, after the rest)';
const ME = 'GET /api/v1/auth/me (signed in)';
const USERS = 'GET /api/v1/users?per_page=15 (signed in)';
const BUY = 'POST /api/v1/client/recharge (50 connections, a new key each)';
const PURCHASE_GOAL: Record<string, number> = { sqlite: 1000, mysql: 500 };
const ENGINE: Record<string, string> = { sqlite: 'SQLite', mysql: 'MariaDB' };

async function bench(database: string) {
  const { env, open, cleanup } = await freshDatabase(database, { prefix: 'bench', mysqlUrl: MYSQL_URL });
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": profile the server under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/src/server.ts'], {
    env: {
      ...process.env,
      ...env,
      PORT: String(PORT),
      SEED_DEMO: 'true',
      SEED_DEMO_HISTORY: 'false',
      LOG_LEVEL: 'warn',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      STOREFRONT_SESSION_LIMIT_PER_MINUTE: '100000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => server.once('exit', r));
  let stopped = false;
  try {
    await waitForHealth();
    const login = await fetch(`${base}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const auth = { authorization: `Bearer ${token}` };
    await measure(database, HEALTH, { url: `${base}/api/v1/health` });
    await measure(database, ME, { url: `${base}/api/v1/auth/me`, headers: auth });
    await measure(database, USERS, { url: `${base}/api/v1/users?per_page=15`, headers: auth });
    // Purchases: the DEMO wallet gets enough for every sale, then 50 clients buy at once.
    const wallets = (await (await fetch(`${base}/api/v1/wallets?q=DEMO`, { headers: auth })).json()) as { data: { id: number }[] };
    // The money ceilings (settings) are raised first: the benchmark's float is far above a real dealer's.
    await fetch(`${base}/api/v1/settings/money`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ max_operation: '100000000', max_balance: '1000000000' }),
    });
    await fetch(`${base}/api/v1/wallets/${wallets.data[0].id}/top-up`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '10000000', reference: 'bench' }),
    });
    const shopHeaders = { dealer_code: 'DEMO', 'content-type': 'application/json' };
    const catalogue = (await (await fetch(`${base}/api/v1/client/dealer/providers`, { headers: shopHeaders })).json()) as {
      data: { providers: { categories: { bundles: { id: number }[] }[] }[] };
    };
    const methods = (await (await fetch(`${base}/api/v1/client/payment-methods`, { headers: shopHeaders })).json()) as { data: { id: number }[] };
    const bundleId = catalogue.data.providers[0].categories[0].bundles[0].id;
    let n = 0;
    const cpuBefore = cpuSeconds(server.pid);
    const salesBefore = rows.length;
    await measure(database, BUY, {
      url: `${base}/api/v1/client/recharge`,
      connections: 50,
      requests: [
        {
          method: 'POST',
          headers: shopHeaders,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              bundle_id: bundleId,
              payment_method_id: methods.data[0].id,
              phone: '0615123456',
              payer_phone: '0617000021',
              idempotency_key: `bench-${database}-${process.pid}-${n++}`,
            }),
          }),
        },
      ],
    });
    // The server's CPU per purchase (its worker's share included): steadier than req/s on a busy machine.
    if (rows.length > salesBefore) {
      const bought = row(database, BUY);
      console.error(`  ${database} server CPU per purchase: ${(((cpuSeconds(server.pid) - cpuBefore) * 1000) / (bought.rps * DURATION)).toFixed(2)} ms`);
    }
    await measure(database, 'POST /api/v1/auth/admin/login (4 connections)', {
      url: `${base}/api/v1/auth/admin/login`,
      method: 'POST',
      connections: 4,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    await measure(database, HEALTH_AFTER, { url: `${base}/api/v1/health` });
    // Stopped before the check: sales in flight finish their step, the rest stay pending.
    server.kill('SIGTERM');
    await exited;
    stopped = true;
    const knex = open();
    try {
      const ledger = await ledgerExact(knex);
      ledgers.push({ database, ...ledger });
    } finally {
      await knex.destroy();
    }
  } finally {
    if (!stopped) {
      server.kill('SIGTERM');
      await exited;
    }
    await cleanup();
  }
}

const ledgers: { database: string; exact: boolean; sales: number; settled: number }[] = [];

/** The yardstick: a bare Express route answering fixed bytes, in its own process. */
async function bare() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bare-'));
  const bodyFile = path.join(dir, 'body.json');
  fs.writeFileSync(bodyFile, JSON.stringify({ success: true, data: { id: 1, status: 'pending' } }));
  const server = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(PORT), BODY_FILE: bodyFile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => server.once('exit', r));
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/bare`)).ok) break;
      } catch {
        /* starting */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await measure('-', 'GET /bare (Express 5, fixed bytes; for scale)', { url: `${base}/bare` });
  } finally {
    server.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

for (const database of databases) await bench(database);
await bare();
console.log(`\nNode ${process.version}, ${os.cpus().length} cores, ${DURATION} s per call, 20 connections unless stated\n`);
console.log('| database | call | req/s | p50 | p99 | non-2xx |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.database} | ${r.call} | ${r.rps} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx} |`);
console.log();
for (const database of databases) {
  const engine = ENGINE[database];
  // The reference: the health check before and after the rest, averaged.
  const health = (row(database, HEALTH).rps + row(database, HEALTH_AFTER).rps) / 2;
  const buy = row(database, BUY);
  const me = row(database, ME);
  const users = row(database, USERS);
  const ledger = ledgers.find((l) => l.database === database)!;
  const figures = [
    {
      measure: `storefront purchases at 50 clients, ${engine}`,
      value: `${buy.rps}/s (p99 ${buy.p99} ms, ${buy.non2xx} non-2xx)`,
      reference: `/health ${Math.round(health)}/s`,
      goal: `>= ${PURCHASE_GOAL[database]}/s`,
      met: buy.rps >= PURCHASE_GOAL[database] && buy.non2xx === 0,
    },
    {
      measure: `purchases as a share of /health, ${engine}`,
      value: `${percent(buy.rps, health).toFixed(1)}%`,
      reference: `/health ${Math.round(health)}/s`,
      goal: '>= 40%',
      met: percent(buy.rps, health) >= 40,
    },
    {
      measure: `ledger after the purchases, ${engine}`,
      value: `${ledger.exact ? 'exact' : 'NOT EXACT'} (${ledger.sales} sales, ${ledger.settled} settled)`,
      reference: 'balance = sum of ledger; one debit per sale',
      goal: 'exact',
      met: ledger.exact,
    },
    {
      measure: `GET /auth/me (signed in) as a share of /health, ${engine}`,
      value: `${percent(me.rps, health).toFixed(1)}% (${me.rps}/s)`,
      reference: `/health ${Math.round(health)}/s`,
      goal: '>= 50%',
      met: percent(me.rps, health) >= 50,
    },
    {
      measure: `GET /users?per_page=15 (signed in) p50 at 20 clients, ${engine}`,
      value: `${users.p50} ms (${users.rps}/s)`,
      reference: `/health p50 ${row(database, HEALTH).p50} ms`,
      goal: '<= 20 ms',
      met: users.p50 <= 20,
    },
  ];
  for (const f of figures) {
    recordFigure(f);
    console.log(`${f.met ? 'met   ' : 'NOT MET'} ${f.measure}: ${f.value} (beside ${f.reference}; goal ${f.goal})`);
  }
}
