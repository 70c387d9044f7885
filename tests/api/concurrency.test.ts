import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Response } from 'supertest';
import { createHarness, bearer, PASSWORD, PNG_1PX, GIF_1PX, TEST_DATABASE, type Harness } from './harness.ts';

/**
 * Writes that arrive at the same moment: each case fires its requests together with
 * Promise.all against the real app (SQLite and MariaDB, see harness.ts), then checks that no
 * answer was a 5xx and that the invariant of the rule under test still holds.
 */

// Hashing is observed (never changed) so the bulk case knows when the bulk is under way,
// without sleeping: every call still hashes with the real argon2.
const hashing = vi.hoisted(() => ({ started: 0, finished: 0, onStart: undefined as (() => void) | undefined }));
vi.mock('../../api/src/auth/passwords.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../api/src/auth/passwords.ts')>();
  return {
    ...real,
    hashPassword: async (plain: string) => {
      hashing.started += 1;
      hashing.onStart?.();
      try {
        return await real.hashPassword(plain);
      } finally {
        hashing.finished += 1;
      }
    },
  };
});

// Authentication is observed too: armed with n, the next n signed-in requests wait after loading
// their permissions until all n have, so each of them is authenticated before any of them writes
// (the worst interleaving for a check-then-act rule), again without sleeping.
const authGate = vi.hoisted(() => {
  let gate: { need: number; arrived: number; open: () => void; opened: Promise<void> } | undefined;
  return {
    arm(need: number) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { need, arrived: 0, open, opened };
    },
    disarm() {
      gate?.open();
      gate = undefined;
    },
    async pass() {
      const g = gate;
      if (!g) return;
      g.arrived += 1;
      if (g.arrived >= g.need) g.open();
      await g.opened;
    },
  };
});
vi.mock('../../api/src/auth/access.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../api/src/auth/access.ts')>();
  return {
    ...real,
    loadPermissions: async (...args: Parameters<typeof real.loadPermissions>) => {
      const loaded = await real.loadPermissions(...args);
      await authGate.pass();
      return loaded;
    },
  };
});

// The activity log is observed as well: an armed hold stops one banner update inside its
// transaction (its row locked, its new image written, not committed) until the test releases it.
const activityHold = vi.hoisted(() => ({ hold: undefined as undefined | { subjectId: number; reached: () => void; released: Promise<void> } }));
vi.mock('../../api/src/activity-log/activity-log.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../api/src/activity-log/activity-log.ts')>();
  return {
    ...real,
    recordActivity: async (...args: Parameters<typeof real.recordActivity>) => {
      const [, entry] = args;
      const hold = activityHold.hold;
      if (hold && entry.subjectType === 'banner' && entry.action === 'updated' && entry.subjectId === hold.subjectId) {
        activityHold.hold = undefined;
        hold.reached();
        await hold.released;
      }
      return real.recordActivity(...args);
    },
  };
});

const LAST_SUPER_ADMIN = 'The last active super admin cannot be deactivated, deleted or given another role.';
const EMAIL_TAKEN = 'The email has already been taken.';
const CODE_TAKEN = 'The dealer code has already been taken.';
const ROLE_NAME_TAKEN = 'The name has already been taken.';

let h: Harness;
let root: string;
let rootId: number;
let editorRoleId: number;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
  editorRoleId = await h.createRole('concurrency editor', ['view users']);
});
afterAll(() => h.close());

const describeAll = (results: Response[]) => results.map((r) => `${r.status} ${JSON.stringify(r.body)}`);
function expectNo5xx(results: Response[]) {
  expect(describeAll(results.filter((r) => r.status >= 500))).toEqual([]);
}
/** Files under DATA_DIR/storage/{folder}, by name. */
function storedFiles(folder: string): string[] {
  const dir = path.join(h.dataDir, 'storage', folder);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}
