import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PASSWORD, type Harness, bearer, VALIDATION, FORBIDDEN, NOT_FOUND } from '../../../tests/api/harness.ts';
import { ALL_PERMISSIONS, DEALER_PERMISSIONS, PERMISSION_GROUPS } from '@app/contracts';

/**
 * Roles through the real HTTP API: the whole generic pattern, validation, protected roles,
 * the permission catalogue and assignment, access rules and the activity log.
 */
let h: Harness;
let admin: string;
let rootId: number;
let superId: number;
let dealerId: number;
const PROTECTED = {
  success: false,
  message: 'This is a system-protected role and cannot be modified. You can only view its details and manage permissions.',
  code: 'roles.protected',
};

const activity = (subjectId: number, action: string) => h.knex('activity_log').where({ subject_type: 'role', subject_id: subjectId, action });

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
  superId = (await h.knex('roles').where({ name: 'super-admin' }).first()).id;
  dealerId = (await h.knex('roles').where({ name: 'dealer' }).first()).id;
});
afterAll(() => h.close());

describe('list, show and search', () => {
  it('lists the seeded protected roles, sorted by name, with pagination meta', async () => {
    const res = await h.http().get('/api/v1/roles').set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.meta).toEqual({ current_page: 1, per_page: 15, total: 2, last_page: 1 });
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(['dealer', 'super-admin']);
    const sup = res.body.data[1];
    expect(sup).toMatchObject({ id: superId, name: 'super-admin', guard_name: 'web', protected: true, users_count: 1, deleted_at: null });
    expect(sup.h_id).toMatch(/^[A-Za-z]{8,}$/);
    expect(sup.permissions.map((p: { name: string }) => p.name).sort()).toEqual([...ALL_PERMISSIONS].sort());
    const dealer = res.body.data[0];
    expect(dealer.permissions.map((p: { name: string }) => p.name).sort()).toEqual([...DEALER_PERMISSIONS].sort());
    expect(dealer.permissions[0]).toEqual({ id: expect.any(Number), name: expect.any(String), group: expect.any(String) });
  });

  it('pages, sorts, filters protected and refuses an unknown sort', async () => {
    await h.createRole('alpha');
    await h.createRole('beta');
    const page = await h.http().get('/api/v1/roles?per_page=1&page=2&sort=name&order=desc').set(bearer(admin));
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ current_page: 2, per_page: 1, total: 4, last_page: 4 });
    expect(page.body.data.map((r: { name: string }) => r.name)).toEqual(['dealer']);
    const prot = await h.http().get('/api/v1/roles?protected=false').set(bearer(admin));
    expect(prot.body.data.map((r: { name: string }) => r.name)).toEqual(['alpha', 'beta']);
    const bad = await h.http().get('/api/v1/roles?sort=guard_name').set(bearer(admin));
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { sort: ['Sorting is possible by: id, name, created_at, updated_at, deleted_at'] },
    });
  });

  it('shows a role by numeric id and by h_id, 404 otherwise', async () => {
    const byId = await h.http().get(`/api/v1/roles/${dealerId}`).set(bearer(admin));
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({ id: dealerId, name: 'dealer', guard_name: 'web', protected: true });
    const byHid = await h.http().get(`/api/v1/roles/${byId.body.data.h_id}`).set(bearer(admin));
    expect(byHid.status).toBe(200);
    expect(byHid.body.data.id).toBe(dealerId);
    const missing = await h.http().get('/api/v1/roles/999999').set(bearer(admin));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(NOT_FOUND);
  });

  it('GET /roles/search?q finds by name, with id and name in each item', async () => {
    const res = await h.http().get('/api/v1/roles/search?q=ALP').set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: expect.any(Number), name: 'alpha' });
    const admin2 = await h.http().get('/api/v1/roles/search?q=admin').set(bearer(admin));
    expect(admin2.body.data.map((r: { id: number; name: string }) => [r.id, r.name])).toEqual([[superId, 'super-admin']]);
    const none = await h.http().get('/api/v1/roles/search?q=zzz').set(bearer(admin));
    expect(none.body).toMatchObject({ success: true, data: [], meta: { total: 0 } });
    const list = await h.http().get('/api/v1/roles?q=bet').set(bearer(admin));
    expect(list.body.data.map((r: { name: string }) => r.name)).toEqual(['beta']);
  });
});

