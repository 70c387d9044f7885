import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PASSWORD, PNG_1PX, type Harness, bearer, FORBIDDEN } from '../../../tests/api/harness.ts';
import { ALL_PERMISSIONS, DEALER_PERMISSIONS } from '@app/contracts';

/**
 * Who may do what on /users: 401 without a token, 403 without the permission, 423 while the
 * session is locked, dealers scoped to themselves, and nobody raising their own rights.
 */
let h: Harness;
let admin: string;
let rootId: number;
let targetId: number;
let dealerRoleId: number;
const OWN_ACCESS = { success: false, message: 'You cannot change your own status, type or role.', code: 'users.cannot_change_own_access' };
const GRANT_ABOVE = { success: false, message: 'You cannot give rights that you do not hold yourself.', code: 'users.grant_above_own' };
const TARGET_ABOVE = { success: false, message: 'You cannot change a user who holds rights that you do not hold.', code: 'users.target_above_own' };

type Method = 'get' | 'post' | 'patch' | 'delete';
/** Every /users route with a body that would succeed for a super admin. */
const routes = (id: number): [Method, string, unknown?][] => [
  ['get', '/api/v1/users'],
  ['get', '/api/v1/users/search?q=x'],
  ['get', '/api/v1/users/trashed/list'],
  ['get', `/api/v1/users/${id}`],
  ['get', `/api/v1/users/${id}/trashed`],
  ['post', '/api/v1/users', { name: 'N', email: 'n@test.example', password: 'Abcdef1!', password_confirmation: 'Abcdef1!', role_id: 1 }],
  ['post', '/api/v1/users/bulk', [{ name: 'N', email: 'n@test.example', password: 'Abcdef1!', password_confirmation: 'Abcdef1!', role_id: 1 }]],
  ['patch', `/api/v1/users/${id}`, { name: 'Changed' }],
  ['patch', '/api/v1/users/bulk/status', { ids: [id], status: 'inactive' }],
  ['delete', `/api/v1/users/${id}`],
  ['delete', `/api/v1/users/${id}/force`],
  ['post', `/api/v1/users/${id}/restore`],
  ['delete', '/api/v1/users/bulk/delete', { ids: [id] }],
  ['post', '/api/v1/users/bulk/restore', { ids: [id] }],
  ['delete', '/api/v1/users/bulk/force-delete', { ids: [id] }],
  ['post', `/api/v1/users/${id}/dealer-logo`],
  ['delete', `/api/v1/users/${id}/dealer-logo`],
  ['post', '/api/v1/users/dealer/logo'],
  ['delete', '/api/v1/users/dealer/logo'],
];

function call(token: string | null, [method, path, body]: [Method, string, unknown?]) {
  const req = h.http()[method](path);
  if (token) req.set(bearer(token));
  return body === undefined ? req : req.send(body as object);
}

async function targetUnchanged() {
  const row = await h.knex('users').where({ id: targetId }).first();
  expect(row).toMatchObject({ name: 'Target', status: 'active', deleted_at: null });
}

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
  dealerRoleId = (await h.knex('roles').where({ name: 'dealer' }).first()).id;
  targetId = await h.insertUser({ name: 'Target', email: 'target@test.example' });
});
afterAll(() => h.close());

