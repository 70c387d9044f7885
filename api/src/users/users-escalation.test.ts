import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PNG_1PX, type Harness, bearer } from '../../../tests/api/harness.ts';

// Nobody raises rights beyond their own: the paths a reviewer found, kept shut.
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const newPassword = 'Unrelated@Pass77';

describe('privilege escalation', () => {
  it('a "create users" holder cannot make a dealer, whose role holds rights it lacks', async () => {
    const staff = await h.userWith(['view users', 'create users', 'update users']);
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(staff.token))
      .field({ name: 'Evil', email: 'evil@test.example', password: newPassword, password_confirmation: newPassword, user_type: 'dealer', dealer_code: 'EVIL' })
      .attach('dealer_logo', PNG_1PX, { filename: 'l.png', contentType: 'image/png' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('You cannot give rights that you do not hold yourself.');
    expect(await h.knex('users').where({ email: 'evil@test.example' }).first()).toBeUndefined();
    expect(await h.knex('wallets').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });

  it('nor turn an admin into a dealer', async () => {
    const staff = await h.userWith(['view users', 'update users', 'assign user roles']);
    const victim = await h.userWith([]);
    const res = await h.http().patch(`/api/v1/users/${victim.id}`).set(bearer(staff.token)).send({ user_type: 'dealer', dealer_code: 'NEWD' });
    expect(res.status).toBe(403);
  });

  it('"update roles" alone cannot change a role\'s permissions through PATCH', async () => {
    const admin = await h.adminToken();
    const role = await h
      .http()
      .post('/api/v1/roles')
      .set(bearer(admin))
      .send({ name: 'Staff', permissions: ['view users', 'view roles'] });
    expect(role.status).toBe(201);
    const editor = await h.userWith(['view roles', 'update roles']);
    const res = await h.http().patch(`/api/v1/roles/${role.body.data.h_id}`).set(bearer(editor.token)).send({ permissions: [] });
    expect(res.status).toBe(403);
    const after = await h.http().get(`/api/v1/roles/${role.body.data.id}`).set(bearer(admin));
    expect(after.body.data.permissions.map((p: { name: string }) => p.name).sort()).toEqual(['view roles', 'view users']);
    // With "assign permissions" it may change what it holds itself, and no more.
    const assigner = await h.userWith(['view roles', 'update roles', 'assign permissions', 'view users']);
    const ok = await h
      .http()
      .patch(`/api/v1/roles/${role.body.data.id}`)
      .set(bearer(assigner.token))
      .send({ permissions: ['view users'] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.permissions.map((p: { name: string }) => p.name)).toEqual(['view users']);
    const tooMuch = await h
      .http()
      .patch(`/api/v1/roles/${role.body.data.id}`)
      .set(bearer(assigner.token))
      .send({ permissions: ['view users', 'view logs'] });
    expect(tooMuch.status).toBe(403);
  });

  it('"restore users" cannot bring back a super admin it could not manage', async () => {
    const admin = await h.adminToken();
    const otherSuper = await h.insertUser({ email: 'super2@test.example' }, 'super-admin');
    expect((await h.http().delete(`/api/v1/users/${otherSuper}`).set(bearer(admin))).status).toBe(200);
    const restorer = await h.userWith(['view users', 'restore users', 'view trash items']);
    const res = await h.http().post(`/api/v1/users/${otherSuper}/restore`).set(bearer(restorer.token));
    expect(res.status).toBe(403);
    expect((await h.knex('users').where({ id: otherSuper }).first()).deleted_at).not.toBeNull();
  });

  it('own password changes only through change-password, which asks for the current one', async () => {
    const self = await h.userWith(['view users', 'update users']);
    const res = await h.http().patch(`/api/v1/users/${self.id}`).set(bearer(self.token)).send({ password: newPassword, password_confirmation: newPassword });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Change your own password on your profile, with your current password.');
  });

  it('dealer codes are unique whatever their case and whoever holds them', async () => {
    const admin = await h.adminToken();
    const role = await h.http().post('/api/v1/roles').set(bearer(admin)).send({ name: 'Clerk' });
    const first = await h.http().post('/api/v1/users').set(bearer(admin)).send({
      name: 'A',
      email: 'a1@test.example',
      password: newPassword,
      password_confirmation: newPassword,
      role_id: role.body.data.id,
      dealer_code: 'shop1',
    });
    expect(first.status).toBe(201);
    const second = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .field({ name: 'B', email: 'b1@test.example', password: newPassword, password_confirmation: newPassword, user_type: 'dealer', dealer_code: 'SHOP1' })
      .attach('dealer_logo', PNG_1PX, { filename: 'l.png', contentType: 'image/png' });
    expect(second.status).toBe(422);
    expect(second.body.errors.dealer_code).toEqual(['The dealer code has already been taken.']);
  });
});

describe('view admins and view dealers', () => {
  it('each opens the user list narrowed to its own user type', async () => {
    const admin = await h.adminToken();
    const dealerId = await h.insertUser({ name: 'Shop', email: 'shop@test.example', user_type: 'dealer', dealer_code: 'SHOPV' }, 'dealer');
    const dealersOnly = await h.userWith(['view dealers']);
    const list = await h.http().get('/api/v1/users').set(bearer(dealersOnly.token));
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    expect(list.body.data.every((u: { user_type: string }) => u.user_type === 'dealer')).toBe(true);
    expect((await h.http().get(`/api/v1/users/${dealerId}`).set(bearer(dealersOnly.token))).status).toBe(200);
    expect((await h.http().get(`/api/v1/users/${dealersOnly.id}`).set(bearer(dealersOnly.token))).status).toBe(404);

    const adminsOnly = await h.userWith(['view admins']);
    const admins = await h.http().get('/api/v1/users').query({ user_type: 'admin' }).set(bearer(adminsOnly.token));
    expect(admins.status).toBe(200);
    expect(admins.body.data.every((u: { user_type: string }) => u.user_type === 'admin')).toBe(true);
    const askDealers = await h.http().get('/api/v1/users').query({ user_type: 'dealer' }).set(bearer(adminsOnly.token));
    expect(askDealers.body.data).toEqual([]);
    expect(
      (
        await h
          .http()
          .get('/api/v1/users')
          .set(bearer((await h.userWith(['view roles'])).token))
      ).status,
    ).toBe(403);
    // Writing still needs the write permissions.
    expect((await h.http().delete(`/api/v1/users/${dealerId}`).set(bearer(dealersOnly.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/users').query({ sort: 'phone' }).set(bearer(admin))).status).toBe(200);
  });
});
