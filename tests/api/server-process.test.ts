import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../db/config.ts';

/** The real server process: graceful shutdown with keep-alive clients, and waiting for the database. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: 'test', SEED_DEMO: 'false', LOG_LEVEL: 'warn', APP_KEY: crypto.randomBytes(32).toString('hex'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the server process', () => {
  it('on SIGTERM closes idle keep-alive connections and exits 0', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'srv-'));
    const srv = start({ PORT: String(port), DATA_DIR: dir, DATABASE_URL: '' });
    const agent = new http.Agent({ keepAlive: true });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/v1/health', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    for (let i = 0; i < 100; i++) {
      try {
        if ((await get()) === 200) break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(await get()).toBe(200); // the agent now holds an idle keep-alive socket
    const stopped = Date.now();
    srv.child.kill('SIGTERM');
    expect(await srv.exited).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(5_000);
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('waits for an unreachable database, then gives up with a clear message and exit 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'srv-'));
    const srv = start({ PORT: String(await freePort()), DATA_DIR: dir, DATABASE_URL: 'mysql://root@127.0.0.1:9/nothing', DB_CONNECT_TIMEOUT_SECONDS: '2' });
    expect(await srv.exited).toBe(1);
    expect(srv.output()).toMatch(/Database not reachable yet \(attempt 1/);
    expect(srv.output()).toMatch(/did not answer within 2 s/);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);
});
