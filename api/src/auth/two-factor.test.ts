import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { Secret, TOTP } from 'otpauth';
import { createHarness, bearer, PASSWORD, FORBIDDEN, type Harness } from '../../../tests/api/harness.ts';
import { translator } from '../i18n/server-i18n.ts';

/**
 * Two-factor sign-in (docs/api-conventions.md, "Two-factor sign-in") against the real app on
 * SQLite and MariaDB: enrolment, the second step, replays, recovery codes (also used twice at
 * once), throttling, trusted devices, roles that require it, the admin's reset and the lock screen.
 */
let h: Harness;
let root: string;
beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

const LOGIN = '/api/v1/auth/admin/login';
const VERIFY = '/api/v1/auth/two-factor/verify';
const STEP_MS = 30_000;

/** The code of the app for the step `offset` steps from now (the server accepts -1, 0 and +1). */
const codeFor = (secret: string, offset = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offset * STEP_MS });

let counter = 0;
/** A new super admin (or a user with a role of its own), its token and, when asked, two-factor turned on through the API. */
async function staff(opts: { enrol?: boolean; role?: string } = {}) {
  counter += 1;
  const email = `tf${counter}@test.example`;
  const id = await h.insertUser({ name: `Two Factor ${counter}`, email }, opts.role ?? 'super-admin');
  const token = await h.login(email);
  if (!opts.enrol) return { id, email, token, secret: '', codes: [] as string[] };
  const setup = await h.http().post('/api/v1/auth/two-factor/setup').set(bearer(token));
  expect(setup.status).toBe(200);
  const secret: string = setup.body.data.secret;
  const confirm = await h
    .http()
    .post('/api/v1/auth/two-factor/confirm')
    .set(bearer(token))
    .send({ code: codeFor(secret), password: PASSWORD });
  expect(confirm.status).toBe(200);
  return { id, email, token, secret, codes: confirm.body.data.recovery_codes as string[] };
}