const newFiles = (folder: string, before: string[]) => storedFiles(folder).filter((f) => !before.includes(f));
/** /storage/logos/ab.png -> the file on disk. */
const diskPath = (url: string) => path.join(h.dataDir, url.replace(/^\/+/, ''));

let seq = 0;
const next = () => (seq += 1);

// ---------------------------------------------------------------------------------------------

describe('two super admins removing each other at the same moment', () => {
  const activeSupers = async (): Promise<number[]> =>
    h
      .knex('users')
      .join('user_roles', 'user_roles.user_id', 'users.id')
      .join('roles', 'roles.id', 'user_roles.role_id')
      .where({ 'roles.name': 'super-admin', 'users.status': 'active' })
      .whereNull('users.deleted_at')
      .whereNull('roles.deleted_at')
      .orderBy('users.id')
      .pluck('users.id');

  async function superAdmin(tag: string) {
    const n = next();
    const email = `sa-${tag}-${n}@test.example`;
    const id = await h.insertUser({ name: `Super ${tag} ${n}`, email }, 'super-admin');
    return { id, token: await h.login(email) };
  }

  type Who = { id: number; token: string };
  const deactivate = (actor: Who, target: Who) => h.http().patch(`/api/v1/users/${target.id}`).set(bearer(actor.token)).send({ status: 'inactive' });
  const trash = (actor: Who, target: Who) => h.http().delete(`/api/v1/users/${target.id}`).set(bearer(actor.token));
  const how = { deactivates: deactivate, trashes: trash } as const;

  /** Only `keep` stay active super admins (the root and earlier rounds' survivors are set inactive directly). */
  async function onlySupers(keep: number[]) {
    const supers = h.knex('user_roles').join('roles', 'roles.id', 'user_roles.role_id').where('roles.name', 'super-admin').select('user_roles.user_id');
    await h.knex('users').whereIn('id', supers).whereNotIn('id', keep).update({ status: 'inactive' });
    expect(await activeSupers()).toEqual([...keep].sort((a, b) => a - b));
  }

  // Fired freely, the second request is often authenticated only after the first committed (on
  // SQLite the transaction holds the only connection): its actor is gone, so it is a 401. Counted
  // for the report; the 'both signed in first' rounds below make the rule itself (403) decide.
  const signedOut = { count: 0 };
  const ROUNDS = 4;
  const pairs = [
    ['deactivates', 'deactivates'],
    ['trashes', 'trashes'],
    ['deactivates', 'trashes'],
  ] as const;

  async function race(first: keyof typeof how, second: keyof typeof how, bothSignedInFirst: boolean) {
    const a = await superAdmin('a');
    const b = await superAdmin('b');
    await onlySupers([a.id, b.id]);
    if (bothSignedInFirst) authGate.arm(2);
    let results: Response[];
    try {
      results = await Promise.all([how[first](a, b), how[second](b, a)]);
    } finally {
      authGate.disarm();
    }
    expectNo5xx(results);
    const remaining = await activeSupers();
    expect(remaining).toHaveLength(1);
    const winner = results.findIndex((r) => r.status === 200);
    expect(winner, describeAll(results).join('\n')).toBeGreaterThanOrEqual(0);
    const loser = results[1 - winner];
    // The survivor is the winner's actor; the refused write left it as it was.
    expect(remaining).toEqual([[a, b][winner].id]);
    const survivor = await h.knex('users').where('id', remaining[0]).first();
    expect(survivor.status).toBe('active');
    expect(survivor.deleted_at).toBeNull();
    if (loser.status === 401 && !bothSignedInFirst) {
      signedOut.count += 1;
      return;
    }
    expect(loser.status, describeAll(results).join('\n')).toBe(403);
    expect(loser.body).toEqual({ success: false, code: 'users.last_super_admin', message: LAST_SUPER_ADMIN });
  }

  it.each(pairs)('fired freely, A %s B while B %s A: exactly one wins, one active super admin remains', async (first, second) => {
    try {
      for (let round = 0; round < ROUNDS; round++) await race(first, second, false);
    } finally {
      await h.knex('users').where('id', rootId).update({ status: 'active' });
    }
  });

  it.each(pairs)('both signed in first, A %s B while B %s A: one wins, the other gets the last-super-admin 403', async (first, second) => {
    try {
      for (let round = 0; round < ROUNDS; round++) await race(first, second, true);
    } finally {
      await h.knex('users').where('id', rootId).update({ status: 'active' });
    }
  });

  it('three super admins, each deactivating the next, all signed in first: two win, the last is refused, one remains', async () => {
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const trio = [await superAdmin('t1'), await superAdmin('t2'), await superAdmin('t3')];
        await onlySupers(trio.map((s) => s.id));
        authGate.arm(3);
        let results: Response[];
        try {
          results = await Promise.all(trio.map((actor, i) => deactivate(actor, trio[(i + 1) % 3])));
        } finally {
          authGate.disarm();
        }
        expectNo5xx(results);
        expect(await activeSupers()).toHaveLength(1);
        expect(results.map((r) => r.status).sort(), describeAll(results).join('\n')).toEqual([200, 200, 403]);
        expect(results.find((r) => r.status === 403)!.body.message).toBe(LAST_SUPER_ADMIN);
      }
    } finally {
      await h.knex('users').where('id', rootId).update({ status: 'active' });
    }
  });

  afterAll(() => {
    if (signedOut.count) console.info(`[concurrency] ${TEST_DATABASE}: ${signedOut.count} removal(s) answered 401 (actor already removed when authenticated)`);
  });
});

