import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { createHarness, PASSWORD, PNG_1PX, type Harness, bearer } from '../../../tests/api/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('sign-in', () => {
  it('signs in active staff on both paths and returns the user and a token', async () => {
    await h.insertUser({ name: 'Amina', email: 'amina@test.example' }, 'super-admin');
    for (const path of ['/api/v1/auth/admin/login', '/api/v1/auth/login']) {
      const res = await h.http().post(path).send({ email: 'Amina@Test.example', password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toBe('Welcome back, Amina!');
      expect(res.body.data.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(res.body.data.user).toMatchObject({ email: 'amina@test.example', user_type: 'admin', roles: [{ name: 'super-admin' }] });
      expect(res.body.data.user).not.toHaveProperty('password');
      expect(res.body.data.user.permissions).toContainEqual({ name: 'view users' });
    }
    const rows = await h.knex('activity_log').where({ action: 'login' });
    expect(rows.length).toBe(2);
  });

  it('issues 1-day tokens, or 30-day tokens with rememberMe', async () => {
    await h.insertUser({ email: 'remember@test.example' }, 'super-admin');
    const short = await h.http().post('/api/v1/auth/admin/login').send({ email: 'remember@test.example', password: PASSWORD });
    const long = await h.http().post('/api/v1/auth/admin/login').send({ email: 'remember@test.example', password: PASSWORD, rememberMe: true });
    const ttl = (token: string) => {
      const p = jwt.decode(token) as { exp: number; iat: number };
      return p.exp - p.iat;
    };
    expect(ttl(short.body.data.token)).toBe(24 * 3600);
    const asText = await h.http().post('/api/v1/auth/login').send({ email: 'remember@test.example', password: PASSWORD, rememberMe: 'true' });
    expect(ttl(asText.body.data.token)).toBe(30 * 24 * 3600);
    expect(ttl(long.body.data.token)).toBe(30 * 24 * 3600);
    const hoursLeft = (Date.parse(long.body.data.expires_at) - Date.now()) / 3600_000;
    expect(hoursLeft).toBeGreaterThan(30 * 24 - 1);
  });

  it('answers 401 with one message for a wrong password and for an unknown email, and logs the failure', async () => {
    await h.insertUser({ email: 'wrongpw@test.example' }, 'super-admin');
    const wrong = await h.http().post('/api/v1/auth/admin/login').send({ email: 'wrongpw@test.example', password: 'Nope@1234' });
    const unknown = await h.http().post('/api/v1/auth/admin/login').send({ email: 'ghost@test.example', password: 'Nope@1234' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'auth.invalid_credentials', message: 'Invalid email or password.' });
    }
    expect(await h.knex('activity_log').where({ action: 'login_failed' }).count({ n: '*' }).first()).toMatchObject({ n: 2 });
  });

  it('answers 403 for an inactive user with the right password', async () => {
    await h.insertUser({ email: 'sleepy@test.example', status: 'inactive' }, 'super-admin');
    const res = await h.http().post('/api/v1/auth/admin/login').send({ email: 'sleepy@test.example', password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Your account is inactive. Please contact an administrator.');
  });

  it('validates the credentials with the specification messages, in the request language', async () => {
    const res = await h.http().post('/api/v1/auth/admin/login').send({ email: 'not-an-email', password: '' });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Validation failed. Please check your inputs.');
    expect(res.body.errors).toEqual({ email: ['Invalid email format'], password: ['Password is required'] });
    const so = await h.http().post('/api/v1/auth/admin/login?lng=so').send({});
    expect(so.body.errors.email).toEqual(['Iimaylka waa loo baahan yahay']);
  });

  it('throttles repeated failures per account and IP with 429 and Retry-After, without blocking other accounts', async () => {
    await h.insertUser({ email: 'target@test.example' }, 'super-admin');
    for (let i = 0; i < 5; i++) {
      const res = await h
        .http()
        .post('/api/v1/auth/admin/login')
        .send({ email: 'target@test.example', password: `Wrong@${i}xx` });
      expect(res.status).toBe(401);
    }
    const blocked = await h.http().post('/api/v1/auth/admin/login').send({ email: 'target@test.example', password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(blocked.body.message).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
    // Another account from the same address still signs in.
    await h.insertUser({ email: 'bystander@test.example' }, 'super-admin');
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email: 'bystander@test.example', password: PASSWORD })).status).toBe(200);
    // The same account from another address is not locked out by these failures.
    await h.knex('login_attempts').where({ email: 'target@test.example' }).update({ ip: '203.0.113.9' });
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email: 'target@test.example', password: PASSWORD })).status).toBe(200);
  });
});

