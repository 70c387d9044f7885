/**
 * `npm run bench:fulfilment` (part `fulfilment` of `npm run bench`): fulfilment at field times
 * (issue 24). The WaafiPay and Reloadly stand-ins run as a process of their own at field
 * conditions (PIN approval 5-40 s, delivery 1-5 s, 2% of first charges and top-ups processed with
 * their answer lost, 1% answered 503 unprocessed), the demo operators deliver through the
 * configured aggregator (`adapter_key = 'reloadly'`), and an open-loop generator sends storefront
 * purchases at a fixed rate (BENCH_FULFIL_RATE, default 200 a second, for BENCH_FULFIL_SECONDS,
 * default 60): arrivals never wait for the server. Two runs (BENCH_FULFIL_DATABASES, default
 * "sqlite,mysql"): one server process on a fresh SQLite file, and three server processes, all
 * with their workers on, on one fresh MariaDB database (BENCH_MYSQL_URL), the load split
 * round-robin across them.
 *
 * From the first arrival until nothing is pending or processing (at most BENCH_FULFIL_SETTLE_SECONDS
 * after the last arrival, default 180) it samples every second the sales in flight (and those no
 * worker has claimed), each server process's memory (VmRSS of the node process itself) and listen
 * queue, and asks each server for a 404 that touches no database every 250 ms (its event loop).
 * Then it stops the servers, reads the stand-ins' books (GET /_standin/books) and the database,
 * and prints: tap to PIN prompt, the time the product adds to the vendors' own (tap to delivered,
 * less the payer's and the operator's time), the backlog, the peak memory, the lookups per sale
 * that met an unknown outcome, and the ledger against both vendors' books; then a timeline (every
 * 5 s). BENCH_SERVER_NODE_ARGS passes node options to the servers (--cpu-prof, --trace-gc ...);
 * BENCH_FULFIL_LOGS=<dir> keeps their output and every purchase's times.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { Agent, request } from 'undici';
import type { WaafiBookEntry, WaafiBooks } from '../../api/src/connectors/payments/waafipay/waafipay-stand-in.ts';
import type { ReloadlyBookEntry, ReloadlyBooks } from '../../api/src/connectors/deliveries/reloadly/reloadly-stand-in.ts';
import { fromDbTime } from '../../api/src/database/time.ts';
import { AFRICASTALKING_STAND_IN_CREDENTIALS } from '../../api/src/connectors/sms/africastalking/africastalking-stand-in.ts';
import { freshDatabase } from './fresh-database.ts';
import { recordFigure, type BenchFigure } from './results.ts';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const RATE = Number(process.env.BENCH_FULFIL_RATE || 200);
const SECONDS = Number(process.env.BENCH_FULFIL_SECONDS || 60);
const SETTLE_CEILING_MS = Number(process.env.BENCH_FULFIL_SETTLE_SECONDS || 180) * 1000;
const MYSQL_URL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
const MYSQL_PROCESSES = 3;
/** The generator keeps a socket for every purchase a server may keep waiting this long (seconds of arrivals). */
const GENERATOR_WAIT_S = 40;
const databases = (process.env.BENCH_FULFIL_DATABASES || 'sqlite,mysql')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/** The stand-ins' field conditions (docs/integrations.md, "Stand-ins"). */
const FIELD = {
  PAYMENT_SANDBOX_APPROVAL_MS: '5000-40000',
  OPERATOR_SANDBOX_LATENCY_MS: '1000-5000',
  STAND_IN_LOST_ANSWER_RATE: '0.02',
  STAND_IN_UNAVAILABLE_RATE: '0.01',
};
const PIN_MAX_MS = 40_000;
const DELIVERY_MAX_MS = 5_000;
/** The product's default: a charge the gateway never had is asked about this long, every sixth of it, before it counts as never made. */
const PAYMENT_TIMEOUT_MS = 90_000;
/** Waits the product adds by design between two steps (the worker's poll, the first retry), and the machine's jitter. */
const MARGIN_MS = 10_000;
/** The sum of prompt and delivery beyond which a sale's backlog is visible. */
const SETTLE_BOUND_MS = PIN_MAX_MS + DELIVERY_MAX_MS + MARGIN_MS;
/** Sales whose charge the gateway never had (a 503): they wait out the payment timeout by design. */
const ABSENT_BOUND_MS = PAYMENT_TIMEOUT_MS + PAYMENT_TIMEOUT_MS / 6 + MARGIN_MS;

const GOALS = { promptP99Ms: 1000, addedP99Ms: 2000, memoryMb: 1024 };
const ENGINE: Record<string, string> = { sqlite: 'SQLite, 1 process', mysql: `MariaDB, ${MYSQL_PROCESSES} processes` };
const LOOKUPS = ['HPP_GETTRANINFO', 'GET /topups/reports/transactions', 'GET /topups/{id}/status'];
const OPEN = ['pending', 'processing'];
const SETTLED = ['completed', 'failed', 'refunded'];

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/** A process's resident memory in MB (Linux /proc), NaN once it has gone. */
function rssMb(pid: number | undefined): number {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The machine's CPU seconds so far, busy and in all (all cores; Linux /proc/stat). */
function machineCpuSeconds(): { busy: number; total: number } {
  const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - ticks[3] - ticks[4]) / 100, total: total / 100 };
}

/** The MariaDB/MySQL server's pid on this machine, if it runs here (its CPU is part of the run's). */
function databaseServerPid(): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (['mariadbd', 'mysqld'].includes(fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/** Connections in the listen queue of a port on this machine (`ss`: Recv-Q of the listening socket); NaN when unknown. */
async function acceptQueue(port: number): Promise<number> {
  try {
    const { stdout } = await execFileAsync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' });
    return Number(stdout.trim().split('\n')[0].split(/\s+/)[1]);
  } catch {
    return NaN;
  }
}

/** CPU seconds a process has used so far (Linux /proc). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');
const sec = (v: number) => (Number.isFinite(v) ? `${(v / 1000).toFixed(1)} s` : 'n/a');

interface StandIns {
  child: ChildProcess;
  waafipay: string;
  reloadly: string;
  /** Each protocol's base (Africa's Talking: its /version1/messaging URL). */
  api: { africastalking: string };
  exited: Promise<unknown>;
}

/** `npm run stand-ins` at field times, as its own node process (not npm: its pid is the stand-ins'). */
async function startStandIns(): Promise<StandIns> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/connectors/stand-ins/serve.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...FIELD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', () => reject(new Error('stand-ins exited')));
  });
  return { child, exited, ...(JSON.parse(line) as { waafipay: string; reloadly: string; api: { africastalking: string } }) };
}

