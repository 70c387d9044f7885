import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { decodeId, encodeId } from './ids.ts';
import { likePattern } from './list-query.ts';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await createHarness();
  token = await h.adminToken();
});
afterAll(() => h.close());

const auth = () => ({ Authorization: `Bearer ${token}` });

describe(`generic list and id handling on ${TEST_DATABASE}`, () => {
  it('decodes h_ids and plain ids, and refuses anything else without throwing', () => {
    expect(decodeId(encodeId(42))).toBe(42);
    expect(decodeId('42')).toBe(42);
    for (const bad of ['0', '-1', 'A'.repeat(40), 'abc!', '', '1e3', encodeId(42) + 'x']) expect(decodeId(bad)).toBeNull();
  });

  it('answers 404, never 500, for ids that cannot exist', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '999999999', 'zz%20zz', encodeId(987654)]) {
      const res = await h.http().get(`/api/v1/roles/${id}`).set(auth());
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, code: 'not_found', message: 'The requested resource was not found.' });
    }
  });

  it('searches with q literally: % and _ are not wildcards, on both engines', async () => {
    for (const name of ['Sales 100%', 'Sales 1000', 'Field_Agent', 'FieldXAgent']) {
      expect((await h.http().post('/api/v1/roles').set(auth()).send({ name })).status).toBe(201);
    }
    const pct = await h.http().get('/api/v1/roles').query({ q: '100%' }).set(auth());
    expect(pct.status).toBe(200);
    expect(pct.body.data.map((r: { name: string }) => r.name)).toEqual(['Sales 100%']);
    const underscore = await h.http().get('/api/v1/roles/search').query({ q: 'd_a' }).set(auth());
    expect(underscore.body.data.map((r: { name: string }) => r.name)).toEqual(['Field_Agent']);
    const caseless = await h.http().get('/api/v1/roles').query({ q: 'SALES' }).set(auth());
    expect(caseless.body.meta.total).toBe(2);
    expect(likePattern('a!b')).toBe('%a!!b%');
  });

  it('pages with meta; refuses per_page over 100, page beyond the last possible, unknown sort fields and unknown parameters', async () => {
    const res = await h.http().get('/api/v1/roles').query({ per_page: 2, page: 2, sort: 'name', order: 'asc' }).set(auth());
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ current_page: 2, per_page: 2 });
    expect(res.body.meta.last_page).toBe(Math.ceil(res.body.meta.total / 2));
    const over = await h.http().get('/api/v1/roles').query({ per_page: 1000 }).set(auth());
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ per_page: ['Rows per page must be a whole number from 1 to 100.'] });
    // The last page number a list takes still pages (empty) as a plain integer on every engine.
    const far = await h.http().get('/api/v1/roles').query({ page: 1_000_000 }).set(auth());
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    const huge = await h.http().get('/api/v1/roles').query({ page: '1e19' }).set(auth());
    expect(huge.status).toBe(422);
    expect(huge.body.errors).toEqual({ page: ['The page must be a whole number of 1 or more.'] });
    const badSort = await h.http().get('/api/v1/roles').query({ sort: 'password' }).set(auth());
    expect(badSort.status).toBe(422);
    expect(badSort.body.errors.sort[0]).toMatch(/^Sorting is possible by: /);
    // Brackets make arrays and objects of the values: refused by name, never a 500.
    const arrays = await h.http().get('/api/v1/roles?sort[]=name&page[]=1&q[a]=b').set(auth());
    expect(arrays.status).toBe(422);
    expect(Object.keys(arrays.body.errors)).toEqual(['sort']);
    const values = await h.http().get('/api/v1/roles?page[]=1&page[]=2&q[a]=b').set(auth());
    expect(values.status).toBe(422);
    expect(Object.keys(values.body.errors).sort()).toEqual(['page', 'q']);
    const unknown = await h.http().get('/api/v1/roles').query({ protectd: 'true', lng: 'ae' }).set(auth());
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.protectd[0]).toContain('protectd');
  });

  it('answers a malformed multipart body with 400, not 500', async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(auth())
      .set('content-type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nTrunc');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('The upload could not be read. Please send it again as a form with the file.');
    const noBoundary = await h.http().post('/api/v1/users').set(auth()).set('content-type', 'multipart/form-data').send('xx');
    expect(noBoundary.status).toBe(400);
  });

  it('turns a unique-key race into 422s, never 500s', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => h.http().post('/api/v1/roles').set(auth()).send({ name: 'Race Role' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(4);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.errors.name).toEqual(['The name has already been taken.']);
  });

  it('refuses a filter value that cannot match with 422 on that filter', async () => {
    const res = await h.http().get('/api/v1/users').query({ user_type: 'bogus' }).set(auth());
    expect(res.status).toBe(422);
    expect(res.body.errors.user_type).toEqual(['Invalid value']);
    expect((await h.http().get('/api/v1/users').query({ user_type: 'admin', status: 'active' }).set(auth())).status).toBe(200);
  });

  it('words bulk messages for one record and for several', async () => {
    const a = await h.http().post('/api/v1/roles').set(auth()).send({ name: 'Plural A' });
    const b = await h.http().post('/api/v1/roles').set(auth()).send({ name: 'Plural B' });
    const one = await h
      .http()
      .delete('/api/v1/roles/bulk/delete')
      .set(auth())
      .send({ ids: [a.body.data.id] });
    expect(one.body).toMatchObject({ message: '1 role moved to the trash', data: { affected: 1 } });
    const two = await h
      .http()
      .post('/api/v1/roles/bulk/restore')
      .set(auth())
      .send({ ids: [a.body.data.h_id, b.body.data.id] });
    expect(two.status).toBe(404); // b is not in the trash: all or nothing
    const restored = await h
      .http()
      .post('/api/v1/roles/bulk/restore')
      .set(auth())
      .send({ ids: [a.body.data.h_id] });
    expect(restored.body.message).toBe('1 role restored successfully');
  });
});
