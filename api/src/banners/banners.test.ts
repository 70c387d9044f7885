import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type request from 'supertest';
import { createHarness, GIF_1PX, PNG_1PX, type Harness, bearer, VALIDATION, NOT_FOUND, FORBIDDEN } from '../../../tests/api/harness.ts';

/**
 * Banners, the example resource of the registry: global banners (no dealer) and dealers' own,
 * with an image checked by its bytes, an http(s) link, dealer scoping (a dealer sees and writes
 * only its own, its dealer_id forced to itself), trash / restore / force delete and the bulk
 * forms, files removed with the writes that replace or delete them, the activity log and the
 * messages in each language.
 */
let h: Harness;
let admin: string;
let rootId: number;

const DEALER_PASSWORD = 'Dealer@Pass1';
const IMAGE_REQUIRED = 'An image file is required.';
const NOT_IMAGE = 'The file must be an image (JPG, PNG, GIF or WEBP).';
const URL_INVALID = 'Enter a full web address starting with http:// or https://';
const DEALER_NOT_FOUND = 'The selected dealer does not exist.';
const IMAGE_URL = /^\/storage\/banners\/[0-9a-f]{32}\.(png|gif)$/;

type Dealer = { id: number; h_id: string; token: string; name: string; dealer_code: string };
/** Dealer A is made as the console makes one (multipart with a logo); dealer B is inserted with the dealer role. */
let dealerA: Dealer;
let dealerB: Dealer;

type Banner = { id: number; h_id: string; title: string; image: string; link_url: string | null; sort_order: number; status: string; dealer_id: number | null };

const bannerFiles = () => {
  const dir = path.join(h.dataDir, 'storage', 'banners');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};
const onDisk = (url: string) => fs.existsSync(path.join(h.dataDir, url.replace(/^\/+/, '')));
const logRows = (id: number, action?: string) =>
  h
    .knex('activity_log')
    .where({ subject_type: 'banner', subject_id: id, ...(action ? { action } : {}) })
    .orderBy('id');

/** POST /banners as multipart; `image: null` sends no file. */
function createForm(token: string, fields: Record<string, string | number>, image: Buffer | null = PNG_1PX, query = '') {
  const req = h.http().post(`/api/v1/banners${query}`).set(bearer(token));
  for (const [k, v] of Object.entries(fields)) req.field(k, String(v));
  return image ? req.attach('image', image, 'banner.png') : req;
}
async function create(token: string, fields: Record<string, string | number>, image: Buffer = PNG_1PX): Promise<Banner> {
  const res = await createForm(token, fields, image);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as Banner;
}
const get = (token: string, url: string) => h.http().get(`/api/v1/banners${url}`).set(bearer(token));
const ids = (res: request.Response) => (res.body.data as Banner[]).map((b) => b.id);

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
  rootId = (await h.knex('users').where({ email: 'root@test.example' }).first()).id;

  const form = h.http().post('/api/v1/users').set(bearer(admin));
  const fields = {
    name: 'Dealer A',
    email: 'dealer-a@test.example',
    password: DEALER_PASSWORD,
    password_confirmation: DEALER_PASSWORD,
    user_type: 'dealer',
    dealer_code: 'DEALERA',
  };
  for (const [k, v] of Object.entries(fields)) form.field(k, v);
  const made = await form.attach('dealer_logo', PNG_1PX, 'logo.png');
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  dealerA = {
    id: made.body.data.id,
    h_id: made.body.data.h_id,
    token: await h.login('dealer-a@test.example', DEALER_PASSWORD),
    name: 'Dealer A',
    dealer_code: 'DEALERA',
  };

  const bId = await h.insertUser({ name: 'Dealer B', email: 'dealer-b@test.example', user_type: 'dealer', dealer_code: 'DEALERB' }, 'dealer');
  const bHid = (await h.http().get(`/api/v1/users/${bId}`).set(bearer(admin))).body.data.h_id as string;
  dealerB = { id: bId, h_id: bHid, token: await h.login('dealer-b@test.example'), name: 'Dealer B', dealer_code: 'DEALERB' };
});
afterAll(() => h.close());

