import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { PROJECT_ROOT } from '../../db/config.ts';
import { TEST_DATABASE } from './harness.ts';

/**
 * Real server processes (`node --import tsx api/src/server.ts`) on one database of their own: a
 * SQLite file in a temp dir, or (TEST_DATABASE=mysql) a new database on TEST_MYSQL_URL, dropped after.
 */
const MYSQL_URL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

export interface SharedDatabase {
  dataDir: string;
  /** '' for SQLite (the file under dataDir). */
  databaseUrl: string;
  appKey: string;
  knex: Knex;
  cleanup: () => Promise<void>;
}

export async function sharedDatabase(): Promise<SharedDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procs-'));
  const appKey = crypto.randomBytes(32).toString('hex');
  if (TEST_DATABASE !== 'mysql') {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'app.sqlite') }, useNullAsDefault: true });
    return {
      dataDir,
      databaseUrl: '',
      appKey,
      knex,
      cleanup: async () => {
        await knex.destroy();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `procs_${crypto.randomBytes(4).toString('hex')}`;
  const u = new URL(MYSQL_URL);
  const connection = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  const admin = knexFactory({ client: 'mysql2', connection });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  u.pathname = `/${name}`;
  const knex = knexFactory({ client: 'mysql2', connection: { ...connection, database: name, timezone: 'Z', dateStrings: true } });
  return {
    dataDir,
    databaseUrl: u.toString(),
    appKey,
    knex,
    cleanup: async () => {
      await knex.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

/** A server on `db` with the demo data, warnings logged, no worker unless `env` says so; resolves once /health answers. */
export async function startServer(db: SharedDatabase, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      SEED_DEMO: 'true',
      SEED_DEMO_HISTORY: 'false',
      LOG_LEVEL: 'warn',
      RECHARGE_WORKER: 'false',
      APP_KEY: db.appKey,
      PORT: String(port),
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.databaseUrl,
      ...env,
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
      if ((await fetch(`${url}/api/v1/health`)).ok) return { child, url, exited, output: () => output };
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${output}`);
}

export async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  await server.exited;
}
