/**
 * `npm run bench`: starts the real server on a fresh SQLite file with the demo data and
 * measures, with autocannon on loopback, the health check, sign-in (argon2id bound) and a
 * paginated user list. Prints requests/s and latency percentiles; the README records them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const PORT = Number(process.env.BENCH_PORT || 3999);
const base = `http://127.0.0.1:${PORT}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));

async function waitForHealth() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('server did not start');
}

function run(title: string, opts: autocannon.Options) {
  return new Promise<void>((resolve, reject) => {
    autocannon({ duration: 10, connections: 20, ...opts }, (err, r) => {
      if (err) return reject(err);
      console.log(`${title.padEnd(34)} ${String(Math.round(r.requests.average)).padStart(6)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}`);
      resolve();
    });
  });
}

const server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
  env: { ...process.env, PORT: String(PORT), DATA_DIR: dataDir, SEED_DEMO: 'true', LOG_LEVEL: 'warn', API_RATE_LIMIT_PER_MINUTE: '100000000' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  await waitForHealth();
  const login = await fetch(`${base}/api/v1/auth/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
  });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  console.log(`Node ${process.version}, ${os.cpus().length} cores, SQLite, 20 connections, 10 s each\n`);
  await run('GET /api/v1/health', { url: `${base}/api/v1/health` });
  await run('GET /api/v1/users?per_page=15 (auth)', { url: `${base}/api/v1/users?per_page=15`, headers: { authorization: `Bearer ${token}` } });
  await run('GET /api/v1/auth/me (auth)', { url: `${base}/api/v1/auth/me`, headers: { authorization: `Bearer ${token}` } });
  await run('POST /api/v1/auth/admin/login', {
    url: `${base}/api/v1/auth/admin/login`,
    method: 'POST',
    connections: 4,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
  });
} finally {
  server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}
