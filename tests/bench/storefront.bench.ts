/**
 * `npm run bench:storefront` (also part of `npm run bench`): GET /api/v1/client/dealer/providers
 * for the demo dealer on the real server (SQLite, demo data), side by side in the same run with a
 * bare Express route that answers the same JSON bytes from memory. Prints both request rates and
 * their ratio; the target is at least 70% (README, Benchmarks). Rounds alternate between the two
 * so that machine noise hits both alike; the best round of each counts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { recordFigure } from './results.ts';

const REAL_PORT = Number(process.env.BENCH_PORT || 3998);
const BARE_PORT = REAL_PORT + 1;
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const CONNECTIONS = 20;

async function waitFor(url: string, init?: RequestInit) {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(url, init)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer`);
}

const run = (opts: autocannon.Options) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ duration: SECONDS, connections: CONNECTIONS, ...opts }, (err, r) => (err ? reject(err) : resolve(r))),
  );

const stop = async (child: ChildProcess) => {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-storefront-'));
const real = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    PORT: String(REAL_PORT),
    SEED_DEMO: 'true',
    LOG_LEVEL: 'warn',
    API_RATE_LIMIT_PER_MINUTE: '100000000',
    STOREFRONT_SESSION_LIMIT_PER_MINUTE: '100000000',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let bare: ChildProcess | undefined;
try {
  await waitFor(`http://127.0.0.1:${REAL_PORT}/api/v1/health`);
  const realUrl = `http://127.0.0.1:${REAL_PORT}/api/v1/client/dealer/providers`;
  const headers = { dealer_code: 'DEMO' };
  const answer = await fetch(realUrl, { headers });
  if (answer.status !== 200) throw new Error(`the storefront read answered ${answer.status}`);
  const bytes = Buffer.from(await answer.arrayBuffer());
  const bodyFile = path.join(dataDir, 'providers.json');
  fs.writeFileSync(bodyFile, bytes);
  bare = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(BARE_PORT), BODY_FILE: bodyFile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bareUrl = `http://127.0.0.1:${BARE_PORT}/bare`;
  await waitFor(bareUrl);

  const best = { real: 0, bare: 0 };
  const p99 = { real: 0, bare: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    const r = await run({ url: realUrl, headers });
    const b = await run({ url: bareUrl });
    if (r.non2xx || b.non2xx) throw new Error(`non-2xx answers: real ${r.non2xx}, bare ${b.non2xx}`);
    console.error(`  round ${round}: real ${Math.round(r.requests.average)} req/s, bare ${Math.round(b.requests.average)} req/s`);
    if (r.requests.average > best.real) [best.real, p99.real] = [r.requests.average, r.latency.p99];
    if (b.requests.average > best.bare) [best.bare, p99.bare] = [b.requests.average, b.latency.p99];
  }
  const ratio = best.real / best.bare;
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} cores, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, body ${bytes.length} bytes\n`,
  );
  console.log('| route | req/s (best round) | p99 |');
  console.log('|---|---|---|');
  console.log(`| GET /api/v1/client/dealer/providers (real server, SQLite, DEMO) | ${Math.round(best.real)} | ${p99.real} ms |`);
  console.log(`| GET /bare (Express 5, same bytes from memory) | ${Math.round(best.bare)} | ${p99.bare} ms |`);
  console.log(`\nratio real / bare: ${(ratio * 100).toFixed(1)}% (target at least 70%)`);
  recordFigure({
    measure: 'storefront catalogue read (cached) as a share of a bare route',
    value: `${(ratio * 100).toFixed(1)}% (${Math.round(best.real)}/s)`,
    reference: `bare Express route ${Math.round(best.bare)}/s`,
    goal: '>= 70%',
    met: ratio >= 0.7,
  });
} finally {
  if (bare) await stop(bare);
  await stop(real);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
