import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import type { Knex } from 'knex';
import { createHarness, PASSWORD, TEST_DATABASE, bearer, type Harness } from '../../../tests/api/harness.ts';
import { PROJECT_ROOT } from '../../../db/config.ts';
import { runSeeds } from '../../../db/migration-source.ts';
import { toDbTime } from '../database/time.ts';
import { User } from '../users/user.model.ts';
import { presentUser } from '../users/user.presenter.ts';
import { createUser, prepareUserInput } from '../users/user.service.ts';
import { systemContext, transact } from '../platform/context.ts';
import { AccessCache, accessCache, bumpAccessVersion, frozenAccess } from './access-cache.ts';

/**
 * Signed-in calls keep their user per process under the access version (access-cache.ts): the
 * cache must never serve stale access. Each case primes the cache with a call, makes one kind of
 * change (through this app, another server process on the same database, or another connection
 * straight into the database) and checks that the very next call sees it.
 */
let h: Harness;
let admin: string;
let rootId: number;
let seq = 0;

const get = (token: string, url: string) => h.http().get(url).set(bearer(token));
const me = (token: string) => get(token, '/api/v1/auth/me');
const sessionOf = (token: string) => (jwt.decode(token) as { sid: string }).sid;
const version = async (knex: Knex = h.knex) => String((await knex('access_versions').where('id', 1).first('version')).version);
const bump = (knex: Knex) => knex('access_versions').where('id', 1).increment('version', 1);

/** Signs in, calls twice (the second from the cache) and checks the session is kept. */
async function primed(token: string, url = '/api/v1/auth/me', status = 200) {
  for (let i = 0; i < 2; i++) expect((await get(token, url)).status).toBe(status);
  expect(accessCache.has(sessionOf(token))).toBe(true);
}

/** A staff member with a role of its own holding `permissions`. */
async function staff(permissions: string[]) {
  return h.userWith(permissions);
}

async function dealer() {
  seq += 1;
  const email = `dealer${seq}@test.example`;
  const id = await h.insertUser({ name: `Dealer ${seq}`, email, user_type: 'dealer', dealer_code: `DLR${seq}` }, 'dealer');
  const now = toDbTime();
  await h
    .knex('dealer_details')
    .insert({ user_id: id, brand_color: '#112233', company_name: 'Old Name', pricing_model: 'cost', created_at: now, updated_at: now });
  return { id, email, token: await h.login(email) };
}

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
});
afterAll(() => h.close());