describe('tokens and sessions', () => {
  let token: string;
  beforeAll(async () => {
    await h.insertUser({ name: 'Session User', email: 'session@test.example' }, 'super-admin');
    token = await h.login('session@test.example');
  });

  it('answers 401 without a token, with a bad token, an alg:none token or an expired one', async () => {
    expect((await h.http().get('/api/v1/auth/me')).status).toBe(401);
    expect((await h.http().get('/api/v1/auth/me').set(bearer('garbage'))).status).toBe(401);
    const [header, payload] = token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expect((await h.http().get('/api/v1/auth/me').set(bearer(none))).status).toBe(401);
    const forged = jwt.sign(jwt.decode(token) as object, 'not-the-key', { algorithm: 'HS256' });
    expect((await h.http().get('/api/v1/auth/me').set(bearer(forged))).status).toBe(401);
    const res = await h
      .http()
      .get('/api/v1/users')
      .set(bearer(`${header}.${payload}.AAAA`));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Your session has expired. Please login again.');
  });

  it('kills a token as soon as its session row expires', async () => {
    const t = await h.login('session@test.example');
    const { sid } = jwt.decode(t) as { sid: string };
    await h.knex('sessions').where({ id: sid }).update({ expires_at: '2020-01-01 00:00:00.000' });
    expect((await h.http().get('/api/v1/auth/me').set(bearer(t))).status).toBe(401);
  });

  it('GET /auth/me returns the signed-in user', async () => {
    const res = await h.http().get('/api/v1/auth/me').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ name: 'Session User', email: 'session@test.example', status: 'active' });
    expect(res.body.data.user.h_id).toMatch(/^[A-Za-z]{8,}$/);
  });

  it('logout revokes the session at once', async () => {
    const t = await h.login('session@test.example');
    const out = await h.http().post('/api/v1/auth/logout').set(bearer(t));
    expect(out.status).toBe(200);
    expect(out.body.message).toBe('Logged out successfully');
    expect((await h.http().get('/api/v1/auth/me').set(bearer(t))).status).toBe(401);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'logout' }).first()).toBeTruthy();
  });
});

describe('lock and unlock', () => {
  let token: string;
  beforeAll(async () => {
    await h.insertUser({ email: 'locker@test.example' }, 'super-admin');
    token = await h.login('locker@test.example');
  });

  it('requires the password to lock, and a wrong one is a 422 that keeps the session', async () => {
    const empty = await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({});
    expect(empty.status).toBe(422);
    expect(empty.body.errors.password).toEqual(['Password is required']);
    const wrong = await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: 'Wrong@123' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.password).toEqual(['The password is incorrect.']);
    expect((await h.http().get('/api/v1/auth/check-lock').set(bearer(token))).body.data.is_locked).toBe(false);
  });

  it('a locked session gets 423 everywhere but check-lock, unlock, logout and me', async () => {
    const lock = await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: PASSWORD });
    expect(lock.status).toBe(200);
    expect(lock.body).toMatchObject({ message: 'Session locked successfully', data: { is_locked: true } });
    expect((await h.http().get('/api/v1/auth/check-lock').set(bearer(token))).body).toEqual({ success: true, data: { is_locked: true } });
    expect((await h.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
    for (const [method, path] of [
      ['get', '/api/v1/users'],
      ['get', '/api/v1/roles'],
      ['put', '/api/v1/auth/profile'],
      ['post', '/api/v1/auth/change-password'],
    ] as const) {
      const res = await h.http()[method](path).set(bearer(token)).send({});
      expect(res.status, `${method} ${path}`).toBe(423);
      expect(res.body.message).toBe('Your session is locked. Unlock it with your password to continue.');
    }
    const wrong = await h.http().post('/api/v1/auth/unlock').set(bearer(token)).send({ password: 'Wrong@123' });
    expect(wrong.status).toBe(422);
    expect(await h.knex('activity_log').where({ action: 'unlock_failed' }).first()).toBeTruthy();
    const unlock = await h.http().post('/api/v1/auth/unlock').set(bearer(token)).send({ password: PASSWORD });
    expect(unlock.body).toMatchObject({ message: 'Session unlocked successfully', data: { is_locked: false } });
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(200);
    expect(await h.knex('activity_log').whereIn('action', ['locked', 'unlocked']).count({ n: '*' }).first()).toMatchObject({ n: 2 });
  });

  it('the lock belongs to one session: another sign-in of the same user is not locked', async () => {
    const other = await h.login('locker@test.example');
    await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: PASSWORD });
    expect((await h.http().get('/api/v1/users').set(bearer(other))).status).toBe(200);
    const out = await h.http().post('/api/v1/auth/logout').set(bearer(token));
    expect(out.status).toBe(200);
  });
});