// ---------------------------------------------------------------------------------------------

describe('20 simultaneous permission replacements on one role', () => {
  it('no 5xx, every one applied in turn, and the final set is exactly one of the requested sets', async () => {
    const catalogue: string[] = await h.knex('permissions').where('guard_name', 'web').orderBy('id').pluck('name');
    const roleId = await h.createRole(`contested ${next()}`, catalogue.slice(0, 3));
    // 20 different, overlapping windows of the catalogue (one empty): most replacements both add and remove rows.
    const sets = Array.from({ length: 20 }, (_, i) => (i === 0 ? [] : catalogue.slice(2 * i, 2 * i + 4 + (i % 5))));
    expect(new Set(sets.map((s) => JSON.stringify(s))).size).toBe(20);

    const results = await Promise.all(
      sets.map((permissions) => h.http().post(`/api/v1/roles/${roleId}/assign-permissions`).set(bearer(root)).send({ permissions })),
    );
    expectNo5xx(results.filter((r) => r.status !== 503));
    const busy = results.filter((r) => r.status === 503);
    for (const r of busy) expect(r.headers['retry-after']).toBe('2');
    if (busy.length) console.info(`[concurrency] ${TEST_DATABASE}: ${busy.length} of 20 permission replacements answered 503 (retries exhausted)`);
    expect(busy).toHaveLength(0);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));

    const sorted = (names: string[]) => JSON.stringify([...names].sort());
    const final: string[] = await h
      .knex('role_permissions')
      .join('permissions', 'permissions.id', 'role_permissions.permission_id')
      .where('role_id', roleId)
      .pluck('permissions.name');
    expect(final.length).toBe(new Set(final).size);
    expect(sets.map(sorted)).toContain(sorted(final));

    // Serialised: each replacement read what the previous one wrote, and the last one wrote the final set.
    const log = await h.knex('activity_log').where({ subject_type: 'role', subject_id: roleId, action: 'permissions_assigned' }).orderBy('id');
    expect(log).toHaveLength(20);
    expect(sorted(JSON.parse(log[0].before).permissions)).toBe(sorted(catalogue.slice(0, 3)));
    for (let i = 1; i < log.length; i++) expect(sorted(JSON.parse(log[i].before).permissions)).toBe(sorted(JSON.parse(log[i - 1].after).permissions));
    expect(sorted(JSON.parse(log[log.length - 1].after).permissions)).toBe(sorted(final));
    expect(log.map((row) => sorted(JSON.parse(row.after).permissions)).sort()).toEqual(sets.map(sorted).sort());
  });
});