describe('an admin creates banners', () => {
  it('creates a global banner from multipart: image stored and served, values typed, a log row with its actor', async () => {
    const before = bannerFiles();
    const res = await createForm(admin, { title: '  Ramadan offers  ', link_url: 'https://example.so/ramadan', sort_order: '3', status: 'inactive' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ success: true, message: 'Banner created successfully' });
    const b = res.body.data;
    expect(b).toEqual({
      id: expect.any(Number),
      h_id: expect.stringMatching(/^[A-Za-z]{8,}$/),
      title: 'Ramadan offers',
      image: expect.stringMatching(IMAGE_URL),
      link_url: 'https://example.so/ramadan',
      sort_order: 3,
      status: 'inactive',
      dealer_id: null,
      translations: null,
      dealer: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      updated_at: expect.any(String),
      deleted_at: null,
    });
    expect(b.image).toMatch(/\.png$/);
    expect(bannerFiles().filter((f) => !before.includes(f))).toEqual([path.basename(b.image)]);

    const served = await h.http().get(b.image);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body as Buffer, PNG_1PX)).toBe(0);

    const row = await h.knex('banners').where('id', b.id).first();
    expect(row).toMatchObject({ title: 'Ramadan offers', image_path: b.image, dealer_id: null, status: 'inactive' });
    expect(Number(row.sort_order)).toBe(3);

    const log = await logRows(b.id);
    expect(log.map((r) => r.action)).toEqual(['created']);
    expect(log[0].actor_id).toBe(rootId);
    expect(log[0].before).toBeNull();
    expect(JSON.parse(log[0].after)).toEqual({
      title: 'Ramadan offers',
      image_path: b.image,
      link_url: 'https://example.so/ramadan',
      sort_order: 3,
      status: 'inactive',
      dealer_id: null,
      translations: null,
    });
  });

  it('creates one for dealer A by id or by h_id, and shows the dealer', async () => {
    for (const ref of [dealerA.id, dealerA.h_id]) {
      const res = await createForm(admin, { title: `For A by ${typeof ref}`, dealer_id: ref });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data).toMatchObject({
        dealer_id: dealerA.id,
        status: 'active',
        sort_order: 0,
        link_url: null,
        dealer: { id: dealerA.id, h_id: dealerA.h_id, name: 'Dealer A', dealer_code: 'DEALERA' },
      });
      const log = await logRows(res.body.data.id, 'created');
      expect(JSON.parse(log[0].after).dealer_id).toBe(dealerA.id);
    }
  });

  it('takes a blank link and a blank dealer from a form as none, and a GIF whatever its name says', async () => {
    const b = await create(admin, { title: 'Blank link', link_url: '', dealer_id: '' }, GIF_1PX);
    expect(b).toMatchObject({ link_url: null, dealer_id: null });
    expect(b.image).toMatch(/\.gif$/);
  });
});