const challengeOf = async (email: string, agent = h.http()) => {
  const res = await agent.post(LOGIN).send({ email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(res.body.data.two_factor_required).toBe(true);
  return res.body.data.challenge as string;
};
// The last step a user's code was accepted for, forgotten: the next code of the current step is fresh again.
const forgetLastStep = (userId: number) => h.knex('two_factor_credentials').where('user_id', userId).update({ last_used_step: null });
const logOf = (action: string, subjectId: number) => h.knex('activity_log').where({ action, subject_id: subjectId }).orderBy('id');

describe('enrolment', () => {
  it('shows a secret with its QR code, turns on with a code and the password, and answers ten recovery codes once', async () => {
    const me = await staff();
    const setup = await h.http().post('/api/v1/auth/two-factor/setup').set(bearer(me.token));
    expect(setup.status).toBe(200);
    const { secret, otpauth_url, qr_code, issuer, account } = setup.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\//);
    expect(otpauth_url).toContain(`secret=${secret}`);
    expect(otpauth_url).toContain('digits=6');
    expect(otpauth_url).toContain('period=30');
    expect(issuer).toBe('Internet Bundles');
    expect(account).toBe(me.email);
    expect(Buffer.from(qr_code.replace('data:image/svg+xml;base64,', ''), 'base64').toString()).toMatch(/^<svg/);
    // Sealed at rest: the database holds no readable secret.
    const stored = await h.knex('two_factor_credentials').where('user_id', me.id).first();
    expect(stored.secret).toMatch(/^v1:/);
    expect(stored.secret).not.toContain(secret);
    expect((await h.http().get('/api/v1/auth/two-factor').set(bearer(me.token))).body.data).toMatchObject({ enabled: false, pending: true });

    const wrongCode = await h.http().post('/api/v1/auth/two-factor/confirm').set(bearer(me.token)).send({ code: '000000', password: PASSWORD });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.errors).toEqual({ code: ['The code is not correct. Check your authenticator app and try again.'] });
    const wrongPassword = await h
      .http()
      .post('/api/v1/auth/two-factor/confirm')
      .set(bearer(me.token))
      .send({ code: codeFor(secret), password: 'Wrong@123' });
    expect(wrongPassword.status).toBe(422);
    expect(wrongPassword.body.errors).toEqual({ password: ['The password is incorrect.'] });
    const badFormat = await h.http().post('/api/v1/auth/two-factor/confirm?lng=so').set(bearer(me.token)).send({ code: '12ab', password: '' });
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.errors).toEqual({ code: ['Koodhku waa 6 god.'], password: ['Furaha sirta ah waa loo baahan yahay'] });
    expect((await h.http().get('/api/v1/auth/me').set(bearer(me.token))).body.data.user.two_factor_enabled).toBe(false);

    const ok = await h
      .http()
      .post('/api/v1/auth/two-factor/confirm')
      .set(bearer(me.token))
      .send({ code: codeFor(secret).replace(/^(\d{3})/, '$1 '), password: PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe('Two-factor sign-in is on. Keep your recovery codes somewhere safe.');
    const codes: string[] = ok.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}$/);
    expect(ok.body.data.status).toMatchObject({ enabled: true, pending: false, recovery_codes_left: 10, required: false });
    // Only keyed hashes are kept.
    const hashes = await h.knex('two_factor_recovery_codes').where('user_id', me.id).pluck('code_hash');
    expect(hashes).toHaveLength(10);
    for (const c of codes) expect(hashes.join()).not.toContain(c.replace('-', ''));
    // Signed-in calls see it at once (the access version moved with it).
    expect((await h.http().get('/api/v1/auth/me').set(bearer(me.token))).body.data.user).toMatchObject({
      two_factor_enabled: true,
      two_factor_required: false,
    });
    expect(await logOf('two_factor_enabled', me.id)).toHaveLength(1);
    expect((await logOf('two_factor_failed', me.id)).length).toBeGreaterThanOrEqual(1);

    const again = await h.http().post('/api/v1/auth/two-factor/setup').set(bearer(me.token));
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Two-factor sign-in is already on.');
  });

  it('shows the same secret at every load of a pending setup, so a code from the first QR confirms; a new one after 10 minutes', async () => {
    const me = await staff();
    const setup = () => h.http().post('/api/v1/auth/two-factor/setup').set(bearer(me.token));
    const first = await setup();
    const second = await setup();
    expect(second.status).toBe(200);
    expect(second.body.data.secret).toBe(first.body.data.secret);
    expect(second.body.data.otpauth_url).toBe(first.body.data.otpauth_url);
    // Two tabs opening the page at once see one secret too.
    const tabs = await Promise.all([setup(), setup()]);
    expect(tabs.map((t) => t.body.data.secret)).toEqual([first.body.data.secret, first.body.data.secret]);
    expect(await logOf('two_factor_setup_started', me.id)).toHaveLength(1);

    // Left for more than 10 minutes: the next load makes a new secret, and only its codes count.
    const stale = new Date(Date.now() - 11 * 60_000).toISOString().replace('T', ' ').replace('Z', '');
    await h.knex('two_factor_credentials').where('user_id', me.id).update({ updated_at: stale });
    const later = await setup();
    expect(later.body.data.secret).not.toBe(first.body.data.secret);
    expect(await logOf('two_factor_setup_started', me.id)).toHaveLength(2);
    const old = await h
      .http()
      .post('/api/v1/auth/two-factor/confirm')
      .set(bearer(me.token))
      .send({ code: codeFor(first.body.data.secret), password: PASSWORD });
    expect(old.status).toBe(422);
    // And that one stays while pending: a reload shows it, a code from the first of the two confirms.
    expect((await setup()).body.data.secret).toBe(later.body.data.secret);
    const ok = await h
      .http()
      .post('/api/v1/auth/two-factor/confirm')
      .set(bearer(me.token))
      .send({ code: codeFor(later.body.data.secret), password: PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toMatchObject({ enabled: true, pending: false });
  });

  it('confirms a setup once when two tabs confirm at the same moment', async () => {
    const me = await staff();
    const { secret } = (await h.http().post('/api/v1/auth/two-factor/setup').set(bearer(me.token))).body.data;
    const code = codeFor(secret);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => h.http().post('/api/v1/auth/two-factor/confirm').set(bearer(me.token)).send({ code, password: PASSWORD })),
    );
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await h.knex('two_factor_recovery_codes').where('user_id', me.id)).toHaveLength(10);
    expect(await logOf('two_factor_enabled', me.id)).toHaveLength(1);
  });
});

