import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, GIF_1PX, PNG_1PX, type Harness, bearer, VALIDATION } from '../../../tests/api/harness.ts';

/**
 * Dealers: created as multipart with a logo (dealer role, dealer details, wallet), upload
 * checks (bytes, not names; 5 MB), logos served under /storage, and the dealer-logo endpoints
 * for an admin (/users/{id}/dealer-logo) and for the signed-in dealer (/users/dealer/logo).
 */
let h: Harness;
let admin: string;
let rootId: number;
let dealerRoleId: number;
const DEALER_PASSWORD = 'Dealer@Pass1';
const NOT_IMAGE = 'The file must be an image (JPG, PNG, GIF or WEBP).';
const TOO_LARGE = 'The file may not be greater than 5 MB (5120 KB).';

let shop: { id: number; token: string; logo: string };

const logoFiles = () => {
  const dir = path.join(h.dataDir, 'storage', 'logos');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

function dealerForm(fields: Record<string, string>) {
  const req = h.http().post('/api/v1/users').set(bearer(admin));
  const all: Record<string, string> = { name: 'Shop', password: DEALER_PASSWORD, password_confirmation: DEALER_PASSWORD, user_type: 'dealer', ...fields };
  for (const [k, v] of Object.entries(all)) req.field(k, v);
  return req;
}

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;
  dealerRoleId = (await h.knex('roles').where({ name: 'dealer' }).first()).id;
});
afterAll(() => h.close());

