import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailCatcher } from '../../../tests/api/mail-catcher.ts';
import { createHarness, bearer, PASSWORD, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * The forgotten-password flow and the welcome email of a new account: a set-password link mailed
 * through the saved mail server (a real SMTP server on loopback), single use, time limited, stored
 * only as a hash; a newer link ends the older; setting the password signs the user out everywhere.
 */
let h: Harness;
let root: string;
let mail: Awaited<ReturnType<typeof startMailCatcher>>;
let n = 0;

const NEW_PASSWORD = 'Fresh#Pass9';
const forgot = (email: string, lng = 'en') => h.http().post('/api/v1/auth/forgot-password').set('Accept-Language', lng).send({ email });
const reset = (body: Record<string, unknown>, lng = 'en') => h.http().post('/api/v1/auth/reset-password').set('Accept-Language', lng).send(body);
const check = (token: string) => h.http().post('/api/v1/auth/reset-password/check').send({ token });
/** The mail's text as read: quoted-printable soft breaks and escapes undone. */
const readable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/((?:=[0-9A-F]{2})+)/g, (m) =>
    Buffer.from(
      m
        .split('=')
        .slice(1)
        .map((x) => parseInt(x, 16)),
    ).toString('utf8'),
  );
const mailsTo = (email: string) => mail.mails.filter((m) => m.to.includes(email)).map((m) => readable(m.body));
const tokenIn = (text: string) => /\/auth\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)![1];
async function eventually(check: () => Promise<boolean> | boolean, ms = 8000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
const saveMailSettings = async () =>
  expect(
    (
      await h
        .http()
        .put('/api/v1/settings/mail')
        .set(bearer(root))
        .send({ host: '127.0.0.1', port: mail.port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' })
    ).status,
  ).toBe(200);
async function staff() {
  n += 1;
  const email = `staff${n}@test.example`;
  const id = await h.insertUser({ name: `Staff ${n}`, email }, 'super-admin');
  return { id, email };
}
/** Asks for a link and returns the token of the newest mail to that address. */
async function linkFor(email: string) {
  const before = mailsTo(email).length;
  expect((await forgot(email)).status).toBe(200);
  await eventually(() => mailsTo(email).length === before + 1);
  return tokenIn(mailsTo(email).at(-1)!);
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  mail = await startMailCatcher();
  process.env.APP_URL = 'https://office.example.so';
});
afterAll(async () => {
  delete process.env.APP_URL;
  await mail.close();
  await h.close();
});

describe('forgotten password without mail settings', () => {
  it('answers the same, sends nothing and logs why', async () => {
    const { id, email } = await staff();
    const res = await forgot(email);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('If an account exists for this email, a link to set a new password is on its way. It works for 60 minutes.');
    await eventually(async () => Boolean(await h.knex('activity_log').where({ action: 'password_reset_mail_failed', subject_id: id }).first()));
    expect(await h.knex('password_resets').where({ user_id: id })).toHaveLength(0);
  });
});

describe('forgotten password', () => {
  beforeAll(saveMailSettings);

  it('answers an unknown and a known email alike; only the account gets a one-hour link, stored as a hash; both are logged', async () => {
    const { id, email } = await staff();
    const unknown = await forgot('nobody@test.example');
    const known = await forgot(email);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    await eventually(() => mailsTo(email).length === 1);
    const text = mailsTo(email)[0];
    expect(text).toContain('Subject: Internet Bundles: set a new password');
    expect(text).toContain('https://office.example.so/auth/reset-password?token=');
    expect(text).toContain('The link works once, for 1 hour.');
    expect(mailsTo('nobody@test.example')).toHaveLength(0);
    const token = tokenIn(text);
    const rows = await h.knex('password_resets').where({ user_id: id });
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    const minutes = (Date.parse(`${rows[0].expires_at.replace(' ', 'T')}Z`) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(58);
    expect(minutes).toBeLessThanOrEqual(60);
    const logged = await h.knex('activity_log').where({ action: 'password_reset_requested' }).orderBy('id');
    expect(logged.some((r: { subject_id: number | null }) => r.subject_id === id)).toBe(true);
    expect(logged.some((r: { description: string | null }) => r.description?.includes('nobody@test.example'))).toBe(true);
    // Logged once the mail server took it, which may come just after the mail is seen there.
    await eventually(async () => Boolean(await h.knex('activity_log').where({ action: 'password_reset_mail_sent', subject_id: id }).first()));
  });

  it('the link says whose account it opens; the new password follows the user form rules, in Somali too', async () => {
    const { email } = await staff();
    const token = await linkFor(email);
    const opened = await check(token);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({ email, purpose: 'reset' });
    const weak = await reset({ token, password: 'short', password_confirmation: 'short' }, 'so');
    expect(weak.status).toBe(422);
    expect(weak.body.errors.password).toEqual([
      'Furaha sirta ahi waa inuu ahaadaa ugu yaraan 8 xaraf',
      'Furaha sirta ahi waa inuu ka kooban yahay ugu yaraan hal xaraf yar, hal xaraf weyn iyo hal calaamad gaar ah',
    ]);
    const mismatch = await reset({ token, password: NEW_PASSWORD, password_confirmation: 'Other#Pass9' });
    expect(mismatch.body.errors.password_confirmation).toEqual(['Passwords do not match']);
    const withName = await reset({ token, password: `${email.split('@')[0]}#A1`, password_confirmation: `${email.split('@')[0]}#A1` });
    expect(withName.status).toBe(422);
    expect(Object.keys(withName.body.errors)).toEqual(['password']);
    // Refusals do not spend the link.
    expect((await check(token)).status).toBe(200);
  });

  it('sets the password once: the other sessions end, the new password signs in, the old does not, the link is spent; logged', async () => {
    const { id, email } = await staff();
    const session = await h.login(email);
    expect((await h.http().get('/api/v1/auth/me').set(bearer(session))).status).toBe(200);
    const token = await linkFor(email);
    const done = await reset({ token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(done.body.message).toBe('Your new password is set and your other sessions were signed out. Sign in with it now.');
    expect((await h.http().get('/api/v1/auth/me').set(bearer(session))).status).toBe(401);
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email, password: PASSWORD })).status).toBe(401);
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email, password: NEW_PASSWORD })).status).toBe(200);
    const again = await reset({ token, password: 'Another#Pass9', password_confirmation: 'Another#Pass9' });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ token: ['This link does not work: it is wrong, already used or expired. Ask for a new one.'] });
    expect((await check(token)).status).toBe(422);
    expect(await h.knex('activity_log').where({ action: 'password_reset', subject_id: id, actor_id: id }).first()).toBeTruthy();
  });

  it('of two uses at once, one wins', async () => {
    const { email } = await staff();
    const token = await linkFor(email);
    const both = await Promise.all(['First#Pass9', 'Second#Pass9'].map((p) => reset({ token, password: p, password_confirmation: p })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  it('a newer link ends the older one; an expired link and a made-up one do not work', async () => {
    const { id, email } = await staff();
    const first = await linkFor(email);
    const second = await linkFor(email);
    expect(first).not.toBe(second);
    expect((await check(first)).status).toBe(422);
    expect((await check(second)).status).toBe(200);
    await h.knex('password_resets').where({ user_id: id }).update({ expires_at: '2020-01-01 00:00:00.000' });
    const late = await reset({ token: second, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, 'ae');
    expect(late.status).toBe(422);
    expect(late.body.errors.token).toEqual(['هذا الرابط لا يعمل: إمّا أنه خاطئ أو استُخدم من قبل أو انتهت مدته. اطلب رابطًا جديدًا.']);
    expect((await reset({ token: 'made-up', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).status).toBe(422);
    expect((await reset({ password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).body.errors.token).toBeDefined();
  });

  it('an inactive account gets no mail; its link stops working when it is deactivated', async () => {
    const { id, email } = await staff();
    const token = await linkFor(email);
    await h.knex('users').where({ id }).update({ status: 'inactive' });
    expect((await check(token)).status).toBe(422);
    expect((await forgot(email)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('is rate limited like the sign-in: the 6th request for one email from one address in 15 minutes is a 429 with Retry-After', async () => {
    const { email } = await staff();
    for (let i = 0; i < 5; i += 1) expect((await forgot(email)).status).toBe(200);
    const refused = await forgot(email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // An unknown email is counted the same way (the limit says nothing about the account).
    for (let i = 0; i < 5; i += 1) expect((await forgot('ghost-limit@test.example')).status).toBe(200);
    expect((await forgot('ghost-limit@test.example')).status).toBe(429);
    // Counted apart from sign-ins: the address can still sign in.
    expect((await h.login(email)).length).toBeGreaterThan(0);
  });

  it('takes the longest email the schema allows without a server error (the throttle key stays short)', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(120)}.example.com`;
    const res = await forgot(long);
    expect(res.status).toBeLessThan(500);
    expect([200, 422]).toContain(res.status);
  });

  it('mails in the language it was asked in', async () => {
    const { email } = await staff();
    expect((await forgot(email, 'so')).status).toBe(200);
    await eventually(() => mailsTo(email).length === 1);
    expect(mailsTo(email)[0]).toContain('Xiriiriyuhu hal mar ayuu shaqeeyaa');
  });
});

describe('the welcome email of a new account', () => {
  async function newDealer() {
    n += 1;
    const email = `welcome${n}@test.example`;
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(root))
      .field('name', `Dealer W${n}`)
      .field('email', email)
      .field('password', 'Typed@12345')
      .field('password_confirmation', 'Typed@12345')
      .field('user_type', 'dealer')
      .field('dealer_code', `WELC${n}`)
      .attach('dealer_logo', PNG_1PX, 'l.png');
    expect(res.status).toBe(201);
    return { id: res.body.data.id as string | number, email };
  }

  it('without mail settings: not sent, said so, the typed password stays; logged', async () => {
    await h.knex('settings').where({ group: 'mail' }).delete();
    const { id, email } = await newDealer();
    const res = await h.http().post(`/api/v1/users/${id}/welcome-email`).set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sent: false, to: null, expires_at: null });
    expect(res.body.message).toBe(
      'The welcome email could not be sent: the mail settings are not saved. The password stays as typed; give it to the user yourself.',
    );
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email, password: 'Typed@12345' })).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'welcome_mail_failed' }).first()).toBeTruthy();
  });

  it('with mail settings: a 72-hour link that sets the password; the typed one stops working', async () => {
    await saveMailSettings();
    const { id, email } = await newDealer();
    const res = await h.http().post(`/api/v1/users/${id}/welcome-email`).set(bearer(root)).set('Accept-Language', 'so');
    expect(res.status).toBe(200);
    expect(res.body.data.sent).toBe(true);
    expect(res.body.data.to).toBe(email);
    const hours = (Date.parse(res.body.data.expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    await eventually(() => mailsTo(email).length === 1);
    const text = mailsTo(email)[0];
    expect(text).toContain('Ku soo dhawoow Internet Bundles');
    const token = tokenIn(text);
    expect((await check(token)).body.data).toMatchObject({ email, purpose: 'welcome' });
    expect((await reset({ token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })).status).toBe(200);
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email, password: 'Typed@12345' })).status).toBe(401);
    expect((await h.http().post('/api/v1/auth/admin/login').send({ email, password: NEW_PASSWORD })).status).toBe(200);
    expect(await h.knex('activity_log').where({ action: 'password_set_from_welcome' }).first()).toBeTruthy();
    expect(await h.knex('activity_log').where({ action: 'welcome_mail_sent' }).first()).toBeTruthy();
  });

  it('needs "create users": a dealer and an admin without it are refused', async () => {
    const { id } = await newDealer();
    const viewer = await h.userWith(['view users']);
    expect((await h.http().post(`/api/v1/users/${id}/welcome-email`).set(bearer(viewer.token))).status).toBe(403);
    const dealer = await newDealer();
    const dealerToken = await h.login(dealer.email, 'Typed@12345');
    expect((await h.http().post(`/api/v1/users/${id}/welcome-email`).set(bearer(dealerToken))).status).toBe(403);
    expect((await h.http().post(`/api/v1/users/${id}/welcome-email`).set(bearer(root))).status).toBe(200);
  });
});
