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
 * How long the API waits on the database before it answers 503 (docs/decisions.md, "Operations":
 * a sick database is a 503). Read from the environment, checked at start: a typo fails the start, it
 * never silently means "wait for ever".
 */
export interface DatabaseTimeouts {
  /** InnoDB's wait for a row lock (innodb_lock_wait_timeout): whole seconds. */
  lockWaitSeconds: number;
  /**
   * The longest one statement may run: MariaDB's max_statement_time (every statement), MySQL's
   * max_execution_time (SELECTs); the client gives up on a statement with no answer one second later.
   */
  statementSeconds: number;
  /** Waiting for a pooled connection, and for a new one to be made (connect, session settings). */
  acquireSeconds: number;
  /** GET /health's own ceiling, connection included. */
  healthSeconds: number;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, opts: { whole?: boolean; max?: number } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  const max = opts.max ?? 3600;
  if (!Number.isFinite(value) || value <= 0 || value > max || (opts.whole && !Number.isInteger(value))) {
    throw new Error(`${name} must be ${opts.whole ? 'a whole number of' : 'a number of'} seconds above 0 and at most ${max} (got "${raw}")`);
  }
  return value;
}

export function databaseTimeouts(env: NodeJS.ProcessEnv = process.env): DatabaseTimeouts {
  return {
    lockWaitSeconds: seconds(env, 'DB_LOCK_WAIT_TIMEOUT_SECONDS', 3, { whole: true }),
    statementSeconds: seconds(env, 'DB_STATEMENT_TIMEOUT_SECONDS', 4),
    acquireSeconds: seconds(env, 'DB_ACQUIRE_TIMEOUT_SECONDS', 5),
    healthSeconds: seconds(env, 'DB_HEALTH_TIMEOUT_SECONDS', 2, { max: 60 }),
  };
}

/** How many compiled statements one SQLite connection keeps (the API issues a few hundred distinct ones). */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * knex's better-sqlite3 client compiles every query again (`prepare`), which was about a tenth of a
 * purchase's time. The connection keeps its compiled statements by SQL text instead; SQLite
 * recompiles a kept statement by itself after a schema change. Safe because knex runs each
 * statement to completion at once (`all` or `run`, never a lazy iterator).
 */
function cachePreparedStatements(conn: { prepare: (sql: string) => unknown }): void {
  const prepare = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement) return statement;
    statement = prepare(sql);
    if (kept.size >= STATEMENT_CACHE_SIZE) kept.delete(kept.keys().next().value!);
    kept.set(sql, statement);
    return statement;
  };
}

/** The per-session limits of an API connection on MySQL/MariaDB (each engine ignores the other's). */
function sessionLimits(conn: any, t: DatabaseTimeouts, done: (err: Error | null) => void): void {
  conn.query(`SET SESSION innodb_lock_wait_timeout = ${t.lockWaitSeconds}`, (err: Error | null) => {
    if (err) return done(err);
    // MariaDB: every statement, and a session left idle inside a transaction (a client that
    // vanished mid-transaction) is ended by the server, which rolls it back and frees its locks.
    const idleInTransaction = Math.max(30, Math.ceil(t.statementSeconds * 3));
    conn.query(
      `SET SESSION max_statement_time = ${t.statementSeconds}, idle_transaction_timeout = ${idleInTransaction}`,
      (mariaErr: { errno?: number } | null) => {
        // 1193 unknown system variable: MySQL, whose ceiling covers SELECTs only (the client's own
        // timer covers the rest).
        if (!mariaErr) return done(null);
        if (mariaErr.errno !== 1193) return done(mariaErr as Error);
        conn.query(`SET SESSION max_execution_time = ${Math.round(t.statementSeconds * 1000)}`, (mysqlErr: Error | null) => done(mysqlErr));
      },
    );
  });
}

/**
 * One knex config for the app, the tests and the knex CLI. DATABASE_URL unset means the
 * embedded SQLite file under DATA_DIR; mysql://user:pass@host:port/db means MySQL/MariaDB.
 * `purpose: 'maintenance'` (migrations, seeds, bulk fills: the knex CLI) keeps the server's own
 * limits, since an ALTER TABLE on a big table may rightly run for minutes; the API's connections
 * get the short lock wait and the statement ceiling of databaseTimeouts().
 */
export function knexConfig(
  env: NodeJS.ProcessEnv = process.env,
  opts: { purpose?: 'api' | 'maintenance' } = {},
): Knex.Config & { clientName: DatabaseClient; timeouts: DatabaseTimeouts } {
  const timeouts = databaseTimeouts(env);
  const api = (opts.purpose ?? 'api') === 'api';
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
      timeouts,
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
        // A database that does not answer the handshake is unavailable, not a request left hanging.
        connectTimeout: timeouts.acquireSeconds * 1000,
        // The kernel notices a peer gone silent on an idle pooled socket.
        enableKeepAlive: true,
        keepAliveInitialDelay: 10_000,
      },
      acquireConnectionTimeout: timeouts.acquireSeconds * 1000,
      pool: {
        min: 0,
        max: Number(env.DB_POOL_MAX || 10),
        createTimeoutMillis: timeouts.acquireSeconds * 1000,
        // Idle sockets are closed rather than kept for a server that may have gone in between.
        idleTimeoutMillis: 30_000,
        afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
          // The session settings get no longer than a connection does; a silent server fails them.
          let settled = false;
          const finish = (err: Error | null) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            if (err) conn.destroy();
            done(err, conn);
          };
          const timer = setTimeout(
            () => finish(Object.assign(new Error('The database did not answer the session settings'), { code: 'ETIMEDOUT' })),
            timeouts.acquireSeconds * 1000,
          );
          conn.query("SET time_zone = '+00:00'", (err: Error | null) => {
            if (err || !api) return finish(err);
            sessionLimits(conn, timeouts, finish);
          });
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
    timeouts,
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
        // Busy is retried asynchronously by the unit of work, then answered 503 (about 1 s in all).
        conn.pragma('busy_timeout = 200');
        conn.pragma('synchronous = NORMAL');
        cachePreparedStatements(conn);
        done(null, conn);
      },
    },
    migrations,
    seeds,
  };
}