describe('own profile', () => {
  let token: string;
  beforeAll(async () => {
    await h.insertUser({ name: 'Profile User', email: 'profile@test.example' }, 'dealer');
    token = await h.login('profile@test.example');
    await h.insertUser({ email: 'taken@test.example' });
  });

  it('updates name, phone and address, and refuses a taken email or a blank name', async () => {
    const ok = await h.http().put('/api/v1/auth/profile').set(bearer(token)).send({ name: 'Hodan Ali', phone: '+252615551234', address: 'Mogadishu' });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Profile updated successfully');
    expect(ok.body.data.user).toMatchObject({ name: 'Hodan Ali', phone: '+252615551234', address: 'Mogadishu' });
    const taken = await h.http().put('/api/v1/auth/profile').set(bearer(token)).send({ email: 'taken@test.example' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.email).toEqual(['The email has already been taken.']);
    const blank = await h.http().put('/api/v1/auth/profile').set(bearer(token)).send({ name: '  ' });
    expect(blank.body.errors.name).toEqual(['Name is required']);
    const log = await h.knex('activity_log').where({ action: 'profile_updated' }).first();
    expect(JSON.parse(log.after)).toMatchObject({ name: 'Hodan Ali' });
  });

  it('uploads a profile picture checked by its bytes and serves it safely', async () => {
    const res = await h
      .http()
      .post('/api/v1/auth/profile-picture')
      .set(bearer(token))
      .attach('profile_image', PNG_1PX, { filename: 'me.png', contentType: 'image/png' });
    expect(res.status).toBe(200);
    const url: string = res.body.data.user.profile_image;
    expect(url).toMatch(/^\/storage\/avatars\/[0-9a-f]{32}\.png$/);
    const file = await h.http().get(url);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');

    const fake = await h
      .http()
      .post('/api/v1/auth/profile-picture')
      .set(bearer(token))
      .attach('profile_image', Buffer.from('<script>alert(1)</script>'), { filename: 'evil.png', contentType: 'image/png' });
    expect(fake.status).toBe(422);
    expect(fake.body.errors.profile_image).toEqual(['The file must be an image (JPG, PNG, GIF or WEBP).']);

    const big = Buffer.concat([PNG_1PX, Buffer.alloc(5 * 1024 * 1024 + 10)]);
    const tooBig = await h
      .http()
      .post('/api/v1/auth/profile-picture')
      .set(bearer(token))
      .attach('profile_image', big, { filename: 'big.png', contentType: 'image/png' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.message).toBe('The file may not be greater than 5 MB (5120 KB).');

    const none = await h.http().post('/api/v1/auth/profile-picture').set(bearer(token)).field('x', '1');
    expect(none.status).toBe(422);
    expect(none.body.errors.profile_image).toEqual(['An image file is required.']);
  });

  it('changes the password with the current one and signs out the other sessions', async () => {
    const other = await h.login('profile@test.example');
    const wrong = await h
      .http()
      .post('/api/v1/auth/change-password')
      .set(bearer(token))
      .send({ current_password: 'Bad@12345', password: 'Newpass@123', password_confirmation: 'Newpass@123' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.current_password).toEqual(['The current password is incorrect.']);
    const weak = await h
      .http()
      .post('/api/v1/auth/change-password')
      .set(bearer(token))
      .send({ current_password: PASSWORD, password: 'short', password_confirmation: 'other' });
    expect(weak.body.errors).toEqual({
      password: [
        'Password must be at least 8 characters',
        'Password must contain at least one lowercase letter, one uppercase letter, and one special character',
      ],
      password_confirmation: ['Passwords do not match'],
    });
    const ok = await h
      .http()
      .post('/api/v1/auth/change-password')
      .set(bearer(token))
      .send({ current_password: PASSWORD, password: 'Newpass@123', password_confirmation: 'Newpass@123' });
    expect(ok.status).toBe(200);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(other))).status).toBe(401);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
    expect(await h.login('profile@test.example', 'Newpass@123')).toBeTruthy();
    const stored = await h.knex('users').where({ email: 'profile@test.example' }).first();
    expect(stored.password).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  });
});

describe('throttling under concurrency and against lock-outs', () => {
  it('lets no more than 5 parallel wrong guesses through for one account and address', async () => {
    await h.insertUser({ email: 'parallel@test.example' }, 'super-admin');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h
          .http()
          .post('/api/v1/auth/admin/login')
          .send({ email: 'parallel@test.example', password: `Guess@${i}zz` }),
      ),
    );
    expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(7);
  });

  it('does not let failures from other addresses lock out an address that signed in before', async () => {
    await h.insertUser({ email: 'victim@test.example' }, 'super-admin');
    expect(await h.login('victim@test.example')).toBeTruthy(); // this address is now known
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    await h
      .knex('login_attempts')
      .insert(Array.from({ length: 25 }, (_, i) => ({ email: 'victim@test.example', ip: `198.51.100.${i}`, succeeded: false, created_at: now })));
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email: 'victim@test.example', password: PASSWORD })).status).toBe(200);
    // A new address for that account meets the short account-wide back-off instead.
    await h.knex('login_attempts').where({ email: 'victim@test.example', succeeded: true }).delete();
    const stranger = await h.http().post('/api/v1/auth/admin/login').send({ email: 'victim@test.example', password: PASSWORD });
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('counts wrong current passwords on change-password toward the throttle', async () => {
    await h.insertUser({ email: 'stolen@test.example' }, 'super-admin');
    const t = await h.login('stolen@test.example');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await h
        .http()
        .post('/api/v1/auth/change-password')
        .set(bearer(t))
        .send({ current_password: `Guess@${i}zz`, password: 'Newpass@123', password_confirmation: 'Newpass@123' });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 5)).toEqual([422, 422, 422, 422, 422]);
    expect(statuses[5]).toBe(429);
  });
});
