import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PASSWORD, type Harness, bearer, VALIDATION } from '../../../tests/api/harness.ts';

/**
 * Users through the real HTTP API: list (pagination, sort, filters, search, ids), show, create
 * as JSON with every validation message of docs/product.md section 5, translations, and update
 * (fields, status only, password and deactivation revoking sessions).
 */
let h: Harness;
let admin: string;
const NEW_PASSWORD = 'Fresh@Pass99';

let editorRoleId: number;
let dealerRoleId: number;
const ids: Record<string, number> = {};

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  editorRoleId = await h.createRole('editor', ['view users']);
  dealerRoleId = (await h.knex('roles').where({ name: 'dealer' }).first()).id;
  ids.alice = await h.insertUser({ name: 'Alice Admin', email: 'alice@test.example', phone: '252611000001' }, 'editor');
  ids.bob = await h.insertUser({ name: 'Bob Admin', email: 'bob@test.example', status: 'inactive' }, 'editor');
  ids.carol = await h.insertUser({ name: 'Carol Dealer', email: 'carol@test.example', user_type: 'dealer', dealer_code: 'CAROL1' }, 'dealer');
  ids.dave = await h.insertUser(
    { name: 'Dave Dealer', email: 'dave@test.example', user_type: 'dealer', dealer_code: 'DAVE2', phone: '252619999999' },
    'dealer',
  );
  ids.root = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
});
afterAll(() => h.close());