// ---------------------------------------------------------------------------------------------

describe('parallel logo uploads to one dealer', () => {
  async function makeDealer() {
    const n = next();
    const req = h.http().post('/api/v1/users').set(bearer(root));
    const fields = {
      name: `Logo Dealer ${n}`,
      email: `logo${n}@test.example`,
      password: PASSWORD,
      password_confirmation: PASSWORD,
      user_type: 'dealer',
      dealer_code: `LOGO${n}`,
    };
    for (const [k, v] of Object.entries(fields)) req.field(k, v);
    const res = await req.attach('dealer_logo', PNG_1PX, 'first.png');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.data.id as number, logo: res.body.data.dealer_details.logo_path as string };
  }
  const logoInDb = async (id: number) => (await h.knex('dealer_details').where('user_id', id).first()).logo_path as string | null;

  it('8 POST /dealer-logo and PATCH multipart at once leave one file: the one the database names', async () => {
    const before = storedFiles('logos');
    const dealer = await makeDealer();
    const other = await makeDealer();
    const { email: otherEmail, dealer_code: otherCode } = await h.knex('users').where('id', other.id).first();
    const otherLogo = path.basename(other.logo);

    const uploads = [
      ...Array.from({ length: 8 }, (_, i) =>
        h
          .http()
          .post(`/api/v1/users/${dealer.id}/dealer-logo`)
          .set(bearer(root))
          .attach('logo', i % 2 ? PNG_1PX : GIF_1PX, `l${i}.png`),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).field('company_name', `Racing ${i}`).attach('dealer_logo', PNG_1PX, `p${i}.png`),
      ),
      // Writes that fail once their file is stored: a taken email, a taken dealer code.
      h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).field('email', otherEmail).attach('dealer_logo', PNG_1PX, 'taken.png'),
      h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).field('dealer_code', otherCode).attach('dealer_logo', GIF_1PX, 'code.gif'),
      // A file that is no image.
      h
        .http()
        .post(`/api/v1/users/${dealer.id}/dealer-logo`)
        .set(bearer(root))
        .attach('logo', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.png'),
    ];
    const results = await Promise.all(uploads);
    expectNo5xx(results);
    expect(results.slice(0, 11).map((r) => r.status)).toEqual(Array(11).fill(200));
    expect(results[11].status).toBe(422);
    expect(results[11].body.errors).toEqual({ email: [EMAIL_TAKEN] });
    expect(results[12].status).toBe(422);
    expect(results[12].body.errors).toEqual({ dealer_code: [CODE_TAKEN] });
    expect(results[13].status).toBe(422);
    expect(Object.keys(results[13].body.errors)).toEqual(['logo']);

    const stored = await logoInDb(dealer.id);
    expect(stored).toMatch(/^\/storage\/logos\/[0-9a-f]{32}\.(png|gif)$/);
    // Of every file written since the dealers were made, only the two current logos remain.
    expect(newFiles('logos', before).sort()).toEqual([path.basename(stored!), otherLogo].sort());
    expect(fs.readFileSync(diskPath(stored!)).length).toBeGreaterThan(0);
    // Every winning write was logged, each replacing the one before it.
    const changes = await h
      .knex('activity_log')
      .where({ subject_type: 'user', subject_id: dealer.id })
      .whereIn('action', ['logo_updated', 'updated'])
      .orderBy('id');
    expect(changes).toHaveLength(11);
    const logoOf = (json: string | null) => (json ? ((JSON.parse(json).logo_path ?? JSON.parse(json).dealer_details?.logo_path) as string) : null);
    expect(logoOf(changes[0].before)).toBe(dealer.logo);
    for (let i = 1; i < changes.length; i++) expect(logoOf(changes[i].before)).toBe(logoOf(changes[i - 1].after));
    expect(logoOf(changes[changes.length - 1].after)).toBe(stored);
  });

  it('an upload whose write fails validation leaves no file', async () => {
    const dealer = await makeDealer();
    const adminUser = await h.insertUser({ name: 'Not a dealer', email: `nodealer${next()}@test.example` }, 'concurrency editor');
    const before = storedFiles('logos');
    const n = next();
    const dealerForm = (fields: Record<string, string>) => {
      const req = h.http().post('/api/v1/users').set(bearer(root));
      for (const [k, v] of Object.entries({ name: `Failing ${n}`, password: PASSWORD, password_confirmation: PASSWORD, user_type: 'dealer', ...fields }))
        req.field(k, v);
      return req.attach('dealer_logo', PNG_1PX, 'logo.png');
    };
    const existing = await h.knex('users').where('id', dealer.id).first();
    const results = await Promise.all([
      // Refused by the body's schema before any file is stored.
      dealerForm({ email: 'not-an-email', dealer_code: `FAIL${n}` }),
      // Refused inside the write, after the file was stored.
      dealerForm({ email: existing.email, dealer_code: `FAIL${n}B` }),
      dealerForm({ email: `fail${n}@test.example`, dealer_code: existing.dealer_code.toLowerCase() }),
      h.http().patch(`/api/v1/users/${dealer.id}`).set(bearer(root)).field('email', 'root@test.example').attach('dealer_logo', PNG_1PX, 'x.png'),
      // Not a dealer: no logo to set.
      h.http().post(`/api/v1/users/${adminUser}/dealer-logo`).set(bearer(root)).attach('logo', PNG_1PX, 'x.png'),
      // Gone: no such user.
      h.http().post('/api/v1/users/999999/dealer-logo').set(bearer(root)).attach('logo', PNG_1PX, 'x.png'),
    ]);
    expectNo5xx(results);
    expect(results.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 404]);
    expect(results[1].body.errors).toEqual({ email: [EMAIL_TAKEN] });
    expect(results[2].body.errors).toEqual({ dealer_code: [CODE_TAKEN] });
    expect(results[3].body.errors).toEqual({ email: [EMAIL_TAKEN] });
    expect(newFiles('logos', before)).toEqual([]);
    expect(await logoInDb(dealer.id)).toBe(dealer.logo);
    expect(fs.existsSync(diskPath(dealer.logo))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

describe('unique-key races end in the right field', () => {
  function dealerForm(fields: Record<string, string>) {
    const req = h.http().post('/api/v1/users').set(bearer(root));
    for (const [k, v] of Object.entries({ password: PASSWORD, password_confirmation: PASSWORD, user_type: 'dealer', ...fields })) req.field(k, v);
    return req.attach('dealer_logo', PNG_1PX, 'logo.png');
  }

  it('10 new dealers with the same email: one 201, nine 422 on email only, one logo kept', async () => {
    const before = storedFiles('logos');
    const n = next();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => dealerForm({ name: `Twin ${i}`, email: `twin${n}@test.example`, dealer_code: `TWIN${n}X${i}` })),
    );
    expectNo5xx(results);
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ email: [EMAIL_TAKEN] });
    }
    expect(await h.knex('users').where('email', `twin${n}@test.example`)).toHaveLength(1);
    // The losers' logos went with their failed writes.
    expect(newFiles('logos', before)).toEqual([path.basename(created[0].body.data.dealer_details.logo_path)]);
    expect(await h.knex('wallets').where('dealer_id', created[0].body.data.id)).toHaveLength(1);
  });

  it.each([
    ['the same dealer code', (n: number) => `SAME${n}`],
    ['one dealer code in different cases', (n: number, i: number) => (i % 2 ? `case${n}` : `CASE${n}`)],
  ])('10 new users with %s: one 201, nine 422 on dealer_code only', async (_label, code) => {
    const n = next();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/users')
          .set(bearer(root))
          .send({
            name: `Coder ${i}`,
            email: `coder${n}-${i}@test.example`,
            password: PASSWORD,
            password_confirmation: PASSWORD,
            user_type: 'admin',
            role_id: editorRoleId,
            dealer_code: code(n, i),
          }),
      ),
    );
    expectNo5xx(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ dealer_code: [CODE_TAKEN] });
    }
    expect(await h.knex('users').whereRaw('LOWER(dealer_code) = ?', [code(n, 1).toLowerCase()])).toHaveLength(1);
  });

  it('10 dealers with the same code as multipart: one 201, nine 422 on dealer_code, one logo kept', async () => {
    const before = storedFiles('logos');
    const n = next();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => dealerForm({ name: `Coder ${i}`, email: `mcoder${n}-${i}@test.example`, dealer_code: `MSAME${n}` })),
    );
    expectNo5xx(results);
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.errors).toEqual({ dealer_code: [CODE_TAKEN] });
    expect(newFiles('logos', before)).toEqual([path.basename(created[0].body.data.dealer_details.logo_path)]);
  });

  it.each([
    ['the same name', () => 'Twin Role'],
    ['one name in different cases', (i: number) => (i % 2 ? 'twin case role' : 'TWIN CASE ROLE')],
  ])('10 new roles with %s: one 201, nine 422 on name only', async (_label, name) => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/roles')
          .set(bearer(root))
          .send({ name: name(i), permissions: ['view users'] }),
      ),
    );
    expectNo5xx(results);
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ name: [ROLE_NAME_TAKEN] });
    }
    expect(await h.knex('roles').whereRaw('LOWER(name) = ?', [name(0).toLowerCase()])).toHaveLength(1);
    // The loser's permission rows went with its transaction.
    expect(await h.knex('role_permissions').where('role_id', created[0].body.data.id)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('bulk create of 100 admins while a list is asked for', () => {
  it('hashes before its transaction opens: the list answers while the bulk is still hashing, then the bulk answers 201 with 100 users', async () => {
    const n = next();
    const items = Array.from({ length: 100 }, (_, i) => ({
      name: `Bulk ${i}`,
      email: `bulk${n}-${i}@test.example`,
      password: PASSWORD,
      password_confirmation: PASSWORD,
      user_type: 'admin',
      role_id: editorRoleId,
    }));
    hashing.started = 0;
    hashing.finished = 0;
    const underWay = new Promise<void>((resolve) => (hashing.onStart = resolve));
    const order: string[] = [];
    const bulk = h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(root))
      .send(items)
      .then((r) => (order.push('bulk'), r));
    try {
      // The list is asked once the bulk has started hashing.
      await underWay;
      const list = await h.http().get('/api/v1/roles').set(bearer(root));
      order.push('list');
      const hashedWhenListAnswered = hashing.finished;
      const done = await bulk;
      expect(list.status).toBe(200);
      expect(done.status, JSON.stringify(done.body).slice(0, 500)).toBe(201);
      expect(done.body.data).toHaveLength(100);
      expect(order).toEqual(['list', 'bulk']);
      // The list did not wait for the hashing (on SQLite a transaction holds the only connection).
      expect(hashedWhenListAnswered).toBeLessThan(100);
      expect(hashing.started).toBe(100);
      expect(await h.knex('users').where('email', 'like', `bulk${n}-%`)).toHaveLength(100);
    } finally {
      hashing.onStart = undefined;
      await bulk;
    }
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------

describe('concurrent edits of one banner', () => {
  async function banner(title: string) {
    const res = await h.http().post('/api/v1/banners').set(bearer(root)).field('title', title).attach('image', PNG_1PX, 'b.png');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.data.id as number, image: res.body.data.image as string };
  }
  const updates = (id: number) => h.knex('activity_log').where({ subject_type: 'banner', subject_id: id, action: 'updated' }).orderBy('id');

  it('10 title PATCHes at once: no 5xx, final title one of those sent, one log row per effective change', async () => {
    const { id } = await banner('Start');
    // Repeated titles, and the current one: some requests change nothing when their turn comes.
    const titles = ['Start', 'One', 'Two', 'One', 'Three', 'Two', 'Four', 'One', 'Five', 'Five'];
    const results = await Promise.all(titles.map((title) => h.http().patch(`/api/v1/banners/${id}`).set(bearer(root)).send({ title })));
    expectNo5xx(results);
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const final = (await h.knex('banners').where('id', id).first()).title;
    expect(titles).toContain(final);

    const log = await updates(id);
    const titleOf = (json: string) => JSON.parse(json).title as string;
    // Each row is a real change, and each read what the one before it wrote.
    for (const row of log) expect(titleOf(row.before)).not.toBe(titleOf(row.after));
    expect(titleOf(log[0].before)).toBe('Start');
    for (let i = 1; i < log.length; i++) expect(titleOf(log[i].before)).toBe(titleOf(log[i - 1].after));
    expect(titleOf(log[log.length - 1].after)).toBe(final);
    // Every title other than the starting one was applied at least once, and no title more often than it was sent.
    const applied = log.map((row) => titleOf(row.after));
    for (const t of new Set(titles)) if (t !== 'Start') expect(applied).toContain(t);
    for (const t of new Set(applied)) expect(applied.filter((x) => x === t).length).toBeLessThanOrEqual(titles.filter((x) => x === t).length);
    expect(log.length).toBeLessThanOrEqual(10);
  });

  it('6 image replacements at once leave one file: the one the database names', async () => {
    const before = storedFiles('banners');
    const { id, image } = await banner('Pictured');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        h
          .http()
          .patch(`/api/v1/banners/${id}`)
          .set(bearer(root))
          .field('title', `Pictured ${i}`)
          .attach('image', i % 2 ? PNG_1PX : GIF_1PX, 'i.png'),
      ),
    );
    expectNo5xx(results);
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    const stored = (await h.knex('banners').where('id', id).first()).image_path as string;
    expect(stored).not.toBe(image);
    expect(newFiles('banners', before)).toEqual([path.basename(stored)]);
    const log = await updates(id);
    expect(log).toHaveLength(6);
    expect(JSON.parse(log[0].before).image_path).toBe(image);
    for (let i = 1; i < log.length; i++) expect(JSON.parse(log[i].before).image_path).toBe(JSON.parse(log[i - 1].after).image_path);
  });
});

// ---------------------------------------------------------------------------------------------

describe('a dealer deleted for good while banners are written for it', () => {
  const DEALER_NOT_FOUND = 'The selected dealer does not exist.';
  const ROUNDS = 5;

  async function doomedDealer() {
    const n = next();
    return h.insertUser({ name: `Doomed ${n}`, email: `doomed${n}@test.example`, user_type: 'dealer', dealer_code: `DOOM${n}` }, 'dealer');
  }
  const createFor = (dealerId: number, i: number) =>
    h
      .http()
      .post('/api/v1/banners')
      .set(bearer(root))
      .field('title', `Doomed banner ${i}`)
      .field('dealer_id', String(dealerId))
      .attach('image', PNG_1PX, 'd.png');
  const forceDelete = (dealerId: number) => h.http().delete(`/api/v1/users/${dealerId}/force`).set(bearer(root));

  it('new banners either commit first (and go with the dealer) or are refused: no 5xx, no row, no file left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dealer = await doomedDealer();
      const before = storedFiles('banners');
      const results = await Promise.all([
        ...Array.from({ length: 3 }, (_, i) => createFor(dealer, i)),
        forceDelete(dealer),
        ...Array.from({ length: 3 }, (_, i) => createFor(dealer, i + 3)),
      ]);
      expectNo5xx(results);
      expect(results[3].status, describeAll(results).join('\n')).toBe(200);
      for (const r of [...results.slice(0, 3), ...results.slice(4)]) {
        if (r.status === 201) continue;
        expect(r.status, describeAll(results).join('\n')).toBe(422);
        expect(r.body.errors).toEqual({ dealer_id: [DEALER_NOT_FOUND] });
      }
      expect(await h.knex('users').where('id', dealer).first()).toBeUndefined();
      expect(await h.knex('banners').where('dealer_id', dealer)).toEqual([]);
      expect(newFiles('banners', before)).toEqual([]);
    }
  });

  it('image replacements of its banner racing the delete leave no file behind', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dealer = await doomedDealer();
      const before = storedFiles('banners');
      const made = await createFor(dealer, 0);
      expect(made.status).toBe(201);
      const id = made.body.data.id as number;
      const results = await Promise.all([
        ...Array.from({ length: 3 }, (_, i) =>
          h
            .http()
            .patch(`/api/v1/banners/${id}`)
            .set(bearer(root))
            .attach('image', i % 2 ? PNG_1PX : GIF_1PX, 'r.png'),
        ),
        forceDelete(dealer),
        ...Array.from({ length: 3 }, (_, i) =>
          h.http().patch(`/api/v1/banners/${id}`).set(bearer(root)).field('title', `Late ${i}`).attach('image', PNG_1PX, 'r.png'),
        ),
      ]);
      expectNo5xx(results);
      expect(results[3].status, describeAll(results).join('\n')).toBe(200);
      // A replacement either committed before the delete or found the banner gone.
      for (const r of [...results.slice(0, 3), ...results.slice(4)]) expect([200, 404]).toContain(r.status);
      expect(await h.knex('banners').where('id', id).first()).toBeUndefined();
      expect(newFiles('banners', before)).toEqual([]);
    }
  });

  // MySQL only: on SQLite the held transaction keeps the only connection, and writers never overlap.
  it.runIf(TEST_DATABASE === 'mysql')('a replacement committed while the delete is under way: its new image goes with the banner', async () => {
    const dealer = await doomedDealer();
    const before = storedFiles('banners');
    const made = await createFor(dealer, 0);
    expect(made.status).toBe(201);
    const id = made.body.data.id as number;

    let reached!: () => void;
    const holding = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    activityHold.hold = { subjectId: id, reached, released };
    // The replacement locks the banner, writes its new image path, and waits before committing. It
    // is made by an editor that is no super admin: the delete locks every active super admin's row
    // (last-super-admin rule), which the editor's log row (actor_id -> users) would otherwise wait for.
    const editor = await h.userWith(['view banners', 'update banners']);
    const patch = h
      .http()
      .patch(`/api/v1/banners/${id}`)
      .set(bearer(editor.token))
      .attach('image', GIF_1PX, 'new.png')
      .then((r) => r);
    await holding;
    // It commits as soon as the delete reads the dealer's banners: a read that does not wait for
    // the banner's lock sees the old image, and the new one would stay on disk.
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
      if (/banners/.test(q.sql) && /dealer_id/.test(q.sql) && (q.bindings ?? []).map(Number).includes(dealer)) release();
    };
    h.knex.on('query', onQuery);
    let results: Response[];
    try {
      results = await Promise.all([patch, forceDelete(dealer)]);
    } finally {
      h.knex.removeListener('query', onQuery);
      release();
      activityHold.hold = undefined;
    }
    expectNo5xx(results);
    // The replacement committed; its answer re-reads the banner after commit, by when the delete may have removed it.
    expect([200, 404], describeAll(results).join('\n')).toContain(results[0].status);
    expect(results[1].status).toBe(200);
    expect(await h.knex('activity_log').where({ subject_type: 'banner', subject_id: id, action: 'updated' })).toHaveLength(1);
    expect(await h.knex('banners').where('id', id).first()).toBeUndefined();
    expect(newFiles('banners', before)).toEqual([]);
  });
});