/** The server's settings for the live adapters, pointed at the stand-ins with their credentials. */
const liveEnv = (s: StandIns) => ({
  WAAFIPAY_URL: `${s.waafipay}/asm`,
  WAAFIPAY_MERCHANT_UID: 'M0910291',
  WAAFIPAY_API_USER_ID: '1000416',
  WAAFIPAY_API_KEY: 'API-STANDIN-KEY',
  WAAFIPAY_STORE_ID: '1000201',
  WAAFIPAY_HPP_KEY: 'HPP-STANDIN-KEY',
  RELOADLY_API_URL: s.reloadly,
  RELOADLY_AUTH_URL: `${s.reloadly}/oauth/token`,
  RELOADLY_CLIENT_ID: 'standin-client',
  RELOADLY_CLIENT_SECRET: 'standin-secret',
  // The receipts go to a vendor outside the server, as in production (not the server's embedded stand-in).
  AFRICASTALKING_API_URL: s.api.africastalking,
  AFRICASTALKING_USERNAME: AFRICASTALKING_STAND_IN_CREDENTIALS.username,
  AFRICASTALKING_API_KEY: AFRICASTALKING_STAND_IN_CREDENTIALS.apiKey,
});

interface Server {
  child: ChildProcess;
  url: string;
  logFile: string;
  exited: Promise<unknown>;
}

