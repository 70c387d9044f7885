import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = path.resolve(here, '..');

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(PROJECT_ROOT, env.DATA_DIR || 'data');
}

export type DatabaseClient = 'sqlite' | 'mysql';

/**
 * One knex config for the app, the tests and the knex CLI. DATABASE_URL unset means the
 * embedded SQLite file under DATA_DIR; mysql://user:pass@host:port/db means MySQL/MariaDB.
 */
export function knexConfig(env: NodeJS.ProcessEnv = process.env): Knex.Config & { clientName: DatabaseClient } {
  const url = env.DATABASE_URL;
  const migrations: Knex.MigratorConfig = {
    directory: path.join(here, 'migrations'),
    loadExtensions: ['.ts'],
    tableName: 'knex_migrations',
  };
  const seeds: Knex.SeederConfig = { directory: path.join(here, 'seeds'), loadExtensions: ['.ts'] };
  if (url && /^mysql2?:\/\//.test(url)) {
    const u = new URL(url);
    return {
      clientName: 'mysql',
      client: 'mysql2',
      connection: {
        host: u.hostname,
        port: Number(u.port || 3306),
        user: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        database: u.pathname.replace(/^\//, ''),
        // Dates travel as UTC strings in both directions; the model layer turns them into ISO 8601.
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        charset: 'utf8mb4',
      },
      pool: {
        min: 0,
        max: Number(env.DB_POOL_MAX || 10),
        afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
          conn.query("SET time_zone = '+00:00'", (err: Error | null) => done(err, conn));
        },
      },
      migrations,
      seeds,
    };
  }
  if (url && !/^sqlite:/.test(url)) throw new Error(`Unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
  const filename = url ? url.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir(env), 'app.sqlite');
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  return {
    clientName: 'sqlite',
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One connection: a query waiting this long for it is a bug or an overload, answered 503.
    acquireConnectionTimeout: 10_000,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('foreign_keys = ON');
        // better-sqlite3 waits synchronously: a long busy timeout would freeze the event loop.
        // Busy is retried asynchronously by the unit of work, then answered 503.
        conn.pragma('busy_timeout = 200');
        conn.pragma('synchronous = NORMAL');
        done(null, conn);
      },
    },
    migrations,
    seeds,
  };
}