describe('GET /users (list)', () => {
  it('paginates with meta current_page, per_page, total and last_page', async () => {
    const res = await h.http().get('/api/v1/users?per_page=2&page=2&sort=id&order=asc').set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.meta).toEqual({ current_page: 2, per_page: 2, total: 5, last_page: 3 });
    expect(res.body.data.map((u: { id: number }) => u.id)).toEqual([ids.bob, ids.carol]);

    const last = await h.http().get('/api/v1/users?per_page=2&page=3&sort=id&order=asc').set(bearer(admin));
    expect(last.body.data.map((u: { id: number }) => u.id)).toEqual([ids.dave]);
    expect(last.body.meta.current_page).toBe(3);
  });

  it('defaults to 15 per page, takes up to 100 and refuses more by name', async () => {
    const def = await h.http().get('/api/v1/users').set(bearer(admin));
    expect(def.status).toBe(200);
    expect(def.body.meta).toEqual({ current_page: 1, per_page: 15, total: 5, last_page: 1 });
    const most = await h.http().get('/api/v1/users?per_page=100').set(bearer(admin));
    expect(most.status).toBe(200);
    expect(most.body.meta.per_page).toBe(100);
    expect(most.body.data).toHaveLength(5);
    const over = await h.http().get('/api/v1/users?per_page=1000').set(bearer(admin));
    expect(over.status).toBe(422);
    expect(Object.keys(over.body.errors)).toEqual(['per_page']);
  });

  it('sorts by an allowed field in either order', async () => {
    const asc = await h.http().get('/api/v1/users?sort=name&order=asc').set(bearer(admin));
    expect(asc.status).toBe(200);
    expect(asc.body.data.map((u: { name: string }) => u.name)).toEqual(['Alice Admin', 'Bob Admin', 'Carol Dealer', 'Dave Dealer', 'Root Admin']);
    const desc = await h.http().get('/api/v1/users?sort=email&order=desc').set(bearer(admin));
    expect(desc.body.data.map((u: { email: string }) => u.email)).toEqual([
      'root@test.example',
      'dave@test.example',
      'carol@test.example',
      'bob@test.example',
      'alice@test.example',
    ]);
  });

  it('refuses an unknown sort field or order with 422 on that parameter', async () => {
    const res = await h.http().get('/api/v1/users?sort=password').set(bearer(admin));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { sort: ['Sorting is possible by: id, name, email, phone, status, user_type, dealer_code, created_at, updated_at, last_login_at, deleted_at'] },
    });
    const order = await h.http().get('/api/v1/users?sort=name&order=sideways').set(bearer(admin));
    expect(order.status).toBe(422);
    expect(order.body.errors).toEqual({ order: ['Order must be asc or desc'] });
  });

  it('filters by user_type, status and role_id (numeric id or h_id)', async () => {
    const dealers = await h.http().get('/api/v1/users?user_type=dealer&sort=name&order=asc').set(bearer(admin));
    expect(dealers.status).toBe(200);
    expect(dealers.body.data.map((u: { email: string }) => u.email)).toEqual(['carol@test.example', 'dave@test.example']);
    expect(dealers.body.meta.total).toBe(2);

    const inactive = await h.http().get('/api/v1/users?status=inactive').set(bearer(admin));
    expect(inactive.body.data.map((u: { id: number }) => u.id)).toEqual([ids.bob]);

    const editors = await h.http().get(`/api/v1/users?role_id=${editorRoleId}&sort=name&order=asc`).set(bearer(admin));
    expect(editors.body.data.map((u: { name: string }) => u.name)).toEqual(['Alice Admin', 'Bob Admin']);

    const roleHid = (await h.http().get(`/api/v1/roles/${dealerRoleId}`).set(bearer(admin))).body.data.h_id;
    const byHid = await h.http().get(`/api/v1/users?role_id=${roleHid}&sort=name&order=asc`).set(bearer(admin));
    expect(byHid.body.data.map((u: { name: string }) => u.name)).toEqual(['Carol Dealer', 'Dave Dealer']);

    const both = await h.http().get('/api/v1/users?user_type=admin&status=active&sort=name&order=asc').set(bearer(admin));
    expect(both.body.data.map((u: { name: string }) => u.name)).toEqual(['Alice Admin', 'Root Admin']);
  });

  it('searches name, email, phone and dealer code with q, case-insensitively', async () => {
    const byName = await h.http().get('/api/v1/users?q=cAROL').set(bearer(admin));
    expect(byName.status).toBe(200);
    expect(byName.body.data.map((u: { id: number }) => u.id)).toEqual([ids.carol]);
    const byCode = await h.http().get('/api/v1/users?q=dave2').set(bearer(admin));
    expect(byCode.body.data.map((u: { id: number }) => u.id)).toEqual([ids.dave]);
    const byPhone = await h.http().get('/api/v1/users?q=611000001').set(bearer(admin));
    expect(byPhone.body.data.map((u: { id: number }) => u.id)).toEqual([ids.alice]);
    const none = await h.http().get('/api/v1/users?q=%25').set(bearer(admin));
    expect(none.body).toMatchObject({ success: true, data: [], meta: { total: 0 } });
    const viaSearch = await h.http().get('/api/v1/users/search?q=bob').set(bearer(admin));
    expect(viaSearch.status).toBe(200);
    expect(viaSearch.body.data.map((u: { id: number }) => u.id)).toEqual([ids.bob]);
  });

  it('filters by ids, as a comma list or repeated, with numeric ids or h_ids', async () => {
    const res = await h.http().get(`/api/v1/users?ids=${ids.alice},${ids.dave}&sort=id&order=asc`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { id: number }) => u.id)).toEqual([ids.alice, ids.dave]);
    const carolHid = res.body.data[0].h_id; // h_id of alice
    const repeated = await h.http().get(`/api/v1/users?ids=${carolHid}&ids=${ids.bob}&sort=id&order=asc`).set(bearer(admin));
    expect(repeated.body.data.map((u: { id: number }) => u.id)).toEqual([ids.alice, ids.bob]);
    const unknown = await h.http().get('/api/v1/users?ids=999999').set(bearer(admin));
    expect(unknown.body.data).toEqual([]);
  });

  it('presents every field of the user JSON and never the password', async () => {
    const res = await h.http().get(`/api/v1/users?ids=${ids.carol}`).set(bearer(admin));
    const u = res.body.data[0];
    expect(Object.keys(u).sort()).toEqual(
      [
        'address',
        'created_at',
        'dealer_code',
        'dealer_details',
        'deleted_at',
        'email',
        'email_verified_at',
        'h_id',
        'id',
        'last_login_at',
        'name',
        'permissions',
        'phone',
        'profile_image',
        'roles',
        'status',
        'two_factor_enabled',
        'two_factor_required',
        'updated_at',
        'user_type',
      ].sort(),
    );
    expect(u).toMatchObject({
      id: ids.carol,
      name: 'Carol Dealer',
      dealer_code: 'CAROL1',
      user_type: 'dealer',
      status: 'active',
      roles: [{ id: dealerRoleId, name: 'dealer' }],
      two_factor_enabled: false,
      two_factor_required: false,
    });
    expect(u.permissions).toContainEqual({ name: 'view own wallet' });
    expect(u.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(JSON.stringify(res.body)).not.toContain('argon2');
  });
});

