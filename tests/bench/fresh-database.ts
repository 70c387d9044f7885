import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';

export interface FreshDatabase {
  /** What a server started on it needs (DATA_DIR, DATABASE_URL). */
  env: Record<string, string>;
  /** A connection of the bench's own (to read results). */
  open: () => Knex;
  cleanup: () => Promise<void>;
}

/**
 * A fresh database for one bench run, and how to drop it: a SQLite file in a temporary data
 * directory, or a new MariaDB/MySQL database on the server of `mysqlUrl` (named `{prefix}_{hex}`).
 */
export async function freshDatabase(database: string, opts: { prefix: string; mysqlUrl: string }): Promise<FreshDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.prefix}-`));
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (database === 'sqlite')
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      open: () => knexFactory({ client: 'better-sqlite3', connection: { filename: path.join(dataDir, 'app.sqlite') }, useNullAsDefault: true }),
      cleanup: removeDir,
    };
  const name = `${opts.prefix.replace(/-/g, '_')}_${crypto.randomBytes(4).toString('hex')}`;
  const u = new URL(opts.mysqlUrl);
  const connection = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  const admin = knexFactory({ client: 'mysql2', connection });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  u.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: u.toString() },
    open: () => knexFactory({ client: 'mysql2', connection: { ...connection, database: name }, pool: { min: 0, max: 2 } }),
    cleanup: async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
      await removeDir();
    },
  };
}
