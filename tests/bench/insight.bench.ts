/**
 * `npm run bench:insight`: fills a fresh database (SQLite and/or MariaDB, BENCH_DATABASES) with
 * 1,000,000 recharges over 12 months for 200 dealers, with their ledgers (in batches, in a few
 * transactions), starts the real server on it and times, warm, the median of 15 calls each:
 * the recharges list (25 rows, one dealer, one status, 30 days), the 30-day sales report by day,
 * the dealer profit report for a month, and the dashboard. Targets on MySQL: list under 50 ms,
 * reports and dashboard under 500 ms. BENCH_RECHARGES changes the size.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { knexConfig } from '../../db/config.ts';
import { migrationSource, runSeeds } from '../../db/migration-source.ts';
import { recordFigure } from './results.ts';

const TOTAL = Number(process.env.BENCH_RECHARGES || 1_000_000);
const DEALERS = 200;
const PORT = Number(process.env.BENCH_PORT || 3996);
const base = `http://127.0.0.1:${PORT}`;
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
const databases = (process.env.BENCH_DATABASES || 'sqlite,mysql')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const APP_KEY = crypto.randomBytes(32).toString('hex');

const at = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

async function fill(knex: Knex, mysql: boolean) {
  const started = Date.now();
  const now = Date.now();
  const stamp = at(now);
  await knex('providers').insert(
    [1, 2, 3].map((i) => ({
      name: ['Hormuud', 'Somtel', 'Golis'][i - 1],
      code: `BENCH${i}`,
      status: 'active',
      sort_order: i,
      adapter_key: 'sandbox',
      phone_prefixes: '["61"]',
      created_at: stamp,
      updated_at: stamp,
    })),
  );
  const providers: { id: number; name: string }[] = await knex('providers').where('code', 'like', 'BENCH%').select('id', 'name');
  const dealerRows = Array.from({ length: DEALERS }, (_, i) => ({
    name: `Bench Dealer ${i + 1}`,
    email: `bench${i + 1}@example.com`,
    password: 'x',
    dealer_code: `B${String(i + 1).padStart(3, '0')}`,
    user_type: 'dealer',
    status: 'active',
    created_at: stamp,
    updated_at: stamp,
  }));
  for (let i = 0; i < dealerRows.length; i += 100) await knex('users').insert(dealerRows.slice(i, i + 100));
  const dealers: { id: number }[] = await knex('users').where('email', 'like', 'bench%@example.com').orderBy('id').select('id');
  await knex('dealer_details').insert(
    dealers.map((d, i) => ({ user_id: d.id, brand_color: '#000000', pricing_model: i % 2 ? 'profit' : 'cost', created_at: stamp, updated_at: stamp })),
  );
  await knex('wallets').insert(dealers.map((d) => ({ dealer_id: d.id, balance: 0, currency: 'USD', created_at: stamp, updated_at: stamp })));
  const wallets = new Map<number, number>(
    (
      await knex('wallets')
        .whereIn(
          'dealer_id',
          dealers.map((d) => d.id),
        )
        .select('id', 'dealer_id')
    ).map((w: { id: number; dealer_id: number }) => [w.dealer_id, w.id]),
  );
  const balances = new Map<number, number>();
  const profitDealers = new Set(dealers.filter((_, i) => i % 2 === 1).map((d) => d.id));
  const year = 365 * 86_400_000;
  const statuses = ['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'refunded'];
  const BATCH = 500;
  // Oldest first, so every wallet's ledger runs forward in time.
  let nextId = ((await knex('recharges').max({ m: 'id' }).first()) as { m: number | null }).m ?? 0;
  for (let done = 0; done < TOTAL; done += BATCH) {
    const n = Math.min(BATCH, TOTAL - done);
    const rows: Record<string, unknown>[] = [];
    const ledger: Record<string, unknown>[] = [];
    for (let i = 0; i < n; i++) {
      const k = done + i;
      const d = dealers[(k * 7919) % DEALERS].id;
      const cost = d % 2 === 0 ? 40 : 100;
      const created = at(now - year + Math.floor((k / TOTAL) * year));
      const status = statuses[k % statuses.length];
      const profitModel = profitDealers.has(d);
      const p = providers[k % providers.length];
      nextId += 1;
      rows.push({
        id: nextId,
        dealer_id: d,
        provider_id: p.id,
        provider_name: p.name,
        category_name: 'Daily',
        bundle_name: cost === 40 ? '1 GB Daily' : '3 GB Weekly',
        pricing_model: profitModel ? 'profit' : 'cost',
        phone: `61${String(1000000 + (k % 8999999))}`,
        amount: cost + 15,
        cost,
        profit: 15,
        currency: 'USD',
        status,
        idempotency_key: `bench-${k}`,
        reference: `RB${String(k).padStart(10, '0')}`,
        attempts: 1,
        created_at: created,
        updated_at: created,
        completed_at: status === 'completed' ? created : null,
      });
      const wallet = wallets.get(d)!;
      const before = balances.get(wallet) ?? 0;
      if (!profitModel) {
        // A top-up first when needed, then the debit (and a refund for a failed one).
        const moves: [string, string, number][] = [];
        if (before < cost) moves.push(['credit', 'top_up', 10_000]);
        moves.push(['debit', 'recharge_debit', cost]);
        if (status !== 'completed') moves.push(['credit', 'recharge_refund', cost]);
        let b = before;
        for (const [type, kind, amount] of moves) {
          const after = type === 'credit' ? b + amount : b - amount;
          ledger.push({
            wallet_id: wallet,
            type,
            kind,
            amount,
            balance_before: b,
            balance_after: after,
            recharge_id: kind === 'top_up' ? null : nextId,
            reference: kind === 'top_up' ? 'bench' : null,
            created_at: created,
          });
          b = after;
        }
        balances.set(wallet, b);
      } else if (status === 'completed') {
        ledger.push({
          wallet_id: wallet,
          type: 'credit',
          kind: 'profit_credit',
          amount: 15,
          balance_before: before,
          balance_after: before + 15,
          recharge_id: nextId,
          created_at: created,
        });
        balances.set(wallet, before + 15);
      }
    }
    await knex.transaction(async (trx) => {
      await trx('recharges').insert(rows);
      for (let i = 0; i < ledger.length; i += BATCH) await trx('wallet_transactions').insert(ledger.slice(i, i + BATCH));
    });
    if ((done / BATCH) % 200 === 0) console.error(`  ${mysql ? 'mysql' : 'sqlite'}: ${done + n} recharges`);
  }
  for (const [wallet, balance] of balances) await knex('wallets').where({ id: wallet }).update({ balance });
  if (!mysql) await knex.raw('ANALYZE');
  else await knex.raw('ANALYZE TABLE recharges, wallet_transactions, recharge_day_totals');
  return { seconds: Math.round((Date.now() - started) / 1000), dealer: dealers[0].id };
}

async function median(url: string, token: string, runs = 15) {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    if (i >= 3) times.push(performance.now() - t0); // the first three warm the caches
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]);
}

const results: string[] = [];
for (const database of databases) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-insight-'));
  let databaseUrl = '';
  let dropDb = async () => {};
  if (database === 'mysql') {
    const name = `bench_insight_${crypto.randomBytes(3).toString('hex')}`;
    const u = new URL(MYSQL_URL);
    const admin = knexFactory({
      client: 'mysql2',
      connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) },
    });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    dropDb = async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
    };
  }
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl };
  const { clientName, timeouts: _timeouts, ...config } = knexConfig(env, { purpose: 'maintenance' });
  const knex = knexFactory({ ...config, migrations: { tableName: 'knex_migrations', migrationSource } });
  let server: ReturnType<typeof spawn> | undefined;
  try {
    await knex.migrate.latest();
    await runSeeds(knex);
    const filled = await fill(knex, clientName === 'mysql');
    server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
      env: {
        ...env,
        PORT: String(PORT),
        APP_KEY,
        SEED_DEMO: 'true',
        SEED_DEMO_HISTORY: 'false',
        RECHARGE_WORKER: 'false',
        LOG_LEVEL: 'warn',
        API_RATE_LIMIT_PER_MINUTE: '100000000',
        STOREFRONT_SESSION_LIMIT_PER_MINUTE: '100000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${base}/api/v1/health`)).ok) break;
      } catch {
        /* starting */
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const login = await fetch(`${base}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const to = day(Date.now());
    const from30 = day(Date.now() - 29 * 86_400_000);
    const monthFrom = `${to.slice(0, 8)}01`;
    const calls: [string, string][] = [
      [
        'recharges list (25 rows, dealer + status + 30 days)',
        `/api/v1/recharges?dealer_id=${filled.dealer}&status=completed&from=${from30}&to=${to}&per_page=25`,
      ],
      ['sales report, 30 days by day', `/api/v1/reports/sales?from=${from30}&to=${to}&group_by=day`],
      ['dealer profit report, this month', `/api/v1/reports/dealer-profit?from=${monthFrom}&to=${to}`],
      ['dashboard', '/api/v1/dashboard'],
    ];
    // The reference, timed the same way in the same run: the health check (one indexed read).
    const health = await median(`${base}/api/v1/health`, token);
    const engine = database === 'mysql' ? 'MariaDB' : 'SQLite';
    for (const [label, url] of calls) {
      const ms = await median(`${base}${url}`, token);
      console.error(`  ${database} ${label}: ${ms} ms`);
      results.push(`| ${engine} | ${label} | ${ms} ms |`);
      const goal = label.startsWith('recharges list') ? 50 : 100;
      recordFigure({
        measure: `${label}, ${TOTAL.toLocaleString('en')} recharges, ${engine}`,
        value: `${ms} ms (median of 15)`,
        reference: `/health ${health} ms`,
        goal: `<= ${goal} ms`,
        met: ms <= goal,
      });
    }
    results.push(
      `| ${database === 'mysql' ? 'MariaDB' : 'SQLite'} | (filling ${TOTAL.toLocaleString('en')} recharges and their ledgers) | ${filled.seconds} s |`,
    );
  } finally {
    if (server) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await knex.destroy();
    await dropDb();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
console.log(
  `\nNode ${process.version}, ${os.cpus().length} cores, ${TOTAL.toLocaleString('en')} recharges over 12 months, ${DEALERS} dealers; median of 15 warm calls over HTTP\n`,
);
console.log('| database | call | median |');
console.log('|---|---|---|');
for (const r of results) console.log(r);
