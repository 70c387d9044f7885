import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Sqlite from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import { dataDir, knexConfig } from '../../../db/config.ts';

/**
 * `npm run backup` and `npm run restore` (docs/deploy.md, "Backups and restore"): the configured
 * database (DATABASE_URL, else the SQLite file under DATA_DIR, as the server reads them) copied
 * while the server runs, and copied back into an empty database.
 *
 * - SQLite: SQLite's online backup API (better-sqlite3's `backup()`), all pages in one step, so the
 *   copy is one consistent moment however busy the server is (a step interrupted by a write starts
 *   again); WAL readers never block the server's writer.
 * - MySQL/MariaDB: `mysqldump --single-transaction` (one consistent InnoDB snapshot, no table lock),
 *   with the triggers that keep the report totals, blobs as hex and utf8mb4 throughout. The
 *   triggers' DEFINER clauses are dropped so the dump restores as any user allowed to create
 *   triggers (a managed MySQL's users are never the definer of the source's triggers).
 *
 * A backup is written under a temporary name and renamed once complete and checked, so a file with
 * the final name is always a whole backup. Uploaded files (DATA_DIR/storage) and APP_KEY are not in
 * the database: docs/deploy.md says how to keep them.
 */

export class OperationError extends Error {}

export interface DatabaseTarget {
  engine: 'sqlite' | 'mysql';
  /** SQLite: the database file. */
  file?: string;
  /** MySQL/MariaDB: where and as whom to connect. */
  mysql?: { host: string; port: number; user: string; password: string; database: string };
  /** A knex connection for checks (schema present, wallets against their ledgers); destroy it after. */
  connect: () => Knex;
}

/** The database the server would use with this environment. */
export function databaseTarget(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const { clientName, timeouts: _timeouts, ...config } = knexConfig(env, { purpose: 'maintenance' });
  const connect = () => knexFactory({ ...config, pool: { min: 0, max: 1 } });
  if (clientName === 'sqlite') {
    const file = path.resolve((config.connection as { filename: string }).filename);
    if (file === path.resolve(':memory:')) throw new OperationError('An in-memory database cannot be backed up or restored.');
    return { engine: 'sqlite', file, connect };
  }
  const c = config.connection as { host: string; port: number; user: string; password: string; database: string };
  if (!c.database) throw new OperationError('DATABASE_URL names no database (mysql://user:pass@host:3306/<database>).');
  return { engine: 'mysql', mysql: { host: c.host, port: c.port, user: c.user, password: c.password, database: c.database }, connect };
}

/** `DATA_DIR/backups/<engine>-<database>-2026-11-28T09-41-07Z.<sqlite|sql>`, for a backup without --to. */
export function defaultBackupFile(target: DatabaseTarget, env: NodeJS.ProcessEnv = process.env, at = new Date()): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  const name = target.engine === 'sqlite' ? `sqlite-${path.basename(target.file!, path.extname(target.file!))}` : `mysql-${target.mysql!.database}`;
  return path.join(dataDir(env), 'backups', `${name}-${stamp}.${target.engine === 'sqlite' ? 'sqlite' : 'sql'}`);
}

export interface BackupResult {
  file: string;
  bytes: number;
  seconds: number;
}

export async function backupDatabase(target: DatabaseTarget, file: string, opts: { log?: (line: string) => void } = {}): Promise<BackupResult> {
  const started = Date.now();
  const out = path.resolve(file);
  if (fs.existsSync(out)) throw new OperationError(`${out} already exists: a backup never overwrites a file (name another with --to).`);
  if (!fs.existsSync(path.dirname(out))) throw new OperationError(`The folder ${path.dirname(out)} does not exist.`);
  const partial = `${out}.partial-${process.pid}`;
  try {
    if (target.engine === 'sqlite') await backupSqlite(target.file!, partial);
    else await backupMysql(target.mysql!, partial, opts.log);
    // Password hashes, API key hashes, customers' numbers: readable by the owner alone.
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, out);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return { file: out, bytes: fs.statSync(out).size, seconds: (Date.now() - started) / 1000 };
}

