import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PASSWORD, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/**
 * Hostile and careless input: OWASP ASVS 5.0 password rules on top of the specification's,
 * names that could pass for others, URL schemes, oversized arrays, the sign-in email as a
 * credential, many sign-ins at once, and personal answers kept out of caches.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

const adminBody = (over: Record<string, unknown>) => ({
  name: 'Person',
  email: 'person@test.example',
  password: 'Strong@Pass77',
  password_confirmation: 'Strong@Pass77',
  user_type: 'admin',
  role_id: 1,
  ...over,
});
const post = (body: Record<string, unknown>) => h.http().post('/api/v1/users').set(bearer(root)).send(body);

describe('passwords (specification rules plus ASVS 5.0 V6)', () => {
  it('does not count whitespace or control characters as special', async () => {
    for (const password of ['Lower Upper1', 'Lower\tUpper1', 'LowerUpper\u200b1']) {
      const res = await post(adminBody({ password, password_confirmation: password }));
      expect(res.status).toBe(422);
      expect(res.body.errors.password).toEqual(['Password must contain at least one lowercase letter, one uppercase letter, and one special character']);
    }
    expect((await post(adminBody({ password: 'Lower Upper1!', password_confirmation: 'Lower Upper1!' }))).status).toBe(201);
  });

  it('refuses a password holding the email name, whatever its case', async () => {
    const res = await post(adminBody({ email: 'hodan.ali@test.example', password: 'Hodan.ALI@2026', password_confirmation: 'Hodan.ALI@2026' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ password: ['The password must not contain the name part of the email address.'] });
  });

  it('refuses the most common passwords, in every language', async () => {
    const res = await post(adminBody({ email: 'common@test.example', password: 'P@ssw0rd', password_confirmation: 'P@ssw0rd' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ password: ['This password is too common. Choose one that is harder to guess.'] });
    const so = await h
      .http()
      .post('/api/v1/users?lng=so')
      .set(bearer(root))
      .send(adminBody({ email: 'common@test.example', password: 'P@ssw0rd', password_confirmation: 'P@ssw0rd' }));
    expect(so.body.errors.password[0]).not.toBe(res.body.errors.password[0]);
    const change = await h
      .http()
      .post('/api/v1/auth/change-password')
      .set(bearer(root))
      .send({ current_password: PASSWORD, password: 'P@ssw0rd', password_confirmation: 'P@ssw0rd' });
    expect(change.body.errors.password).toEqual(['This password is too common. Choose one that is harder to guess.']);
  });
});

describe('names that could pass for others', () => {
  it('refuses invisible and control characters in role and user names', async () => {
    for (const name of ['super\u200b-admin', 'admin\u202eevil', 'null\u0000byte', '\u2066isolate\u2069', 'b\ufeffom']) {
      const role = await h.http().post('/api/v1/roles').set(bearer(root)).send({ name });
      expect(role.status).toBe(422);
      expect(role.body.errors.name).toEqual(['The name contains invisible or control characters. Type it again without them.']);
      const user = await post(adminBody({ name, email: 'names@test.example' }));
      expect(user.body.errors.name).toEqual(['The name contains invisible or control characters. Type it again without them.']);
    }
  });

  it('normalises look-alikes (NFKC), so a full-width super-admin is the taken name', async () => {
    const res = await h.http().post('/api/v1/roles').set(bearer(root)).send({ name: 'ｓｕｐｅｒ－ａｄｍｉｎ' });
    expect(res.status).toBe(422);
    expect(res.body.errors.name).toEqual(['The name has already been taken.']);
    const made = await h.http().post('/api/v1/roles').set(bearer(root)).send({ name: 'Ｓｕｐｐｏｒｔ Ｔｅａｍ' });
    expect(made.status).toBe(201);
    expect(made.body.data.name).toBe('Support Team');
  });
});

describe('renaming a role', () => {
  it('needs the permissions the role holds, as deleting it does', async () => {
    const roleId = await h.createRole('Finance', ['view logs', 'view reports']);
    const editor = await h.userWith(['view roles', 'update roles', 'view reports']);
    const renamed = await h.http().patch(`/api/v1/roles/${roleId}`).set(bearer(editor.token)).send({ name: 'Finance team' });
    expect(renamed.status).toBe(403);
    expect(renamed.body.message).toBe('You cannot give rights that you do not hold yourself.');
    const holder = await h.userWith(['view roles', 'update roles', 'view reports', 'view logs']);
    expect((await h.http().patch(`/api/v1/roles/${roleId}`).set(bearer(holder.token)).send({ name: 'Finance team' })).status).toBe(200);
  });
});

describe('URLs and arrays', () => {
  it('accepts only http and https for a dealer website', async () => {
    for (const website of ['javascript:alert(1)', 'data:text/html,hi', 'ftp://files.example.so', 'not a url']) {
      const res = await h.http().patch('/api/v1/users/1').set(bearer(root)).send({ website });
      expect(res.status).toBe(422);
      expect(res.body.errors.website).toEqual(['Enter a full web address starting with http:// or https://']);
    }
  });

  it('caps the permission list of a request', async () => {
    const roleId = await h.createRole('capped');
    const names = Array.from({ length: 301 }, (_, i) => `permission ${i}`);
    const res = await h.http().post(`/api/v1/roles/${roleId}/assign-permissions`).set(bearer(root)).send({ permissions: names });
    expect(res.status).toBe(422);
    expect(res.body.errors.permissions).toEqual(['At most 300 permissions can be given at once.']);
  });
});

describe('changing the sign-in email', () => {
  it('needs the current password and signs out the other sessions', async () => {
    const me = await h.userWith([]);
    const other = await h.login(me.email);
    const missing = await h.http().put('/api/v1/auth/profile').set(bearer(me.token)).send({ email: 'moved@test.example' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { current_password: ['Current password is required'] },
    });
    const wrong = await h.http().put('/api/v1/auth/profile').set(bearer(me.token)).send({ email: 'moved@test.example', current_password: 'Wrong@Pass1' });
    expect(wrong.body.errors).toEqual({ current_password: ['The current password is incorrect.'] });
    const ok = await h.http().put('/api/v1/auth/profile').set(bearer(me.token)).send({ email: 'moved@test.example', current_password: PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe('moved@test.example');
    expect((await h.http().get('/api/v1/auth/me').set(bearer(other))).status).toBe(401);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(me.token))).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'email_changed', subject_id: me.id })).toHaveLength(1);
    // Other fields need no password.
    expect((await h.http().put('/api/v1/auth/profile').set(bearer(me.token)).send({ name: 'Renamed', email: 'moved@test.example' })).status).toBe(200);
  });
});

describe('many sign-ins at once', () => {
  it('30 correct sign-ins to one account all succeed', async () => {
    const u = await h.userWith([]);
    const results = await Promise.all(Array.from({ length: 30 }, () => h.http().post('/api/v1/auth/admin/login').send({ email: u.email, password: PASSWORD })));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
  }, 60_000);

  it('30 wrong guesses at once are still cut off at the limit, with no 5xx', async () => {
    const u = await h.userWith([]);
    const results = await Promise.all(
      Array.from({ length: 30 }, () => h.http().post('/api/v1/auth/admin/login').send({ email: u.email, password: 'Wrong@Guess1' })),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 401)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(25);
    expect(results.find((r) => r.status === 429)!.headers['retry-after']).toMatch(/^\d+$/);
  }, 60_000);
});

describe('caching', () => {
  it('marks signed-in answers no-store and leaves public ones alone', async () => {
    expect((await h.http().get('/api/v1/auth/me').set(bearer(root))).headers['cache-control']).toBe('no-store');
    expect((await h.http().get('/api/v1/users').set(bearer(root))).headers['cache-control']).toBe('no-store');
    expect((await h.http().get('/api/v1/health')).headers['cache-control']).toBeUndefined();
  });
});