async function startServer(env: Record<string, string>, logDir: string, n: number): Promise<Server> {
  const port = await freePort();
  const logFile = path.join(logDir, `server-${n}.log`);
  const log = fs.openSync(logFile, 'a');
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--max-old-space-size=512": the servers under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      SEED_DEMO: 'true',
      SEED_DEMO_HISTORY: 'false',
      LOG_LEVEL: 'warn',
      API_RATE_LIMIT_PER_MINUTE: '100000000',
      STOREFRONT_SESSION_LIMIT_PER_MINUTE: '100000000',
    },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const exited = new Promise((r) => child.once('exit', r));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 480; i++) {
    if (child.exitCode !== null) throw new Error(`server ${n} exited:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) return { child, url, logFile, exited };
    } catch {
      /* starting */
    }
    await sleep(250);
  }
  throw new Error(`server ${n} did not start`);
}

async function stop(child: ChildProcess, exited: Promise<unknown>) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
}

/** What a server logged (JSON lines at warn level and above; its start banner is not JSON): counts by message, and a few lines to read. */
function serverLog(file: string): { lines: number; byMessage: Map<string, number>; samples: string[] } {
  const byMessage = new Map<string, number>();
  const samples: string[] = [];
  let lines = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    let entry: { level?: number; msg?: string };
    try {
      entry = JSON.parse(line) as { level?: number; msg?: string };
    } catch {
      continue;
    }
    lines++;
    const key = `${entry.level ?? '?'} ${entry.msg ?? ''}`.slice(0, 160);
    byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
    if (samples.length < 3 && !samples.some((s) => s.startsWith(line.slice(0, 80)))) samples.push(line.slice(0, 600));
  }
  return { lines, byMessage, samples };
}

interface Purchase {
  i: number;
  scheduled: number;
  tap: number;
  server: number;
  status: number;
  answeredMs: number;
  reference: string | null;
  error?: string;
}

/** A number whose last four digits (1000-2999) are none of the stand-ins' test numbers. */
const plainNumber = (prefix: string, i: number) => `0${prefix}${String(Math.floor(i / 2000) % 1000).padStart(3, '0')}${1000 + (i % 2000)}`;

interface Sample {
  at: number;
  /** Pending or processing. */
  open: number;
  /** Pending and never prompted: waiting for a worker to claim it. */
  unclaimed: number;
  rss: number[];
  /** Connections waiting in each server's listen queue (accepted by the kernel, not yet by the server). */
  accept: number[];
}

/** One event-loop probe: when it was sent and how long its 404 took. */
interface Probe {
  server: number;
  at: number;
  ms: number;
}

interface Run {
  database: string;
  figures: BenchFigure[];
}

async function bench(database: string): Promise<Run> {
  const label = ENGINE[database];
  const { env, open, cleanup } = await freshDatabase(database, { prefix: 'bench-fulfil', mysqlUrl: MYSQL_URL });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fulfil-logs-'));
  const standIns = await startStandIns();
  const servers: Server[] = [];
  const agents: Agent[] = [];
  let knex: Knex | null = null;
  try {
    const serverEnv = { ...env, ...liveEnv(standIns) };
    // One by one: the first migrates and seeds, the others find it done.
    const count = database === 'mysql' ? MYSQL_PROCESSES : 1;
    for (let n = 0; n < count; n++) servers.push(await startServer(serverEnv, logDir, n + 1));
    knex = open();
    // The demo's operators deliver through the configured aggregator: the stand-ins' process.
    await knex('providers').update({ adapter_key: 'reloadly' });
    const base = servers[0].url;
    const login = await fetch(`${base}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
    });
    const auth = { authorization: `Bearer ${((await login.json()) as { data: { token: string } }).data.token}`, 'content-type': 'application/json' };
    // The benchmark's float is far above a real dealer's: the money ceilings go up first.
    await fetch(`${base}/api/v1/settings/money`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ max_operation: '100000000', max_balance: '1000000000' }),
    });
    const wallets = (await (await fetch(`${base}/api/v1/wallets?q=DEMO`, { headers: auth })).json()) as { data: { id: number }[] };
    const topUp = await fetch(`${base}/api/v1/wallets/${wallets.data[0].id}/top-up`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ amount: '10000000', reference: `bench-fulfil-${Date.now()}` }),
    });
    if (!topUp.ok) throw new Error(`top-up failed: ${topUp.status} ${await topUp.text()}`);
    const shop = { dealer_code: 'DEMO', 'content-type': 'application/json' };
    const catalogue = (await (await fetch(`${base}/api/v1/client/dealer/providers`, { headers: shop })).json()) as {
      data: { providers: { phone_prefixes: string[]; categories: { bundles: { id: number }[] }[] }[] };
    };
    const methods = (await (await fetch(`${base}/api/v1/client/payment-methods`, { headers: shop })).json()) as { data: { id: number }[] };
    const provider = catalogue.data.providers[0];
    const bundleId = provider.categories[0].bundles[0].id;
    const prefix = provider.phone_prefixes[0];

    // Keep-alive pools sized for the load: a socket for every purchase the server may keep waiting up
    // to GENERATOR_WAIT_S, as customers' phones each have their own. A full pool would queue purchases
    // in the generator, and undici's pool hands a freed socket to a new request before its queue: the
    // queued ones would wait for the arrivals to end. Its queue is sampled and reported (it should stay 0).
    const connections = Math.max(256, Math.ceil((RATE * GENERATOR_WAIT_S) / servers.length));
    for (let n = 0; n < servers.length; n++) agents.push(new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 }));
    const total = Math.round(RATE * SECONDS);
    const purchases: Purchase[] = [];
    const answers: Promise<void>[] = [];
    const samples: Sample[] = [];
    const pids = servers.map((s) => s.child.pid);
    const ports = servers.map((s) => Number(new URL(s.url).port));
    const cpuBefore = pids.map(cpuSeconds);
    const databasePid = database === 'mysql' ? databaseServerPid() : undefined;
    const databaseCpuBefore = cpuSeconds(databasePid);
    const machineBefore = machineCpuSeconds();
    const standInCpuBefore = cpuSeconds(standIns.child.pid);
    const benchCpuBefore = process.cpuUsage();
    let sampling = true;
    let standInPeakMb = 0;
    const generator = { sockets: 0, queued: 0 };
    // Each server's event loop: a 404 that touches no database, asked every 250 ms on a socket of its
    // own. Its answer time is how long the server left a request unread (a stall), whatever the database does.
    const probes: Probe[] = [];
    const probeAgents = servers.map(() => new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 }));
    agents.push(...probeAgents);
    const prober = Promise.all(
      servers.map(async (server, n) => {
        while (sampling) {
          const at = Date.now();
          try {
            const res = await request(`${server.url}/api/v1/_bench_probe`, { dispatcher: probeAgents[n] });
            await res.body.dump();
          } catch {
            /* counted by its time */
          }
          probes.push({ server: n, at, ms: Date.now() - at });
          await sleep(Math.max(0, 250 - (Date.now() - at)));
        }
      }),
    );
    const sampler = (async () => {
      while (sampling) {
        const at = Date.now();
        try {
          const row = (await knex!('recharges')
            .whereIn('status', OPEN)
            .first(
              knex!.raw('COUNT(*) as n'),
              knex!.raw("COALESCE(SUM(CASE WHEN status = 'pending' AND payment_state = 'none' THEN 1 ELSE 0 END), 0) as unclaimed"),
            )) as {
            n: number | string;
            unclaimed: number | string;
          };
          samples.push({ at, open: Number(row.n), unclaimed: Number(row.unclaimed), rss: pids.map(rssMb), accept: await Promise.all(ports.map(acceptQueue)) });
        } catch (err) {
          console.error(`  sample failed: ${(err as Error).message}`);
        }
        standInPeakMb = Math.max(standInPeakMb, rssMb(standIns.child.pid) || 0);
        const pools = agents.filter((a) => !probeAgents.includes(a)).flatMap((a) => Object.values(a.stats) as { connected: number; queued: number }[]);
        generator.sockets = Math.max(
          generator.sockets,
          pools.reduce((sum, p) => sum + p.connected, 0),
        );
        generator.queued = Math.max(
          generator.queued,
          pools.reduce((sum, p) => sum + p.queued, 0),
        );
        await sleep(Math.max(0, 1000 - (Date.now() - at)));
      }
    })();

    const buy = (i: number, scheduled: number) => {
      const server = i % servers.length;
      const tap = Date.now();
      const p: Purchase = { i, scheduled, tap, server, status: 0, answeredMs: NaN, reference: null };
      purchases.push(p);
      answers.push(
        request(`${servers[server].url}/api/v1/client/recharge`, {
          method: 'POST',
          dispatcher: agents[server],
          headers: shop,
          body: JSON.stringify({
            bundle_id: bundleId,
            payment_method_id: methods.data[0].id,
            phone: plainNumber(prefix, i),
            payer_phone: plainNumber(prefix, i + 7),
            idempotency_key: `fulfil-${database}-${process.pid}-${i}`,
          }),
        }).then(
          async (res) => {
            p.status = res.statusCode;
            p.answeredMs = Date.now() - tap;
            const text = await res.body.text();
            try {
              const body = JSON.parse(text) as { data?: { reference?: string } };
              p.reference = body.data?.reference ?? null;
            } catch {
              /* not JSON */
            }
            if (p.status !== 201) p.error = text.slice(0, 300);
          },
          (err: Error) => {
            p.answeredMs = Date.now() - tap;
            p.error = err.message;
          },
        ),
      );
    };

    // Open loop: arrival i is due at t0 + i/RATE whatever the server does; every due one is sent at once.
    console.error(`  ${label}: ${total} purchases at ${RATE}/s over ${SECONDS} s`);
    const t0 = Date.now() + 200;
    let next = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = Date.now();
        while (next < total && t0 + (next * 1000) / RATE <= now) {
          buy(next, t0 + (next * 1000) / RATE);
          next++;
        }
        if (next >= total) return resolve();
        setTimeout(tick, Math.max(0, t0 + (next * 1000) / RATE - Date.now()));
      };
      tick();
    });
    const lastArrival = Date.now();
    // In flight at the last arrival: the sales open then, and (counted afterwards) the purchases not yet answered.
    const openRow = await knex('recharges').whereIn('status', OPEN).count({ n: '*' }).first();
    const openAtEnd = Number((openRow as { n: number | string }).n);
    await Promise.all(answers);
    console.error(`  arrivals over; ${openAtEnd} sales open at the last arrival; waiting for them to settle`);

    // Until nothing is pending or processing (the sampler keeps the figures), with a ceiling.
    let settledAt: number | null = null;
    let lastOpen = openAtEnd;
    while (Date.now() - lastArrival < SETTLE_CEILING_MS) {
      const row = await knex('recharges').whereIn('status', OPEN).count({ n: '*' }).first();
      lastOpen = Number((row as { n: number | string }).n);
      if (lastOpen === 0) {
        settledAt = Date.now();
        break;
      }
      await sleep(1000);
    }
    sampling = false;
    await Promise.all([sampler, prober]);
    const cpuUsed = pids.map((pid, n) => cpuSeconds(pid) - cpuBefore[n]);
    const standInCpu = cpuSeconds(standIns.child.pid) - standInCpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const databaseCpu = databasePid ? cpuSeconds(databasePid) - databaseCpuBefore : 0;
    const machine = machineCpuSeconds();
    const machineBusy = machine.busy - machineBefore.busy;
    const machineTotal = machine.total - machineBefore.total;

    // The servers stop before the books are read: nothing moves any more.
    await Promise.all(servers.map((s) => stop(s.child, s.exited)));
    const waafi = (await (await fetch(`${standIns.waafipay}/_standin/books`)).json()) as WaafiBooks;
    const reloadly = (await (await fetch(`${standIns.reloadly}/_standin/books`)).json()) as ReloadlyBooks;
    await stop(standIns.child, standIns.exited);

    return await report({
      database,
      label,
      knex,
      purchases,
      samples,
      probes,
      waafi,
      reloadly,
      lastArrival,
      openAtEnd,
      settledAt,
      lastOpen,
      t0,
      pids,
      cpuUsed,
      standInCpu,
      standInPeakMb,
      benchCpuSeconds: (benchCpu.user + benchCpu.system) / 1e6,
      generator: { ...generator, connections },
      databaseCpu,
      machineBusy,
      machineTotal,
      logs: servers.map((s) => serverLog(s.logFile)),
    });
  } finally {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    for (const s of servers) await stop(s.child, s.exited);
    await stop(standIns.child, standIns.exited);
    await knex?.destroy();
    await cleanup();
    // BENCH_FULFIL_LOGS=<dir> keeps the servers' output (with BENCH_SERVER_NODE_ARGS=--trace-gc, say).
    if (process.env.BENCH_FULFIL_LOGS) fs.cpSync(logDir, path.join(process.env.BENCH_FULFIL_LOGS, database), { recursive: true });
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

interface SaleRow {
  id: number;
  reference: string;
  status: string;
  review_reason: string | null;
  payment_state: string;
  delivery_state: string;
  amount: number | string;
  /** When the purchase built the sale's row (after pricing it, before writing it). */
  created_at: string | Date;
}

async function report(r: {
  database: string;
  label: string;
  knex: Knex;
  purchases: Purchase[];
  samples: Sample[];
  probes: Probe[];
  waafi: WaafiBooks;
  reloadly: ReloadlyBooks;
  lastArrival: number;
  openAtEnd: number;
  settledAt: number | null;
  lastOpen: number;
  t0: number;
  pids: (number | undefined)[];
  cpuUsed: number[];
  standInCpu: number;
  standInPeakMb: number;
  benchCpuSeconds: number;
  databaseCpu: number;
  generator: { sockets: number; queued: number; connections: number };
  machineBusy: number;
  machineTotal: number;
  logs: ReturnType<typeof serverLog>[];
}): Promise<Run> {
  const { knex, purchases } = r;
  const out = (line = '') => console.log(line);
  const sales: SaleRow[] = await knex('recharges').select(
    'id',
    'reference',
    'status',
    'review_reason',
    'payment_state',
    'delivery_state',
    'amount',
    'created_at',
  );
  const saleByRef = new Map(sales.map((s) => [s.reference, s]));
  const waafiByRef = new Map<string, WaafiBookEntry>(r.waafi.entries.map((e) => [e.referenceId, e]));
  const reloadlyByRef = new Map<string, ReloadlyBookEntry>(r.reloadly.entries.map((e) => [e.customIdentifier, e]));
  const tapByRef = new Map<string, Purchase>();
  for (const p of purchases) if (p.reference) tapByRef.set(p.reference, p);

  // The purchases themselves.
  const created = purchases.filter((p) => p.status === 201);
  const refused = purchases.filter((p) => p.status !== 201);
  const byStatus = new Map<string, number>();
  for (const p of refused)
    byStatus.set(p.status ? String(p.status) : `error ${p.error}`, (byStatus.get(p.status ? String(p.status) : `error ${p.error}`) ?? 0) + 1);
  const answerTimes = purchases.filter((p) => Number.isFinite(p.answeredMs)).map((p) => p.answeredMs);
  const lag = purchases.map((p) => p.tap - p.scheduled);
  const sentRate = purchases.length / Math.max(0.001, (r.lastArrival - r.t0) / 1000);

  // Tap to PIN prompt: the gateway's requestedAt (for a charge it never processed: when the request arrived).
  const prompt: number[] = [];
  for (const p of created) {
    const w = waafiByRef.get(p.reference!);
    if (w) prompt.push(w.requestedAt - p.tap);
  }
  const createdAt = (p: Purchase) => {
    const at = p.reference ? saleByRef.get(p.reference)?.created_at : undefined;
    return at ? new Date(fromDbTime(at)!).getTime() : null;
  };
  const promptAt = (p: Purchase) => (p.reference ? (waafiByRef.get(p.reference)?.requestedAt ?? null) : null);
  const noPrompt = created.filter((p) => !waafiByRef.has(p.reference!)).length;
  // From the purchase's answer (the sale is written) to its prompt: the wait for a worker's claim and its first step.
  const claimWait: number[] = [];
  for (const p of created) {
    const w = waafiByRef.get(p.reference!);
    if (w) claimWait.push(w.requestedAt - (p.tap + p.answeredMs));
  }

  // The time the product adds: tap to delivered, less the payer's and the operator's own time.
  const added: number[] = [];
  const addedRefs: string[] = [];
  const remote: number[] = [];
  const tapToDelivered: number[] = [];
  const deliveredToCommitted: number[] = [];
  const saleTime: number[] = [];
  for (const s of sales) {
    const p = tapByRef.get(s.reference);
    const w = waafiByRef.get(s.reference);
    const d = reloadlyByRef.get(s.reference);
    if (!p) continue;
    // A sale's time with the vendors: until the gateway settled it (or, without a settlement, its last known act).
    const end = Math.max(w?.settledAt ?? 0, w?.answeredAt ?? 0, d?.endedAt ?? 0, w?.requestedAt ?? 0);
    if (end) saleTime.push(end - p.tap);
    if (s.status !== 'completed' || !w?.answeredAt || !d?.deliveredAt) continue;
    const remoteMs = w.answeredAt - w.requestedAt + (d.deliveredAt - d.requestedAt);
    remote.push(remoteMs);
    tapToDelivered.push(d.deliveredAt - p.tap);
    added.push(d.deliveredAt - p.tap - remoteMs);
    addedRefs.push(s.reference);
    if (w.settledAt) deliveredToCommitted.push(w.settledAt - d.deliveredAt);
  }

  // The backlog: sales in flight over time, beside what the payers' and the operators' own times
  // explain (a sale is explained while tap <= t < tap + its vendors' time: PIN + delivery; for a charge
  // the gateway never had, the payment timeout the product waits by design; else its last vendor act).
  const absent = new Set(sales.filter((s) => waafiByRef.get(s.reference)?.state === 'NotProcessed').map((s) => s.reference));
  const explained: { tap: number; until: number }[] = [];
  for (const s of sales) {
    const p = tapByRef.get(s.reference);
    const w = waafiByRef.get(s.reference);
    const d = reloadlyByRef.get(s.reference);
    if (!p) continue;
    let own: number;
    if (w?.answeredAt && d?.deliveredAt) own = w.answeredAt - w.requestedAt + (d.deliveredAt - d.requestedAt);
    else if (absent.has(s.reference)) own = PAYMENT_TIMEOUT_MS;
    else own = Math.max(w?.answeredAt ?? 0, d?.endedAt ?? 0, p.tap) - p.tap;
    explained.push({ tap: p.tap, until: p.tap + own });
  }
  const unanswered = (t: number) => purchases.filter((p) => p.tap <= t && !(p.tap + p.answeredMs <= t)).length;
  const explainedAt = (t: number) => explained.filter((e) => e.tap <= t && e.until > t).length;
  const peakOpen = Math.max(0, ...r.samples.map((s) => s.open));
  const meanSale = mean(saleTime);
  const arrivalSeconds = (r.lastArrival - r.t0) / 1000;
  const inFlightAtEnd = r.openAtEnd + unanswered(r.lastArrival);
  const explainedAtEnd = explainedAt(r.lastArrival);
  // Little's law: sales held beyond the vendors' time = arrivals a second x the time the product adds.
  const excessAtEnd = inFlightAtEnd - explainedAtEnd;
  const excessBound = (RATE * GOALS.addedP99Ms) / 1000;
  const settleMs = r.settledAt === null ? NaN : r.settledAt - r.lastArrival;
  // Sales whose charge the gateway never had wait out PAYMENT_TIMEOUT_MS by design: the others' last vendor act.
  const lastOrdinaryEnd = Math.max(
    0,
    ...sales
      .filter((s) => !absent.has(s.reference))
      .map((s) => {
        const w = waafiByRef.get(s.reference);
        const d = reloadlyByRef.get(s.reference);
        return Math.max(w?.settledAt ?? 0, w?.answeredAt ?? 0, d?.endedAt ?? 0);
      }),
  );
  const ordinarySettleMs = lastOrdinaryEnd ? lastOrdinaryEnd - r.lastArrival : NaN;
  const noBacklog =
    r.settledAt !== null &&
    Number.isFinite(ordinarySettleMs) &&
    ordinarySettleMs <= SETTLE_BOUND_MS &&
    settleMs <= Math.max(SETTLE_BOUND_MS, absent.size ? ABSENT_BOUND_MS : 0) &&
    excessAtEnd <= excessBound;

  // Memory.
  const peakRss = r.pids.map((_, n) => Math.max(0, ...r.samples.map((s) => s.rss[n]).filter(Number.isFinite)));
  const firstRss = r.pids.map((_, n) => r.samples.find((s) => Number.isFinite(s.rss[n]))?.rss[n] ?? NaN);
  const lastRss = r.pids.map((_, n) => [...r.samples].reverse().find((s) => Number.isFinite(s.rss[n]))?.rss[n] ?? NaN);

  // Lookups per sale that met an unknown outcome (the trail).
  const trail: { recharge_id: number; unknowns: number | string; lookups: number | string; calls: number | string }[] = await knex('remote_calls')
    .whereNotNull('recharge_id')
    .groupBy('recharge_id')
    .select(
      'recharge_id',
      knex.raw("SUM(CASE WHEN outcome = 'unknown' THEN 1 ELSE 0 END) as unknowns"),
      knex.raw(`SUM(CASE WHEN operation IN (${LOOKUPS.map(() => '?').join(', ')}) THEN 1 ELSE 0 END) as lookups`, LOOKUPS),
      knex.raw('COUNT(*) as calls'),
    );
  const unsure = trail.filter((t) => Number(t.unknowns) > 0);
  const lookupsPerUnsure = unsure.map((t) => Number(t.lookups));
  const callsPerSale = mean(trail.map((t) => Number(t.calls)));
  const saleById = new Map(sales.map((s) => [Number(s.id), s]));
  const faultOf = (ref: string) => {
    const w = waafiByRef.get(ref);
    const d = reloadlyByRef.get(ref);
    return [w?.fault ? `charge ${w.fault}` : '', d?.fault ? `top-up ${d.fault}` : ''].filter(Boolean).join(' + ') || 'no field fault';
  };
  const byFault = new Map<string, number[]>();
  for (const t of unsure) {
    const s = saleById.get(Number(t.recharge_id));
    const key = s ? faultOf(s.reference) : 'unknown sale';
    byFault.set(key, [...(byFault.get(key) ?? []), Number(t.lookups)]);
  }

  // The ledger and both vendors' books, against each other.
  const mismatches: string[] = [];
  const note = (m: string) => mismatches.length < 200 && mismatches.push(m);
  const statusCount = new Map<string, number>();
  for (const s of sales) statusCount.set(s.status, (statusCount.get(s.status) ?? 0) + 1);
  const review = sales.filter((s) => s.status === 'needs_review');
  for (const s of sales) {
    const w = waafiByRef.get(s.reference);
    const d = reloadlyByRef.get(s.reference);
    if (!SETTLED.includes(s.status)) {
      if (s.status !== 'needs_review') note(`${s.reference}: ${s.status} (not settled)`);
      continue;
    }
    const committed = w?.state === 'Committed';
    const delivered = d?.status === 'SUCCESSFUL';
    if (s.status === 'completed') {
      if (!committed) note(`${s.reference}: completed, but the gateway says ${w?.state ?? 'nothing'}`);
      if (!delivered) note(`${s.reference}: completed, but the aggregator says ${d?.status ?? 'nothing'}`);
      // The sale's amount is in cents, the gateway's in units with two decimals.
      if (w?.amount && Math.round(Number(w.amount) * 100) !== Number(s.amount)) note(`${s.reference}: ${s.amount} cents sold, ${w.amount} charged`);
    } else {
      if (committed) note(`${s.reference}: ${s.status}, but the gateway committed the payment`);
      if (w?.state === 'Approved') note(`${s.reference}: ${s.status}, but the gateway still holds the reserve (Approved)`);
      if (w?.state === 'Pending') note(`${s.reference}: ${s.status}, but the gateway still waits for the payer (Pending)`);
      if (delivered) note(`${s.reference}: ${s.status}, but the aggregator delivered`);
    }
  }
  for (const ref of new Set([...waafiByRef.keys(), ...reloadlyByRef.keys()])) if (!saleByRef.has(ref)) note(`${ref}: in the vendors' books, not a sale`);
  for (const p of created) if (!saleByRef.has(p.reference!)) note(`${p.reference}: answered 201, no sale`);
  if (sales.length !== created.length) note(`${sales.length} sales for ${created.length} purchases answered 201`);
  // Each wallet equals its ledger; each sale has one debit, and its refund exactly when it did not
  // complete (a "Cost + Profit" dealer's debit comes back whether the sale is `failed`, nothing taken
  // from the customer, or `refunded`, the customer's money returned: docs/decisions.md, "Status words").
  const wallets: { id: number; balance: number | string }[] = await knex('wallets').select('id', 'balance');
  for (const w of wallets) {
    const row = await knex('wallet_transactions')
      .where({ wallet_id: w.id })
      .first(knex.raw("COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0) as total"));
    const total = Number((row as { total: number | string }).total);
    if (Math.abs(total - Number(w.balance)) > 1e-6 || Number(w.balance) < 0) note(`wallet ${w.id}: balance ${w.balance}, ledger ${total}`);
  }
  const moves: { recharge_id: number; kind: string; n: number | string }[] = await knex('wallet_transactions')
    .whereNotNull('recharge_id')
    .groupBy('recharge_id', 'kind')
    .select('recharge_id', 'kind', knex.raw('COUNT(*) as n'));
  const moveCount = new Map(moves.map((m) => [`${m.recharge_id}:${m.kind}`, Number(m.n)]));
  for (const s of sales) {
    const debits = moveCount.get(`${s.id}:recharge_debit`) ?? 0;
    const refunds = moveCount.get(`${s.id}:recharge_refund`) ?? 0;
    if (debits !== 1) note(`${s.reference}: ${debits} debits`);
    if (refunds !== (s.status === 'completed' ? 0 : 1)) note(`${s.reference}: ${s.status} with ${refunds} refunds`);
  }
  const exact = mismatches.length === 0 && review.length === 0 && r.settledAt !== null;

  const otherCpu = r.machineBusy - r.cpuUsed.reduce((a, b) => a + b, 0) - r.standInCpu - r.benchCpuSeconds - r.databaseCpu;
  if (process.env.BENCH_FULFIL_LOGS) {
    const dir = path.join(process.env.BENCH_FULFIL_LOGS, r.database);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'purchases.jsonl'), purchases.map((p) => JSON.stringify({ ...p, prompt: promptAt(p), created: createdAt(p) })).join('\n'));
    fs.writeFileSync(path.join(dir, 'samples.jsonl'), r.samples.map((x) => JSON.stringify(x)).join('\n'));
  }

  // Print.
  const faults = (entries: { fault: string | null }[]) =>
    `${entries.filter((e) => e.fault === 'lost').length} lost answers, ${entries.filter((e) => e.fault === 'unavailable').length} 503s`;
  out(`\n### Fulfilment at field times, ${r.label}\n`);
  out(
    `Open loop: ${purchases.length} purchases at ${RATE}/s for ${SECONDS} s (sent at ${sentRate.toFixed(1)}/s; generator lag p99 ${ms(percentile(lag, 99))}, max ${ms(Math.max(...lag))}; sockets to the servers at most ${r.generator.sockets} of ${r.generator.connections * r.pids.length}, purchases queued in the generator at most ${r.generator.queued}); ` +
      `stand-ins: PIN ${FIELD.PAYMENT_SANDBOX_APPROVAL_MS} ms, delivery ${FIELD.OPERATOR_SANDBOX_LATENCY_MS} ms, ${FIELD.STAND_IN_LOST_ANSWER_RATE} lost, ${FIELD.STAND_IN_UNAVAILABLE_RATE} 503 ` +
      `(gateway: ${faults(r.waafi.entries)}; aggregator: ${faults(r.reloadly.entries)}).\n`,
  );
  out('| measure | value |');
  out('|---|---|');
  out(
    `| purchases answered 201 | ${created.length} of ${purchases.length} (answer p50 ${ms(percentile(answerTimes, 50))}, p99 ${ms(percentile(answerTimes, 99))}, max ${ms(Math.max(...answerTimes))}) |`,
  );
  if (refused.length) out(`| purchases not answered 201 | ${[...byStatus].map(([k, v]) => `${k}: ${v}`).join(', ')} |`);
  out(
    `| tap to PIN prompt | p50 ${ms(percentile(prompt, 50))}, p99 ${ms(percentile(prompt, 99))}, max ${ms(Math.max(...prompt))} (${prompt.length} sales; ${noPrompt} never reached the gateway) |`,
  );
  out(
    `| purchase answered to PIN prompt (the worker's claim and first step) | p50 ${ms(percentile(claimWait, 50))}, p99 ${ms(percentile(claimWait, 99))}, max ${ms(Math.max(...claimWait))} |`,
  );
  out(
    `| tap to delivered | p50 ${sec(percentile(tapToDelivered, 50))}, p99 ${sec(percentile(tapToDelivered, 99))} (${tapToDelivered.length} completed sales) |`,
  );
  out(`| of which the vendors' own time (PIN + delivery) | p50 ${sec(percentile(remote, 50))}, p99 ${sec(percentile(remote, 99))} |`);
  out(
    `| time the product adds (tap to delivered - vendors' time) | p50 ${ms(percentile(added, 50))}, p99 ${ms(percentile(added, 99))}, max ${ms(Math.max(...added))} |`,
  );
  out(`| delivered to payment committed | p50 ${ms(percentile(deliveredToCommitted, 50))}, p99 ${ms(percentile(deliveredToCommitted, 99))} |`);
  out(`| sales in flight (pending or processing), peak | ${peakOpen} (sampled every second) |`);
  out(
    `| sales in flight at the last arrival | ${inFlightAtEnd} (${r.openAtEnd} open, ${inFlightAtEnd - r.openAtEnd} purchases not yet answered); the vendors' own times explain ${explainedAtEnd}: ${excessAtEnd} more (bound: ${excessBound}, 2 s of arrivals) |`,
  );
  out(`| mean sale time, tap to its last vendor act | ${sec(meanSale)} (arrivals lasted ${arrivalSeconds.toFixed(1)} s) |`);
  out(
    `| last arrival to every sale settled | ${r.settledAt === null ? `not within ${SETTLE_CEILING_MS / 1000} s: ${r.lastOpen} still open` : sec(settleMs)} (bound ${sec(Math.max(SETTLE_BOUND_MS, absent.size ? ABSENT_BOUND_MS : 0))}) |`,
  );
  out(
    `| last arrival to the last vendor act of a sale whose charge reached the gateway | ${sec(ordinarySettleMs)} (bound: longest PIN + delivery + ${MARGIN_MS / 1000} s = ${sec(SETTLE_BOUND_MS)}) |`,
  );
  out(`| sales whose charge never reached the gateway (wait out PAYMENT_TIMEOUT_MS, then fail) | ${absent.size} |`);
  out(
    `| event loop: a 404 without database every 250 ms, p99 / longest | ${r.pids
      .map((_, n) => {
        const times = r.probes.filter((x) => x.server === n).map((x) => x.ms);
        return `#${n + 1} ${ms(percentile(times, 99))} / ${ms(Math.max(0, ...times))}`;
      })
      .join('; ')} |`,
  );
  out(
    `| server memory (VmRSS) per process: start of arrivals / peak / end | ${r.pids.map((_, n) => `#${n + 1} ${Math.round(firstRss[n])} / ${Math.round(peakRss[n])} / ${Math.round(lastRss[n])} MB`).join('; ')} |`,
  );
  out(`| stand-ins process memory, peak | ${Math.round(r.standInPeakMb)} MB |`);
  out(
    `| CPU used, arrivals to settled | ${r.cpuUsed.map((c, n) => `server #${n + 1} ${c.toFixed(1)} s`).join(', ')}, stand-ins ${r.standInCpu.toFixed(1)} s, generator ${r.benchCpuSeconds.toFixed(1)} s${r.databaseCpu ? `, MariaDB ${r.databaseCpu.toFixed(1)} s` : ''}; the machine ${r.machineBusy.toFixed(1)} s busy of ${r.machineTotal.toFixed(1)} s (${os.cpus().length} cores), of which other processes ${otherCpu.toFixed(1)} s |`,
  );
  out(
    `| lookups per sale that met an unknown outcome | mean ${mean(lookupsPerUnsure).toFixed(2)}, max ${Math.max(0, ...lookupsPerUnsure)} (${unsure.length} such sales; ${[
      ...byFault,
    ]
      .map(([k, v]) => `${k}: ${v.length} sales, mean ${mean(v).toFixed(1)}`)
      .join('; ')}) |`,
  );
  out(`| remote calls per sale | mean ${callsPerSale.toFixed(2)} |`);
  // The receipts each settled sale wrote (sms/): sent to Africa's Talking's stand-in, outside the server.
  const receipts: { status: string; n: number | string }[] = await knex('sms_messages').groupBy('status').select('status', knex.raw('COUNT(*) as n'));
  out(`| SMS receipts by status when the last sale settled | ${receipts.map((x) => `${x.status} ${Number(x.n)}`).join(', ') || 'none'} |`);
  out(`| sales by status | ${[...statusCount].map(([k, v]) => `${k} ${v}`).join(', ')} |`);
  out(`| ledger and books | ${exact ? 'exact' : `${mismatches.length} mismatches, ${review.length} in review`} |`);
  // Where the time went, every 5 s from the first arrival: the purchases tapped then, and the samples taken then.
  out(
    "\n| from first arrival | purchases | answer p50 / p99 | prompt p99 | added p50 / p99 | in flight (beyond vendors' times) | unclaimed | longest 404 (event loop) | listen queue | server RSS (MB) |",
  );
  out('|---|---|---|---|---|---|---|---|---|---|');
  const addedByRef = new Map(addedRefs.map((ref, n) => [ref, added[n]]));
  const promptOf = (p: Purchase) => (p.reference && waafiByRef.has(p.reference) ? waafiByRef.get(p.reference)!.requestedAt - p.tap : NaN);
  const lastSample = r.samples.length ? r.samples[r.samples.length - 1].at : r.t0;
  for (let from = 0; r.t0 + from <= lastSample; from += 5000) {
    const tapped = purchases.filter((p) => p.tap - r.t0 >= from && p.tap - r.t0 < from + 5000);
    const sampled = r.samples.filter((x) => x.at - r.t0 >= from && x.at - r.t0 < from + 5000);
    const answered = tapped.map((p) => p.answeredMs).filter(Number.isFinite);
    const prompts = tapped.map(promptOf).filter(Number.isFinite);
    const adds = tapped.map((p) => (p.reference ? (addedByRef.get(p.reference) ?? NaN) : NaN)).filter(Number.isFinite);
    const last = sampled[sampled.length - 1];
    const inFlight = last ? last.open + unanswered(last.at) : NaN;
    out(
      `| ${from / 1000}-${from / 1000 + 5} s | ${tapped.length || ''} | ${answered.length ? `${ms(percentile(answered, 50))} / ${ms(percentile(answered, 99))}` : ''} | ${prompts.length ? ms(percentile(prompts, 99)) : ''} | ${adds.length ? `${ms(percentile(adds, 50))} / ${ms(percentile(adds, 99))}` : ''} | ${last ? `${inFlight} (${inFlight - explainedAt(last.at)})` : ''} | ${sampled.length ? Math.max(...sampled.map((x) => x.unclaimed)) : ''} | ${r.pids.map((_, n) => ms(Math.max(0, ...r.probes.filter((x) => x.server === n && x.at - r.t0 >= from && x.at - r.t0 < from + 5000).map((x) => x.ms)))).join(' / ')} | ${r.pids.map((_, n) => Math.max(0, ...sampled.map((x) => x.accept[n]).filter(Number.isFinite))).join(' / ')} | ${r.pids.map((_, n) => Math.round(Math.max(0, ...sampled.map((x) => x.rss[n]).filter(Number.isFinite)))).join(' / ')} |`,
    );
  }
  out();
  for (const s of review.slice(0, 20)) out(`  needs_review ${s.reference}: ${s.review_reason}`);
  for (const m of mismatches.slice(0, 20)) out(`  mismatch ${m}`);
  for (const p of refused.slice(0, 5)) out(`  not 201 (#${p.i}, ${p.status || 'no answer'}): ${p.error}`);
  r.logs.forEach((log, n) => {
    if (!log.lines) return out(`  server #${n + 1}: no warnings or errors logged`);
    out(`  server #${n + 1}: ${log.lines} log lines at warn or above: ${[...log.byMessage].map(([k, v]) => `"${k}" x${v}`).join(', ')}`);
    for (const s of log.samples) out(`    ${s}`);
  });

  const where = `${r.label}, ${RATE}/s for ${SECONDS} s`;
  const conditions = 'PIN 5-40 s, delivery 1-5 s, 2% lost, 1% 503';
  const figures: BenchFigure[] = [
    {
      measure: `fulfilment: purchases answered 201, ${where}`,
      value: `${created.length} of ${purchases.length} (p99 ${ms(percentile(answerTimes, 99))})`,
      reference: `open loop, sent at ${sentRate.toFixed(0)}/s (queued in the generator at most ${r.generator.queued})`,
      goal: 'all 201',
      met: refused.length === 0,
    },
    {
      measure: `fulfilment: tap to PIN prompt, ${where}`,
      value: `p50 ${ms(percentile(prompt, 50))}, p99 ${ms(percentile(prompt, 99))}`,
      reference: `stand-ins' requestedAt; ${conditions}`,
      goal: 'p99 <= 1 s',
      met: percentile(prompt, 99) <= GOALS.promptP99Ms,
    },
    {
      measure: `fulfilment: time the product adds, ${where}`,
      value: `p50 ${ms(percentile(added, 50))}, p99 ${ms(percentile(added, 99))}`,
      reference: `tap to delivered p50 ${sec(percentile(tapToDelivered, 50))}, vendors' time p50 ${sec(percentile(remote, 50))}`,
      goal: 'p99 <= 2 s',
      met: percentile(added, 99) <= GOALS.addedP99Ms,
    },
    {
      measure: `fulfilment: backlog, ${where}`,
      value: `peak ${peakOpen} in flight; ${inFlightAtEnd} at the last arrival, ${excessAtEnd} beyond the vendors' own times; settled ${r.settledAt === null ? `not within ${SETTLE_CEILING_MS / 1000} s` : sec(settleMs)} after it (sales the gateway answered: ${sec(ordinarySettleMs)})`,
      reference: `PIN + delivery <= 45 s; ${absent.size} charges the gateway never had wait out the 90 s payment timeout`,
      goal: `no growing backlog (<= ${excessBound} beyond the vendors' times; settled within ${sec(SETTLE_BOUND_MS)}, ${sec(ABSENT_BOUND_MS)} for an absent charge)`,
      met: noBacklog,
    },
    {
      measure: `fulfilment: server memory, peak per process, ${where}`,
      value: peakRss.map((m) => `${Math.round(m)} MB`).join(', '),
      reference: `at start of arrivals ${firstRss.map((m) => `${Math.round(m)} MB`).join(', ')}`,
      goal: '<= 1 GB per process',
      met: peakRss.every((m) => m <= GOALS.memoryMb),
    },
    {
      measure: `fulfilment: lookups per sale with an unknown outcome, ${where}`,
      value: `mean ${mean(lookupsPerUnsure).toFixed(2)}, max ${Math.max(0, ...lookupsPerUnsure)} (${unsure.length} sales)`,
      reference: 'HPP_GETTRANINFO + Reloadly report and status, from remote_calls',
      goal: '',
      met: null,
    },
    {
      measure: `fulfilment: ledger and vendors' books, ${where}`,
      value: exact
        ? `exact (${sales.length} sales: ${[...statusCount].map(([k, v]) => `${v} ${k}`).join(', ')})`
        : `${mismatches.length} mismatches, ${review.length} in review, ${r.settledAt === null ? `${r.lastOpen} open` : 'all settled'}`,
      reference: 'completed <=> Committed + one SUCCESSFUL top-up; wallet = ledger',
      goal: 'exact',
      met: exact,
    },
  ];
  return { database: r.database, figures };
}

const runs: Run[] = [];
for (const database of databases) {
  try {
    runs.push(await bench(database));
  } catch (err) {
    console.error(`  ${database}: the run failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  }
}
console.log(`\nNode ${process.version}, ${os.cpus().length} cores; figures:\n`);
for (const run of runs)
  for (const f of run.figures) {
    recordFigure(f);
    console.log(
      `${f.met === null ? '       ' : f.met ? 'met    ' : 'NOT MET'} ${f.measure}: ${f.value} (beside ${f.reference}${f.goal ? `; goal ${f.goal}` : ''})`,
    );
  }