describe('the cache itself', () => {
  it('answers a repeated call with one query: the session, its user and the version, by primary key', async () => {
    const u = await staff(['view roles']);
    await primed(u.token);
    const queries: string[] = [];
    const listen = (q: { sql: string }) => queries.push(q.sql);
    h.knex.on('query', listen);
    try {
      expect((await me(u.token)).status).toBe(200);
    } finally {
      h.knex.removeListener('query', listen);
    }
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/from [`"]?sessions[`"]?/i);
  });

  it('keeps frozen users: a route cannot change what other calls of the session see', async () => {
    const u = await staff(['view roles']);
    await primed(u.token);
    const entry = accessCache.get(sessionOf(u.token), await version())!;
    expect(entry.user.email).toBe(u.email);
    expect(Object.isFrozen(entry.user)).toBe(true);
    expect(Object.isFrozen(entry.user.roles)).toBe(true);
    expect(() => {
      (entry.user as { name: string }).name = 'Changed';
    }).toThrow(TypeError);
    expect(() => entry.permissions.add('delete users')).toThrow(TypeError);
    expect(() => entry.permissions.delete('view roles')).toThrow(TypeError);
    expect(entry.permissions.has('view roles')).toBe(true);
    // Reading it as the routes do still works.
    expect(presentUser(entry.user, [...entry.permissions]).email).toBe(u.email);
    expect(JSON.parse(JSON.stringify(entry.user)).email).toBe(u.email);
  });

  it('holds a bounded number of sessions, dropping the least recently used, and drops an entry of another version', async () => {
    const user = (await User.query(h.knex).findById(rootId))!;
    const cache = new AccessCache(2);
    cache.set('a', frozenAccess('1', user, [], false));
    cache.set('b', frozenAccess('1', (await User.query(h.knex).findById(rootId))!, [], false));
    expect(cache.get('a', '1')).toBeDefined(); // a is now the most recent
    cache.set('c', frozenAccess('1', (await User.query(h.knex).findById(rootId))!, [], false));
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    expect(cache.get('a', '2')).toBeUndefined();
    expect(cache.has('a')).toBe(false);
  });

  it('raises the version once per transaction, and not at all when the transaction rolls back', async () => {
    const before = BigInt(await version());
    await h.knex.transaction(async (trx) => {
      await bumpAccessVersion(trx);
      await bumpAccessVersion(trx);
    });
    expect(BigInt(await version())).toBe(before + 1n);
    await expect(
      h.knex.transaction(async (trx) => {
        await bumpAccessVersion(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(BigInt(await version())).toBe(before + 1n);
  });
});

describe('changes made through this app apply on the very next call', () => {
  it('signing out', async () => {
    const u = await staff(['view roles']);
    await primed(u.token);
    expect((await h.http().post('/api/v1/auth/logout').set(bearer(u.token))).status).toBe(200);
    expect((await me(u.token)).status).toBe(401);
  });

  it('an admin deactivating the user', async () => {
    const u = await staff(['view roles']);
    await primed(u.token);
    expect((await h.http().patch(`/api/v1/users/${u.id}`).set(bearer(admin)).send({ status: 'inactive' })).status).toBe(200);
    expect((await me(u.token)).status).toBe(401);
  });

  it('an admin moving the user to the trash, or deleting it for good', async () => {
    const trashed = await staff(['view roles']);
    const deleted = await staff(['view roles']);
    await primed(trashed.token);
    await primed(deleted.token);
    expect((await h.http().delete(`/api/v1/users/${trashed.id}`).set(bearer(admin))).status).toBe(200);
    expect((await h.http().delete(`/api/v1/users/${deleted.id}/force`).set(bearer(admin))).status).toBe(200);
    expect((await me(trashed.token)).status).toBe(401);
    expect((await me(deleted.token)).status).toBe(401);
    // Restoring brings the user back, not its revoked sessions.
    expect((await h.http().post(`/api/v1/users/${trashed.id}/restore`).set(bearer(admin))).status).toBe(200);
    expect((await me(trashed.token)).status).toBe(401);
  });

  it('an admin setting a new password', async () => {
    const u = await staff(['view roles']);
    await primed(u.token);
    const res = await h.http().patch(`/api/v1/users/${u.id}`).set(bearer(admin)).send({ password: 'Fresh@98765', password_confirmation: 'Fresh@98765' });
    expect(res.status).toBe(200);
    expect((await me(u.token)).status).toBe(401);
  });

  it('the user changing its own password: the other sessions end, this one goes on', async () => {
    const u = await staff(['view roles']);
    const other = await h.login(u.email);
    await primed(u.token);
    await primed(other);
    const res = await h.http().post('/api/v1/auth/change-password').set(bearer(u.token)).send({
      current_password: PASSWORD,
      password: 'Another@24680',
      password_confirmation: 'Another@24680',
    });
    expect(res.status).toBe(200);
    expect((await me(other)).status).toBe(401);
    expect((await me(u.token)).status).toBe(200);
  });

  it("a permission removed from the user's role, then given back", async () => {
    const u = await staff(['view roles', 'view users']);
    await primed(u.token, '/api/v1/roles');
    const assign = (permissions: string[]) => h.http().post(`/api/v1/roles/${u.roleId}/assign-permissions`).set(bearer(admin)).send({ permissions });
    expect((await assign(['view users'])).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(403);
    expect((await me(u.token)).body.data.user.permissions).toEqual([{ name: 'view users' }]);
    expect((await assign(['view users', 'view roles'])).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(200);
  });

  it("the user's role moved to the trash, then restored", async () => {
    const u = await staff(['view roles']);
    await primed(u.token, '/api/v1/roles');
    expect((await h.http().delete(`/api/v1/roles/${u.roleId}`).set(bearer(admin))).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(403);
    expect((await me(u.token)).body.data.user.roles).toEqual([]);
    expect((await h.http().post(`/api/v1/roles/${u.roleId}/restore`).set(bearer(admin))).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(200);
  });

  it("the user's role renamed, or replaced by another role", async () => {
    const n = ++seq;
    const u = await staff(['view roles']);
    const other = await h.createRole(`Readers ${n}`, ['view users']);
    await primed(u.token, '/api/v1/roles');
    expect(
      (
        await h
          .http()
          .patch(`/api/v1/roles/${u.roleId}`)
          .set(bearer(admin))
          .send({ name: `Renamed ${n}` })
      ).status,
    ).toBe(200);
    expect((await me(u.token)).body.data.user.roles).toEqual([{ id: u.roleId, name: `Renamed ${n}` }]);
    expect((await h.http().patch(`/api/v1/users/${u.id}`).set(bearer(admin)).send({ role_id: other })).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(403);
    expect((await get(u.token, '/api/v1/users')).status).toBe(200);
    expect((await me(u.token)).body.data.user.roles).toEqual([{ id: other, name: `Readers ${n}` }]);
  });

  it("a dealer's pricing model and details, changed by an admin and by the dealer itself", async () => {
    const d = await dealer();
    await primed(d.token);
    const res = await h.http().patch(`/api/v1/users/${d.id}`).set(bearer(admin)).send({ pricing_model: 'profit', company_name: 'New Name' });
    expect(res.status).toBe(200);
    expect((await me(d.token)).body.data.user.dealer_details).toMatchObject({ pricing_model: 'profit', company_name: 'New Name' });
    expect((await h.http().put('/api/v1/auth/profile').set(bearer(d.token)).send({ name: 'Renamed Dealer' })).status).toBe(200);
    expect((await me(d.token)).body.data.user.name).toBe('Renamed Dealer');
  });

  it('locking and unlocking the session', async () => {
    const u = await staff(['view roles']);
    await primed(u.token, '/api/v1/roles');
    expect((await h.http().post('/api/v1/auth/lock').set(bearer(u.token)).send({ password: PASSWORD })).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(423);
    expect((await me(u.token)).body.data.is_locked).toBe(true);
    expect((await h.http().post('/api/v1/auth/unlock').set(bearer(u.token)).send({ password: PASSWORD })).status).toBe(200);
    expect((await get(u.token, '/api/v1/roles')).status).toBe(200);
  });
});

describe('changes made straight in the database by another connection', () => {
  let side: Knex;
  beforeAll(() => {
    side = h.directKnex();
  });
  afterAll(() => side.destroy());

  it('revoked, expired or locked sessions and inactive or trashed users need no version: they are read on every call', async () => {
    const revoked = await staff(['view roles']);
    const expired = await staff(['view roles']);
    const locked = await staff(['view roles']);
    const inactive = await staff(['view roles']);
    const trashed = await staff(['view roles']);
    for (const u of [revoked, expired, locked, inactive, trashed]) await primed(u.token, '/api/v1/roles');
    const before = await version();
    await side('sessions').where('id', sessionOf(revoked.token)).update({ revoked_at: toDbTime() });
    await side('sessions')
      .where('id', sessionOf(expired.token))
      .update({ expires_at: toDbTime(new Date(Date.now() - 1000)) });
    await side('sessions').where('id', sessionOf(locked.token)).update({ locked_at: toDbTime() });
    await side('users').where('id', inactive.id).update({ status: 'inactive' });
    await side('users').where('id', trashed.id).update({ deleted_at: toDbTime() });
    expect(await version()).toBe(before);
    expect((await get(revoked.token, '/api/v1/roles')).status).toBe(401);
    expect((await get(expired.token, '/api/v1/roles')).status).toBe(401);
    expect((await get(locked.token, '/api/v1/roles')).status).toBe(423);
    expect((await get(inactive.token, '/api/v1/roles')).status).toBe(401);
    expect((await get(trashed.token, '/api/v1/roles')).status).toBe(401);
    // Active again: the session was never revoked, so it works again.
    await side('users').where('id', inactive.id).update({ status: 'active' });
    expect((await get(inactive.token, '/api/v1/roles')).status).toBe(200);
  });

  it('a permission, a role or dealer details changed with the version raised in the same transaction', async () => {
    const u = await staff(['view roles', 'view users']);
    const r = await staff(['view roles']);
    const d = await dealer();
    await primed(u.token, '/api/v1/roles');
    await primed(r.token, '/api/v1/roles');
    await primed(d.token);
    const viewRoles = (await side('permissions').where({ name: 'view roles' }).first('id')).id;
    await side.transaction(async (trx) => {
      await trx('role_permissions').where({ role_id: u.roleId, permission_id: viewRoles }).delete();
      await trx('roles').where('id', r.roleId).update({ deleted_at: toDbTime() });
      await trx('dealer_details').where('user_id', d.id).update({ pricing_model: 'profit' });
      await bump(trx);
    });
    expect((await get(u.token, '/api/v1/roles')).status).toBe(403);
    expect((await get(u.token, '/api/v1/users')).status).toBe(200);
    expect((await get(r.token, '/api/v1/roles')).status).toBe(403);
    expect((await me(d.token)).body.data.user.dealer_details.pricing_model).toBe('profit');
  });

  it('the permission seed raises the version when it adds what is missing', async () => {
    const d = await dealer();
    await primed(d.token);
    const has = async () => (await me(d.token)).body.data.user.permissions.some((p: { name: string }) => p.name === 'view banners');
    expect(await has()).toBe(true);
    await side.transaction(async (trx) => {
      await trx('permissions').where({ name: 'view banners' }).delete();
      await bump(trx);
    });
    expect(await has()).toBe(false);
    const before = BigInt(await version());
    await runSeeds(side); // as another process starting would: the permission is new again, so the dealer role gets it
    expect(BigInt(await version())).toBeGreaterThan(before);
    expect(await has()).toBe(true);
  });
});

describe('the users list, kept under the same version', () => {
  it('shows a change made by another connection on the next call, and never a page of another reader', async () => {
    const reader = await staff(['view dealers']);
    const target = await staff([]);
    const list = async (token: string) => (await get(token, '/api/v1/users?per_page=100')).body.data as { id: number; name: string; user_type: string }[];
    expect((await list(admin)).find((u) => u.id === target.id)?.name).toBe((await h.knex('users').where('id', target.id).first()).name);
    await list(admin); // kept
    const side = h.directKnex();
    try {
      await side.transaction(async (trx) => {
        await trx('users').where('id', target.id).update({ name: 'Renamed Elsewhere' });
        await bump(trx);
      });
    } finally {
      await side.destroy();
    }
    expect((await list(admin)).find((u) => u.id === target.id)?.name).toBe('Renamed Elsewhere');
    // The same query by a reader of dealers only: its own page, no admins.
    const readerPage = await list(reader.token);
    expect(readerPage.every((u) => u.user_type === 'dealer')).toBe(true);
  });

  it('shows a user made by the admin CLI (which logs nothing) on the next call', async () => {
    const list = async () => ((await get(admin, '/api/v1/users?per_page=100')).body.data as { email: string }[]).map((u) => u.email);
    await list();
    expect(await list()).not.toContain('cli-made@test.example');
    const input = await prepareUserInput({ name: 'CLI Made', email: 'cli-made@test.example', password: PASSWORD, user_type: 'admin' as const });
    await transact(systemContext({ db: h.knex }), (tctx) => createUser(tctx, { ...input, role_name: 'super-admin' }, { verified: true }));
    expect(await list()).toContain('cli-made@test.example');
  });
});

// -------------------------------------------------------------------------------------------------

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/** A second server process on the same database, signed in as the harness's super admin. */
async function otherProcess() {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    RECHARGE_WORKER: 'false',
    APP_KEY: crypto.randomBytes(32).toString('hex'),
    PORT: String(port),
  };
  let dataDir = h.dataDir;
  if (TEST_DATABASE === 'mysql') {
    const u = new URL(process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test');
    u.pathname = `/${h.databaseName}`;
    env.DATABASE_URL = u.toString();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'other-process-'));
  } else env.DATABASE_URL = '';
  env.DATA_DIR = dataDir;
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}/api/v1`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 400 || child.exitCode !== null) throw new Error(`the second server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const signIn = await fetch(`${base}/auth/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'root@test.example', password: PASSWORD }),
  });
  const token = ((await signIn.json()) as { data: { token: string } }).data.token;
  const call = async (method: string, url: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      // The second server went away: say what it printed, or the failure says nothing of why.
      throw new Error(`${method} ${url} to the second server failed (exit code ${child.exitCode}): ${String(err)}\n${output.slice(-4000)}`);
    }
    return { status: res.status, body: (await res.json()) as { data?: unknown } };
  };
  return {
    call,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      if (dataDir !== h.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('changes made through another server process on the same database', () => {
  let other: Awaited<ReturnType<typeof otherProcess>>;
  beforeAll(async () => {
    other = await otherProcess();
  }, 120_000);
  afterAll(() => other?.stop());

  it('a permission removed, a role trashed, a user deactivated, a password set, dealer details changed: each seen on the next call here', async () => {
    const perm = await staff(['view roles', 'view users']);
    const roleGone = await staff(['view roles']);
    const deactivated = await staff(['view roles']);
    const newPassword = await staff(['view roles']);
    const d = await dealer();
    for (const u of [perm, roleGone, deactivated, newPassword]) await primed(u.token, '/api/v1/roles');
    await primed(d.token);

    expect((await other.call('POST', `/roles/${perm.roleId}/assign-permissions`, { permissions: ['view users'] })).status).toBe(200);
    expect((await get(perm.token, '/api/v1/roles')).status).toBe(403);
    expect((await get(perm.token, '/api/v1/users')).status).toBe(200);

    expect((await other.call('DELETE', `/roles/${roleGone.roleId}`)).status).toBe(200);
    expect((await get(roleGone.token, '/api/v1/roles')).status).toBe(403);

    expect((await other.call('PATCH', `/users/${deactivated.id}`, { status: 'inactive' })).status).toBe(200);
    expect((await get(deactivated.token, '/api/v1/roles')).status).toBe(401);

    expect((await other.call('PATCH', `/users/${newPassword.id}`, { password: 'Other@13579', password_confirmation: 'Other@13579' })).status).toBe(200);
    expect((await get(newPassword.token, '/api/v1/roles')).status).toBe(401);

    expect((await other.call('PATCH', `/users/${d.id}`, { pricing_model: 'profit', company_name: 'Elsewhere Ltd' })).status).toBe(200);
    expect((await me(d.token)).body.data.user.dealer_details).toMatchObject({ pricing_model: 'profit', company_name: 'Elsewhere Ltd' });
  });

  it("a user renamed elsewhere shows in this process's users list at once", async () => {
    const target = await staff([]);
    const list = async () => ((await get(admin, '/api/v1/users?per_page=100')).body.data as { id: number; name: string }[]).find((u) => u.id === target.id);
    await list();
    await list();
    expect((await other.call('PATCH', `/users/${target.id}`, { name: 'Renamed In Another Process' })).status).toBe(200);
    expect((await list())?.name).toBe('Renamed In Another Process');
  });
});

describe('many changes and calls at once', () => {
  it('answers no 5xx, and every call made after a change has been answered sees it', async () => {
    const readers = await Promise.all([1, 2, 3, 4].map(() => staff(['view roles', 'view users'])));
    // One role for all four, so one permission change touches every one of them.
    const roleId = readers[0].roleId;
    for (const r of readers.slice(1)) await h.knex('user_roles').where('user_id', r.id).update({ role_id: roleId });
    await bump(h.knex);
    const [, , leaving, deactivated] = readers;
    const d = await dealer();
    for (const r of readers) await primed(r.token, '/api/v1/roles');
    await primed(d.token);

    const statuses: number[] = [];
    let stop = false;
    const noise = Promise.all(
      [...readers, d].map(async (u) => {
        while (!stop) {
          const res = await get(u.token, u === d ? '/api/v1/auth/me' : '/api/v1/roles');
          statuses.push(res.status);
        }
      }),
    );
    const assign = (permissions: string[]) => h.http().post(`/api/v1/roles/${roleId}/assign-permissions`).set(bearer(admin)).send({ permissions });
    try {
      const changes = await Promise.all([
        h.http().post('/api/v1/auth/logout').set(bearer(leaving.token)),
        h.http().patch(`/api/v1/users/${deactivated.id}`).set(bearer(admin)).send({ status: 'inactive' }),
        h.http().patch(`/api/v1/users/${d.id}`).set(bearer(admin)).send({ pricing_model: 'profit' }),
        assign(['view users']),
      ]);
      expect(changes.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      // Every call from now on sees all four changes.
      expect((await get(leaving.token, '/api/v1/auth/me')).status).toBe(401);
      expect((await get(deactivated.token, '/api/v1/auth/me')).status).toBe(401);
      expect((await me(d.token)).body.data.user.dealer_details.pricing_model).toBe('profit');
      for (const r of readers.slice(0, 2)) expect((await get(r.token, '/api/v1/roles')).status).toBe(403);
      // Flip the permission back and forth under load: each answer is followed by a call that sees it.
      for (let i = 0; i < 6; i++) {
        const on = i % 2 === 0;
        expect((await assign(on ? ['view users', 'view roles'] : ['view users'])).status).toBe(200);
        expect((await get(readers[i % 2].token, '/api/v1/roles')).status).toBe(on ? 200 : 403);
      }
    } finally {
      stop = true;
      await noise;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(new Set(statuses).size).toBeGreaterThan(0);
    for (const s of statuses) expect([200, 401, 403]).toContain(s);
  });
});
