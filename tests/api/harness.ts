import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import type { Knex } from 'knex';
import knexFactory from 'knex';
import { loadConfig } from '../../api/src/config.ts';
import { connectDatabase, migrateAndSeed, type Database } from '../../api/src/database/connection.ts';
import { createApp } from '../../api/src/app.ts';
import type { RoutingDeps } from '../../api/src/routing/routing.routes.ts';
import type { RechargeMoney } from '../../api/src/recharges/recharge.routes.ts';
import { hashPassword } from '../../api/src/auth/passwords.ts';
import { toDbTime } from '../../api/src/database/time.ts';

/**
 * One fresh database per test file, on the engine named by TEST_DATABASE: 'sqlite' (a file in
 * a temp dir) or 'mysql' (a new database on TEST_MYSQL_URL, dropped afterwards). The app is
 * the real one, over a real connection; supertest drives it in-process.
 */
export const TEST_DATABASE = (process.env.TEST_DATABASE || 'sqlite') as 'sqlite' | 'mysql';
const MYSQL_URL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';

export const PASSWORD = 'Secret@1234';

/** Shared request header and the catalogue messages most assertions compare against. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
export const VALIDATION = 'Validation failed. Please check your inputs.';
export const FORBIDDEN = { success: false, message: 'You do not have permission to perform this action.', code: 'auth.forbidden' };
export const NOT_FOUND = { success: false, message: 'The requested resource was not found.', code: 'not_found' };
let passwordHash: Promise<string> | undefined;

export interface Harness {
  app: Express;
  db: Database;
  knex: Knex;
  dataDir: string;
  /** MySQL: the database's name; SQLite: its file. */
  databaseName: string;
  /** A connection of its own to the same database, outside the app's pool and limits (a second session); destroy it after. */
  directKnex: () => Knex;
  http: () => ReturnType<typeof request>;
  /** A client that keeps cookies between calls (a browser's storefront session). */
  agent: () => ReturnType<typeof request.agent>;
  close: () => Promise<void>;
  /** A signed-in super admin (created once per file). */
  adminToken: () => Promise<string>;
  /** A new active admin with a new role holding exactly these permissions; returns its token. */
  userWith: (permissions: string[], extra?: Partial<Record<string, unknown>>) => Promise<{ id: number; email: string; token: string; roleId: number }>;
  insertUser: (fields: Record<string, unknown>, roleName?: string) => Promise<number>;
  login: (email: string, password?: string) => Promise<string>;
  /** A role made through the API by the super admin; returns its id. */
  createRole: (name: string, permissions?: string[]) => Promise<number>;
  /** A new dealer made through the API by the super admin (logo and all), signed in, with its live wallet. */
  makeDealer: (code: string) => Promise<{ id: number; code: string; email: string; token: string; walletId: number }>;
}

export interface HarnessOptions {
  rechargeMoney?: RechargeMoney;
  /** The aggregators (and gateways) the routes, catalogue sync and connectors list see. */
  routing?: RoutingDeps;
  /** Settings of this app only (e.g. DB_STATEMENT_TIMEOUT_SECONDS), over the process's. */
  env?: NodeJS.ProcessEnv;
  /** MySQL: where the app connects instead of TEST_MYSQL_URL's host (a test's proxy in front of it). */
  mysqlAddress?: { host: string; port: number };
}

