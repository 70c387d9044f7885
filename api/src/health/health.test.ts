import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('health, unknown paths and the OpenAPI document', () => {
  it('answers ok with the database reachable', async () => {
    const res = await h.http().get('/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok', database: 'ok' } });
    expect(res.headers['x-request-id']).toMatch(/[\w-]+/);
  });

  it('answers JSON 404 for unknown API paths, in the request language', async () => {
    const res = await h.http().get('/api/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, code: 'route_not_found', message: 'The requested resource was not found.' });
    const so = await h.http().get('/api/v1/no-such-thing?lng=so');
    expect(so.body.message).toBe('Waxa la codsaday lama helin.');
    const ar = await h.http().get('/api/v1/no-such-thing').set('Accept-Language', 'ar-SA,ar;q=0.9');
    expect(ar.body.message).toBe('المورد المطلوب غير موجود.');
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, and a docs page', async () => {
    const res = await h.http().get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/auth/admin/login',
      '/auth/check-lock',
      '/users',
      '/users/{id}',
      '/users/bulk/status',
      '/users/trashed/list',
      '/roles/{id}/assign-permissions',
      '/roles/permissions/available',
    ]) {
      expect(paths).toContain(p);
    }
    const login = res.body.paths['/auth/admin/login'].post.requestBody.content['application/json'].schema;
    expect(login.properties).toHaveProperty('email');
    expect(login.properties).toHaveProperty('rememberMe');
    const createUser = res.body.paths['/users'].post.requestBody.content;
    expect(createUser['multipart/form-data'].schema.properties.dealer_logo).toEqual({ type: 'string', format: 'binary' });
    const docs = await h.http().get('/api/v1/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger-ui');
  });

  it('refuses a malformed JSON body with 400 and a clear message', async () => {
    const res = await h.http().post('/api/v1/auth/admin/login').set('content-type', 'application/json').send('{"email":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, code: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('serves translations for the console', async () => {
    const res = await h.http().get('/locales/ae/validation.json');
    expect(res.status).toBe(200);
    expect(res.body.name_required).toBe('الاسم مطلوب');
    expect((await h.http().get('/locales/xx/validation.json')).status).toBe(404);
    expect((await h.http().get('/locales/en/..%2F..%2Fpackage.json')).status).toBe(404);
  });

  it('says down with 503 and Retry-After when the schema is gone (it reads the migrations table)', async () => {
    const { createHarness: make } = await import('../../../tests/api/harness.ts');
    const other = await make();
    try {
      await other.knex.schema.dropTable('knex_migrations');
      const started = Date.now();
      const res = await other.http().get('/api/v1/health?lng=so');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        success: false,
        code: 'database.unavailable',
        message: 'Adeegga si ku meel gaar ah looma heli karo. Fadlan mar kale isku day dhowr ilbiriqsi kadib.',
        data: { status: 'degraded', database: 'down' },
      });
    } finally {
      await other.close();
    }
  });

  it('answers 503 when the database is down', async () => {
    const { createHarness: make } = await import('../../../tests/api/harness.ts');
    const other = await make();
    await other.knex.destroy();
    const res = await other.http().get('/api/v1/health');
    expect(res.status).toBe(503);
    expect(res.body.data.database).toBe('down');
    await other.close().catch(() => undefined);
  });
});