describe('POST /users: a new dealer as multipart', () => {
  it('creates the dealer with the dealer role, dealer details, a wallet and a stored logo', async () => {
    const res = await dealerForm({
      name: 'Shop One',
      email: 'shop1@test.example',
      dealer_code: ' SHOP1 ',
      company_name: 'Shop One Ltd',
      pricing_model: 'profit',
      website: 'https://shop.example',
    }).attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('User created successfully');
    const u = res.body.data;
    expect(u).toMatchObject({
      name: 'Shop One',
      email: 'shop1@test.example',
      dealer_code: 'SHOP1',
      user_type: 'dealer',
      status: 'active',
      roles: [{ id: dealerRoleId, name: 'dealer' }],
    });
    expect(u.permissions).toContainEqual({ name: 'view own wallet' });
    expect(u.permissions).not.toContainEqual({ name: 'view users' });
    expect(u.dealer_details).toEqual({
      brand_color: '#000000',
      company_name: 'Shop One Ltd',
      description: null,
      website: 'https://shop.example',
      contact_email: null,
      contact_phone: null,
      pricing_model: 'profit',
      logo_path: expect.stringMatching(/^\/storage\/logos\/[0-9a-f]{32}\.png$/),
      translations: null,
    });
    const wallet = await h.knex('wallets').where({ dealer_id: u.id }).first();
    expect(wallet).toBeTruthy();
    expect(Number(wallet.balance)).toBe(0);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: u.id, action: 'created' }).first();
    expect(log.actor_id).toBe(rootId);
    expect(JSON.parse(log.after)).toMatchObject({ user_type: 'dealer', dealer_code: 'SHOP1', role_id: dealerRoleId });

    const served = await h.http().get(u.dealer_details.logo_path);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.body as Buffer, PNG_1PX)).toBe(0);

    shop = { id: u.id, token: await h.login('shop1@test.example', DEALER_PASSWORD), logo: u.dealer_details.logo_path };
  });

  it('defaults pricing model to cost, and keeps a given brand colour', async () => {
    const res = await dealerForm({ email: 'shop2@test.example', dealer_code: 'SHOP2', brand_color: '#3B82F6' }).attach('dealer_logo', GIF_1PX, 'logo.gif');
    expect(res.status).toBe(201);
    expect(res.body.data.dealer_details).toMatchObject({ brand_color: '#3B82F6', pricing_model: 'cost', logo_path: expect.stringMatching(/\.gif$/) });
  });

  it('checks brand colour and pricing model', async () => {
    const before = logoFiles();
    const res = await dealerForm({ email: 'shop3@test.example', dealer_code: 'SHOP3', brand_color: 'red', pricing_model: 'free' }).attach(
      'dealer_logo',
      PNG_1PX,
      'logo.png',
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { brand_color: ['Brand colour must be a hex colour such as #000000'], pricing_model: ['Pricing model must be cost or profit'] },
    });
    expect(logoFiles()).toEqual(before);
  });

  it('refuses a duplicate dealer code (any case) with 422 and stores no file', async () => {
    const before = logoFiles();
    const res = await dealerForm({ email: 'shop4@test.example', dealer_code: 'shop1' }).attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { dealer_code: ['The dealer code has already been taken.'] },
    });
    expect(await h.knex('users').where({ email: 'shop4@test.example' }).first()).toBeUndefined();
    expect(logoFiles()).toEqual(before);
    const dupEmail = await dealerForm({ email: 'SHOP1@test.example', dealer_code: 'SHOP5' }).attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(dupEmail.status).toBe(422);
    expect(dupEmail.body.errors).toEqual({ email: ['The email has already been taken.'] });
  });

  it('requires the logo on multipart too', async () => {
    const res = await dealerForm({ email: 'shop6@test.example', dealer_code: 'SHOP6' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ dealer_logo: ['Dealer logo is required for new dealer accounts'] });
  });

  it('refuses a file that is not an image, whatever its name and declared type', async () => {
    const before = logoFiles();
    for (const [bytes, filename] of [
      [Buffer.from('<?php system($_GET["c"]); ?>'), 'logo.png'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'logo.svg'],
      [Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n'), 'logo.jpg'],
    ] as const) {
      const res = await dealerForm({ email: 'shop7@test.example', dealer_code: 'SHOP7' }).attach('dealer_logo', bytes, { filename, contentType: 'image/png' });
      expect(res.status, filename).toBe(422);
      expect(res.body).toEqual({
        success: false,
        code: 'validation.failed',
        errors_detail: expect.any(Array),
        message: VALIDATION,
        errors: { dealer_logo: [NOT_IMAGE] },
      });
    }
    expect(await h.knex('users').where({ email: 'shop7@test.example' }).first()).toBeUndefined();
    expect(logoFiles()).toEqual(before);
  });

  it('refuses a file over 5 MB with 413 and a clear message', async () => {
    const big = Buffer.concat([PNG_1PX, Buffer.alloc(5 * 1024 * 1024 + 1 - PNG_1PX.length)]);
    const res = await dealerForm({ email: 'shop8@test.example', dealer_code: 'SHOP8' }).attach('dealer_logo', big, 'big.png');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.image_too_large',
      errors_detail: expect.any(Array),
      message: TOO_LARGE,
      errors: { dealer_logo: [TOO_LARGE] },
    });
    expect(await h.knex('users').where({ email: 'shop8@test.example' }).first()).toBeUndefined();
  });

  it('answers the upload errors in the request language', async () => {
    const res = await h
      .http()
      .post('/api/v1/users?lng=so')
      .set(bearer(admin))
      .field('name', 'Shop')
      .field('email', 'shop9@test.example')
      .field('password', DEALER_PASSWORD)
      .field('password_confirmation', DEALER_PASSWORD)
      .field('user_type', 'dealer')
      .field('dealer_code', 'SHOP9');
    expect(res.status).toBe(422);
    expect(res.body.errors.dealer_logo).toHaveLength(1);
    expect(res.body.errors.dealer_logo[0]).not.toBe('Dealer logo is required for new dealer accounts');
    expect(res.body.errors.dealer_logo[0]).toBe(
      JSON.parse(fs.readFileSync(path.join(process.cwd(), 'locales/so/validation.json'), 'utf8')).dealer_logo_required,
    );
  });
});

describe("a dealer's logo file follows the dealer", () => {
  it('stays while the dealer is in the trash and goes when it is deleted permanently', async () => {
    const res = await dealerForm({ email: 'gone.dealer@test.example', dealer_code: 'GONE' }).attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(res.status).toBe(201);
    const { id, dealer_details } = res.body.data;
    expect((await h.http().delete(`/api/v1/users/${id}`).set(bearer(admin))).status).toBe(200);
    expect((await h.http().get(dealer_details.logo_path)).status).toBe(200);
    const force = await h.http().delete(`/api/v1/users/${id}/force`).set(bearer(admin));
    expect(force.status).toBe(200);
    expect((await h.http().get(dealer_details.logo_path)).status).toBe(404);
    expect(await h.knex('dealer_details').where({ user_id: id }).first()).toBeUndefined();
    expect(await h.knex('wallets').where({ dealer_id: id }).first()).toBeUndefined();
  });
});