describe('GET /roles/permissions/available', () => {
  it('lists every permission of the catalogue with its group', async () => {
    const res = await h.http().get('/api/v1/roles/permissions/available').set(bearer(admin));
    expect(res.status).toBe(200);
    const expected = Object.entries(PERMISSION_GROUPS).flatMap(([group, names]) => names.map((name) => ({ name, group })));
    expect(res.body.data.map((p: { name: string; group: string }) => ({ name: p.name, group: p.group }))).toEqual(expected);
    expect(res.body.data).toHaveLength(ALL_PERMISSIONS.length);
    for (const p of res.body.data) expect(p.id).toEqual(expect.any(Number));
  });

  it('needs "view roles"', async () => {
    const nobody = await h.userWith(['view users']);
    const res = await h.http().get('/api/v1/roles/permissions/available').set(bearer(nobody.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('POST /roles (create) and validation', () => {
  it('creates a role with permissions, guard web, and logs it', async () => {
    const res = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: '  Support  ', description: 'Helps dealers', permissions: ['view users', 'view roles'] });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Role created successfully');
    expect(res.body.data).toMatchObject({ name: 'Support', guard_name: 'web', description: 'Helps dealers', protected: false, users_count: 0 });
    expect(res.body.data.permissions.map((p: { name: string }) => p.name).sort()).toEqual(['view roles', 'view users']);
    const log = await activity(res.body.data.id, 'created');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    expect(JSON.parse(log[0].after)).toMatchObject({ name: 'Support', guard_name: 'web', permissions: ['view users', 'view roles'] });
  });

  it('accepts guard_name web and refuses any other guard', async () => {
    const web = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'webby', guard_name: 'web' });
    expect(web.status).toBe(201);
    expect(web.body.data.guard_name).toBe('web');
    const api = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'apish', guard_name: 'api' });
    expect(api.status).toBe(422);
    expect(api.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { guard_name: ['Guard name must be web'] },
    });
  });

  it('requires a name and a guard name, with the exact messages', async () => {
    const none = await h.http().post('/api/v1/roles').set(bearer(admin)).send({});
    expect(none.status).toBe(422);
    expect(none.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { name: ['Name is required'] },
    });
    const blank = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: '   ', guard_name: '' });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.name).toEqual(['Name is required']);
    expect(blank.body.errors.guard_name[0]).toBe('Guard name is required');
    const long = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: 'r'.repeat(256) });
    expect(long.body.errors).toEqual({ name: ['Name may not be greater than 255 characters'] });
    const so = await h.http().post('/api/v1/roles?lng=so').set(bearer(admin)).send({});
    expect(so.body.errors).toEqual({ name: ['Magaca waa loo baahan yahay'] });
  });

  it('refuses a taken name (any case, also in the trash) with 422', async () => {
    const dup = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'ALPHA' });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { name: ['The name has already been taken.'] },
    });
    const sys = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'super-admin' });
    expect(sys.status).toBe(422);
    const trashed = await h.createRole('trashed-one');
    expect((await h.http().delete(`/api/v1/roles/${trashed}`).set(bearer(admin))).status).toBe(200);
    const again = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'trashed-one' });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ name: ['The name has already been taken.'] });
  });

  it('refuses unknown permissions with 422, naming them', async () => {
    const res = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: 'unknowns', permissions: ['view users', 'fly planes'] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ permissions: ['Unknown permission: fly planes'] });
    expect(await h.knex('roles').where({ name: 'unknowns' }).first()).toBeUndefined();
  });

  it('needs "assign permissions" to create a role with permissions, and only ones the caller holds', async () => {
    const creator = await h.userWith(['view roles', 'create roles']);
    const noAssign = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(creator.token))
      .send({ name: 'escalate', permissions: ['view roles'] });
    expect(noAssign.status).toBe(403);
    expect(noAssign.body).toEqual(FORBIDDEN);
    const bare = await h.http().post('/api/v1/roles').set(bearer(creator.token)).send({ name: 'bare' });
    expect(bare.status).toBe(201);
    expect(bare.body.data.permissions).toEqual([]);

    const maker = await h.userWith(['view roles', 'create roles', 'assign permissions']);
    const res = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(maker.token))
      .send({ name: 'escalate', permissions: ['delete users'] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, code: 'users.grant_above_own', message: 'You cannot give rights that you do not hold yourself.' });
    expect(await h.knex('roles').where({ name: 'escalate' }).first()).toBeUndefined();
    const ok = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(maker.token))
      .send({ name: 'modest', permissions: ['view roles'] });
    expect(ok.status).toBe(201);
    expect(ok.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(['view roles']);
  });
});

