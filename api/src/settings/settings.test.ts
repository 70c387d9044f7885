import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { createHarness, bearer, PNG_1PX, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/**
 * Settings: payment methods, contacts and areas (their own rules on top of the generic lifecycle
 * the registry tests run), company settings, and mail settings with a test mail sent to a real
 * SMTP server on loopback.
 */
let h: Harness;
let root: string;
let dealer: { id: number; token: string };

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const id = await h.insertUser({ name: 'Dealer', email: 'pm-dealer@test.example', user_type: 'dealer', dealer_code: 'PMD' }, 'dealer');
  dealer = { id, token: await h.login('pm-dealer@test.example') };
});
afterAll(() => h.close());

describe('payment methods', () => {
  it('need the number customers pay to, except for cash', async () => {
    const missing = await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'EVC Plus', type: 'evc_plus' });
    expect(missing.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { account_number: ['Enter the account or merchant number customers pay to'] },
    });
    const badType = await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Paypal', type: 'paypal', account_number: '1' });
    expect(badType.body.errors).toEqual({ type: ['Type must be one of EVC Plus, Zaad, Sahal, eDahab, bank or cash'] });
    const cash = await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Cash at the shop', type: 'cash' });
    expect(cash.status).toBe(201);
    const toEvc = await h.http().patch(`/api/v1/payment-methods/${cash.body.data.id}`).set(bearer(root)).send({ type: 'evc_plus' });
    expect(toEvc.body.errors).toEqual({ account_number: ['Enter the account or merchant number customers pay to'] });
  });

  it("are a dealer's own or the company's, and /list gives the active ones the caller may use", async () => {
    const own = await h
      .http()
      .post('/api/v1/payment-methods')
      .set(bearer(dealer.token))
      .field('name', 'My EVC')
      .field('type', 'evc_plus')
      .field('account_number', '615555555')
      .attach('logo', PNG_1PX, 'evc.png');
    expect(own.status).toBe(201);
    expect(own.body.data).toMatchObject({ dealer_id: dealer.id, dealer: { dealer_code: 'PMD' } });
    expect(own.body.data.logo).toMatch(/^\/storage\/payment-methods\//);
    await h.http().post('/api/v1/payment-methods').set(bearer(root)).send({ name: 'Off', type: 'zaad', account_number: '634', status: 'inactive' });
    const list = await h.http().get('/api/v1/payment-methods/list').set(bearer(dealer.token));
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { name: string }) => m.name).sort()).toEqual(['Cash at the shop', 'My EVC']);
    const adminList = await h.http().get('/api/v1/payment-methods/list').set(bearer(root));
    expect(adminList.body.data.map((m: { name: string }) => m.name)).toEqual(['Cash at the shop']);
    // A dealer sees only its own in the managed list.
    const managed = await h.http().get('/api/v1/payment-methods').set(bearer(dealer.token));
    expect(managed.body.data.map((m: { name: string }) => m.name)).toEqual(['My EVC']);
  });
});

describe('contacts', () => {
  it('check the value against its type, also when only one of them changes', async () => {
    const bad = await h.http().post('/api/v1/contacts').set(bearer(root)).send({ type: 'phone', value: 'call me' });
    expect(bad.body.errors).toEqual({ value: ['Enter a phone number such as +252 61 5123456'] });
    const mail = await h.http().post('/api/v1/contacts').set(bearer(root)).send({ type: 'email', value: 'not-an-email' });
    expect(mail.body.errors).toEqual({ value: ['Invalid email format'] });
    const ok = await h.http().post('/api/v1/contacts').set(bearer(root)).send({ type: 'address', label: 'Office', value: 'KM4, Hodan, Mogadishu' });
    expect(ok.status).toBe(201);
    const toPhone = await h.http().patch(`/api/v1/contacts/${ok.body.data.id}`).set(bearer(root)).send({ type: 'phone' });
    expect(toPhone.status).toBe(422);
    expect(toPhone.body.errors).toEqual({ value: ['Enter a phone number such as +252 61 5123456'] });
  });
});