describe('POST /users: an admin as multipart', () => {
  it('creates the admin from form fields (role_id as text) and ignores a logo, storing no file', async () => {
    const roleId = (
      await h
        .http()
        .post('/api/v1/roles')
        .set(bearer(admin))
        .send({ name: 'staff', permissions: ['view users'] })
    ).body.data.id;
    const before = logoFiles();
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(admin))
      .field({
        name: 'Form Admin',
        email: 'form.admin@test.example',
        password: DEALER_PASSWORD,
        password_confirmation: DEALER_PASSWORD,
        user_type: 'admin',
        role_id: String(roleId),
        status: 'inactive',
      })
      .attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ user_type: 'admin', status: 'inactive', roles: [{ id: roleId, name: 'staff' }], dealer_details: null });
    expect(logoFiles()).toEqual(before);
    expect(await h.knex('wallets').where({ dealer_id: res.body.data.id }).first()).toBeUndefined();
  });
});

describe('PATCH /users/{id} of a dealer (multipart)', () => {
  it('replaces the logo and the dealer details, and removes the old file', async () => {
    const old = (await h.knex('dealer_details').where({ user_id: shop.id }).first()).logo_path as string;
    const res = await h
      .http()
      .patch(`/api/v1/users/${shop.id}`)
      .set(bearer(admin))
      .field('brand_color', '#FF0000')
      .field('description', 'Best bundles')
      .attach('dealer_logo', GIF_1PX, 'new.gif');
    expect(res.status).toBe(200);
    expect(res.body.data.dealer_details).toMatchObject({
      brand_color: '#FF0000',
      description: 'Best bundles',
      pricing_model: 'profit',
      logo_path: expect.stringMatching(/\.gif$/),
    });
    expect(res.body.data.dealer_details.logo_path).not.toBe(old);
    expect((await h.http().get(res.body.data.dealer_details.logo_path)).status).toBe(200);
    await expect.poll(async () => (await h.http().get(old)).status).toBe(404);
    shop.logo = res.body.data.dealer_details.logo_path;
  });
});

describe('POST and DELETE /users/{id}/dealer-logo', () => {
  it('uploads a new logo (field logo), logs it and removes the old file', async () => {
    const old = shop.logo;
    const res = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin)).attach('logo', PNG_1PX, 'x.png');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Dealer logo updated successfully');
    expect(res.body.data.id).toBe(shop.id);
    const logo = res.body.data.dealer_details.logo_path as string;
    expect(logo).toMatch(/^\/storage\/logos\/[0-9a-f]{32}\.png$/);
    expect((await h.http().get(logo)).status).toBe(200);
    expect((await h.http().get(old)).status).toBe(404);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: shop.id, action: 'logo_updated' }).orderBy('id', 'desc').first();
    expect(log.actor_id).toBe(rootId);
    expect(JSON.parse(log.after)).toEqual({ logo_path: logo });
    shop.logo = logo;
  });

  it('refuses a missing file, a non-image, the wrong field and a non-dealer', async () => {
    const none = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin)).field('x', 'y');
    expect(none.status).toBe(422);
    expect(none.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { logo: ['An image file is required.'] },
    });
    const text = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin)).attach('logo', Buffer.from('just text'), 'x.png');
    expect(text.status).toBe(422);
    expect(text.body.errors).toEqual({ logo: [NOT_IMAGE] });
    const wrongField = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin)).attach('dealer_logo', PNG_1PX, 'x.png');
    expect(wrongField.status).toBe(422);
    expect(wrongField.body.errors).toEqual({ dealer_logo: [NOT_IMAGE] });
    const adminTarget = await h.http().post(`/api/v1/users/${rootId}/dealer-logo`).set(bearer(admin)).attach('logo', PNG_1PX, 'x.png');
    expect(adminTarget.status).toBe(422);
    expect(adminTarget.body).toEqual({
      success: false,
      code: 'users.not_a_dealer',
      errors_detail: expect.any(Array),
      message: 'This user is not a dealer.',
      errors: { logo: ['This user is not a dealer.'] },
    });
    const unknown = await h.http().post('/api/v1/users/999999/dealer-logo').set(bearer(admin)).attach('logo', PNG_1PX, 'x.png');
    expect(unknown.status).toBe(404);
    expect((await h.knex('dealer_details').where({ user_id: shop.id }).first()).logo_path).toBe(shop.logo);
  });

  it('refuses a logo over 5 MB with 413', async () => {
    const big = Buffer.concat([PNG_1PX, Buffer.alloc(5 * 1024 * 1024 + 10)]);
    const res = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin)).attach('logo', big, 'big.png');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      success: false,
      code: 'validation.image_too_large',
      errors_detail: expect.any(Array),
      message: TOO_LARGE,
      errors: { logo: [TOO_LARGE] },
    });
  });

  it('needs "update users"', async () => {
    const viewer = await h.userWith(['view users']);
    const post = await h.http().post(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(viewer.token)).attach('logo', PNG_1PX, 'x.png');
    expect(post.status).toBe(403);
    expect(post.body.message).toBe('You do not have permission to perform this action.');
    const del = await h.http().delete(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(viewer.token));
    expect(del.status).toBe(403);
    expect((await h.knex('dealer_details').where({ user_id: shop.id }).first()).logo_path).toBe(shop.logo);
  });

  it('DELETE removes the logo and its file, and is harmless when there is none', async () => {
    const res = await h.http().delete(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Dealer logo removed');
    expect(res.body.data.dealer_details.logo_path).toBeNull();
    expect((await h.http().get(shop.logo)).status).toBe(404);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: shop.id, action: 'logo_removed' }).first();
    expect(log.actor_id).toBe(rootId);
    const again = await h.http().delete(`/api/v1/users/${shop.id}/dealer-logo`).set(bearer(admin));
    expect(again.status).toBe(200);
    expect(again.body.data.dealer_details.logo_path).toBeNull();
    const adminTarget = await h.http().delete(`/api/v1/users/${rootId}/dealer-logo`).set(bearer(admin));
    expect(adminTarget.status).toBe(422);
    expect(adminTarget.body.message).toBe('This user is not a dealer.');
  });
});