async function backupSqlite(source: string, partial: string): Promise<void> {
  if (!fs.existsSync(source)) throw new OperationError(`There is no SQLite database at ${source} (DATA_DIR or DATABASE_URL).`);
  const db = new Sqlite(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    // After the first step (which only opens the copy), every remaining page in one step: a
    // step-by-step copy would start again after each of the server's writes and, on a busy
    // database, might never end.
    await db.backup(partial, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  singleFile(partial);
  checkSqliteFile(partial, 'The backup');
}

/** The copy keeps the source's WAL mode; a backup is one self-contained file, with no -wal or -shm beside it. */
function singleFile(file: string): void {
  const db = new Sqlite(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** An SQLite file whose pages are sound and that holds this application's schema. */
function checkSqliteFile(file: string, what: string): void {
  let db: Sqlite.Database;
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new OperationError(`${what} is not an SQLite database: ${(err as Error).message}`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new OperationError(`${what} failed SQLite's quick_check: ${String(check)}`);
    const schema = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'").get() as { n: number };
    if (!schema.n) throw new OperationError(`${what} holds no knex_migrations table: not a database of this application.`);
  } catch (err) {
    if (err instanceof OperationError) throw err;
    throw new OperationError(`${what} is not a readable SQLite database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * The client's connection options, the first a `--defaults-extra-file` holding the password: the
 * password never appears in the process list (nor in a logged command, which leaves the first out).
 */
function withConnectionArgs<T>(m: NonNullable<DatabaseTarget['mysql']>, run: (connection: string[]) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'databundles-mysql-'));
  const file = path.join(dir, 'client.cnf');
  fs.writeFileSync(file, `[client]\npassword="${m.password.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"\n`, { mode: 0o600 });
  return run([`--defaults-extra-file=${file}`, `--host=${m.host}`, `--port=${m.port}`, `--user=${m.user}`]).finally(() =>
    fs.rmSync(dir, { recursive: true, force: true }),
  );
}

function requireProgram(name: 'mysqldump' | 'mysql'): string {
  const found = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (found.error) {
    throw new OperationError(
      `${name} was not found on PATH: install the MySQL or MariaDB client (Debian: apt-get install mariadb-client; the server's own version or newer).`,
    );
  }
  return found.stdout;
}

/**
 * Trigger lines of a dump without their `DEFINER=...` clause. mysqldump writes each trigger's
 * header on one line starting `/*!50003 CREATE*\/`; row data never starts that way, so only those
 * lines are touched.
 */
function withoutDefiners(): Transform {
  let rest = '';
  const strip = (line: string) =>
    line.startsWith('/*!50003 CREATE*/') ? line.replace(/\/\*!50017 DEFINER=`(?:[^`]|``)*`@`(?:[^`]|``)*`\s*\*\/\s*/g, '') : line;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      done(null, lines.length ? lines.map(strip).join('\n') + '\n' : '');
    },
    flush(done: TransformCallback) {
      done(null, strip(rest));
    },
  });
}

/** Options for Oracle's client, which MariaDB's rejects (and which a MariaDB server needs from Oracle's client). */
function oracleClientOptions(version: string): string[] {
  return /mariadb/i.test(version) ? [] : ['--set-gtid-purged=OFF', '--column-statistics=0'];
}

async function backupMysql(m: NonNullable<DatabaseTarget['mysql']>, partial: string, log?: (line: string) => void): Promise<void> {
  const version = requireProgram('mysqldump');
  await withConnectionArgs(m, async (connection) => {
    const args = [
      ...connection,
      '--single-transaction',
      '--routines',
      '--triggers',
      '--hex-blob',
      '--default-character-set=utf8mb4',
      // Tablespaces need the PROCESS privilege, which a managed MySQL's users lack; InnoDB tables need none.
      '--no-tablespaces',
      ...oracleClientOptions(version),
      m.database,
    ];
    log?.(`mysqldump ${args.slice(1).join(' ')}`);
    const child = spawn('mysqldump', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    await pipeline(child.stdout, withoutDefiners(), fs.createWriteStream(partial, { mode: 0o600 }));
    const code = await exited;
    if (code !== 0) throw new OperationError(`mysqldump failed (exit ${code}): ${stderr.trim() || 'no message'}`);
  });
  // mysqldump's last line says the dump is complete; a dump cut short has none.
  if (!lastLine(partial).startsWith('-- Dump completed')) throw new OperationError('mysqldump ended without "-- Dump completed": the dump is incomplete.');
}

function lastLine(file: string): string {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(size, 4096));
    fs.readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8').trimEnd().split('\n').pop() ?? '';
  } finally {
    fs.closeSync(fd);
  }
}

/** The first lines of a file (a dump's header; MariaDB's mysqldump may write its sandbox-mode line first). */
function firstLines(file: string, count: number): string[] {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1024);
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n').slice(0, count);
  } finally {
    fs.closeSync(fd);
  }
}

export interface RestoreResult {
  wallets: number;
  /** Wallets whose balance differs from the sum of their ledger (0 for a sound backup). */
  walletsOff: number;
  /** Sales not yet settled in the backup: a worker resumes them (docs/deploy.md). */
  salesInFlight: number;
  seconds: number;
}

/**
 * Restores into the configured database, which must hold no table unless `force` (then SQLite's
 * file is replaced, and MySQL's tables are dropped and made again by the dump). Every server on
 * the database must be stopped first.
 */