describe('areas', () => {
  it('form a tree without loops, with unique codes', async () => {
    const region = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Banaadir', code: 'bn', type: 'region' });
    expect(region.body.data).toMatchObject({ code: 'BN', parent: null });
    const city = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Mogadishu', type: 'city', parent_id: region.body.data.h_id });
    expect(city.body.data).toMatchObject({ parent_id: region.body.data.id, parent: { name: 'Banaadir' } });
    const loop = await h.http().patch(`/api/v1/areas/${region.body.data.id}`).set(bearer(root)).send({ parent_id: city.body.data.id });
    expect(loop.body.errors).toEqual({ parent_id: ['An area cannot be placed inside itself or one of its own sub-areas.'] });
    const self = await h.http().patch(`/api/v1/areas/${region.body.data.id}`).set(bearer(root)).send({ parent_id: region.body.data.id });
    expect(self.status).toBe(422);
    const taken = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Other', code: 'BN' });
    expect(taken.body.errors).toEqual({ code: ['The code has already been taken.'] });
    const orphan = await h.http().post('/api/v1/areas').set(bearer(root)).send({ name: 'Lost', parent_id: 999999 });
    expect(orphan.body.errors).toEqual({ parent_id: ['The selected parent area does not exist.'] });
    const shown = await h.http().get(`/api/v1/areas?parent_id=none`).set(bearer(root));
    expect(shown.body.data.find((a: { name: string }) => a.name === 'Banaadir').children_count).toBe(1);
    // A region with cities cannot be deleted for good.
    expect((await h.http().delete(`/api/v1/areas/${region.body.data.id}/force`).set(bearer(root))).status).toBe(409);
  });
});