describe('POST and DELETE /users/dealer/logo (the signed-in dealer)', () => {
  it('lets the dealer upload and remove its own logo', async () => {
    const res = await h.http().post('/api/v1/users/dealer/logo').set(bearer(shop.token)).attach('logo', GIF_1PX, 'mine.gif');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Dealer logo updated successfully');
    expect(res.body.data).toMatchObject({ id: shop.id, dealer_details: { logo_path: expect.stringMatching(/^\/storage\/logos\/[0-9a-f]{32}\.gif$/) } });
    const logo = res.body.data.dealer_details.logo_path;
    const served = await h.http().get(logo);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/gif');
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: shop.id, action: 'logo_updated' }).orderBy('id', 'desc').first();
    expect(log.actor_id).toBe(shop.id);

    const bad = await h.http().post('/api/v1/users/dealer/logo').set(bearer(shop.token)).attach('logo', Buffer.from('plain text, not an image'), 'x.gif');
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ logo: [NOT_IMAGE] });

    const del = await h.http().delete('/api/v1/users/dealer/logo').set(bearer(shop.token));
    expect(del.status).toBe(200);
    expect(del.body.message).toBe('Dealer logo removed');
    expect(del.body.data.dealer_details.logo_path).toBeNull();
    expect((await h.http().get(logo)).status).toBe(404);
  });

  it('answers 403 to a non-dealer, 401 without a token', async () => {
    const post = await h.http().post('/api/v1/users/dealer/logo').set(bearer(admin)).attach('logo', PNG_1PX, 'x.png');
    expect(post.status).toBe(403);
    expect(post.body).toEqual({ success: false, code: 'users.dealers_only', message: 'Only dealers have a dealer logo.' });
    const del = await h.http().delete('/api/v1/users/dealer/logo').set(bearer(admin));
    expect(del.status).toBe(403);
    expect(del.body.message).toBe('Only dealers have a dealer logo.');
    for (const [method, p] of [
      ['post', '/api/v1/users/dealer/logo'],
      ['delete', '/api/v1/users/dealer/logo'],
      ['post', `/api/v1/users/${shop.id}/dealer-logo`],
      ['delete', `/api/v1/users/${shop.id}/dealer-logo`],
    ] as const) {
      const res = await h.http()[method](p);
      expect(res.status, p).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'auth.unauthenticated', message: 'Authentication required. Please login.' });
    }
  });

  it("lets a dealer see only itself, and not another dealer's logo endpoints", async () => {
    const other = await h.insertUser({ name: 'Other Dealer', email: 'other@test.example', user_type: 'dealer', dealer_code: 'OTHER' }, 'dealer');
    const me = await h.http().get('/api/v1/auth/me').set(bearer(shop.token));
    expect(me.body.data.user).toMatchObject({ id: shop.id, user_type: 'dealer' });
    const post = await h.http().post(`/api/v1/users/${other}/dealer-logo`).set(bearer(shop.token)).attach('logo', PNG_1PX, 'x.png');
    expect(post.status).toBe(403);
    const del = await h.http().delete(`/api/v1/users/${other}/dealer-logo`).set(bearer(shop.token));
    expect(del.status).toBe(403);
    expect(await h.knex('dealer_details').where({ user_id: other }).first()).toBeUndefined();
  });
});