describe('PATCH /roles/{id}', () => {
  it('updates name, description and permissions, and logs before and after', async () => {
    const id = await h.createRole('editable', ['view users']);
    const res = await h
      .http()
      .patch(`/api/v1/roles/${id}`)
      .set(bearer(admin))
      .send({ name: 'edited', description: 'Now edited', permissions: ['view roles'] });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Role updated successfully');
    expect(res.body.data).toMatchObject({ id, name: 'edited', description: 'Now edited', guard_name: 'web' });
    expect(res.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(['view roles']);
    const log = await activity(id, 'updated');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    expect(JSON.parse(log[0].before)).toMatchObject({ name: 'editable' });
    expect(JSON.parse(log[0].after)).toMatchObject({ name: 'edited', permissions: ['view roles'] });
  });

  it('needs "assign permissions" to change permissions through PATCH, and logs the assignment', async () => {
    const id = await h.createRole('patched-perms', ['view users']);
    const updater = await h.userWith(['view roles', 'update roles', 'view users']);
    const refused = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(updater.token)).send({ description: 'x', permissions: [] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
    const row = await h.http().get(`/api/v1/roles/${id}`).set(bearer(admin));
    expect(row.body.data).toMatchObject({ description: null, permissions: [{ name: 'view users' }] });
    const rename = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(updater.token)).send({ description: 'renamed only' });
    expect(rename.status).toBe(200);
    expect(rename.body.data.description).toBe('renamed only');
    const byAdmin = await h
      .http()
      .patch(`/api/v1/roles/${id}`)
      .set(bearer(admin))
      .send({ permissions: ['view roles', 'view users'] });
    expect(byAdmin.status).toBe(200);
    const log = await activity(id, 'permissions_assigned');
    expect(log).toHaveLength(1);
    expect(JSON.parse(log[0].after)).toEqual({ permissions: ['view roles', 'view users'] });
  });

  it('validates like create', async () => {
    const id = await h.createRole('validated');
    const blank = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(admin)).send({ name: '' });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual({ name: ['Name is required'] });
    const guard = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(admin)).send({ guard_name: '' });
    expect(guard.status).toBe(422);
    expect(guard.body.errors.guard_name[0]).toBe('Guard name is required');
    const dup = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(admin)).send({ name: 'Beta' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ name: ['The name has already been taken.'] });
    const same = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(admin)).send({ name: 'validated', description: 'ok' });
    expect(same.status).toBe(200);
    expect((await h.knex('roles').where({ id }).first()).name).toBe('validated');
  });

  it("refuses to edit or delete the protected roles with the specification's message", async () => {
    for (const id of [superId, dealerId]) {
      const patch = await h.http().patch(`/api/v1/roles/${id}`).set(bearer(admin)).send({ name: 'renamed' });
      expect(patch.status).toBe(403);
      expect(patch.body).toEqual(PROTECTED);
      const perms = await h
        .http()
        .patch(`/api/v1/roles/${id}`)
        .set(bearer(admin))
        .send({ permissions: ['view users'] });
      expect(perms.status).toBe(403);
      expect(perms.body).toEqual(PROTECTED);
      const del = await h.http().delete(`/api/v1/roles/${id}`).set(bearer(admin));
      expect(del.status).toBe(403);
      expect(del.body).toEqual(PROTECTED);
      const force = await h.http().delete(`/api/v1/roles/${id}/force`).set(bearer(admin));
      expect(force.status).toBe(403);
      expect(force.body).toEqual(PROTECTED);
    }
    const alpha = (await h.knex('roles').where({ name: 'alpha' }).first()).id;
    const bulk = await h
      .http()
      .delete('/api/v1/roles/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [alpha, dealerId] });
    expect(bulk.status).toBe(403);
    expect(bulk.body).toEqual(PROTECTED);
    const bulkForce = await h
      .http()
      .delete('/api/v1/roles/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [alpha, superId] });
    expect(bulkForce.status).toBe(403);
    expect(bulkForce.body).toEqual(PROTECTED);
    const rows = await h.knex('roles').whereIn('id', [superId, dealerId, alpha]).orderBy('id');
    expect(rows.map((r: { name: string; deleted_at: unknown }) => [r.name, r.deleted_at])).toEqual(
      expect.arrayContaining([
        ['super-admin', null],
        ['dealer', null],
        ['alpha', null],
      ]),
    );
    const so = await h.http().delete(`/api/v1/roles/${superId}?lng=so`).set(bearer(admin));
    expect(so.body.message).toBe(
      'Kani waa door uu nidaamku ilaaliyo, lama beddeli karo. Waxaad keliya arki kartaa faahfaahintiisa oo maamuli kartaa ogolaanshaha.',
    );
  });
});