describe('company settings', () => {
  it('start from defaults, save with a logo, log the change and feed the public footer', async () => {
    const first = await h.http().get('/api/v1/settings/company').set(bearer(root));
    expect(first.body.data).toMatchObject({ company_name: 'Internet Bundles', currency: 'USD', timezone: 'Africa/Mogadishu' });
    const bad = await h
      .http()
      .put('/api/v1/settings/company')
      .set(bearer(root))
      .send({ company_name: '', currency: 'XYZ', timezone: 'Mars/Base', email: 'nope' });
    expect(bad.body.errors).toEqual({
      company_name: ['Company name is required'],
      currency: ['Choose a currency from the list'],
      timezone: ['Choose a time zone such as Africa/Mogadishu'],
      email: ['Invalid email format'],
    });
    const saved = await h
      .http()
      .put('/api/v1/settings/company')
      .set(bearer(root))
      .field('company_name', 'Somali Data Co')
      .field('currency', 'USD')
      .field('timezone', 'Africa/Mogadishu')
      .field('footer_text', '© Somali Data Co')
      .field('phone', '+252 61 2000000')
      .attach('logo', PNG_1PX, 'logo.png');
    expect(saved.status).toBe(200);
    expect(saved.body.message).toBe('Company settings saved');
    expect(saved.body.data).toMatchObject({ company_name: 'Somali Data Co', footer_text: '© Somali Data Co', phone: '+252 61 2000000' });
    expect(saved.body.data.logo).toMatch(/^\/storage\/company\//);
    const pub = await h.http().get('/api/v1/settings/public');
    expect(pub.body.data).toEqual({
      company_name: 'Somali Data Co',
      logo: saved.body.data.logo,
      currency: 'USD',
      timezone: 'Africa/Mogadishu',
      footer_text: '© Somali Data Co',
    });
    const log = await h.knex('activity_log').where({ subject_type: 'settings', description: 'company' }).first();
    expect(JSON.parse(log.after).company_name).toBe('Somali Data Co');
  });

  it('need their permissions', async () => {
    const viewer = await h.userWith(['view company settings']);
    expect((await h.http().get('/api/v1/settings/company').set(bearer(viewer.token))).status).toBe(200);
    expect(
      (await h.http().put('/api/v1/settings/company').set(bearer(viewer.token)).send({ company_name: 'X', currency: 'USD', timezone: 'UTC' })).status,
    ).toBe(403);
    expect((await h.http().get('/api/v1/settings/mail').set(bearer(viewer.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/settings/company').set(bearer(dealer.token))).status).toBe(403);
  });
});

describe('mail settings', () => {
  let server: SMTPServer;
  let port: number;
  const received: { from: string; to: string[]; body: string; user?: string }[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, session, cb) {
        if (auth.username === 'mailer' && auth.password === 'Smtp-Pa55') return cb(null, { user: auth.username });
        return cb(new Error('Invalid username or password'));
      },
      onData(stream, session, cb) {
        let body = '';
        stream.on('data', (c: Buffer) => (body += c.toString()));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            body,
            user: session.user as string | undefined,
          });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('says to save the settings before a test mail', async () => {
    const res = await h.http().post('/api/v1/settings/mail/test').set(bearer(root)).send({ to: 'ops@example.so' });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Save the mail settings before sending a test mail.');
  });

  it('keeps the password encrypted at rest and never answers it', async () => {
    const res = await h.http().put('/api/v1/settings/mail').set(bearer(root)).send({
      host: '127.0.0.1',
      port,
      security: 'none',
      username: 'mailer',
      password: 'Smtp-Pa55',
      from_address: 'noreply@example.so',
      from_name: 'Somali Data',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      host: '127.0.0.1',
      port,
      security: 'none',
      username: 'mailer',
      password_set: true,
      from_address: 'noreply@example.so',
      from_name: 'Somali Data',
      configured: true,
    });
    expect(JSON.stringify(res.body)).not.toContain('Smtp-Pa55');
    const row = await h.knex('settings').where({ group: 'mail', key: 'password' }).first();
    expect(row.value).not.toContain('Smtp-Pa55');
    expect(Boolean(row.is_encrypted)).toBe(true);
    const log = await h.knex('activity_log').where({ subject_type: 'settings', description: 'mail' }).orderBy('id', 'desc').first();
    expect(`${log.before}${log.after}`).not.toContain('Smtp-Pa55');
    // A save without a password keeps the stored one.
    const again = await h
      .http()
      .put('/api/v1/settings/mail')
      .set(bearer(root))
      .send({ host: '127.0.0.1', port, security: 'none', username: 'mailer', password: '', from_address: 'noreply@example.so' });
    expect(again.body.data.password_set).toBe(true);
    const bad = await h.http().put('/api/v1/settings/mail').set(bearer(root)).send({ host: 'smtp example', port: 70000, security: 'ssl', from_address: '' });
    expect(bad.body.errors).toEqual({
      host: ['Enter a host name such as smtp.example.com'],
      port: ['Port is a whole number from 1 to 65535'],
      security: ['Security must be none, STARTTLS or TLS'],
      from_address: ['From address is required'],
    });
  });

  it('sends a test mail through the saved server, signed in with the decrypted password', async () => {
    const res = await h.http().post('/api/v1/settings/mail/test').set(bearer(root)).send({ to: 'ops@example.so' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Test mail sent to ops@example.so');
    const mail = received.at(-1)!;
    expect(mail).toMatchObject({ from: 'noreply@example.so', to: ['ops@example.so'], user: 'mailer' });
    expect(mail.body).toContain('Subject: Test mail from');
  });

  it("answers the server's refusal clearly (a wrong password), in the caller's language", async () => {
    await h
      .http()
      .put('/api/v1/settings/mail')
      .set(bearer(root))
      .send({ host: '127.0.0.1', port, security: 'none', username: 'mailer', password: 'wrong', from_address: 'noreply@example.so' });
    const res = await h.http().post('/api/v1/settings/mail/test?lng=so').set(bearer(root)).send({ to: 'ops@example.so' });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^Iimaylka tijaabada lama diri karin: .*Invalid username or password/);
  });
});