describe('what a create must carry', () => {
  it('the image is required: alone, with a JSON body, and together with the body errors', async () => {
    const before = bannerFiles();
    const noFile = await createForm(admin, { title: 'No image' }, null);
    expect(noFile.status).toBe(422);
    expect(noFile.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { image: [IMAGE_REQUIRED] },
    });
    const json = await h.http().post('/api/v1/banners').set(bearer(admin)).send({ title: 'No image' });
    expect(json.status).toBe(422);
    expect(json.body.errors).toEqual({ image: [IMAGE_REQUIRED] });
    const both = await createForm(admin, { link_url: 'ftp://example.so' }, null);
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual({ title: ['Title is required'], link_url: [URL_INVALID], image: [IMAGE_REQUIRED] });
    expect(bannerFiles()).toEqual(before);
    expect(await h.knex('banners').where('title', 'No image').first()).toBeUndefined();
  });

  it('the image is checked by its bytes, not by its name or declared type', async () => {
    const before = bannerFiles();
    const samples: [Buffer, string, string][] = [
      [Buffer.from('just some text, not a picture'), 'banner.png', 'image/png'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'banner.svg', 'image/svg+xml'],
      [Buffer.from('%PDF-1.4\n%âãÏÓ\n'), 'banner.jpg', 'image/jpeg'],
    ];
    for (const [bytes, filename, contentType] of samples) {
      const res = await h.http().post('/api/v1/banners').set(bearer(admin)).field('title', 'Not a picture').attach('image', bytes, { filename, contentType });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        success: false,
        code: 'validation.failed',
        errors_detail: expect.any(Array),
        message: VALIDATION,
        errors: { image: [NOT_IMAGE] },
      });
    }
    expect(bannerFiles()).toEqual(before);
    expect(await h.knex('banners').where('title', 'Not a picture').first()).toBeUndefined();
  });

  it.each([
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['ftp:', 'ftp://files.example.so/banner'],
    ['file:', 'file:///etc/passwd'],
    ['a relative path', '/offers'],
    ['a scheme without a host', 'https://'],
  ])('link_url refuses %s', async (_label, url) => {
    const before = bannerFiles();
    const res = await createForm(admin, { title: 'Bad link', link_url: url });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ link_url: [URL_INVALID] });
    expect(bannerFiles()).toEqual(before);
    const existing = await create(admin, { title: 'Good link', link_url: 'http://example.so' });
    const patch = await h.http().patch(`/api/v1/banners/${existing.id}`).set(bearer(admin)).send({ link_url: url });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toEqual({ link_url: [URL_INVALID] });
    expect((await h.knex('banners').where('id', existing.id).first()).link_url).toBe('http://example.so');
  });

  it('link_url accepts http and https', async () => {
    expect((await create(admin, { title: 'http link', link_url: 'http://example.so/a?b=c' })).link_url).toBe('http://example.so/a?b=c');
    expect((await create(admin, { title: 'https link', link_url: 'HTTPS://Example.so/x' })).link_url).toBe('HTTPS://Example.so/x');
  });

  it("an admin's dealer_id must name an existing dealer; the refused write leaves no file", async () => {
    const trashedDealer = await h.insertUser(
      { name: 'Trashed Dealer', email: 'trashed-dealer@test.example', user_type: 'dealer', dealer_code: 'GONE1', deleted_at: '2026-01-01 00:00:00.000' },
      'dealer',
    );
    const before = bannerFiles();
    for (const ref of [999_999, rootId, trashedDealer, 'notAnHid', '0']) {
      const res = await createForm(admin, { title: 'Orphan', dealer_id: ref });
      expect(res.status, `${ref}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.errors).toEqual({ dealer_id: [DEALER_NOT_FOUND] });
    }
    expect(bannerFiles()).toEqual(before);
    expect(await h.knex('banners').where('title', 'Orphan').first()).toBeUndefined();

    // And on update, with a new image that must not stay behind either.
    const b = await create(admin, { title: 'Moves nowhere' });
    const res = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).field('dealer_id', String(rootId)).attach('image', GIF_1PX, 'new.gif');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ dealer_id: [DEALER_NOT_FOUND] });
    expect(bannerFiles().filter((f) => !before.includes(f))).toEqual([path.basename(b.image)]);
    expect(await h.knex('banners').where('id', b.id).first()).toMatchObject({ dealer_id: null, image_path: b.image });
  });

  it('title, sort order and status are validated', async () => {
    const res = await createForm(admin, { title: 'x'.repeat(192), sort_order: '-1', status: 'paused' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      title: ['This value is too long'],
      sort_order: ['Sort order must be a whole number of 0 or more'],
      status: ['Status must be active or inactive'],
    });
  });

  it('has no bulk create (a JSON array cannot carry images)', async () => {
    const res = await h
      .http()
      .post('/api/v1/banners/bulk')
      .set(bearer(admin))
      .send([{ title: 'Bulk' }]);
    expect(res.status).toBe(404);
  });
});

describe('list, show, search and filters', () => {
  let g1: Banner, g2: Banner, a1: Banner, b1: Banner;

  beforeAll(async () => {
    // A known set to list: the rows of the tests above go (their files do not matter here).
    await h.knex('banners').delete();
    g1 = await create(admin, { title: 'Global Summer', link_url: 'https://summer.example.so', sort_order: 2 });
    g2 = await create(admin, { title: 'Global Winter', sort_order: 1, status: 'inactive' });
    a1 = await create(admin, { title: 'Shop A Weekly', sort_order: 5, dealer_id: dealerA.id });
    b1 = await create(admin, { title: 'Shop B Daily', sort_order: 4, dealer_id: dealerB.h_id });
  });

  it('lists by sort order with pagination meta', async () => {
    const res = await get(admin, '');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ current_page: 1, per_page: 15, total: 4, last_page: 1 });
    expect(ids(res)).toEqual([g2.id, g1.id, b1.id, a1.id]);
    const page = await get(admin, '?per_page=1&page=2&sort=title&order=desc');
    expect(page.body.meta).toEqual({ current_page: 2, per_page: 1, total: 4, last_page: 4 });
    // Titles descending: Shop B Daily, Shop A Weekly, Global Winter, Global Summer.
    expect(ids(page)).toEqual([a1.id]);
    expect((await get(admin, '?sort=image_path')).status).toBe(422);
  });

  it('shows one by id and by h_id; unknown ids are 404', async () => {
    for (const ref of [a1.id, a1.h_id]) {
      const res = await get(admin, `/${ref}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: a1.id, title: 'Shop A Weekly', dealer: { id: dealerA.id, name: 'Dealer A' } });
    }
    for (const ref of ['999999', 'zzzzzzzz', '-1']) {
      const res = await get(admin, `/${ref}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('searches title and link_url, in the list and at /search', async () => {
    expect(ids(await get(admin, '/search?q=global'))).toEqual([g2.id, g1.id]);
    expect(ids(await get(admin, '/search?q=summer.example'))).toEqual([g1.id]);
    expect(ids(await get(admin, '?q=shop'))).toEqual([b1.id, a1.id]);
    expect(ids(await get(admin, '/search?q=nothing-like-this'))).toEqual([]);
  });

  it('filters by status, global, and a dealer by id or h_id', async () => {
    expect(ids(await get(admin, '?status=inactive'))).toEqual([g2.id]);
    expect(ids(await get(admin, '?status=active'))).toEqual([g1.id, b1.id, a1.id]);
    expect(ids(await get(admin, '?dealer_id=global'))).toEqual([g2.id, g1.id]);
    expect(ids(await get(admin, `?dealer_id=${dealerA.id}`))).toEqual([a1.id]);
    expect(ids(await get(admin, `?dealer_id=${dealerB.h_id}`))).toEqual([b1.id]);
    expect(ids(await get(admin, '?dealer_id=global&status=active'))).toEqual([g1.id]);
    expect(ids(await get(admin, '?dealer_id=notAnHid'))).toEqual([]);
    const bad = await get(admin, '?status=paused');
    expect(bad.status).toBe(422);
  });

  it('dealers see only their own banners, whatever they filter or search', async () => {
    expect(ids(await get(dealerA.token, ''))).toEqual([a1.id]);
    expect(ids(await get(dealerB.token, ''))).toEqual([b1.id]);
    expect(ids(await get(dealerA.token, '/search?q=shop'))).toEqual([a1.id]);
    expect(ids(await get(dealerA.token, '?dealer_id=global'))).toEqual([]);
    expect(ids(await get(dealerA.token, `?dealer_id=${dealerB.id}`))).toEqual([]);
    expect(ids(await get(dealerA.token, `?ids=${b1.id}&ids=${g1.id}&ids=${a1.id}`))).toEqual([a1.id]);
    expect((await get(dealerA.token, '')).body.meta.total).toBe(1);
  });
});

describe('a dealer manages only its own banners', () => {
  let own: Banner, others: Banner, global: Banner;
  let trashedOthers: Banner, trashedGlobal: Banner;

  beforeAll(async () => {
    own = await create(admin, { title: 'A own', dealer_id: dealerA.id });
    others = await create(admin, { title: 'B own', dealer_id: dealerB.id });
    global = await create(admin, { title: 'Everyone' });
    trashedOthers = await create(admin, { title: 'B trashed', dealer_id: dealerB.id });
    trashedGlobal = await create(admin, { title: 'Global trashed' });
    for (const b of [trashedOthers, trashedGlobal]) expect((await h.http().delete(`/api/v1/banners/${b.id}`).set(bearer(admin))).status).toBe(200);
  });

  it('creates with dealer_id forced to itself, even when it names dealer B or sends none', async () => {
    for (const dealer_id of [dealerB.id, dealerB.h_id, '', undefined]) {
      const res = await createForm(dealerA.token, { title: `Mine ${String(dealer_id)}`, ...(dealer_id === undefined ? {} : { dealer_id }) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data).toMatchObject({ dealer_id: dealerA.id, dealer: { id: dealerA.id } });
      expect((await h.knex('banners').where('id', res.body.data.id).first()).dealer_id).toBe(dealerA.id);
      const log = await logRows(res.body.data.id, 'created');
      expect(log[0].actor_id).toBe(dealerA.id);
    }
  });

  it('updates its own; a dealer_id it sends stays its own', async () => {
    const res = await h.http().patch(`/api/v1/banners/${own.h_id}`).set(bearer(dealerA.token)).send({ title: 'A renamed', dealer_id: dealerB.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'A renamed', dealer_id: dealerA.id });
    const blank = await h.http().patch(`/api/v1/banners/${own.id}`).set(bearer(dealerA.token)).send({ dealer_id: null });
    expect(blank.status).toBe(200);
    expect((await h.knex('banners').where('id', own.id).first()).dealer_id).toBe(dealerA.id);
  });

  it("cannot read, update, trash, restore or delete dealer B's or global banners: 404, nothing changed, no file left", async () => {
    const before = bannerFiles();
    const t = dealerA.token;
    for (const b of [others, global]) {
      for (const ref of [b.id, b.h_id]) {
        expect((await get(t, `/${ref}`)).body).toEqual(NOT_FOUND);
        const patch = await h.http().patch(`/api/v1/banners/${ref}`).set(bearer(t)).field('title', 'Taken over').attach('image', PNG_1PX, 'x.png');
        expect(patch.status).toBe(404);
        expect((await h.http().delete(`/api/v1/banners/${ref}`).set(bearer(t))).status).toBe(404);
        expect((await h.http().delete(`/api/v1/banners/${ref}/force`).set(bearer(t))).status).toBe(404);
      }
      expect(await h.knex('banners').where('id', b.id).first()).toMatchObject({ title: b.title, image_path: b.image, deleted_at: null });
    }
    for (const b of [trashedOthers, trashedGlobal]) {
      expect((await h.http().post(`/api/v1/banners/${b.id}/restore`).set(bearer(t))).status).toBe(404);
      expect((await h.http().delete(`/api/v1/banners/${b.id}/force`).set(bearer(t))).status).toBe(404);
      expect((await h.knex('banners').where('id', b.id).first()).deleted_at).not.toBeNull();
    }
    // The bulk forms are all or nothing: one banner of someone else's fails the whole request.
    expect(
      (
        await h
          .http()
          .delete('/api/v1/banners/bulk/delete')
          .set(bearer(t))
          .send({ ids: [own.id, others.id] })
      ).status,
    ).toBe(404);
    expect(
      (
        await h
          .http()
          .delete('/api/v1/banners/bulk/force-delete')
          .set(bearer(t))
          .send({ ids: [own.id, global.h_id] })
      ).status,
    ).toBe(404);
    expect(
      (
        await h
          .http()
          .post('/api/v1/banners/bulk/restore')
          .set(bearer(t))
          .send({ ids: [trashedOthers.id] })
      ).status,
    ).toBe(404);
    expect((await h.knex('banners').where('id', own.id).first()).deleted_at).toBeNull();
    expect(bannerFiles()).toEqual(before);
    for (const b of [others, global]) expect(await logRows(b.id)).toHaveLength(1);
  });

  it('has no trash listing without the trash permission', async () => {
    expect((await get(dealerA.token, '/trashed/list')).body).toEqual(FORBIDDEN);
    expect((await get(dealerA.token, `/${trashedOthers.id}/trashed`)).status).toBe(403);
  });

  it('trashes, restores and deletes its own for good, file included', async () => {
    const mine = await create(dealerA.token, { title: 'Short lived' });
    const t = dealerA.token;
    expect((await h.http().delete(`/api/v1/banners/${mine.id}`).set(bearer(t))).status).toBe(200);
    expect((await h.http().post(`/api/v1/banners/${mine.id}/restore`).set(bearer(t))).status).toBe(200);
    expect((await h.http().delete(`/api/v1/banners/${mine.id}/force`).set(bearer(t))).status).toBe(200);
    expect(onDisk(mine.image)).toBe(false);
    expect((await logRows(mine.id)).map((r) => [r.action, r.actor_id])).toEqual([
      ['created', dealerA.id],
      ['deleted', dealerA.id],
      ['restored', dealerA.id],
      ['force_deleted', dealerA.id],
    ]);
  });
});

describe('update', () => {
  it('replaces the image: the new file is kept, the old one removed after commit, and the change logged', async () => {
    const b = await create(admin, { title: 'Picture swap', sort_order: 7 });
    expect(onDisk(b.image)).toBe(true);
    const res = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).attach('image', GIF_1PX, 'new.png');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Banner updated successfully');
    const next = res.body.data.image as string;
    expect(next).toMatch(IMAGE_URL);
    expect(next).toMatch(/\.gif$/);
    expect(onDisk(next)).toBe(true);
    expect(onDisk(b.image)).toBe(false);
    expect(res.body.data).toMatchObject({ title: 'Picture swap', sort_order: 7 });
    const log = await logRows(b.id, 'updated');
    expect(log).toHaveLength(1);
    expect(log[0].actor_id).toBe(rootId);
    expect(JSON.parse(log[0].before)).toMatchObject({ image_path: b.image });
    expect(JSON.parse(log[0].after)).toMatchObject({ image_path: next });
  });

  it('a refused image replacement keeps the old file and stores nothing', async () => {
    const b = await create(admin, { title: 'Keeps its picture' });
    const before = bannerFiles();
    const res = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).field('title', '').attach('image', PNG_1PX, 'new.png');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ title: ['Title is required'] });
    const notImage = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).attach('image', Buffer.from('no picture here'), 'x.gif');
    expect(notImage.status).toBe(422);
    expect(notImage.body.errors).toEqual({ image: [NOT_IMAGE] });
    expect(bannerFiles()).toEqual(before);
    expect(onDisk(b.image)).toBe(true);
    expect(await logRows(b.id, 'updated')).toHaveLength(0);
  });

  it('an admin moves a banner between a dealer and every storefront', async () => {
    const b = await create(admin, { title: 'Wanderer' });
    const toA = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).send({ dealer_id: dealerA.h_id });
    expect(toA.body.data).toMatchObject({ dealer_id: dealerA.id, dealer: { id: dealerA.id } });
    expect(ids(await get(dealerA.token, `?ids=${b.id}`))).toEqual([b.id]);
    const toAll = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).field('dealer_id', '');
    expect(toAll.body.data).toMatchObject({ dealer_id: null, dealer: null });
    expect(ids(await get(dealerA.token, `?ids=${b.id}`))).toEqual([]);
    const log = await logRows(b.id, 'updated');
    expect(log.map((r) => [JSON.parse(r.before).dealer_id, JSON.parse(r.after).dealer_id])).toEqual([
      [null, dealerA.id],
      [dealerA.id, null],
    ]);
  });

  it('a PATCH that changes nothing writes no log row (JSON or multipart, values as sent by a form)', async () => {
    const b = await create(admin, { title: 'Steady', link_url: 'https://steady.example.so', sort_order: 4, status: 'active', dealer_id: dealerA.id });
    const same = { title: 'Steady', link_url: 'https://steady.example.so', sort_order: 4, status: 'active', dealer_id: dealerA.id };
    const json = await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).send(same);
    expect(json.status).toBe(200);
    const form = h.http().patch(`/api/v1/banners/${b.h_id}`).set(bearer(admin));
    for (const [k, v] of Object.entries({ ...same, title: ' Steady ', dealer_id: dealerA.h_id })) form.field(k, String(v));
    expect((await form).status).toBe(200);
    expect((await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(admin)).send({})).status).toBe(200);
    // The dealer's own no-op edit too (its dealer_id is forced to what it already is).
    expect((await h.http().patch(`/api/v1/banners/${b.id}`).set(bearer(dealerA.token)).send({ title: 'Steady', dealer_id: dealerB.id })).status).toBe(200);
    expect(await logRows(b.id, 'updated')).toHaveLength(0);
    // A real change is logged once, with only what changed differing.
    expect(
      (
        await h
          .http()
          .patch(`/api/v1/banners/${b.id}`)
          .set(bearer(admin))
          .send({ ...same, sort_order: 5 })
      ).status,
    ).toBe(200);
    const log = await logRows(b.id, 'updated');
    expect(log).toHaveLength(1);
    expect(JSON.parse(log[0].before)).toEqual({ ...JSON.parse(log[0].after), sort_order: 4 });
  });
});

describe('trash, restore and force delete', () => {
  it('one at a time: the file stays through the trash and goes with the force delete', async () => {
    const b = await create(admin, { title: 'Lifecycle' });
    const del = await h.http().delete(`/api/v1/banners/${b.id}`).set(bearer(admin));
    expect(del.body).toEqual({ success: true, message: 'Banner moved to the trash', data: null });
    expect((await get(admin, `/${b.id}`)).status).toBe(404);
    expect(ids(await get(admin, `?ids=${b.id}`))).toEqual([]);
    expect(ids(await get(admin, `/trashed/list?ids=${b.id}`))).toEqual([b.id]);
    const shown = await get(admin, `/${b.h_id}/trashed`);
    expect(shown.body.data).toMatchObject({ id: b.id, deleted_at: expect.any(String) });
    expect(onDisk(b.image)).toBe(true);
    expect((await h.http().delete(`/api/v1/banners/${b.id}`).set(bearer(admin))).status).toBe(404);

    const restored = await h.http().post(`/api/v1/banners/${b.h_id}/restore`).set(bearer(admin));
    expect(restored.body).toMatchObject({ success: true, message: 'Banner restored successfully', data: { id: b.id, deleted_at: null } });
    expect((await h.http().post(`/api/v1/banners/${b.id}/restore`).set(bearer(admin))).status).toBe(404);

    const gone = await h.http().delete(`/api/v1/banners/${b.id}/force`).set(bearer(admin));
    expect(gone.body).toEqual({ success: true, message: 'Banner deleted permanently', data: null });
    expect(await h.knex('banners').where('id', b.id).first()).toBeUndefined();
    expect(onDisk(b.image)).toBe(false);
    expect((await get(admin, `/${b.id}/trashed`)).status).toBe(404);

    const log = await logRows(b.id);
    expect(log.map((r) => [r.action, r.actor_id])).toEqual([
      ['created', rootId],
      ['deleted', rootId],
      ['restored', rootId],
      ['force_deleted', rootId],
    ]);
    expect(JSON.parse(log[1].before)).toMatchObject({ title: 'Lifecycle', image_path: b.image });
    expect(JSON.parse(log[3].before)).toMatchObject({ title: 'Lifecycle', image_path: b.image });
  });

  it('the bulk forms: all or nothing, counted messages, files removed by the force delete', async () => {
    const a = await create(admin, { title: 'Bulk one' });
    const b = await create(admin, { title: 'Bulk two', dealer_id: dealerA.id });
    const missing = await h
      .http()
      .delete('/api/v1/banners/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [a.id, 999_999] });
    expect(missing.status).toBe(404);
    expect((await h.knex('banners').where('id', a.id).first()).deleted_at).toBeNull();

    const del = await h
      .http()
      .delete('/api/v1/banners/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [a.id, b.h_id] });
    expect(del.body).toEqual({ success: true, message: '2 banners moved to the trash', data: { affected: 2 } });
    // Restore wants trashed rows: an active one fails the request.
    const c = await create(admin, { title: 'Bulk three' });
    expect(
      (
        await h
          .http()
          .post('/api/v1/banners/bulk/restore')
          .set(bearer(admin))
          .send({ ids: [a.id, c.id] })
      ).status,
    ).toBe(404);
    const back = await h
      .http()
      .post('/api/v1/banners/bulk/restore')
      .set(bearer(admin))
      .send({ ids: [a.id, b.id] });
    expect(back.body).toEqual({ success: true, message: '2 banners restored successfully', data: { affected: 2 } });
    const one = await h
      .http()
      .delete('/api/v1/banners/bulk/delete')
      .set(bearer(admin))
      .send({ ids: [c.id] });
    expect(one.body.message).toBe('1 banner moved to the trash');

    const gone = await h
      .http()
      .delete('/api/v1/banners/bulk/force-delete')
      .set(bearer(admin))
      .send({ ids: [a.id, b.id, c.id] });
    expect(gone.body).toEqual({ success: true, message: '3 banners deleted permanently', data: { affected: 3 } });
    for (const x of [a, b, c]) {
      expect(onDisk(x.image)).toBe(false);
      expect(await logRows(x.id, 'force_deleted')).toHaveLength(1);
    }
    for (const x of [a, b]) {
      expect((await logRows(x.id, 'deleted')).map((r) => r.actor_id)).toEqual([rootId]);
      expect((await logRows(x.id, 'restored')).map((r) => r.actor_id)).toEqual([rootId]);
    }
    const empty = await h.http().delete('/api/v1/banners/bulk/delete').set(bearer(admin)).send({ ids: [] });
    expect(empty.status).toBe(422);
  });

  it("a dealer deleted for good takes its banners' files with it", async () => {
    const form = h.http().post('/api/v1/users').set(bearer(admin));
    for (const [k, v] of Object.entries({
      name: 'Leaving Dealer',
      email: 'leaving@test.example',
      password: DEALER_PASSWORD,
      password_confirmation: DEALER_PASSWORD,
      user_type: 'dealer',
      dealer_code: 'LEAVING',
    }))
      form.field(k, v);
    const dealer = await form.attach('dealer_logo', PNG_1PX, 'logo.png');
    expect(dealer.status).toBe(201);
    const theirs = await create(admin, { title: 'Leaving soon', dealer_id: dealer.body.data.id });
    const trashed = await create(admin, { title: 'Leaving, trashed', dealer_id: dealer.body.data.id });
    expect((await h.http().delete(`/api/v1/banners/${trashed.id}`).set(bearer(admin))).status).toBe(200);
    const stays = await create(admin, { title: 'Stays' });
    // Its payment methods cascade too, and their logos go with them.
    const method = await h
      .http()
      .post('/api/v1/payment-methods')
      .set(bearer(admin))
      .field('name', 'Leaving EVC')
      .field('type', 'evc_plus')
      .field('account_number', '615')
      .field('dealer_id', String(dealer.body.data.id))
      .attach('logo', PNG_1PX, 'evc.png');
    expect(method.status).toBe(201);
    expect((await h.http().delete(`/api/v1/users/${dealer.body.data.id}/force`).set(bearer(admin))).status).toBe(200);
    expect(await h.knex('payment_methods').where({ id: method.body.data.id })).toEqual([]);
    expect(onDisk(method.body.data.logo)).toBe(false);
    expect(await h.knex('banners').whereIn('id', [theirs.id, trashed.id])).toEqual([]);
    expect(onDisk(theirs.image)).toBe(false);
    expect(onDisk(trashed.image)).toBe(false);
    expect(onDisk(stays.image)).toBe(true);
  });
});

describe('messages in each language', () => {
  it.each([
    ['en', 'Banner created successfully', 'Banner moved to the trash', '2 banners deleted permanently', IMAGE_REQUIRED, URL_INVALID],
    [
      'ae',
      'تم إنشاء البانر بنجاح',
      'تم نقل البانر إلى سلة المحذوفات',
      'تم حذف 2 بانرات نهائياً',
      'ملف الصورة مطلوب.',
      'أدخل عنوان ويب كاملاً يبدأ بـ http:// أو https://',
    ],
    [
      'so',
      'Banner-ka si guul leh ayaa loo abuuray',
      'Banner-ka waxaa loo raray qashinka',
      '2 banner ayaa si joogto ah loo tirtiray',
      'Fayl sawir ah waa loo baahan yahay.',
      'Geli cinwaan web oo dhammaystiran oo ku bilaabma http:// ama https://',
    ],
  ])('%s', async (lng, created, deleted, bulkGone, imageRequired, urlInvalid) => {
    const q = `?lng=${lng}`;
    const a = await createForm(admin, { title: `In ${lng}` }, PNG_1PX, q);
    expect(a.status).toBe(201);
    expect(a.body.message).toBe(created);
    const b = await create(admin, { title: `In ${lng} too` });
    expect((await h.http().delete(`/api/v1/banners/${a.body.data.id}${q}`).set(bearer(admin))).body.message).toBe(deleted);
    const gone = await h
      .http()
      .delete(`/api/v1/banners/bulk/force-delete${q}`)
      .set(bearer(admin))
      .send({ ids: [a.body.data.id, b.id] });
    expect(gone.body.message).toBe(bulkGone);
    const invalid = await createForm(admin, { title: 'x', link_url: 'javascript:alert(1)' }, null, q);
    expect(invalid.body.errors).toEqual({ link_url: [urlInvalid], image: [imageRequired] });
    // The same language from Accept-Language (Arabic is asked for as ar, served as ae).
    const header = { en: 'en-GB', ae: 'ar-SO', so: 'so-SO' }[lng]!;
    const viaHeader = await createForm(admin, { title: 'x' }, null).set('Accept-Language', `${header}, fr;q=0.5`);
    expect(viaHeader.body.errors).toEqual({ image: [imageRequired] });
  });
});