export async function createHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-test-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    DATA_DIR: dataDir,
    APP_KEY: crypto.randomBytes(32).toString('hex'),
    NODE_ENV: 'test',
    SEED_DEMO: 'false',
  };
  let dropMysql: (() => Promise<void>) | undefined;
  let directKnex: () => Knex;
  let databaseName: string;
  if (TEST_DATABASE === 'mysql') {
    const name = `t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
    databaseName = name;
    const u = new URL(MYSQL_URL);
    const server = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
    const admin = knexFactory({ client: 'mysql2', connection: server });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    directKnex = () => knexFactory({ client: 'mysql2', connection: { ...server, database: name, timezone: 'Z', dateStrings: true }, pool: { min: 0, max: 2 } });
    u.pathname = `/${name}`;
    if (opts.mysqlAddress) {
      u.hostname = opts.mysqlAddress.host;
      u.port = String(opts.mysqlAddress.port);
    }
    env.DATABASE_URL = u.toString();
    dropMysql = async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
    };
  } else {
    delete env.DATABASE_URL;
    databaseName = path.join(dataDir, 'app.sqlite');
    directKnex = () => knexFactory({ client: 'better-sqlite3', connection: { filename: databaseName }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  }
  const config = loadConfig(env);
  const db = connectDatabase(env);
  await migrateAndSeed(db, { seedDemo: false });
  const app = createApp({ config, db, rechargeMoney: opts.rechargeMoney, routing: opts.routing });
  passwordHash ??= hashPassword(PASSWORD);

  const roleId = async (name: string) => (await db.knex('roles').where({ name }).first()).id as number;
  const insertUser: Harness['insertUser'] = async (fields, roleName) => {
    const now = toDbTime();
    await db.knex('users').insert({
      name: 'Test User',
      password: await passwordHash,
      user_type: 'admin',
      status: 'active',
      created_at: now,
      updated_at: now,
      ...fields,
    });
    const id = (await db.knex('users').where({ email: fields.email }).first()).id as number;
    if (roleName) await db.knex('user_roles').insert({ user_id: id, role_id: await roleId(roleName) });
    return id;
  };
  const login: Harness['login'] = async (email, password = PASSWORD) => {
    const res = await request(app).post('/api/v1/auth/admin/login').send({ email, password });
    if (res.status !== 200) throw new Error(`login failed for ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.token as string;
  };
  let adminTokenPromise: Promise<string> | undefined;
  const adminToken = () =>
    (adminTokenPromise ??= (async () => {
      await insertUser({ name: 'Root Admin', email: 'root@test.example' }, 'super-admin');
      return login('root@test.example');
    })());
  let counter = 0;

  return {
    app,
    db,
    knex: db.knex,
    dataDir,
    databaseName,
    directKnex,
    http: () => request(app),
    agent: () => request.agent(app),
    adminToken,
    userWith: async (permissions, extra = {}) => {
      counter += 1;
      const now = toDbTime();
      const roleName = `role-${counter}-${crypto.randomBytes(3).toString('hex')}`;
      await db.knex('roles').insert({ name: roleName, guard_name: 'web', protected: false, created_at: now, updated_at: now });
      const rid = await roleId(roleName);
      if (permissions.length) {
        const perms = await db.knex('permissions').whereIn('name', permissions).select('id');
        if (perms.length !== permissions.length) throw new Error(`unknown permission in ${permissions.join(', ')}`);
        await db.knex('role_permissions').insert(perms.map((p: { id: number }) => ({ role_id: rid, permission_id: p.id })));
      }
      const email = `user${counter}-${crypto.randomBytes(3).toString('hex')}@test.example`;
      const id = await insertUser({ name: `User ${counter}`, email, ...extra });
      await db.knex('user_roles').insert({ user_id: id, role_id: rid });
      return { id, email, token: await login(email), roleId: rid };
    },
    insertUser,
    login,
    createRole: async (name, permissions = []) => {
      const token = await adminToken();
      const res = await request(app).post('/api/v1/roles').set(bearer(token)).send({ name, permissions });
      if (res.status !== 201) throw new Error(`role ${name} not created: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.id as number;
    },
    makeDealer: async (code) => {
      const email = `${code.toLowerCase()}@test.example`;
      const res = await request(app)
        .post('/api/v1/users')
        .set(bearer(await adminToken()))
        .field('name', `Dealer ${code}`)
        .field('email', email)
        .field('password', PASSWORD)
        .field('password_confirmation', PASSWORD)
        .field('user_type', 'dealer')
        .field('dealer_code', code)
        .attach('dealer_logo', PNG_1PX, 'l.png');
      if (res.status !== 201) throw new Error(`dealer ${code} not created: ${res.status} ${JSON.stringify(res.body)}`);
      const wallet = await db.knex('wallets').where({ dealer_id: res.body.data.id, mode: 'live' }).first('id');
      return { id: res.body.data.id as number, code, email, token: await login(email), walletId: Number(wallet.id) };
    },
    close: async () => {
      await db.knex.destroy();
      await dropMysql?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Bytes of real images, so uploads pass the magic-number check. */
export const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
export const GIF_1PX = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