export async function restoreDatabase(
  target: DatabaseTarget,
  file: string,
  opts: { force?: boolean; log?: (line: string) => void } = {},
): Promise<RestoreResult> {
  const started = Date.now();
  const from = path.resolve(file);
  if (!fs.existsSync(from) || !fs.statSync(from).isFile()) throw new OperationError(`There is no backup file at ${from}.`);
  if (target.engine === 'sqlite') {
    checkSqliteFile(from, `${from}`);
    await restoreSqlite(from, target.file!, opts.force ?? false);
  } else {
    if (!firstLines(from, 3).some((line) => /^-- (MySQL|MariaDB) dump/.test(line))) {
      throw new OperationError(`${from} is not a mysqldump file (no "-- MySQL dump" or "-- MariaDB dump" header).`);
    }
    await restoreMysql(from, target, opts.force ?? false, opts.log);
  }
  return { ...(await checkRestored(target)), seconds: (Date.now() - started) / 1000 };
}

async function restoreSqlite(from: string, to: string, force: boolean): Promise<void> {
  if (fs.existsSync(to) && fs.statSync(to).size > 0) {
    const db = new Sqlite(to, { readonly: true, fileMustExist: true });
    const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
    db.close();
    if (tables && !force) throw new OperationError(`${to} already holds a database (${tables} tables): stop its servers and pass --force to replace it.`);
  }
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const partial = `${to}.restoring-${process.pid}`;
  try {
    const source = new Sqlite(from, { readonly: true, fileMustExist: true });
    try {
      await source.backup(partial, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    singleFile(partial);
    // The old file's write-ahead log belongs to the old file: left beside the new one it would be replayed into it.
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${to}${suffix}`, { force: true });
    fs.renameSync(partial, to);
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

async function restoreMysql(from: string, target: DatabaseTarget, force: boolean, log?: (line: string) => void): Promise<void> {
  const m = target.mysql!;
  requireProgram('mysql');
  const admin = knexFactory({ client: 'mysql2', connection: { host: m.host, port: m.port, user: m.user, password: m.password }, pool: { min: 0, max: 1 } });
  try {
    const [exists] = (await admin.raw('SELECT schema_name FROM information_schema.schemata WHERE schema_name = ?', [m.database])) as [unknown[]];
    if (!exists.length) {
      throw new OperationError(
        `The database ${m.database} does not exist: create it first (CREATE DATABASE \`${m.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci).`,
      );
    }
    const [[{ n }]] = (await admin.raw('SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = ?', [m.database])) as [[{ n: number }]];
    if (Number(n) && !force)
      throw new OperationError(`The database ${m.database} already holds ${n} tables: stop its servers and pass --force to replace them.`);
  } finally {
    await admin.destroy();
  }
  await withConnectionArgs(m, async (connection) => {
    const args = [...connection, '--default-character-set=utf8mb4', m.database];
    log?.(`mysql ${args.slice(1).join(' ')} < ${from}`);
    const child = spawn('mysql', args, { stdio: ['pipe', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    // A dump made elsewhere may still carry DEFINER clauses: dropped here too.
    await pipeline(fs.createReadStream(from), withoutDefiners(), child.stdin).catch((err: NodeJS.ErrnoException) => {
      // mysql stops reading at its first error; its exit status and message say which.
      if (err.code !== 'EPIPE') throw err;
    });
    const code = await exited;
    if (code !== 0) {
      // mysql echoes the whole statement before its ERROR line: the error is what an operator needs.
      const errors = stderr.split('\n').filter((line) => line.startsWith('ERROR'));
      const hint = /1419|log_bin_trust_function_creators/.test(stderr)
        ? ' (binary logging is on: set log_bin_trust_function_creators = 1 on the server, docs/deploy.md "MySQL and MariaDB settings")'
        : '';
      throw new OperationError(`mysql failed (exit ${code}): ${(errors.length ? errors.join('\n') : stderr.trim()) || 'no message'}${hint}`);
    }
  });
}

/** The restored database read back: its schema, every wallet against its ledger, the sales a worker will resume. */
async function checkRestored(target: DatabaseTarget): Promise<Omit<RestoreResult, 'seconds'>> {
  const knex = target.connect();
  try {
    if (!(await knex.schema.hasTable('knex_migrations'))) throw new OperationError('The restored database holds no knex_migrations table.');
    const wallets = (await knex('wallets').select('id', 'balance')) as { id: number; balance: number | string }[];
    const sums = (await knex('wallet_transactions')
      .select('wallet_id')
      .sum({ credits: knex.raw("CASE WHEN type = 'credit' THEN amount ELSE 0 END") })
      .sum({ debits: knex.raw("CASE WHEN type = 'credit' THEN 0 ELSE amount END") })
      .groupBy('wallet_id')) as { wallet_id: number; credits: number | string | null; debits: number | string | null }[];
    const ledger = new Map(sums.map((s) => [Number(s.wallet_id), Number(s.credits ?? 0) - Number(s.debits ?? 0)]));
    const walletsOff = wallets.filter((w) => Number(w.balance) !== (ledger.get(Number(w.id)) ?? 0)).length;
    const [{ n }] = (await knex('recharges').whereIn('status', ['pending', 'processing', 'needs_review']).count({ n: '*' })) as [{ n: number | string }];
    return { wallets: wallets.length, walletsOff, salesInFlight: Number(n) };
  } finally {
    await knex.destroy();
  }
}