describe('authentication, permissions and the session lock on every /users route', () => {
  it('answers 401 without a token, and with a forged one', async () => {
    for (const route of routes(targetId)) {
      const res = await call(null, route);
      expect(res.status, route[1]).toBe(401);
      expect(res.body, route[1]).toEqual({ success: false, code: 'auth.unauthenticated', message: 'Authentication required. Please login.' });
    }
    const forged = await h.http().get('/api/v1/users').set(bearer('eyJhbGciOiJub25lIn0.eyJzaWQiOiJ4In0.'));
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ success: false, code: 'auth.session_expired', message: 'Your session has expired. Please login again.' });
    await targetUnchanged();
  });

  it('answers 403 to an admin without the permissions (list needs "view users")', async () => {
    const nobody = await h.userWith(['view dashboard']);
    for (const route of routes(targetId)) {
      const res = await call(nobody.token, route);
      expect(res.status, route[1]).toBe(403);
      if (route[1].endsWith('/dealer/logo'))
        expect(res.body).toEqual({ success: false, code: 'users.dealers_only', message: 'Only dealers have a dealer logo.' });
      else expect(res.body, route[1]).toEqual(FORBIDDEN);
    }
    await targetUnchanged();
    expect(await h.knex('users').where({ email: 'n@test.example' }).first()).toBeUndefined();
  });

  it('lets each permission open only its own routes', async () => {
    const viewer = await h.userWith(['view users']);
    const list = await h.http().get('/api/v1/users').set(bearer(viewer.token));
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBeGreaterThanOrEqual(3);
    const show = await h.http().get(`/api/v1/users/${targetId}`).set(bearer(viewer.token));
    expect(show.status).toBe(200);
    for (const route of [routes(targetId)[5], routes(targetId)[7], routes(targetId)[9]]) {
      const res = await call(viewer.token, route);
      expect(res.status, route[1]).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    const noView = await h.userWith(['update users', 'delete users']);
    expect((await h.http().get('/api/v1/users').set(bearer(noView.token))).status).toBe(403);
    await targetUnchanged();
  });

  it('answers 423 on every route while the session is locked, and works again after unlock', async () => {
    const token = await h.login('root@test.example');
    const lock = await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: PASSWORD });
    expect(lock.status).toBe(200);
    expect(lock.body).toMatchObject({ success: true, data: { is_locked: true } });
    for (const route of routes(targetId)) {
      const res = await call(token, route);
      expect(res.status, route[1]).toBe(423);
      expect(res.body, route[1]).toEqual({
        success: false,
        code: 'auth.session_locked',
        message: 'Your session is locked. Unlock it with your password to continue.',
      });
    }
    await targetUnchanged();
    // Other sessions of the same user are not locked.
    expect((await h.http().get('/api/v1/users').set(bearer(admin))).status).toBe(200);
    const check = await h.http().get('/api/v1/auth/check-lock').set(bearer(token));
    expect(check.body.data).toEqual({ is_locked: true });
    const unlock = await h.http().post('/api/v1/auth/unlock').set(bearer(token)).send({ password: PASSWORD });
    expect(unlock.status).toBe(200);
    const after = await h.http().get('/api/v1/users').set(bearer(token));
    expect(after.status).toBe(200);
  });
});