describe('signing in with the second factor', () => {
  it('asks for the code after the password, opens no session before it, and signs in with it', async () => {
    const me = await staff({ enrol: true });
    const sessionsBefore = (await h.knex('sessions').where('user_id', me.id)).length;
    const first = await h.http().post(LOGIN).send({ email: me.email, password: PASSWORD, rememberMe: true });
    expect(first.status).toBe(200);
    expect(first.body.message).toBe('Enter the 6-digit code from your authenticator app.');
    expect(first.body.data).toEqual({ two_factor_required: true, challenge: expect.any(String), challenge_expires_at: expect.any(String) });
    expect(first.body.data).not.toHaveProperty('token');
    expect((await h.knex('sessions').where('user_id', me.id)).length).toBe(sessionsBefore);
    // The challenge is no access token.
    expect((await h.http().get('/api/v1/auth/me').set(bearer(first.body.data.challenge))).status).toBe(401);

    const wrong = await h.http().post(VERIFY).send({ challenge: first.body.data.challenge, code: '123456' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.code).toEqual(['The code is not correct. Check your authenticator app and try again.']);
    const failed = await logOf('two_factor_failed', me.id);
    expect(failed.at(-1)).toMatchObject({ actor_id: me.id, subject_type: 'user' });

    const ok = await h
      .http()
      .post(VERIFY)
      .send({ challenge: first.body.data.challenge, code: codeFor(me.secret, 1) });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe(`Welcome back, Two Factor ${counter}!`);
    expect(ok.body.data.user).toMatchObject({ email: me.email, two_factor_enabled: true });
    const token = ok.body.data.token;
    expect((jwt.decode(token) as { exp: number; iat: number }).exp - (jwt.decode(token) as { iat: number }).iat).toBe(30 * 24 * 3600);
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(200);
    const login = (await logOf('login', me.id)).at(-1);
    expect(JSON.parse(login.after)).toEqual({ remember_me: true, second_factor: 'totp' });
  });

  it('a challenge opens one session at most: used again (even at once, with other valid codes) it has expired', async () => {
    const me = await staff({ enrol: true });
    const challenge = await challengeOf(me.email);
    // A mistyped code does not spend it.
    expect((await h.http().post(VERIFY).send({ challenge, code: '000000' })).status).toBe(422);
    const at = await Promise.all([
      h
        .http()
        .post(VERIFY)
        .send({ challenge, code: codeFor(me.secret, 1) }),
      h.http().post(VERIFY).send({ challenge, recovery_code: me.codes[5] }),
      h.http().post(VERIFY).send({ challenge, recovery_code: me.codes[6] }),
    ]);
    expect(at.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    for (const r of at.filter((x) => x.status === 401)) expect(r.body.message).toBe(translator('en')('api:two_factor.challenge_expired'));
    const later = await h.http().post(VERIFY).send({ challenge, recovery_code: me.codes[7] });
    expect(later.status).toBe(401);
    // The recovery codes the refused tries named are still unused.
    const unused = Number((await h.knex('two_factor_recovery_codes').where('user_id', me.id).whereNull('used_at').count({ n: '*' }).first())!.n);
    expect(unused).toBeGreaterThanOrEqual(9);
  });

  it('refuses a code used before, also when the same code is sent twice at once', async () => {
    const me = await staff({ enrol: true });
    const code = codeFor(me.secret, 1);
    expect(
      (
        await h
          .http()
          .post(VERIFY)
          .send({ challenge: await challengeOf(me.email), code })
      ).status,
    ).toBe(200);
    const replay = await h
      .http()
      .post(VERIFY)
      .send({ challenge: await challengeOf(me.email), code });
    expect(replay.status).toBe(422);
    expect(replay.body.errors.code).toEqual(['This code has already been used. Wait for the next code in your authenticator app.']);
    // An older code than the last one accepted is refused too.
    expect(
      (
        await h
          .http()
          .post(VERIFY)
          .send({ challenge: await challengeOf(me.email), code: codeFor(me.secret, 0) })
      ).status,
    ).toBe(422);

    await forgetLastStep(me.id);
    await h.knex('login_attempts').where('email', `two-factor:${me.id}`).delete();
    const fresh = codeFor(me.secret, 1);
    const challenges = await Promise.all(Array.from({ length: 4 }, () => challengeOf(me.email)));
    const sessionsBefore = (await h.knex('sessions').where('user_id', me.id)).length;
    const results = await Promise.all(challenges.map((challenge) => h.http().post(VERIFY).send({ challenge, code: fresh })));
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect((await h.knex('sessions').where('user_id', me.id)).length).toBe(sessionsBefore + 1);
  });

  it('accepts each recovery code once, also when one is sent several times at once', async () => {
    const me = await staff({ enrol: true });
    const [first, second] = me.codes;
    const ok = await h
      .http()
      .post(VERIFY)
      .send({ challenge: await challengeOf(me.email), recovery_code: first.toLowerCase() });
    expect(ok.status).toBe(200);
    expect(ok.body.data.recovery_codes_left).toBe(9);
    expect(ok.body.message).toBe(`Welcome back, Two Factor ${counter}! You used a recovery code: 9 left.`);
    expect(JSON.parse((await logOf('login', me.id)).at(-1).after)).toMatchObject({ second_factor: 'recovery_code' });
    expect(JSON.parse((await logOf('recovery_code_used', me.id)).at(-1).after)).toEqual({ recovery_codes_left: 9 });

    const again = await h
      .http()
      .post(VERIFY)
      .send({ challenge: await challengeOf(me.email), recovery_code: first });
    expect(again.status).toBe(422);
    expect(again.body.errors.recovery_code).toEqual(['This recovery code is not valid or has already been used.']);

    const challenges = await Promise.all(Array.from({ length: 4 }, () => challengeOf(me.email)));
    const results = await Promise.all(challenges.map((challenge) => h.http().post(VERIFY).send({ challenge, recovery_code: second })));
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await h.knex('two_factor_recovery_codes').where('user_id', me.id).whereNotNull('used_at')).toHaveLength(2);
    expect((await h.http().get('/api/v1/auth/two-factor').set(bearer(me.token))).body.data.recovery_codes_left).toBe(8);

    const both = await h.http().post(VERIFY).send({ challenge: challenges[0], code: '123456', recovery_code: me.codes[3] });
    expect(both.status).toBe(422);
    expect(both.body.errors.recovery_code).toEqual(['Enter either a code or a recovery code, not both.']);
    const none = await h.http().post(VERIFY).send({ challenge: challenges[0] });
    expect(none.body.errors.code).toEqual(['Enter the 6-digit code or a recovery code.']);
  });

  it('throttles wrong codes like passwords: the sixth try in 15 minutes is a 429, even with the right code', async () => {
    const me = await staff({ enrol: true });
    const challenge = await challengeOf(me.email);
    for (let i = 0; i < 5; i++) {
      const res = await h
        .http()
        .post(VERIFY)
        .send({ challenge, code: String(100000 + i) });
      expect(res.status).toBe(422);
    }
    const blocked = await h
      .http()
      .post(VERIFY)
      .send({ challenge, code: codeFor(me.secret, 1) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(blocked.body.message).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
    expect(await logOf('two_factor_failed', me.id)).toHaveLength(5);
    // Guesses from many addresses meet the account-wide limit (10 in 15 minutes) instead.
    await h.knex('login_attempts').where('email', `two-factor:${me.id}`).delete();
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    await h
      .knex('login_attempts')
      .insert(
        Array.from({ length: 10 }, (_, i) => ({ email: `two-factor:${me.id}`, ip: `198.51.100.${i}`, succeeded: false, created_at: now, settled_at: now })),
      );
    expect(
      (
        await h
          .http()
          .post(VERIFY)
          .send({ challenge, code: codeFor(me.secret, 1) })
      ).status,
    ).toBe(429);
  });

  it('ends the challenge when it is forged, expired, or the password changed meanwhile', async () => {
    const me = await staff({ enrol: true });
    const challenge = await challengeOf(me.email);
    const claims = jwt.decode(challenge) as Record<string, unknown>;
    const forged = jwt.sign(claims, 'not-the-key', { algorithm: 'HS256' });
    const expired = 'Your sign-in has expired. Enter your email and password again.';
    for (const c of [forged, `${challenge}x`]) {
      const res = await h
        .http()
        .post(VERIFY)
        .send({ challenge: c, code: codeFor(me.secret, 1) });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(expired);
    }
    expect(claims.exp as number).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 5 * 60);
    // An access token is no challenge either.
    expect(
      (
        await h
          .http()
          .post(VERIFY)
          .send({ challenge: me.token, code: codeFor(me.secret, 1) })
      ).status,
    ).toBe(401);
    const changed = await h
      .http()
      .post('/api/v1/auth/change-password')
      .set(bearer(me.token))
      .send({ current_password: PASSWORD, password: 'Changed@Pass9', password_confirmation: 'Changed@Pass9' });
    expect(changed.status).toBe(200);
    const stale = await h
      .http()
      .post(VERIFY)
      .send({ challenge, code: codeFor(me.secret, 1) });
    expect(stale.status).toBe(401);
    expect(stale.body.message).toBe(expired);
  });
});

describe('remembering a device for 30 days', () => {
  it('skips the code on the trusted browser only, until the password changes or the second factor is reset', async () => {
    const me = await staff({ enrol: true });
    const browser = h.agent();
    const verified = await browser.post(VERIFY).send({ challenge: await challengeOf(me.email, browser), code: codeFor(me.secret, 1), remember_device: true });
    expect(verified.status).toBe(200);
    const cookie = String(verified.headers['set-cookie']);
    expect(cookie).toMatch(/^tfd_[A-Za-z]+=[\w-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]);
    expect(Math.round((expires - Date.now()) / 86400_000)).toBe(30);
    // Only a keyed hash of the token is kept.
    const token = /=([\w-]+);/.exec(cookie)![1];
    const row = await h.knex('two_factor_trusted_devices').where('user_id', me.id).first();
    expect(row.token_hash).not.toContain(token);

    const skipped = await browser.post(LOGIN).send({ email: me.email, password: PASSWORD });
    expect(skipped.status).toBe(200);
    expect(skipped.body.data.token).toBeTruthy();
    expect(JSON.parse((await logOf('login', me.id)).at(-1).after)).toEqual({ remember_me: false, second_factor: 'trusted_device' });
    // Another browser still gets the question; a wrong password on the trusted one is still refused.
    expect((await h.http().post(LOGIN).send({ email: me.email, password: PASSWORD })).body.data.two_factor_required).toBe(true);
    expect((await browser.post(LOGIN).send({ email: me.email, password: 'Wrong@1234' })).status).toBe(401);
    // Another user's sign-in on that browser is not helped by this user's cookie.
    const other = await staff({ enrol: true });
    expect((await browser.post(LOGIN).send({ email: other.email, password: PASSWORD })).body.data.two_factor_required).toBe(true);

    const changed = await browser
      .post('/api/v1/auth/change-password')
      .set(bearer(skipped.body.data.token))
      .send({ current_password: PASSWORD, password: 'Changed@Pass9', password_confirmation: 'Changed@Pass9' });
    expect(changed.status).toBe(200);
    expect((await browser.post(LOGIN).send({ email: me.email, password: 'Changed@Pass9' })).body.data.two_factor_required).toBe(true);

    // Trusted again, then reset by an admin: the cookie is worth nothing any more.
    await forgetLastStep(other.id);
    const again = await browser
      .post(VERIFY)
      .send({ challenge: await challengeOf(other.email, browser), code: codeFor(other.secret, 1), remember_device: true });
    expect(again.status).toBe(200);
    expect((await browser.post(LOGIN).send({ email: other.email, password: PASSWORD })).body.data.token).toBeTruthy();
    expect((await h.http().post(`/api/v1/users/${other.id}/two-factor/reset`).set(bearer(root))).status).toBe(200);
    expect(await h.knex('two_factor_trusted_devices').where('user_id', other.id)).toHaveLength(0);
  });
});

describe('roles that require two-factor sign-in', () => {
  it('lets a member who has not enrolled do nothing but enrol, at once for sessions already open', async () => {
    const roleId = await h.createRole('Cashiers', ['view users', 'view wallets']);
    const member = await staff({ role: 'Cashiers' });
    expect((await h.http().get('/api/v1/users').set(bearer(member.token))).status).toBe(200);

    const set = await h.http().put(`/api/v1/roles/${roleId}/two-factor`).set(bearer(root)).send({ required: true });
    expect(set.status).toBe(200);
    expect(set.body.message).toBe('Members of this role now sign in with two-factor.');
    expect(set.body.data.requires_two_factor).toBe(true);
    const log = (await logOf('two_factor_requirement_changed', roleId)).at(-1);
    expect(JSON.parse(log.before)).toEqual({ requires_two_factor: false });
    expect(JSON.parse(log.after)).toEqual({ requires_two_factor: true });

    // The open session follows at once.
    const blocked = await h.http().get('/api/v1/users').set(bearer(member.token));
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({
      success: false,
      message: 'Your role requires two-factor sign-in. Set it up to continue.',
      code: 'auth.two_factor_enrolment_required',
    });
    expect((await h.http().get('/api/v1/wallets').set(bearer(member.token))).status).toBe(403);

    // A new sign-in gets a session that can only enrol: the server refuses the rest.
    const signIn = await h.http().post(LOGIN).send({ email: member.email, password: PASSWORD });
    expect(signIn.status).toBe(200);
    expect(signIn.body.data.user).toMatchObject({ two_factor_required: true, two_factor_enabled: false });
    const token = signIn.body.data.token;
    expect((await h.http().get('/api/v1/users').set(bearer(token))).body.code).toBe('auth.two_factor_enrolment_required');
    expect((await h.http().put('/api/v1/auth/profile').set(bearer(token)).send({ name: 'Skip' })).status).toBe(403);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
    expect((await h.http().get('/api/v1/auth/two-factor').set(bearer(token))).body.data).toMatchObject({ required: true, enabled: false });
    const off = await h.http().post('/api/v1/auth/two-factor/disable').set(bearer(token)).send({ password: PASSWORD });
    expect(off.status).toBe(403);

    const setup = await h.http().post('/api/v1/auth/two-factor/setup').set(bearer(token));
    expect(setup.status).toBe(200);
    const confirm = await h
      .http()
      .post('/api/v1/auth/two-factor/confirm')
      .set(bearer(token))
      .send({ code: codeFor(setup.body.data.secret), password: PASSWORD });
    expect(confirm.status).toBe(200);
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(200);
    const refused = await h.http().post('/api/v1/auth/two-factor/disable').set(bearer(token)).send({ password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Your role requires two-factor sign-in: it cannot be turned off.');

    // Not required any more: the next call of the role's members is free again.
    const unset = await h.http().put(`/api/v1/roles/${roleId}/two-factor`).set(bearer(root)).send({ required: false });
    expect(unset.body.data.requires_two_factor).toBe(false);
    const same = await h.http().put(`/api/v1/roles/${roleId}/two-factor`).set(bearer(root)).send({ required: false });
    expect(same.status).toBe(200);
    expect(await logOf('two_factor_requirement_changed', roleId)).toHaveLength(2);
    const bad = await h.http().put(`/api/v1/roles/${roleId}/two-factor`).set(bearer(root)).send({ required: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.required).toEqual(['Invalid value']);
  });

  it('needs "require two-factor" and every permission of the role, protected roles included', async () => {
    const superAdminRole = (await h.knex('roles').where({ name: 'super-admin' }).first()).id;
    const without = await h.userWith(['view roles']);
    expect((await h.http().put(`/api/v1/roles/${superAdminRole}/two-factor`).set(bearer(without.token)).send({ required: true })).body).toEqual(FORBIDDEN);
    const lesser = await h.userWith(['view roles', 'require two-factor']);
    const res = await h.http().put(`/api/v1/roles/${superAdminRole}/two-factor`).set(bearer(lesser.token)).send({ required: true });
    expect(res.status).toBe(403);
    expect((await h.knex('roles').where('id', superAdminRole).first()).requires_two_factor).toBeFalsy();
    const dealerRole = (await h.knex('roles').where({ name: 'dealer' }).first()).id;
    const protectedOk = await h.http().put(`/api/v1/roles/${dealerRole}/two-factor`).set(bearer(root)).send({ required: true });
    expect(protectedOk.status).toBe(200);
    await h.http().put(`/api/v1/roles/${dealerRole}/two-factor`).set(bearer(root)).send({ required: false });
  });
});

describe("an admin's reset", () => {
  it('is permission-checked, logged, and makes the user enrol again when the role requires it', async () => {
    const roleId = await h.createRole('Tellers', ['view dashboard']);
    const member = await staff({ role: 'Tellers', enrol: true });
    await h.http().put(`/api/v1/roles/${roleId}/two-factor`).set(bearer(root)).send({ required: true });
    const verify = await h
      .http()
      .post(VERIFY)
      .send({ challenge: await challengeOf(member.email), code: codeFor(member.secret, 1) });
    const session = verify.body.data.token;
    expect((await h.http().get('/api/v1/dashboard').set(bearer(session))).status).toBe(200);

    const viewer = await h.userWith(['view users', 'update users']);
    expect((await h.http().post(`/api/v1/users/${member.id}/two-factor/reset`).set(bearer(viewer.token))).body).toEqual(FORBIDDEN);
    // Only users within the resetter's own rights (the member holds 'view dashboard').
    const narrow = await h.userWith(['view users', 'reset two-factor']);
    expect((await h.http().post(`/api/v1/users/${member.id}/two-factor/reset`).set(bearer(narrow.token))).status).toBe(403);
    const resetter = await h.userWith(['view users', 'reset two-factor', 'view dashboard']);
    // Not above the resetter's own rights: a super admin's second factor stays.
    const rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
    expect((await h.http().post(`/api/v1/users/${rootId}/two-factor/reset`).set(bearer(resetter.token))).status).toBe(403);
    const self = await h.http().post(`/api/v1/users/${resetter.id}/two-factor/reset`).set(bearer(resetter.token));
    expect(self.status).toBe(403);
    expect(self.body.message).toBe('Turn your own two-factor sign-in off in your profile.');

    const reset = await h.http().post(`/api/v1/users/${member.id}/two-factor/reset`).set(bearer(resetter.token));
    expect(reset.status).toBe(200);
    expect(reset.body.message).toBe('Two-factor sign-in was reset. The user sets it up again at the next sign-in.');
    expect(reset.body.data).toMatchObject({ two_factor_enabled: false, two_factor_required: true });
    const log = (await logOf('two_factor_reset', member.id)).at(-1);
    expect(log.actor_id).toBe(resetter.id);
    expect(await h.knex('two_factor_credentials').where('user_id', member.id)).toHaveLength(0);
    expect(await h.knex('two_factor_recovery_codes').where('user_id', member.id)).toHaveLength(0);
    // The member's open session follows the rule at once: enrol first.
    expect((await h.http().get('/api/v1/dashboard').set(bearer(session))).body.code).toBe('auth.two_factor_enrolment_required');
    // A second reset changes nothing and logs nothing.
    const again = await h.http().post(`/api/v1/users/${member.id}/two-factor/reset`).set(bearer(resetter.token));
    expect(again.body.message).toBe('This user has no two-factor sign-in to reset.');
    expect(await logOf('two_factor_reset', member.id)).toHaveLength(1);
    // The password alone signs in again (into enrolment).
    const signIn = await h.http().post(LOGIN).send({ email: member.email, password: PASSWORD });
    expect(signIn.body.data.token).toBeTruthy();
    expect(signIn.body.data.user.two_factor_enabled).toBe(false);
    const dealer = await h.insertUser({ email: 'tf-dealer@test.example', user_type: 'dealer', dealer_code: 'TFD' }, 'dealer');
    const dealerToken = await h.login('tf-dealer@test.example');
    expect((await h.http().post(`/api/v1/users/${member.id}/two-factor/reset`).set(bearer(dealerToken))).status).toBe(403);
    expect(dealer).toBeGreaterThan(0);
  });
});

describe('turning it off and new recovery codes', () => {
  it('needs the password, logs, and the password alone signs in afterwards', async () => {
    const me = await staff({ enrol: true });
    const wrong = await h.http().post('/api/v1/auth/two-factor/recovery-codes').set(bearer(me.token)).send({ password: 'Nope@1234' });
    expect(wrong.status).toBe(422);
    const fresh = await h.http().post('/api/v1/auth/two-factor/recovery-codes').set(bearer(me.token)).send({ password: PASSWORD });
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.recovery_codes).toHaveLength(10);
    expect(fresh.body.data.recovery_codes).not.toContain(me.codes[0]);
    expect(await logOf('recovery_codes_regenerated', me.id)).toHaveLength(1);
    const old = await h
      .http()
      .post(VERIFY)
      .send({ challenge: await challengeOf(me.email), recovery_code: me.codes[0] });
    expect(old.status).toBe(422);

    expect((await h.http().post('/api/v1/auth/two-factor/disable').set(bearer(me.token)).send({ password: 'Nope@1234' })).status).toBe(422);
    const off = await h.http().post('/api/v1/auth/two-factor/disable').set(bearer(me.token)).send({ password: PASSWORD });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ enabled: false, recovery_codes_left: 0 });
    expect(await logOf('two_factor_disabled', me.id)).toHaveLength(1);
    const signIn = await h.http().post(LOGIN).send({ email: me.email, password: PASSWORD });
    expect(signIn.body.data.token).toBeTruthy();
    const codes = await h.http().post('/api/v1/auth/two-factor/recovery-codes').set(bearer(me.token)).send({ password: PASSWORD });
    expect(codes.status).toBe(409);
  });
});

describe('the lock screen', () => {
  it('keeps asking only for the password', async () => {
    const me = await staff({ enrol: true });
    const token = (
      await h
        .http()
        .post(VERIFY)
        .send({ challenge: await challengeOf(me.email), code: codeFor(me.secret, 1) })
    ).body.data.token;
    expect((await h.http().post('/api/v1/auth/lock').set(bearer(token)).send({ password: PASSWORD })).status).toBe(200);
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(423);
    const unlock = await h.http().post('/api/v1/auth/unlock').set(bearer(token)).send({ password: PASSWORD });
    expect(unlock.status).toBe(200);
    expect(unlock.body.data).toEqual({ is_locked: false });
    expect((await h.http().get('/api/v1/users').set(bearer(token))).status).toBe(200);
  });
});