describe('POST /roles/{id}/assign-permissions', () => {
  it('replaces the permissions of a protected role too, and logs it', async () => {
    const res = await h
      .http()
      .post(`/api/v1/roles/${dealerId}/assign-permissions`)
      .set(bearer(admin))
      .send({ permissions: [...DEALER_PERMISSIONS, 'view users'] });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Permissions updated successfully');
    expect(res.body.data).toMatchObject({ id: dealerId, name: 'dealer', protected: true });
    expect(res.body.data.permissions.map((p: { name: string }) => p.name).sort()).toEqual([...DEALER_PERMISSIONS, 'view users'].sort());
    const log = await activity(dealerId, 'permissions_assigned');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    expect(JSON.parse(log[0].after)).toEqual({ permissions: [...DEALER_PERMISSIONS, 'view users'] });
    expect(JSON.parse(log[0].before).permissions.sort()).toEqual([...DEALER_PERMISSIONS].sort());

    const back = await h.http().post(`/api/v1/roles/${dealerId}/assign-permissions`).set(bearer(admin)).send({ permissions: DEALER_PERMISSIONS });
    expect(back.status).toBe(200);
    const row = await h.http().get(`/api/v1/roles/${dealerId}`).set(bearer(admin));
    expect(row.body.data.permissions).toHaveLength(DEALER_PERMISSIONS.length);
  });

  it("takes effect at once for the role's users, and an empty list clears them", async () => {
    const user = await h.userWith(['view roles']);
    expect((await h.http().get('/api/v1/roles').set(bearer(user.token))).status).toBe(200);
    const res = await h.http().post(`/api/v1/roles/${user.roleId}/assign-permissions`).set(bearer(admin)).send({ permissions: [] });
    expect(res.status).toBe(200);
    expect(res.body.data.permissions).toEqual([]);
    const denied = await h.http().get('/api/v1/roles').set(bearer(user.token));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(FORBIDDEN);
  });

  it("refuses to change the super admin's list (it holds every permission whatever the list), in the caller's language", async () => {
    const superId = (await h.knex('roles').where({ name: 'super-admin' }).first('id')).id as number;
    const before = await h.knex('role_permissions').where({ role_id: superId }).count({ n: '*' }).first();
    const res = await h.http().post(`/api/v1/roles/${superId}/assign-permissions`).set(bearer(admin)).send({ permissions: [] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ permissions: ['The super admin role always has every permission; its list cannot be changed.'] });
    const ar = await h
      .http()
      .post(`/api/v1/roles/${superId}/assign-permissions`)
      .set(bearer(admin))
      .set('Accept-Language', 'ae')
      .send({ permissions: ['view users'] });
    expect(ar.body.errors.permissions[0]).toMatch(/المشرف العام/);
    expect(await h.knex('role_permissions').where({ role_id: superId }).count({ n: '*' }).first()).toEqual(before);
  });

  it('refuses unknown names and a missing list with 422', async () => {
    const id = await h.createRole('assignable', ['view users']);
    const unknown = await h
      .http()
      .post(`/api/v1/roles/${id}/assign-permissions`)
      .set(bearer(admin))
      .send({ permissions: ['view users', 'no such', 'also none'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { permissions: ['Unknown permission: no such, also none'] },
    });
    const missing = await h.http().post(`/api/v1/roles/${id}/assign-permissions`).set(bearer(admin)).send({});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ permissions: ['Permissions must be a list of permission names'] });
    const perms = await h.http().get(`/api/v1/roles/${id}`).set(bearer(admin));
    expect(perms.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(['view users']);
    const unknownRole = await h.http().post('/api/v1/roles/999999/assign-permissions').set(bearer(admin)).send({ permissions: [] });
    expect(unknownRole.status).toBe(404);
  });

  it('needs "assign permissions", and cannot grant or remove what the caller lacks', async () => {
    const id = await h.createRole('target-role', ['delete users']);
    const viewer = await h.userWith(['view roles', 'update roles']);
    const noPerm = await h.http().post(`/api/v1/roles/${id}/assign-permissions`).set(bearer(viewer.token)).send({ permissions: [] });
    expect(noPerm.status).toBe(403);
    expect(noPerm.body).toEqual(FORBIDDEN);
    const assigner = await h.userWith(['view roles', 'assign permissions', 'view users']);
    const grant = await h
      .http()
      .post(`/api/v1/roles/${assigner.roleId}/assign-permissions`)
      .set(bearer(assigner.token))
      .send({ permissions: ['view roles', 'assign permissions', 'view users', 'force delete users'] });
    expect(grant.status).toBe(403);
    expect(grant.body).toEqual({ success: false, code: 'users.grant_above_own', message: 'You cannot give rights that you do not hold yourself.' });
    const remove = await h
      .http()
      .post(`/api/v1/roles/${id}/assign-permissions`)
      .set(bearer(assigner.token))
      .send({ permissions: ['view users'] });
    expect(remove.status).toBe(403);
    const perms = await h.http().get(`/api/v1/roles/${id}`).set(bearer(admin));
    expect(perms.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(['delete users']);
  });
});

describe('soft delete, trash, restore and force delete', () => {
  let id: number;
  let hid: string;

  it('DELETE /roles/{id} moves the role to the trash; its users lose its permissions', async () => {
    const user = await h.userWith(['view roles']);
    id = user.roleId;
    const res = await h.http().delete(`/api/v1/roles/${id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Role moved to the trash', data: null });
    expect((await h.knex('roles').where({ id }).first()).deleted_at).not.toBeNull();
    expect((await h.http().get(`/api/v1/roles/${id}`).set(bearer(admin))).status).toBe(404);
    expect((await h.http().get('/api/v1/roles').set(bearer(user.token))).status).toBe(403);
    const log = await activity(id, 'deleted');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
  });

  it('lists it in the trash and shows it there', async () => {
    const list = await h.http().get('/api/v1/roles/trashed/list').set(bearer(admin));
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { id: number }) => r.id)).toContain(id);
    expect(list.body.data.every((r: { deleted_at: string | null }) => r.deleted_at !== null)).toBe(true);
    expect(list.body.meta.total).toBe(list.body.data.length);
    hid = list.body.data.find((r: { id: number }) => r.id === id).h_id;
    const show = await h.http().get(`/api/v1/roles/${hid}/trashed`).set(bearer(admin));
    expect(show.status).toBe(200);
    expect(show.body.data).toMatchObject({ id, protected: false, permissions: [{ name: 'view roles' }] });
    expect((await h.http().get(`/api/v1/roles/${superId}/trashed`).set(bearer(admin))).status).toBe(404);
    const viewer = await h.userWith(['view roles']);
    const noTrash = await h.http().get('/api/v1/roles/trashed/list').set(bearer(viewer.token));
    expect(noTrash.status).toBe(403);
    expect(noTrash.body).toEqual(FORBIDDEN);
  });

  it('POST /roles/{id}/restore brings it back', async () => {
    const res = await h.http().post(`/api/v1/roles/${hid}/restore`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Role restored successfully');
    expect(res.body.data).toMatchObject({ id, deleted_at: null, users_count: 1 });
    expect((await h.http().post(`/api/v1/roles/${id}/restore`).set(bearer(admin))).status).toBe(404);
    expect(await activity(id, 'restored')).toHaveLength(1);
  });

  it('DELETE /roles/{id}/force removes the role and its links', async () => {
    const res = await h.http().delete(`/api/v1/roles/${id}/force`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Role deleted permanently', data: null });
    expect(await h.knex('roles').where({ id }).first()).toBeUndefined();
    expect(await h.knex('role_permissions').where({ role_id: id })).toEqual([]);
    expect(await h.knex('user_roles').where({ role_id: id })).toEqual([]);
    expect(await activity(id, 'force_deleted')).toHaveLength(1);
    const again = await h.http().delete(`/api/v1/roles/${id}/force`).set(bearer(admin));
    expect(again.status).toBe(404);
    expect(again.body).toEqual(NOT_FOUND);
  });
});

describe('deleting or restoring a role changes what its users can do', () => {
  it("needs the caller to hold the role's permissions (trash, restore, force delete, bulk)", async () => {
    const GRANT_ABOVE = { success: false, message: 'You cannot give rights that you do not hold yourself.', code: 'users.grant_above_own' };
    const strong = await h.createRole('strong', ['view users', 'force delete users']);
    const weak = await h.createRole('weak', ['view roles']);
    const caller = await h.userWith(['view roles', 'delete roles', 'restore roles', 'force delete roles', 'view trash items']);
    for (const [method, path, body] of [
      ['delete', `/api/v1/roles/${strong}`, undefined],
      ['delete', `/api/v1/roles/${strong}/force`, undefined],
      ['delete', '/api/v1/roles/bulk/delete', { ids: [weak, strong] }],
      ['delete', '/api/v1/roles/bulk/force-delete', { ids: [weak, strong] }],
    ] as const) {
      const req = h.http()[method](path).set(bearer(caller.token));
      const res = body ? await req.send(body) : await req;
      expect(res.status, path).toBe(403);
      expect(res.body, path).toEqual(GRANT_ABOVE);
    }
    expect(await h.knex('roles').whereIn('id', [strong, weak]).whereNull('deleted_at')).toHaveLength(2);

    expect((await h.http().delete(`/api/v1/roles/${strong}`).set(bearer(admin))).status).toBe(200);
    const restore = await h.http().post(`/api/v1/roles/${strong}/restore`).set(bearer(caller.token));
    expect(restore.status).toBe(403);
    expect(restore.body).toEqual(GRANT_ABOVE);
    const bulkRestore = await h
      .http()
      .post('/api/v1/roles/bulk/restore')
      .set(bearer(caller.token))
      .send({ ids: [strong] });
    expect(bulkRestore.status).toBe(403);
    expect((await h.knex('roles').where({ id: strong }).first()).deleted_at).not.toBeNull();

    // Within the caller's rights, all of it works.
    expect((await h.http().delete(`/api/v1/roles/${weak}`).set(bearer(caller.token))).status).toBe(200);
    expect((await h.http().post(`/api/v1/roles/${weak}/restore`).set(bearer(caller.token))).status).toBe(200);
    expect((await h.http().delete(`/api/v1/roles/${weak}/force`).set(bearer(caller.token))).status).toBe(200);
    expect(await h.knex('roles').where({ id: weak }).first()).toBeUndefined();
  });
});

describe('bulk forms', () => {
  it('POST /roles/bulk creates all, or none with errors keyed by index', async () => {
    const bad = await h
      .http()
      .post('/api/v1/roles/bulk')
      .set(bearer(admin))
      .send([{ name: 'bulk-a' }, { name: '' }, { name: 'bulk-c', guard_name: '' }]);
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(VALIDATION);
    expect(bad.body.errors['1.name']).toEqual(['Name is required']);
    expect(bad.body.errors['2.guard_name'][0]).toBe('Guard name is required');
    const dup = await h
      .http()
      .post('/api/v1/roles/bulk')
      .set(bearer(admin))
      .send([{ name: 'bulk-a' }, { name: 'BULK-A' }]);
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toEqual({ '1.name': ['The name has already been taken.'] });
    expect(await h.knex('roles').where('name', 'like', 'bulk-%')).toEqual([]);

    const res = await h
      .http()
      .post('/api/v1/roles/bulk')
      .set(bearer(admin))
      .send([{ name: 'bulk-a', permissions: ['view users'] }, { name: 'bulk-b' }]);
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('2 roles created successfully');
    expect(res.body.data.map((r: { name: string; guard_name: string }) => [r.name, r.guard_name])).toEqual([
      ['bulk-a', 'web'],
      ['bulk-b', 'web'],
    ]);
    for (const r of res.body.data) expect(await activity(r.id, 'created')).toHaveLength(1);
  });

  it('bulk delete, restore and force delete, all or nothing', async () => {
    const ids = (await h.knex('roles').whereIn('name', ['bulk-a', 'bulk-b']).orderBy('name')).map((r: { id: number }) => r.id);
    const unknown = await h
      .http()
      .delete('/api/v1/roles/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [...ids, 999999] });
    expect(unknown.status).toBe(404);
    expect(await h.knex('roles').whereIn('id', ids).whereNotNull('deleted_at')).toEqual([]);

    const del = await h.http().delete('/api/v1/roles/bulk/delete').set(bearer(admin)).send({ ids });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, message: '2 roles moved to the trash', data: { affected: 2 } });
    const trash = await h.http().get('/api/v1/roles/trashed/list?sort=name&order=asc&q=bulk').set(bearer(admin));
    expect(trash.body.data.map((r: { name: string }) => r.name)).toEqual(['bulk-a', 'bulk-b']);

    const restore = await h.http().post('/api/v1/roles/bulk/restore').set(bearer(admin)).send({ ids });
    expect(restore.status).toBe(200);
    expect(restore.body).toEqual({ success: true, message: '2 roles restored successfully', data: { affected: 2 } });
    expect(await h.knex('roles').whereIn('id', ids).whereNull('deleted_at')).toHaveLength(2);

    const force = await h.http().delete('/api/v1/roles/bulk/force-delete').set(bearer(admin)).send({ ids });
    expect(force.status).toBe(200);
    expect(force.body).toEqual({ success: true, message: '2 roles deleted permanently', data: { affected: 2 } });
    expect(await h.knex('roles').whereIn('id', ids)).toEqual([]);
    for (const rid of ids) {
      for (const action of ['deleted', 'restored', 'force_deleted']) expect(await activity(rid, action), action).toHaveLength(1);
    }
    const empty = await h.http().post('/api/v1/roles/bulk/restore').set(bearer(admin)).send({ ids: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ ids: ['Select at least one record'] });
  });
});

describe('authentication, permissions and the session lock on every /roles route', () => {
  type Method = 'get' | 'post' | 'patch' | 'delete';
  let rid: number;
  const routes = (): [Method, string, unknown?][] => [
    ['get', '/api/v1/roles'],
    ['get', '/api/v1/roles/search?q=al'],
    ['get', '/api/v1/roles/trashed/list'],
    ['get', '/api/v1/roles/permissions/available'],
    ['get', `/api/v1/roles/${rid}`],
    ['get', `/api/v1/roles/${rid}/trashed`],
    ['post', '/api/v1/roles', { name: 'should-not-exist' }],
    ['post', '/api/v1/roles/bulk', [{ name: 'should-not-exist' }]],
    ['patch', `/api/v1/roles/${rid}`, { name: 'changed' }],
    ['delete', `/api/v1/roles/${rid}`],
    ['delete', `/api/v1/roles/${rid}/force`],
    ['post', `/api/v1/roles/${rid}/restore`],
    ['delete', '/api/v1/roles/bulk/delete', { ids: [rid] }],
    ['post', '/api/v1/roles/bulk/restore', { ids: [rid] }],
    ['delete', '/api/v1/roles/bulk/force-delete', { ids: [rid] }],
    ['post', `/api/v1/roles/${rid}/assign-permissions`, { permissions: [] }],
  ];
  const call = (token: string | null, [method, path, body]: [Method, string, unknown?]) => {
    const req = h.http()[method](path);
    if (token) req.set(bearer(token));
    return body === undefined ? req : req.send(body as object);
  };
  const untouched = async () => {
    expect(await h.knex('roles').where({ id: rid }).first()).toMatchObject({ name: 'guarded', deleted_at: null });
    expect(await h.knex('role_permissions').where({ role_id: rid })).toHaveLength(1);
    expect(await h.knex('roles').where({ name: 'should-not-exist' }).first()).toBeUndefined();
  };

  beforeAll(async () => {
    rid = await h.createRole('guarded', ['view users']);
  });

  it('answers 401 without a token', async () => {
    for (const route of routes()) {
      const res = await call(null, route);
      expect(res.status, route[1]).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'auth.unauthenticated', message: 'Authentication required. Please login.' });
    }
    await untouched();
  });

  it('answers 403 without the permission', async () => {
    const nobody = await h.userWith(['view users']);
    for (const route of routes()) {
      const res = await call(nobody.token, route);
      expect(res.status, route[1]).toBe(403);
      expect(res.body, route[1]).toEqual(FORBIDDEN);
    }
    // "view roles" alone opens the reads only.
    const viewer = await h.userWith(['view roles']);
    expect((await h.http().get('/api/v1/roles').set(bearer(viewer.token))).status).toBe(200);
    for (const route of routes().slice(6)) {
      const res = await call(viewer.token, route);
      expect(res.status, route[1]).toBe(403);
    }
    await untouched();
  });

  it('answers 423 while the session is locked', async () => {
    const token = await h.login('root@test.example');
    expect((await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: PASSWORD })).status).toBe(200);
    for (const route of routes()) {
      const res = await call(token, route);
      expect(res.status, route[1]).toBe(423);
      expect(res.body).toEqual({ success: false, code: 'auth.session_locked', message: 'Your session is locked. Unlock it with your password to continue.' });
    }
    await untouched();
  });

  it('the dealer role cannot manage roles', async () => {
    await h.insertUser({ name: 'Dealer', email: 'dealer@test.example', user_type: 'dealer', dealer_code: 'D1' }, 'dealer');
    const token = await h.login('dealer@test.example');
    const res = await h.http().get('/api/v1/roles').set(bearer(token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    const assign = await h.http().post(`/api/v1/roles/${dealerId}/assign-permissions`).set(bearer(token)).send({ permissions: ALL_PERMISSIONS });
    expect(assign.status).toBe(403);
    expect((await h.http().get(`/api/v1/roles/${dealerId}`).set(bearer(admin))).body.data.permissions).toHaveLength(DEALER_PERMISSIONS.length);
  });
});
