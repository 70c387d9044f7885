import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PASSWORD, type Harness, bearer, VALIDATION, NOT_FOUND } from '../../../tests/api/harness.ts';

/**
 * Users: soft delete, the trash (list, show), restore, force delete, and every bulk form
 * (bulk status, bulk delete / restore / force delete, bulk create), all or nothing.
 */
let h: Harness;
let admin: string;
let rootId: number;
let editorRoleId: number;
let seq = 0;

/** A plain admin with the editor role, inserted directly (no password hashing per user). */
async function plainUser(name = 'Plain'): Promise<number> {
  seq += 1;
  return h.insertUser({ name: `${name} ${seq}`, email: `plain${seq}@test.example` }, 'editor');
}

const activity = (subjectId: number, action: string) => h.knex('activity_log').where({ subject_type: 'user', subject_id: subjectId, action });

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
  const role = await h
    .http()
    .post('/api/v1/roles')
    .set(bearer(admin))
    .send({ name: 'editor', permissions: ['view users'] });
  editorRoleId = role.body.data.id;
});
afterAll(() => h.close());

describe('soft delete, trash, restore and force delete of one user', () => {
  let id: number;
  let hid: string;
  let token: string;

  it('DELETE /users/{id} moves the user to the trash and signs it out', async () => {
    id = await plainUser('Trashable');
    token = await h.login((await h.knex('users').where({ id }).first()).email);
    const res = await h.http().delete(`/api/v1/users/${id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'User moved to the trash', data: null });
    const row = await h.knex('users').where({ id }).first();
    expect(row.deleted_at).not.toBeNull();
    expect((await h.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(401);
    const log = await activity(id, 'deleted');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    expect(JSON.parse(log[0].before)).toMatchObject({ name: row.name, email: row.email });
  });

  it('hides it from the list and from show, and a second delete is 404', async () => {
    const list = await h.http().get(`/api/v1/users?ids=${id}`).set(bearer(admin));
    expect(list.body.data).toEqual([]);
    const show = await h.http().get(`/api/v1/users/${id}`).set(bearer(admin));
    expect(show.status).toBe(404);
    expect(show.body).toEqual(NOT_FOUND);
    const again = await h.http().delete(`/api/v1/users/${id}`).set(bearer(admin));
    expect(again.status).toBe(404);
  });

  it('GET /users/trashed/list lists it with pagination, and GET /users/{id}/trashed shows it', async () => {
    const list = await h.http().get('/api/v1/users/trashed/list').set(bearer(admin));
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { id: number }) => u.id)).toEqual([id]);
    expect(list.body.data[0].deleted_at).toMatch(/Z$/);
    expect(list.body.meta).toEqual({ current_page: 1, per_page: 15, total: 1, last_page: 1 });
    hid = list.body.data[0].h_id;
    const show = await h.http().get(`/api/v1/users/${hid}/trashed`).set(bearer(admin));
    expect(show.status).toBe(200);
    expect(show.body.data).toMatchObject({ id, roles: [{ id: editorRoleId, name: 'editor' }] });
    const active = await h.http().get(`/api/v1/users/${rootId}/trashed`).set(bearer(admin));
    expect(active.status).toBe(404);
  });

  it('reading the trash needs "view trash items" as well as "view users"', async () => {
    const viewer = await h.userWith(['view users']);
    const list = await h.http().get('/api/v1/users/trashed/list').set(bearer(viewer.token));
    expect(list.status).toBe(403);
    expect(list.body.message).toBe('You do not have permission to perform this action.');
    const show = await h.http().get(`/api/v1/users/${id}/trashed`).set(bearer(viewer.token));
    expect(show.status).toBe(403);
    const both = await h.userWith(['view users', 'view trash items']);
    const ok = await h.http().get('/api/v1/users/trashed/list').set(bearer(both.token));
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((u: { id: number }) => u.id)).toEqual([id]);
  });

  it('POST /users/{id}/restore brings it back', async () => {
    const res = await h.http().post(`/api/v1/users/${hid}/restore`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('User restored successfully');
    expect(res.body.data).toMatchObject({ id, deleted_at: null });
    expect((await h.http().get(`/api/v1/users/${id}`).set(bearer(admin))).status).toBe(200);
    const again = await h.http().post(`/api/v1/users/${id}/restore`).set(bearer(admin));
    expect(again.status).toBe(404);
    const log = await activity(id, 'restored');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
  });

  it('DELETE /users/{id}/force removes the row, from the trash or not', async () => {
    const res = await h.http().delete(`/api/v1/users/${id}/force`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'User deleted permanently', data: null });
    expect(await h.knex('users').where({ id }).first()).toBeUndefined();
    expect(await h.knex('user_roles').where({ user_id: id })).toEqual([]);
    const log = await activity(id, 'force_deleted');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    const again = await h.http().delete(`/api/v1/users/${id}/force`).set(bearer(admin));
    expect(again.status).toBe(404);
    expect(again.body).toEqual(NOT_FOUND);
  });

  it('force delete also works on a trashed user, and removes its untouched wallet', async () => {
    const dealer = await h.insertUser({ name: 'Wallet Dealer', email: 'wd@test.example', user_type: 'dealer', dealer_code: 'WD1' }, 'dealer');
    const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
    await h.knex('wallets').insert({ dealer_id: dealer, balance: 0, currency: 'USD', created_at: now, updated_at: now });
    expect((await h.http().delete(`/api/v1/users/${dealer}`).set(bearer(admin))).status).toBe(200);
    const res = await h.http().delete(`/api/v1/users/${dealer}/force`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(await h.knex('users').where({ id: dealer }).first()).toBeUndefined();
    expect(await h.knex('wallets').where({ dealer_id: dealer }).first()).toBeUndefined();
  });
});

describe('force delete keeps financial records', () => {
  it('answers 409 for a dealer whose wallet has transactions, alone or in a bulk, and deletes nothing', async () => {
    const dealer = await h.insertUser({ name: 'Ledger Dealer', email: 'ledger@test.example', user_type: 'dealer', dealer_code: 'LEDGER' }, 'dealer');
    const other = await plainUser();
    const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
    await h.knex('wallets').insert({ dealer_id: dealer, balance: 500, currency: 'USD', created_at: now, updated_at: now });
    const wallet = await h.knex('wallets').where({ dealer_id: dealer }).first();
    await h
      .knex('wallet_transactions')
      .insert({ wallet_id: wallet.id, type: 'credit', kind: 'top_up', amount: 500, balance_before: 0, balance_after: 500, created_at: now });
    const message = 'This dealer has wallet transactions or recharges and cannot be deleted permanently. Move it to the trash instead.';
    const one = await h.http().delete(`/api/v1/users/${dealer}/force`).set(bearer(admin));
    expect(one.status).toBe(409);
    expect(one.body).toEqual({ success: false, code: 'users.has_financial_records', message });
    const bulk = await h
      .http()
      .delete('/api/v1/users/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [other, dealer] });
    expect(bulk.status).toBe(409);
    expect(bulk.body).toEqual({ success: false, code: 'users.has_financial_records', message });
    expect(await h.knex('users').whereIn('id', [dealer, other])).toHaveLength(2);
    expect(await h.knex('wallets').where({ dealer_id: dealer })).toHaveLength(1);
    // The trash is still open to it.
    const trash = await h.http().delete(`/api/v1/users/${dealer}`).set(bearer(admin));
    expect(trash.status).toBe(200);
  });

  it("records the actor's address and user agent in the activity log", async () => {
    const id = await plainUser();
    const res = await h.http().delete(`/api/v1/users/${id}`).set(bearer(admin)).set('User-Agent', 'users-bulk-test/1.0');
    expect(res.status).toBe(200);
    const [log] = await activity(id, 'deleted');
    expect(log).toMatchObject({ actor_id: rootId, user_agent: 'users-bulk-test/1.0' });
    expect(log.ip).toMatch(/127\.0\.0\.1|::1/);
  });
});

describe('PATCH /users/bulk/status', () => {
  it('sets the status of several users, logs each change and signs deactivated users out', async () => {
    const a = await plainUser();
    const b = await plainUser();
    const tokenA = await h.login((await h.knex('users').where({ id: a }).first()).email);
    const res = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(admin))
      .send({ ids: [a, b], status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Status updated for 2 users', data: { affected: 2 } });
    const rows = await h.knex('users').whereIn('id', [a, b]);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['inactive', 'inactive']);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(tokenA))).status).toBe(401);
    for (const id of [a, b]) {
      const log = await activity(id, 'status_changed');
      expect(log).toHaveLength(1);
      expect(log[0].actor_id).toBe(rootId);
      expect(JSON.parse(log[0].after)).toEqual({ status: 'inactive' });
    }
    const back = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(admin))
      .send({ ids: [a], status: 'active' });
    expect(back.status).toBe(200);
    expect((await h.knex('users').where({ id: a }).first()).status).toBe('active');
  });

  it('validates ids and status, and is all or nothing for unknown ids', async () => {
    const a = await plainUser();
    const bad = await h.http().patch('/api/v1/users/bulk/status').set(bearer(admin)).send({ ids: [], status: 'paused' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { ids: ['Select at least one record'], status: ['Status must be active or inactive'] },
    });
    const unknown = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(admin))
      .send({ ids: [a, 999999], status: 'inactive' });
    expect(unknown.status).toBe(404);
    expect((await h.knex('users').where({ id: a }).first()).status).toBe('active');
  });

  it('needs "change user status" and refuses the caller\'s own account', async () => {
    const a = await plainUser();
    const viewer = await h.userWith(['view users', 'update users']);
    const res = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(viewer.token))
      .send({ ids: [a], status: 'inactive' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('You do not have permission to perform this action.');
    const self = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(admin))
      .send({ ids: [a, rootId], status: 'inactive' });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ success: false, code: 'users.cannot_change_own_access', message: 'You cannot change your own status, type or role.' });
    expect((await h.knex('users').where({ id: a }).first()).status).toBe('active');
  });
});

describe('bulk delete, restore and force delete', () => {
  it('DELETE /users/bulk/delete trashes all, or none when one id is unknown', async () => {
    const a = await plainUser();
    const b = await plainUser();
    const none = await h
      .http()
      .delete('/api/v1/users/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [a, b, 999999] });
    expect(none.status).toBe(404);
    expect(await h.knex('users').whereIn('id', [a, b]).whereNotNull('deleted_at')).toHaveLength(0);
    const empty = await h.http().delete('/api/v1/users/bulk/delete').set(bearer(admin)).send({ ids: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ ids: ['Select at least one record'] });

    const hidB = (await h.http().get(`/api/v1/users/${b}`).set(bearer(admin))).body.data.h_id;
    const res = await h
      .http()
      .delete('/api/v1/users/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [a, hidB] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: '2 users moved to the trash', data: { affected: 2 } });
    const trash = await h.http().get(`/api/v1/users/trashed/list?ids=${a},${b}&sort=id&order=asc`).set(bearer(admin));
    expect(trash.body.data.map((u: { id: number }) => u.id)).toEqual([a, b]);
    for (const id of [a, b]) expect(await activity(id, 'deleted')).toHaveLength(1);

    // POST /users/bulk/restore
    const restore = await h
      .http()
      .post('/api/v1/users/bulk/restore')
      .set(bearer(admin))
      .send({ ids: [a, b] });
    expect(restore.status).toBe(200);
    expect(restore.body).toEqual({ success: true, message: '2 users restored successfully', data: { affected: 2 } });
    expect(await h.knex('users').whereIn('id', [a, b]).whereNull('deleted_at')).toHaveLength(2);
    for (const id of [a, b]) expect(await activity(id, 'restored')).toHaveLength(1);
    const notTrashed = await h
      .http()
      .post('/api/v1/users/bulk/restore')
      .set(bearer(admin))
      .send({ ids: [a] });
    expect(notTrashed.status).toBe(404);
  });

  it("bulk delete refuses the caller's own account and leaves every record alone", async () => {
    const a = await plainUser();
    const res = await h
      .http()
      .delete('/api/v1/users/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [a, rootId] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, code: 'users.cannot_delete_self', message: 'You cannot delete your own account.' });
    expect((await h.knex('users').where({ id: a }).first()).deleted_at).toBeNull();
  });

  it('DELETE /users/bulk/force-delete removes trashed and active users together', async () => {
    const a = await plainUser();
    const b = await plainUser();
    await h.http().delete(`/api/v1/users/${a}`).set(bearer(admin));
    const res = await h
      .http()
      .delete('/api/v1/users/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [a, b] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: '2 users deleted permanently', data: { affected: 2 } });
    expect(await h.knex('users').whereIn('id', [a, b])).toEqual([]);
    for (const id of [a, b]) expect(await activity(id, 'force_deleted')).toHaveLength(1);
    const gone = await h
      .http()
      .delete('/api/v1/users/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [a] });
    expect(gone.status).toBe(404);
  });

  it('each bulk form needs its own permission', async () => {
    const a = await plainUser();
    const caller = await h.userWith(['view users']);
    for (const [method, path] of [
      ['delete', '/api/v1/users/bulk/delete'],
      ['post', '/api/v1/users/bulk/restore'],
      ['delete', '/api/v1/users/bulk/force-delete'],
    ] as const) {
      const res = await h
        .http()
        [method](path)
        .set(bearer(caller.token))
        .send({ ids: [a] });
      expect(res.status, path).toBe(403);
      expect(res.body.message).toBe('You do not have permission to perform this action.');
    }
    expect(await h.knex('users').where({ id: a }).whereNull('deleted_at').first()).toBeTruthy();
  });
});

describe('POST /users/bulk (bulk create)', () => {
  const item = (email: string, over: Record<string, unknown> = {}) => ({
    name: `Bulk ${email}`,
    email,
    password: 'Bulk@Pass1',
    password_confirmation: 'Bulk@Pass1',
    role_id: editorRoleId,
    ...over,
  });

  it('creates every user of the array', async () => {
    const res = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send([item('bulk1@test.example'), item('bulk2@test.example', { status: 'inactive' })]);
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('2 users created successfully');
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({
      email: 'bulk1@test.example',
      status: 'active',
      user_type: 'admin',
      roles: [{ id: editorRoleId, name: 'editor' }],
    });
    expect(res.body.data[1]).toMatchObject({ email: 'bulk2@test.example', status: 'inactive' });
    for (const u of res.body.data) expect(await activity(u.id, 'created')).toHaveLength(1);
  });

  it('reports validation errors keyed by index and field, and creates none', async () => {
    const res = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send([item('bulk3@test.example'), item('not-an-email', { name: '' }), item('bulk4@test.example', { role_id: undefined })]);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { '1.email': ['Invalid email format'], '1.name': ['Name is required'], '2.role_id': ['Role is required for admin users'] },
    });
    expect(await h.knex('users').whereIn('email', ['bulk3@test.example', 'bulk4@test.example'])).toEqual([]);
  });

  it('rolls back earlier items when a later one hits a taken email (also within the batch)', async () => {
    const taken = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send([item('bulk5@test.example'), item('bulk1@test.example')]);
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ '1.email': ['The email has already been taken.'] });
    const twice = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send([item('bulk6@test.example'), item('BULK6@test.example')]);
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual({ '1.email': ['The email has already been taken.'] });
    expect(await h.knex('users').whereIn('email', ['bulk5@test.example', 'bulk6@test.example'])).toEqual([]);
  });

  it('cannot create dealers (no logo can come with an item) and needs a non-empty array', async () => {
    const dealer = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send([item('bulk7@test.example', { user_type: 'dealer', dealer_code: 'BULK7', role_id: undefined })]);
    expect(dealer.status).toBe(422);
    expect(dealer.body.errors).toEqual({ '0.dealer_logo': ['Dealer logo is required for new dealer accounts'] });
    const empty = await h.http().post('/api/v1/users/bulk').set(bearer(admin)).send([]);
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ body: ['Send a non-empty list of records.'] });
    const object = await h.http().post('/api/v1/users/bulk').set(bearer(admin)).send(item('bulk8@test.example'));
    expect(object.status).toBe(422);
    expect(object.body.errors).toEqual({ body: ['Send a non-empty list of records.'] });
    const tooMany = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(admin))
      .send(Array.from({ length: 101 }, (_, i) => item(`many${i}@test.example`)));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual({ body: ['At most 100 records can be created at once.'] });
  });

  it('needs "create users", and the created users can sign in', async () => {
    const caller = await h.userWith(['view users']);
    const res = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(caller.token))
      .send([item('bulk9@test.example')]);
    expect(res.status).toBe(403);
    expect(await h.knex('users').where({ email: 'bulk9@test.example' }).first()).toBeUndefined();
    expect(await h.login('bulk1@test.example', 'Bulk@Pass1')).toBeTruthy();
    await expect(h.login('bulk1@test.example', PASSWORD)).rejects.toThrow(/401/);
  });
});
