import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PASSWORD, PNG_1PX, GIF_1PX, TEST_DATABASE, type Harness } from './harness.ts';
import { unitOfWork } from '../../api/src/database/unit-of-work.ts';
import { assertNotLastSuperAdmin } from '../../api/src/users/user-rules.ts';

/**
 * What two people (or processes) can do at once, done at once: requests fired together with
 * Promise.all against the real app on SQLite and MariaDB. Each case ends with no 5xx and its
 * invariant intact.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

const no5xx = (responses: { status: number; body: unknown }[]) =>
  expect(responses.filter((r) => r.status >= 500).map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);

async function superAdmin(name: string) {
  const email = `${name}@test.example`;
  const id = await h.insertUser({ name, email }, 'super-admin');
  return { id, token: await h.login(email) };
}

const activeSuperAdmins = async () =>
  Number(
    (
      await h
        .knex('users')
        .join('user_roles', 'user_roles.user_id', 'users.id')
        .join('roles', 'roles.id', 'user_roles.role_id')
        .where({ 'roles.name': 'super-admin', 'users.status': 'active' })
        .whereNull('users.deleted_at')
        .count({ n: '*' })
        .first()
    )?.n ?? 0,
  );

describe('the last active super admin, when two remove each other at the same moment', () => {
  it.each(['deactivate', 'trash'] as const)('%s: one of them always remains', async (how) => {
    // Only these two are super admins: the harness's root becomes a plain admin first.
    const rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
    for (let round = 0; round < 3; round++) {
      const a = await superAdmin(`sa-${how}-${round}-a`);
      const b = await superAdmin(`sa-${how}-${round}-b`);
      await h
        .knex('users')
        .whereNot('id', a.id)
        .whereNot('id', b.id)
        .whereIn('id', h.knex('user_roles').join('roles', 'roles.id', 'user_roles.role_id').where('roles.name', 'super-admin').select('user_id'))
        .update({ status: 'inactive' });
      expect(await activeSuperAdmins()).toBe(2);
      const act = (actor: { token: string }, target: { id: number }) =>
        how === 'deactivate'
          ? h.http().patch(`/api/v1/users/${target.id}`).set(bearer(actor.token)).send({ status: 'inactive' })
          : h.http().delete(`/api/v1/users/${target.id}`).set(bearer(actor.token));
      const results = await Promise.all([act(a, b), act(b, a)]);
      no5xx(results);
      expect(await activeSuperAdmins()).toBeGreaterThanOrEqual(1);
      const refused = results.filter((r) => r.status === 403);
      // Both may not win; a refusal names the rule (a revoked session is a 401 for the one removed first).
      for (const r of refused) expect(r.body.message).toBe('The last active super admin cannot be deactivated, deleted or given another role.');
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    }
    await h.knex('users').where('id', rootId).update({ status: 'active' });
  });
});

describe.runIf(TEST_DATABASE === 'mysql')('the last-super-admin rule inside two overlapping transactions (MariaDB)', () => {
  it('lets exactly one of two crossed deactivations commit, whatever the timing', async () => {
    const a = await superAdmin('overlap-a');
    const b = await superAdmin('overlap-b');
    await h.knex('users').whereNotIn('id', [a.id, b.id]).update({ status: 'inactive' });
    // Both transactions hold their target's row before either counts: the worst interleaving.
    let arrived = 0;
    let release!: () => void;
    const bothLocked = new Promise<void>((r) => (release = r));
    const deactivate = (target: number) =>
      unitOfWork(async (trx) => {
        await trx('users').where('id', target).forUpdate().first('id');
        if (++arrived === 2) release();
        await bothLocked;
        await assertNotLastSuperAdmin(trx, [target]);
        await trx('users').where('id', target).update({ status: 'inactive' });
      });
    const outcomes = await Promise.allSettled([deactivate(b.id), deactivate(a.id)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as { status?: number }).status).toBe(403);
    expect(await activeSuperAdmins()).toBe(1);
    await h.knex('users').update({ status: 'active' });
  });
});

describe('20 simultaneous permission assignments on one role', () => {
  it('never fails with a 5xx and ends with exactly one of the requested sets', async () => {
    const catalogue: string[] = await h.knex('permissions').orderBy('id').pluck('name');
    const roleId = await h.createRole('contested');
    const sets = Array.from({ length: 20 }, (_, i) => catalogue.filter((_p, j) => (j + i) % 3 === 0).slice(0, 5 + i));
    const results = await Promise.all(
      sets.map((permissions) => h.http().post(`/api/v1/roles/${roleId}/assign-permissions`).set(bearer(root)).send({ permissions })),
    );
    no5xx(results);
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const final: string[] = await h
      .knex('role_permissions')
      .join('permissions', 'permissions.id', 'role_permissions.permission_id')
      .where('role_id', roleId)
      .orderBy('permissions.id')
      .pluck('permissions.name');
    expect(sets.map((s) => JSON.stringify([...s].sort())).includes(JSON.stringify([...final].sort()))).toBe(true);
  });
});

describe('parallel logo uploads to one dealer', () => {
  const logos = () => {
    const dir = path.join(h.dataDir, 'storage', 'logos');
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  it('leave exactly one file on disk: the one the database names', async () => {
    const create = h.http().post('/api/v1/users').set(bearer(root));
    for (const [k, v] of Object.entries({
      name: 'Racer',
      email: 'racer@test.example',
      password: PASSWORD,
      password_confirmation: PASSWORD,
      user_type: 'dealer',
      dealer_code: 'RACER',
    }))
      create.field(k, v);
    const dealer = await create.attach('dealer_logo', PNG_1PX, 'a.png');
    expect(dealer.status).toBe(201);
    const id = dealer.body.data.id as number;
    const before = new Set(logos());

    const uploads = [
      ...Array.from({ length: 6 }, (_, i) =>
        h
          .http()
          .post(`/api/v1/users/${id}/dealer-logo`)
          .set(bearer(root))
          .attach('logo', i % 2 ? PNG_1PX : GIF_1PX, `l${i}.png`),
      ),
      ...Array.from({ length: 3 }, () =>
        h.http().patch(`/api/v1/users/${id}`).set(bearer(root)).field('company_name', 'Racing Co').attach('dealer_logo', PNG_1PX, 'p.png'),
      ),
    ];
    const results = await Promise.all(uploads);
    no5xx(results);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);

    const stored = (await h.knex('dealer_details').where('user_id', id).first()).logo_path as string;
    const own = logos().filter((f) => !before.has(f) || stored.endsWith(f));
    expect(own).toEqual([path.basename(stored)]);
    expect(fs.existsSync(path.join(h.dataDir, stored.replace('/storage/', 'storage/')))).toBe(true);
  });

  it('parallel profile-picture uploads leave exactly one avatar: the one the database names', async () => {
    const me = await h.userWith([]);
    const avatars = () => {
      const dir = path.join(h.dataDir, 'storage', 'avatars');
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    };
    const before = new Set(avatars());
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h
          .http()
          .post('/api/v1/auth/profile-picture')
          .set(bearer(me.token))
          .attach('profile_image', i % 2 ? PNG_1PX : GIF_1PX, `a${i}.png`),
      ),
    );
    no5xx(results);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const stored = (await h.knex('users').where('id', me.id).first()).profile_image as string;
    expect(avatars().filter((f) => !before.has(f))).toEqual([path.basename(stored)]);
  });

  it('a write that fails validation leaves no file behind', async () => {
    const before = logos().length;
    const bad = h.http().post('/api/v1/users').set(bearer(root));
    for (const [k, v] of Object.entries({
      name: 'Bad',
      email: 'not-an-email',
      password: PASSWORD,
      password_confirmation: PASSWORD,
      user_type: 'dealer',
      dealer_code: 'BADONE',
    }))
      bad.field(k, v);
    expect((await bad.attach('dealer_logo', PNG_1PX, 'x.png')).status).toBe(422);
    const taken = h.http().post('/api/v1/users').set(bearer(root));
    for (const [k, v] of Object.entries({
      name: 'Taken',
      email: 'racer@test.example',
      password: PASSWORD,
      password_confirmation: PASSWORD,
      user_type: 'dealer',
      dealer_code: 'OTHER1',
    }))
      taken.field(k, v);
    expect((await taken.attach('dealer_logo', PNG_1PX, 'x.png')).status).toBe(422);
    expect(logos().length).toBe(before);
  });
});

describe('unique-key races report the right field', () => {
  const dealerJson = (i: number, over: Record<string, unknown>) => ({
    name: `U${i}`,
    password: PASSWORD,
    password_confirmation: PASSWORD,
    user_type: 'admin',
    role_id: 1,
    ...over,
  });

  it('the same email ten times at once: one 201, the rest 422 on email', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/users')
          .set(bearer(root))
          .send(dealerJson(i, { email: 'same@test.example', dealer_code: `CODE${i}` })),
      ),
    );
    no5xx(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.errors).toEqual({ email: ['The email has already been taken.'] });
  });

  it('the same dealer code ten times at once: one 201, the rest 422 on dealer_code', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/users')
          .set(bearer(root))
          .send(dealerJson(i, { email: `code${i}@test.example`, dealer_code: 'SAMECODE' })),
      ),
    );
    no5xx(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.errors).toEqual({ dealer_code: ['The dealer code has already been taken.'] });
  });

  it('the same role name ten times at once: one 201, the rest 422 on name', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => h.http().post('/api/v1/roles').set(bearer(root)).send({ name: 'Twin Role' })));
    no5xx(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.errors).toEqual({ name: ['The name has already been taken.'] });
  });
});

// Bulk create hashing outside its transaction: tests/api/concurrency.test.ts (signalled, no sleep).

describe('ten edits of one banner at once', () => {
  it('end with one of the titles sent, no 5xx, and a log row per effective change', async () => {
    const made = await h.http().post('/api/v1/banners').set(bearer(root)).field('title', 'Start').attach('image', PNG_1PX, 'b.png');
    expect(made.status).toBe(201);
    const id = made.body.data.id as number;
    const titles = Array.from({ length: 10 }, (_, i) => `Title ${i}`);
    const results = await Promise.all(titles.map((title) => h.http().patch(`/api/v1/banners/${id}`).set(bearer(root)).send({ title })));
    no5xx(results);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = (await h.knex('banners').where('id', id).first()).title;
    expect(titles).toContain(final);
    const log = await h.knex('activity_log').where({ subject_type: 'banner', subject_id: id, action: 'updated' }).orderBy('id');
    expect(log).toHaveLength(10);
    // Serialised: each change's "before" is the previous change's "after".
    for (let i = 1; i < log.length; i++) expect(JSON.parse(log[i].before).title).toBe(JSON.parse(log[i - 1].after).title);
    expect(JSON.parse(log[log.length - 1].after).title).toBe(final);
  });
});

describe('the catalogue at once', () => {
  it('ten operators with one code: one 201, the rest 422 on code', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .http()
          .post('/api/v1/internet-providers')
          .set(bearer(root))
          .send({ name: `Twin ${i}`, code: 'TWINCODE' }),
      ),
    );
    no5xx(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.errors).toEqual({ code: ['The code has already been taken.'] });
  });

  it('price and cost changes of one bundle at once never leave it selling below cost', async () => {
    const provider = await h.http().post('/api/v1/internet-providers').set(bearer(root)).send({ name: 'Race Op', code: 'RACEOP' });
    const category = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: provider.body.data.id, name: 'Daily' });
    const bundle = await h
      .http()
      .post('/api/v1/bundles')
      .set(bearer(root))
      .send({ category_id: category.body.data.id, name: '1 GB', validity_days: 1, cost_price: '1.00', selling_price: '1.50' });
    const id = bundle.body.data.id as number;
    // Each change alone is valid against the stored row; together some pairs would undercut.
    const changes = [
      ...Array.from({ length: 5 }, (_, i) => ({ cost_price: `${1.2 + i * 0.05}` })),
      ...Array.from({ length: 5 }, (_, i) => ({ selling_price: `${1.1 + i * 0.05}` })),
    ];
    const results = await Promise.all(changes.map((body) => h.http().patch(`/api/v1/bundles/${id}`).set(bearer(root)).send(body)));
    no5xx(results);
    for (const r of results) expect([200, 422]).toContain(r.status);
    const row = await h.knex('bundles').where('id', id).first();
    expect(Number(row.selling_price)).toBeGreaterThanOrEqual(Number(row.cost_price));
  });
});

describe('the dealer catalogue and settings at once', () => {
  async function shopWithBundles(code: string) {
    const email = `${code.toLowerCase()}@test.example`;
    const id = await h.insertUser({ name: `Shop ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
    const token = await h.login(email);
    const provider = await h
      .http()
      .post('/api/v1/internet-providers')
      .set(bearer(root))
      .send({ name: `Op ${code}`, code: `OP${code}` });
    const category = await h.http().post('/api/v1/internet-categories').set(bearer(root)).send({ provider_id: provider.body.data.id, name: 'Daily' });
    const bundles: number[] = [];
    for (let i = 0; i < 5; i++) {
      const b = await h
        .http()
        .post('/api/v1/bundles')
        .set(bearer(root))
        .send({ category_id: category.body.data.id, name: `B${i}`, validity_days: 1, cost_price: '1.00', selling_price: '1.20' });
      bundles.push(b.body.data.id);
    }
    return { id, token, categoryId: category.body.data.id as number, bundles };
  }

  it('bulk switches, single switches and prices of one dealer at once: no 5xx, one row per bundle', async () => {
    const shop = await shopWithBundles('RACESHOP');
    const calls = [
      ...Array.from({ length: 4 }, (_, i) =>
        h
          .http()
          .post('/api/v1/dealer-bundles/bulk')
          .set(bearer(shop.token))
          .send({ category_id: shop.categoryId, status: i % 2 ? 'active' : 'inactive', profit: `0.${i + 1}0` }),
      ),
      ...shop.bundles.map((b, i) =>
        h
          .http()
          .patch(`/api/v1/dealer-bundles/${b}`)
          .set(bearer(shop.token))
          .send({ status: 'active', selling_price: `1.${50 + i}` }),
      ),
      // An admin acting for the same dealer at the same time.
      ...shop.bundles.map((b) => h.http().patch(`/api/v1/dealer-bundles/${b}`).set(bearer(root)).send({ dealer_id: shop.id, status: 'inactive' })),
    ];
    const results = await Promise.all(calls);
    no5xx(results);
    for (const r of results) expect(r.status).toBe(200);
    const rows = await h.knex('dealer_bundles').where({ dealer_id: shop.id });
    expect(rows).toHaveLength(shop.bundles.length);
    // Whatever won, every price is at or above the cost.
    for (const r of rows) if (r.selling_price !== null) expect(Number(r.selling_price)).toBeGreaterThanOrEqual(100);
  });

  it('a cost raised while dealers set prices never puts a below-cost bundle on a storefront', async () => {
    const shop = await shopWithBundles('COSTRACE');
    const target = shop.bundles[0];
    await h.http().patch(`/api/v1/dealer-bundles/${target}`).set(bearer(shop.token)).send({ status: 'active', selling_price: '1.10' });
    const results = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) =>
        h
          .http()
          .patch(`/api/v1/dealer-bundles/${target}`)
          .set(bearer(shop.token))
          .send({ selling_price: `1.${10 + i}` }),
      ),
      h.http().patch(`/api/v1/bundles/${target}`).set(bearer(root)).send({ cost_price: '1.18', selling_price: '1.30' }),
    ]);
    no5xx(results);
    const bundle = await h.knex('bundles').where('id', target).first();
    const own = await h.knex('dealer_bundles').where({ dealer_id: shop.id, bundle_id: target }).first();
    const shown = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', 'COSTRACE');
    const offered = shown.body.data.providers.flatMap((p: { categories: { bundles: { id: number; price: string }[] }[] }) =>
      p.categories.flatMap((c) => c.bundles),
    );
    const entry = offered.find((b: { id: number }) => b.id === target);
    if (Number(own.selling_price) < Number(bundle.cost_price)) expect(entry).toBeUndefined();
    else expect(Number(entry.price) * 100).toBeGreaterThanOrEqual(Number(bundle.cost_price));
  });

  it('two areas made each other’s parent at once: no 5xx and no loop', async () => {
    const a = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Loop A', type: 'region' });
    const b = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Loop B', type: 'region' });
    const results = await Promise.all([
      h.http().patch(`/api/v1/areas/${a.body.data.id}`).set(bearer(root)).send({ parent_id: b.body.data.id }),
      h.http().patch(`/api/v1/areas/${b.body.data.id}`).set(bearer(root)).send({ parent_id: a.body.data.id }),
    ]);
    no5xx(results);
    const rows = await h.knex('areas').whereIn('id', [a.body.data.id, b.body.data.id]);
    const parents = new Map(rows.map((r: { id: number; parent_id: number | null }) => [r.id, r.parent_id]));
    expect(parents.get(a.body.data.id) === b.body.data.id && parents.get(b.body.data.id) === a.body.data.id).toBe(false);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
  });

  it('ten company-settings saves at once end with one of them, whole', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `Company ${i}`);
    const results = await Promise.all(
      names.map((n, i) =>
        h
          .http()
          .put('/api/v1/settings/company')
          .set(bearer(root))
          .send({ company_name: n, currency: 'USD', timezone: 'Africa/Mogadishu', footer_text: `Footer ${i}` }),
      ),
    );
    no5xx(results);
    for (const r of results) expect(r.status).toBe(200);
    const saved = (await h.http().get('/api/v1/settings/company').set(bearer(root))).body.data;
    const i = names.indexOf(saved.company_name);
    expect(i).toBeGreaterThanOrEqual(0);
    expect(saved.footer_text).toBe(`Footer ${i}`);
    expect(await h.knex('settings').where({ group: 'company', key: 'company_name' })).toHaveLength(1);
  });
});