describe('roles in the trash', () => {
  it('a user whose only role is in the trash shows no role and no permissions, and signs in without rights', async () => {
    const roleId = await h.createRole('temporary', ['view users']);
    const id = await h.insertUser({ name: 'Temp', email: 'temp@test.example' }, 'temporary');
    const token = await h.login('temp@test.example');
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(200);
    expect((await h.http().delete(`/api/v1/roles/${roleId}`).set(bearer(admin))).status).toBe(200);
    const res = await h.http().get(`/api/v1/users/${id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ roles: [], permissions: [] });
    const denied = await h.http().get('/api/v1/users').set(bearer(token));
    expect(denied.status).toBe(403);
    const role = await h.http().get(`/api/v1/roles/${roleId}/trashed`).set(bearer(admin));
    expect(role.body.data.users_count).toBe(1);
    await h.knex('users').where({ id }).delete();
    await h.knex('roles').where({ id: roleId }).delete();
  });
});

describe('GET /users/{id}', () => {
  it('shows a user by numeric id and by h_id', async () => {
    const byId = await h.http().get(`/api/v1/users/${ids.alice}`).set(bearer(admin));
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({
      id: ids.alice,
      email: 'alice@test.example',
      roles: [{ id: editorRoleId, name: 'editor' }],
      permissions: [{ name: 'view users' }],
    });
    const hid = byId.body.data.h_id as string;
    expect(hid).toMatch(/^[A-Za-z]{8,}$/);
    const byHid = await h.http().get(`/api/v1/users/${hid}`).set(bearer(admin));
    expect(byHid.status).toBe(200);
    expect(byHid.body.data.id).toBe(ids.alice);
  });

  it('answers 404 for an unknown id, a bad h_id and a malformed id', async () => {
    for (const id of ['999999', 'zzzzzzzzzz', 'a-b_c', '0', '1.5']) {
      const res = await h.http().get(`/api/v1/users/${id}`).set(bearer(admin));
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, code: 'not_found', message: 'The requested resource was not found.' });
    }
  });
});

describe('POST /users (admin, JSON)', () => {
  const valid = (over: Record<string, unknown> = {}) => ({
    name: 'New Admin',
    email: 'new.admin@test.example',
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
    role_id: editorRoleId,
    ...over,
  });

  it('creates an admin with its role, active by default, who can sign in', async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'New.Admin@Test.Example', phone: ' 252615555555 ' }));
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe('User created successfully');
    expect(res.body.data).toMatchObject({
      name: 'New Admin',
      email: 'new.admin@test.example',
      phone: '252615555555',
      user_type: 'admin',
      status: 'active',
      roles: [{ id: editorRoleId, name: 'editor' }],
      permissions: [{ name: 'view users' }],
      dealer_details: null,
      deleted_at: null,
    });
    expect(res.body.data).not.toHaveProperty('password');
    ids.newAdmin = res.body.data.id;
    const row = await h.knex('users').where({ id: ids.newAdmin }).first();
    expect(row.password).toMatch(/^\$argon2id\$/);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: ids.newAdmin, action: 'created' });
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(ids.root);
    expect(JSON.parse(log[0].after)).toMatchObject({ email: 'new.admin@test.example', role_id: editorRoleId });
    expect(log[0].after).not.toContain('argon2');
    const token = await h.login('new.admin@test.example', NEW_PASSWORD);
    expect(token).toBeTruthy();
  });

  it('requires a role for admin users', async () => {
    for (const role_id of [undefined, '', null]) {
      const res = await h
        .http()
        .post('/api/v1/users')
        .set(bearer(admin))
        .send(valid({ email: 'x1@test.example', role_id }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        success: false,
        code: 'validation.failed',
        errors_detail: expect.any(Array),
        message: VALIDATION,
        errors: { role_id: ['Role is required for admin users'] },
      });
    }
  });

  it('refuses the dealer role and unknown roles for admins', async () => {
    const dealer = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'x2@test.example', role_id: dealerRoleId }));
    expect(dealer.status).toBe(422);
    expect(dealer.body.errors).toEqual({ role_id: ['The dealer role is given to dealers automatically and cannot be picked for an admin.'] });
    for (const role_id of [999999, 'nonsense']) {
      const unknown = await h
        .http()
        .post('/api/v1/users')
        .set(bearer(admin))
        .send(valid({ email: 'x3@test.example', role_id }));
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual({ role_id: ['The selected role does not exist.'] });
    }
    expect(await h.knex('users').whereIn('email', ['x2@test.example', 'x3@test.example'])).toHaveLength(0);
  });

  it('reports each missing required field on its own key', async () => {
    const res = await h.http().post('/api/v1/users').set(bearer(admin)).send({});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { name: ['Name is required'], email: ['Email is required'], password: ['Password is required'] },
    });
    const blanks = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ name: '   ', email: '' }));
    expect(blanks.status).toBe(422);
    expect(blanks.body.errors.name).toEqual(['Name is required']);
    expect(blanks.body.errors.email[0]).toBe('Email is required');
  });

  it('checks the email format', async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'not-an-email' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ email: ['Invalid email format'] });
  });

  it('checks the password rules and the confirmation', async () => {
    const short = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ password: 'Ab!cd', password_confirmation: 'Ab!cd' }));
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual({ password: ['Password must be at least 8 characters'] });

    const classes = 'Password must contain at least one lowercase letter, one uppercase letter, and one special character';
    for (const pw of ['alllowercase1!', 'ALLUPPERCASE1!', 'NoSpecials123']) {
      const res = await h
        .http()
        .post('/api/v1/users')
        .set(bearer(admin))
        .send(valid({ password: pw, password_confirmation: pw }));
      expect(res.status, pw).toBe(422);
      expect(res.body.errors, pw).toEqual({ password: [classes] });
    }

    const empty = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ password: '', password_confirmation: '' }));
    expect(empty.status).toBe(422);
    expect(empty.body.errors.password[0]).toBe('Password is required');

    const mismatch = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ password_confirmation: 'Other@Pass99' }));
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors).toEqual({ password_confirmation: ['Passwords do not match'] });
    const missing = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ password_confirmation: undefined }));
    expect(missing.body.errors).toEqual({ password_confirmation: ['Passwords do not match'] });
  });

  it('requires a non-blank dealer code and a logo for dealers, both reported in one answer', async () => {
    const dealer = { name: 'D', email: 'dealer.x@test.example', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, user_type: 'dealer' };
    for (const dealer_code of [undefined, '', '   ']) {
      const res = await h
        .http()
        .post('/api/v1/users')
        .set(bearer(admin))
        .send({ ...dealer, dealer_code });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        dealer_code: ['Dealer code is required for dealer users'],
        dealer_logo: ['Dealer logo is required for new dealer accounts'],
      });
    }
    const noLogo = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send({ ...dealer, dealer_code: 'NOLOGO' });
    expect(noLogo.status).toBe(422);
    expect(noLogo.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { dealer_logo: ['Dealer logo is required for new dealer accounts'] },
    });
    expect(await h.knex('users').where({ email: 'dealer.x@test.example' }).first()).toBeUndefined();
  });

  it('checks the enumerations and the dealer code characters', async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ status: 'sleeping', user_type: 'guest' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ status: ['Status must be active or inactive'], user_type: ['User type must be admin or dealer'] });
    const code = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ user_type: 'dealer', dealer_code: 'has space/slash', role_id: undefined }));
    expect(code.status).toBe(422);
    expect(code.body.errors).toEqual({
      dealer_code: ['Dealer code may contain only letters, digits, dashes and underscores.'],
      dealer_logo: ['Dealer logo is required for new dealer accounts'],
    });
    const long = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ name: 'n'.repeat(256) }));
    expect(long.body.errors).toEqual({ name: ['Name may not be greater than 255 characters'] });
  });

  it('refuses a duplicate email with 422, whatever its case, even when the holder is in the trash', async () => {
    const dup = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'ALICE@test.example' }));
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { email: ['The email has already been taken.'] },
    });

    const trashedId = await h.insertUser({ name: 'Gone', email: 'gone@test.example', deleted_at: '2026-01-01 00:00:00.000' }, 'editor');
    const trashed = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'gone@test.example' }));
    expect(trashed.status).toBe(422);
    expect(trashed.body.errors).toEqual({ email: ['The email has already been taken.'] });
    expect(await h.knex('users').where({ email: 'gone@test.example' })).toHaveLength(1);
    await h.knex('users').where({ id: trashedId }).delete();
  });

  it("refuses a dealer code already taken (any case), whatever the new user's type", async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'code@test.example', dealer_code: 'carol1' }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { dealer_code: ['The dealer code has already been taken.'] },
    });
    const dealer = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .send(valid({ email: 'code@test.example', user_type: 'dealer', dealer_code: 'Dave2', role_id: undefined }));
    expect(dealer.status).toBe(422);
    expect(dealer.body.errors).toEqual({
      dealer_code: ['The dealer code has already been taken.'],
      dealer_logo: ['Dealer logo is required for new dealer accounts'],
    });
    expect(await h.knex('users').where({ email: 'code@test.example' }).first()).toBeUndefined();
  });

  it('translates messages by ?lng= and by Accept-Language', async () => {
    const so = await h.http().post('/api/v1/users?lng=so').set(bearer(admin)).send({ email: 'bad' });
    expect(so.status).toBe(422);
    expect(so.body.errors.name).toEqual(['Magaca waa loo baahan yahay']);
    expect(so.body.errors.email).toEqual(['Qaabka iimaylka waa khalad']);
    expect(so.body.message).not.toBe(VALIDATION);

    const header = await h.http().post('/api/v1/users').set(bearer(admin)).set('Accept-Language', 'so-SO,so;q=0.9,en;q=0.5').send({ email: 'bad' });
    expect(header.body).toEqual(so.body);

    const ar = await h.http().post('/api/v1/users?lng=ae').set(bearer(admin)).send({});
    expect(ar.body.errors.name).toEqual(['الاسم مطلوب']);

    const created = await h
      .http()
      .post('/api/v1/users?lng=so')
      .set(bearer(admin))
      .send(valid({ email: 'somali@test.example' }));
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Isticmaalaha si guul leh ayaa loo abuuray');
    ids.somali = created.body.data.id;
  });
});

describe('PATCH /users/{id}', () => {
  it('updates profile fields and logs before and after', async () => {
    const res = await h
      .http()
      .patch(`/api/v1/users/${ids.alice}`)
      .set(bearer(admin))
      .send({ name: 'Alice Renamed', phone: '252610000000', address: 'Mogadishu' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('User updated successfully');
    expect(res.body.data).toMatchObject({
      id: ids.alice,
      name: 'Alice Renamed',
      phone: '252610000000',
      address: 'Mogadishu',
      email: 'alice@test.example',
      status: 'active',
    });
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: ids.alice, action: 'updated' }).first();
    expect(log.actor_id).toBe(ids.root);
    expect(JSON.parse(log.before)).toMatchObject({ name: 'Alice Admin', phone: '252611000001' });
    expect(JSON.parse(log.after)).toMatchObject({ name: 'Alice Renamed', address: 'Mogadishu' });
  });

  it('accepts the h_id in the path and validates like create', async () => {
    const hid = (await h.http().get(`/api/v1/users/${ids.alice}`).set(bearer(admin))).body.data.h_id;
    const bad = await h.http().patch(`/api/v1/users/${hid}`).set(bearer(admin)).send({ email: 'nope', name: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ email: ['Invalid email format'], name: ['Name is required'] });
    const dup = await h.http().patch(`/api/v1/users/${hid}`).set(bearer(admin)).send({ email: 'dave@test.example' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ email: ['The email has already been taken.'] });
    const mismatch = await h.http().patch(`/api/v1/users/${hid}`).set(bearer(admin)).send({ password: NEW_PASSWORD, password_confirmation: 'x' });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors).toEqual({ password_confirmation: ['Passwords do not match'] });
    const code = await h.http().patch(`/api/v1/users/${ids.carol}`).set(bearer(admin)).send({ dealer_code: 'dave2' });
    expect(code.status).toBe(422);
    expect(code.body.errors).toEqual({ dealer_code: ['The dealer code has already been taken.'] });
    const blankCode = await h.http().patch(`/api/v1/users/${ids.carol}`).set(bearer(admin)).send({ user_type: 'dealer', dealer_code: '' });
    expect(blankCode.status).toBe(422);
    expect(blankCode.body.errors).toEqual({ dealer_code: ['Dealer code is required for dealer users'] });
    const unchanged = await h.knex('users').where({ id: ids.alice }).first();
    expect(unchanged.email).toBe('alice@test.example');
  });

  it('keeps the password when the edit sends a blank one', async () => {
    const res = await h.http().patch(`/api/v1/users/${ids.newAdmin}`).set(bearer(admin)).send({ password: '', password_confirmation: '', address: 'Hargeisa' });
    expect(res.status).toBe(200);
    expect(res.body.data.address).toBe('Hargeisa');
    expect(await h.login('new.admin@test.example', NEW_PASSWORD)).toBeTruthy();
  });

  it('changes the role, and refuses the dealer role for an admin', async () => {
    const other = await h.createRole('auditor', ['view roles']);
    const res = await h.http().patch(`/api/v1/users/${ids.somali}`).set(bearer(admin)).send({ role_id: other });
    expect(res.status).toBe(200);
    expect(res.body.data.roles).toEqual([{ id: other, name: 'auditor' }]);
    expect(res.body.data.permissions).toEqual([{ name: 'view roles' }]);
    const dealer = await h.http().patch(`/api/v1/users/${ids.somali}`).set(bearer(admin)).send({ role_id: dealerRoleId });
    expect(dealer.status).toBe(422);
    expect(dealer.body.errors).toEqual({ role_id: ['The dealer role is given to dealers automatically and cannot be picked for an admin.'] });
  });

  it('turns an admin into a dealer only with a dealer code, giving it the dealer role and a wallet', async () => {
    const noCode = await h.http().patch(`/api/v1/users/${ids.somali}`).set(bearer(admin)).send({ user_type: 'dealer' });
    expect(noCode.status).toBe(422);
    expect(noCode.body.errors).toEqual({ dealer_code: ['Dealer code is required for dealer users'] });
    const res = await h
      .http()
      .patch(`/api/v1/users/${ids.somali}`)
      .set(bearer(admin))
      .send({ user_type: 'dealer', dealer_code: 'SOMALI', pricing_model: 'profit' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user_type: 'dealer', dealer_code: 'SOMALI', roles: [{ id: dealerRoleId, name: 'dealer' }] });
    expect(res.body.data.dealer_details).toMatchObject({ brand_color: '#000000', pricing_model: 'profit' });
    const wallet = await h.knex('wallets').where({ dealer_id: ids.somali }).first();
    expect(Number(wallet.balance)).toBe(0);
  });

  it('changes status alone with only "change user status", but not other fields', async () => {
    const target = await h.userWith([]);
    const caller = await h.userWith(['change user status']);
    const res = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(caller.token)).send({ status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('User updated successfully');
    expect(res.body.data.status).toBe('inactive');
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: target.id, action: 'status_changed' }).first();
    expect(log.actor_id).toBe(caller.id);
    expect(JSON.parse(log.before)).toMatchObject({ status: 'active' });
    expect(JSON.parse(log.after)).toMatchObject({ status: 'inactive' });

    const name = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(caller.token)).send({ name: 'Sneaky', status: 'active' });
    expect(name.status).toBe(403);
    expect(name.body).toEqual({ success: false, code: 'auth.forbidden', message: 'You do not have permission to perform this action.' });
    expect((await h.knex('users').where({ id: target.id }).first()).name).not.toBe('Sneaky');

    const updater = await h.userWith(['update users']);
    const status = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(updater.token)).send({ status: 'active' });
    expect(status.status).toBe(403);
    expect((await h.knex('users').where({ id: target.id }).first()).status).toBe('inactive');
  });

  it("deactivation revokes the target's sessions, and the user can no longer sign in", async () => {
    const target = await h.userWith([]);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(target.token))).status).toBe(200);
    const res = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(admin)).send({ status: 'inactive' });
    expect(res.status).toBe(200);
    const old = await h.http().get('/api/v1/auth/me').set(bearer(target.token));
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ success: false, code: 'auth.session_expired', message: 'Your session has expired. Please login again.' });
    const sessions = await h.knex('sessions').where({ user_id: target.id });
    expect(sessions.every((s: { revoked_at: unknown }) => s.revoked_at !== null)).toBe(true);
    const login = await h.http().post('/api/v1/auth/admin/login').send({ email: target.email, password: PASSWORD });
    expect(login.status).toBe(403);
    expect(login.body.message).toBe('Your account is inactive. Please contact an administrator.');
  });

  it("a password change by an admin revokes the target's sessions; the new password works", async () => {
    const target = await h.userWith([]);
    const res = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(admin)).send({ password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(res.status).toBe(200);
    const old = await h.http().get('/api/v1/auth/me').set(bearer(target.token));
    expect(old.status).toBe(401);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: target.id, action: 'updated' }).first();
    expect(JSON.parse(log.after)).toMatchObject({ password_changed: true });
    expect(log.after).not.toContain('Fresh@Pass99');
    const fresh = await h.login(target.email, NEW_PASSWORD);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(fresh))).status).toBe(200);
    // An edit without a password leaves sessions alone.
    const rename = await h.http().patch(`/api/v1/users/${target.id}`).set(bearer(admin)).send({ name: 'Still Signed In' });
    expect(rename.status).toBe(200);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(fresh))).status).toBe(200);
  });

  it('answers 404 for an unknown or trashed user', async () => {
    const res = await h.http().patch('/api/v1/users/999999').set(bearer(admin)).send({ name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('The requested resource was not found.');
  });
});