describe('dealers only ever see and change themselves', () => {
  let dealerId: number;
  let dealerToken: string;
  let otherDealerId: number;

  beforeAll(async () => {
    dealerId = await h.insertUser({ name: 'My Dealer', email: 'mydealer@test.example', user_type: 'dealer', dealer_code: 'MINE' }, 'dealer');
    otherDealerId = await h.insertUser({ name: 'Rival Dealer', email: 'rival@test.example', user_type: 'dealer', dealer_code: 'RIVAL' }, 'dealer');
    dealerToken = await h.login('mydealer@test.example');
  });

  it('a dealer with the dealer role gets 403 on the user list and on other users', async () => {
    const list = await h.http().get('/api/v1/users').set(bearer(dealerToken));
    expect(list.status).toBe(403);
    expect(list.body).toEqual(FORBIDDEN);
    for (const route of [
      ['get', `/api/v1/users/${otherDealerId}`],
      ['patch', `/api/v1/users/${otherDealerId}`, { name: 'Hacked' }],
      ['delete', `/api/v1/users/${otherDealerId}`],
      ['patch', '/api/v1/users/bulk/status', { ids: [otherDealerId], status: 'inactive' }],
    ] as [Method, string, unknown?][]) {
      const res = await call(dealerToken, route);
      expect(res.status, route[1]).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect(await h.knex('users').where({ id: otherDealerId }).first()).toMatchObject({ name: 'Rival Dealer', status: 'active', deleted_at: null });
  });

  describe('when the dealer role was given user permissions', () => {
    beforeAll(async () => {
      const grant = await h
        .http()
        .post(`/api/v1/roles/${dealerRoleId}/assign-permissions`)
        .set(bearer(admin))
        .send({
          permissions: [
            ...DEALER_PERMISSIONS,
            'view users',
            'update users',
            'delete users',
            'change user status',
            'view trash items',
            'force delete users',
            'restore users',
          ],
        });
      expect(grant.status).toBe(200);
    });
    // Put the dealer role back as it was.
    afterAll(async () => {
      const reset = await h.http().post(`/api/v1/roles/${dealerRoleId}/assign-permissions`).set(bearer(admin)).send({ permissions: DEALER_PERMISSIONS });
      expect(reset.status).toBe(200);
    });

    it('the dealer lists only itself, and ids do not reveal others', async () => {
      const list = await h.http().get('/api/v1/users').set(bearer(dealerToken));
      expect(list.status).toBe(200);
      expect(list.body.data.map((u: { id: number }) => u.id)).toEqual([dealerId]);
      expect(list.body.meta.total).toBe(1);
      const byIds = await h.http().get(`/api/v1/users?ids=${otherDealerId},${rootId}`).set(bearer(dealerToken));
      expect(byIds.body.data).toEqual([]);
      const trash = await h.http().get('/api/v1/users/trashed/list').set(bearer(dealerToken));
      expect(trash.status).toBe(200);
      expect(trash.body.data).toEqual([]);
    });

    it("the dealer's search finds only itself", async () => {
      const mine = await h.http().get('/api/v1/users/search?q=dealer').set(bearer(dealerToken));
      expect(mine.status).toBe(200);
      expect(mine.body.data.map((u: { id: number }) => u.id)).toEqual([dealerId]);
      const search = await h.http().get('/api/v1/users/search?q=rival').set(bearer(dealerToken));
      expect(search.status).toBe(200);
      expect(search.body.data).toEqual([]);
    });

    it('the dealer cannot read or change another user (404), but may edit its own profile only', async () => {
      for (const route of [
        ['get', `/api/v1/users/${otherDealerId}`],
        ['get', `/api/v1/users/${rootId}`],
        ['patch', `/api/v1/users/${otherDealerId}`, { name: 'Hacked' }],
        ['delete', `/api/v1/users/${otherDealerId}`],
        ['delete', `/api/v1/users/${otherDealerId}/force`],
        ['patch', '/api/v1/users/bulk/status', { ids: [otherDealerId], status: 'inactive' }],
        ['delete', '/api/v1/users/bulk/delete', { ids: [otherDealerId] }],
        ['delete', '/api/v1/users/bulk/force-delete', { ids: [otherDealerId] }],
        ['delete', `/api/v1/users/${otherDealerId}/dealer-logo`],
      ] as [Method, string, unknown?][]) {
        const res = await call(dealerToken, route);
        expect(res.status, route[1]).toBe(404);
        expect(res.body).toEqual({ success: false, code: 'not_found', message: 'The requested resource was not found.' });
      }
      const logo = await h.http().post(`/api/v1/users/${otherDealerId}/dealer-logo`).set(bearer(dealerToken)).attach('logo', PNG_1PX, 'x.png');
      expect(logo.status).toBe(404);
      expect(await h.knex('users').where({ id: otherDealerId }).first()).toMatchObject({ name: 'Rival Dealer', status: 'active', deleted_at: null });

      const own = await h.http().get(`/api/v1/users/${dealerId}`).set(bearer(dealerToken));
      expect(own.status).toBe(200);
      const rename = await h.http().patch(`/api/v1/users/${dealerId}`).set(bearer(dealerToken)).send({ name: 'My Dealer Renamed' });
      expect(rename.status).toBe(200);
      expect(rename.body.data.name).toBe('My Dealer Renamed');
      const status = await h.http().patch(`/api/v1/users/${dealerId}`).set(bearer(dealerToken)).send({ status: 'inactive' });
      expect(status.status).toBe(403);
      expect(status.body).toEqual(OWN_ACCESS);
      const type = await h.http().patch(`/api/v1/users/${dealerId}`).set(bearer(dealerToken)).send({ user_type: 'admin', role_id: 1 });
      expect(type.status).toBe(403);
      const self = await h.http().delete(`/api/v1/users/${dealerId}`).set(bearer(dealerToken));
      expect(self.status).toBe(403);
      expect(self.body).toEqual({ success: false, code: 'users.cannot_delete_self', message: 'You cannot delete your own account.' });
    });
  });
});

describe('nobody raises their own rights', () => {
  let deleterRoleId: number;
  let viewerRoleId: number;
  let superRoleId: number;
  let manager: { id: number; token: string; roleId: number };

  beforeAll(async () => {
    const deleter = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: 'deleter', permissions: ['view users', 'delete users'] });
    deleterRoleId = deleter.body.data.id;
    const viewer = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: 'viewer', permissions: ['view users'] });
    viewerRoleId = viewer.body.data.id;
    superRoleId = (await h.knex('roles').where({ name: 'super-admin' }).first()).id;
    manager = await h.userWith(['view users', 'create users', 'update users', 'assign user roles', 'change user status']);
  });

  const newUser = (email: string, role_id: number) => ({ name: 'Made', email, password: 'Made@Pass1', password_confirmation: 'Made@Pass1', role_id });

  it('cannot create a user with a role holding permissions the caller lacks, nor a super admin', async () => {
    const above = await h.http().post('/api/v1/users').set(bearer(manager.token)).send(newUser('made1@test.example', deleterRoleId));
    expect(above.status).toBe(403);
    expect(above.body).toEqual(GRANT_ABOVE);
    const sup = await h.http().post('/api/v1/users').set(bearer(manager.token)).send(newUser('made2@test.example', superRoleId));
    expect(sup.status).toBe(403);
    expect(sup.body).toEqual(GRANT_ABOVE);
    const bulk = await h
      .http()
      .post('/api/v1/users/bulk')
      .set(bearer(manager.token))
      .send([newUser('made3@test.example', viewerRoleId), newUser('made4@test.example', deleterRoleId)]);
    expect(bulk.status).toBe(403);
    expect(bulk.body).toEqual(GRANT_ABOVE);
    expect(await h.knex('users').whereIn('email', ['made1@test.example', 'made2@test.example', 'made3@test.example', 'made4@test.example'])).toEqual([]);
    const within = await h.http().post('/api/v1/users').set(bearer(manager.token)).send(newUser('made5@test.example', viewerRoleId));
    expect(within.status).toBe(201);
    expect(within.body.data.roles).toEqual([{ id: viewerRoleId, name: 'viewer' }]);
  });

  it('cannot give another user a role above its own, and needs "assign user roles" to change roles', async () => {
    const above = await h.http().patch(`/api/v1/users/${targetId}`).set(bearer(manager.token)).send({ role_id: deleterRoleId });
    expect(above.status).toBe(403);
    expect(above.body).toEqual(GRANT_ABOVE);
    expect(await h.knex('user_roles').where({ user_id: targetId })).toEqual([]);
    const updater = await h.userWith(['view users', 'update users']);
    const noAssign = await h.http().patch(`/api/v1/users/${targetId}`).set(bearer(updater.token)).send({ role_id: viewerRoleId });
    expect(noAssign.status).toBe(403);
    expect(noAssign.body).toEqual(FORBIDDEN);
    const ok = await h.http().patch(`/api/v1/users/${targetId}`).set(bearer(manager.token)).send({ role_id: viewerRoleId });
    expect(ok.status).toBe(200);
    expect(ok.body.data.roles).toEqual([{ id: viewerRoleId, name: 'viewer' }]);
  });

  it('cannot change its own status, role or type', async () => {
    for (const body of [{ status: 'inactive' }, { role_id: viewerRoleId }, { user_type: 'dealer', dealer_code: 'SELF' }]) {
      const res = await h.http().patch(`/api/v1/users/${manager.id}`).set(bearer(manager.token)).send(body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body).toEqual(OWN_ACCESS);
    }
    const row = await h.knex('users').where({ id: manager.id }).first();
    expect(row).toMatchObject({ status: 'active', user_type: 'admin' });
    expect((await h.knex('user_roles').where({ user_id: manager.id })).map((r: { role_id: number }) => r.role_id)).toEqual([manager.roleId]);
    // Its own profile is fine.
    const name = await h.http().patch(`/api/v1/users/${manager.id}`).set(bearer(manager.token)).send({ name: 'Manager' });
    expect(name.status).toBe(200);
  });

  it('cannot change or delete a user who holds more rights, even holding every permission', async () => {
    const almostAll = await h.userWith(ALL_PERMISSIONS);
    const patch = await h.http().patch(`/api/v1/users/${rootId}`).set(bearer(almostAll.token)).send({ name: 'Owned' });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual(TARGET_ABOVE);
    const status = await h.http().patch(`/api/v1/users/${rootId}`).set(bearer(almostAll.token)).send({ status: 'inactive' });
    expect(status.status).toBe(403);
    expect(status.body).toEqual(TARGET_ABOVE);
    const del = await h.http().delete(`/api/v1/users/${rootId}`).set(bearer(almostAll.token));
    expect(del.status).toBe(403);
    expect(del.body).toEqual(TARGET_ABOVE);
    const force = await h.http().delete(`/api/v1/users/${rootId}/force`).set(bearer(almostAll.token));
    expect(force.status).toBe(403);
    const bulk = await h
      .http()
      .patch('/api/v1/users/bulk/status')
      .set(bearer(almostAll.token))
      .send({ ids: [rootId], status: 'inactive' });
    expect(bulk.status).toBe(403);
    expect(bulk.body).toEqual(TARGET_ABOVE);
    expect(await h.knex('users').where({ id: rootId }).first()).toMatchObject({ name: 'Root Admin', status: 'active', deleted_at: null });

    // The manager (without "delete users") holds less than a deleter: it cannot delete one.
    const deleterUser = await h.insertUser({ name: 'Deleter', email: 'deleter@test.example' }, 'deleter');
    const mgr = await h.userWith(['view users', 'delete users', 'update users']);
    const ok = await h.http().delete(`/api/v1/users/${deleterUser}`).set(bearer(mgr.token));
    expect(ok.status).toBe(200);
    const above = await h.insertUser({ name: 'Above', email: 'above@test.example' }, 'super-admin');
    const refused = await h
      .http()
      .delete('/api/v1/users/bulk/delete')
      .set(bearer(mgr.token))
      .send({ ids: [targetId, above] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(TARGET_ABOVE);
    expect(await h.knex('users').whereIn('id', [targetId, above]).whereNotNull('deleted_at')).toEqual([]);
    await h.knex('users').where({ id: above }).delete();
  });

  it("may save its own record unchanged in status, type and role (the console's edit form sends them all)", async () => {
    const res = await h
      .http()
      .patch(`/api/v1/users/${rootId}`)
      .set(bearer(admin))
      .send({ name: 'Root Admin', phone: '252600000000', status: 'active', user_type: 'admin', role_id: superRoleId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ phone: '252600000000', status: 'active', roles: [{ id: superRoleId, name: 'super-admin' }] });
    const own = await h
      .http()
      .patch(`/api/v1/users/${manager.id}`)
      .set(bearer(manager.token))
      .send({ name: 'Manager', status: 'active', user_type: 'admin', role_id: manager.roleId });
    expect(own.status).toBe(200);
    const other = await h.http().patch(`/api/v1/users/${manager.id}`).set(bearer(manager.token)).send({ name: 'Manager', role_id: viewerRoleId });
    expect(other.status).toBe(403);
    expect(other.body).toEqual(OWN_ACCESS);
  });

  it('an "update users" holder may edit an admin when the form resends its unchanged role', async () => {
    const editable = await h.insertUser({ name: 'Editable', email: 'editable@test.example' }, 'viewer');
    const updater = await h.userWith(['view users', 'update users']);
    const res = await h
      .http()
      .patch(`/api/v1/users/${editable}`)
      .set(bearer(updater.token))
      .send({ name: 'Edited', status: 'active', user_type: 'admin', role_id: viewerRoleId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Edited', roles: [{ id: viewerRoleId, name: 'viewer' }] });
    const change = await h.http().patch(`/api/v1/users/${editable}`).set(bearer(updater.token)).send({ name: 'Edited', role_id: deleterRoleId });
    expect(change.status).toBe(403);
    expect(change.body).toEqual(FORBIDDEN);
  });

  it('a "change user status" holder may send the status the user already has', async () => {
    const plain = await h.insertUser({ name: 'Plain', email: 'plain@test.example', status: 'inactive' });
    const statusOnly = await h.userWith(['change user status']);
    const res = await h.http().patch(`/api/v1/users/${plain}`).set(bearer(statusOnly.token)).send({ status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('inactive');
    const noPerm = await h.userWith(['update users']);
    const refused = await h.http().patch(`/api/v1/users/${plain}`).set(bearer(noPerm.token)).send({ status: 'inactive' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
  });

  it('cannot restore a user who holds more rights', async () => {
    const above = await h.insertUser({ name: 'Trashed Root', email: 'troot@test.example', deleted_at: '2026-01-01 00:00:00.000' }, 'super-admin');
    const restorer = await h.userWith(['view users', 'restore users', 'view trash items']);
    const one = await h.http().post(`/api/v1/users/${above}/restore`).set(bearer(restorer.token));
    expect(one.status).toBe(403);
    expect(one.body).toEqual(TARGET_ABOVE);
    const bulk = await h
      .http()
      .post('/api/v1/users/bulk/restore')
      .set(bearer(restorer.token))
      .send({ ids: [above] });
    expect(bulk.status).toBe(403);
    expect(bulk.body).toEqual(TARGET_ABOVE);
    expect((await h.knex('users').where({ id: above }).first()).deleted_at).not.toBeNull();
    const byRoot = await h.http().post(`/api/v1/users/${above}/restore`).set(bearer(admin));
    expect(byRoot.status).toBe(200);
    await h.knex('users').where({ id: above }).delete();
  });

  it("cannot make a dealer (which gets the dealer role) without holding the dealer role's permissions", async () => {
    const dealer = {
      name: 'New Dealer',
      email: 'nd@test.example',
      password: 'Made@Pass1',
      password_confirmation: 'Made@Pass1',
      user_type: 'dealer',
      dealer_code: 'ND1',
    };
    const res = await h.http().post('/api/v1/users').set(bearer(manager.token)).field(dealer).attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(GRANT_ABOVE);
    expect(await h.knex('users').where({ email: 'nd@test.example' }).first()).toBeUndefined();
    const turn = await h.http().patch(`/api/v1/users/${targetId}`).set(bearer(manager.token)).send({ user_type: 'dealer', dealer_code: 'TURNED' });
    expect(turn.status).toBe(403);
    expect(turn.body).toEqual(GRANT_ABOVE);
    expect((await h.knex('users').where({ id: targetId }).first()).user_type).toBe('admin');
  });

  it('changes its own password only through the profile, not through PATCH /users', async () => {
    const res = await h
      .http()
      .patch(`/api/v1/users/${manager.id}`)
      .set(bearer(manager.token))
      .send({ password: 'Other@Pass1', password_confirmation: 'Other@Pass1' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      code: 'users.use_change_password',
      message: 'Change your own password on your profile, with your current password.',
    });
    expect((await h.http().get('/api/v1/auth/me').set(bearer(manager.token))).status).toBe(200);
  });

  it('protects the last super admin: it cannot deactivate, demote or delete itself', async () => {
    for (const body of [{ status: 'inactive' }, { role_id: viewerRoleId }]) {
      const res = await h.http().patch(`/api/v1/users/${rootId}`).set(bearer(admin)).send(body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(OWN_ACCESS);
    }
    for (const path of [`/api/v1/users/${rootId}`, `/api/v1/users/${rootId}/force`]) {
      const res = await h.http().delete(path).set(bearer(admin));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, code: 'users.cannot_delete_self', message: 'You cannot delete your own account.' });
    }
    const bulk = await h
      .http()
      .delete('/api/v1/users/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [rootId] });
    expect(bulk.status).toBe(403);
    expect(await h.knex('users').where({ id: rootId }).first()).toMatchObject({ status: 'active', deleted_at: null });
    const roles = await h.http().get(`/api/v1/users/${rootId}`).set(bearer(admin));
    expect(roles.body.data.roles).toEqual([{ id: superRoleId, name: 'super-admin' }]);
  });

  it('a super admin may demote another super admin while one remains', async () => {
    const other = await h.insertUser({ name: 'Second Root', email: 'root2@test.example' }, 'super-admin');
    const res = await h.http().patch(`/api/v1/users/${other}`).set(bearer(admin)).send({ role_id: viewerRoleId });
    expect(res.status).toBe(200);
    expect(res.body.data.roles).toEqual([{ id: viewerRoleId, name: 'viewer' }]);
    expect(res.body.data.permissions).toEqual([{ name: 'view users' }]);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: other, action: 'updated' }).first();
    expect(log.actor_id).toBe(rootId);
    expect(JSON.parse(log.after)).toMatchObject({ role_id: viewerRoleId });
  });
});
