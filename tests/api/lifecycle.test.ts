import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasOperation, type ResourceDefinition } from '@app/contracts';
import { createHarness, bearer, type Harness } from './harness.ts';
import { fixtureOf, REGISTRY_RESOURCES } from './resource-fixtures.ts';

/**
 * One contract for the generic lifecycle of docs/product.md section 7, run by every registry resource
 * with its own fixture: list, show (id and h_id), create, update, search, trash, show trashed,
 * restore, force delete and the bulk forms, each with its envelope, message and log row.
 */
let h: Harness;
let token: string;

beforeAll(async () => {
  h = await createHarness();
  token = await h.adminToken();
});
afterAll(() => h.close());

const api = (def: ResourceDefinition, path = '') => `/api/v1/${def.name}${path}`;

describe.each(REGISTRY_RESOURCES.map((def) => [def.name, def] as const))('%s: the generic lifecycle', (_name, def) => {
  const fx = () => fixtureOf(def);
  const create = async () => {
    const res = await fx().create(h.http().post(api(def)).set(bearer(token)), null, h);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String), data: { id: expect.any(Number), h_id: expect.any(String) } });
    return res.body.data as { id: number; h_id: string } & Record<string, unknown>;
  };
  const logged = (id: number, action: string) => h.knex('activity_log').where({ subject_type: def.subjectType, subject_id: id, action });

  it('creates, shows by id and h_id, lists, searches and updates, logging each change', async () => {
    const rec = await create();
    expect(await logged(rec.id, 'created')).toHaveLength(1);
    for (const ref of [rec.id, rec.h_id]) {
      const shown = await h
        .http()
        .get(api(def, `/${ref}`))
        .set(bearer(token));
      expect(shown.status).toBe(200);
      expect(shown.body.data.id).toBe(rec.id);
    }
    const list = await h
      .http()
      .get(api(def, `?per_page=100&ids=${rec.id}`))
      .set(bearer(token));
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ current_page: 1, per_page: 100, total: 1, last_page: 1 });
    expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([rec.id]);
    if (hasOperation(def, 'search')) {
      const term = String(rec[def.recordRepresentation]).slice(0, 6);
      const found = await h
        .http()
        .get(api(def, `/search?q=${encodeURIComponent(term)}&per_page=100`))
        .set(bearer(token));
      expect(found.status).toBe(200);
      expect(found.body.data.map((r: { id: number }) => r.id)).toContain(rec.id);
    }
    const { body, field, value } = fx().update;
    const updated = await h
      .http()
      .patch(api(def, `/${rec.h_id}`))
      .set(bearer(token))
      .send(body);
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data[field]).toEqual(value);
    expect(await logged(rec.id, 'updated')).toHaveLength(1);
    // The same change again changes nothing and logs nothing.
    expect(
      (
        await h
          .http()
          .patch(api(def, `/${rec.id}`))
          .set(bearer(token))
          .send(body)
      ).status,
    ).toBe(200);
    expect(await logged(rec.id, 'updated')).toHaveLength(1);
  });

  it('moves to the trash, shows it there, restores it, and deletes it for good', async () => {
    const rec = await create();
    expect(
      (
        await h
          .http()
          .delete(api(def, `/${rec.id}`))
          .set(bearer(token))
      ).status,
    ).toBe(200);
    expect(
      (
        await h
          .http()
          .get(api(def, `/${rec.id}`))
          .set(bearer(token))
      ).status,
    ).toBe(404);
    const trash = await h
      .http()
      .get(api(def, `/trashed/list?ids=${rec.id}`))
      .set(bearer(token));
    expect(trash.body.data.map((r: { id: number }) => r.id)).toEqual([rec.id]);
    expect(
      (
        await h
          .http()
          .get(api(def, `/${rec.h_id}/trashed`))
          .set(bearer(token))
      ).body.data.deleted_at,
    ).toEqual(expect.any(String));
    const restored = await h
      .http()
      .post(api(def, `/${rec.id}/restore`))
      .set(bearer(token));
    expect(restored.status).toBe(200);
    expect(restored.body.data.deleted_at).toBeNull();
    expect(
      (
        await h
          .http()
          .delete(api(def, `/${rec.id}/force`))
          .set(bearer(token))
      ).status,
    ).toBe(200);
    expect(
      (
        await h
          .http()
          .get(api(def, `/${rec.id}/trashed`))
          .set(bearer(token))
      ).status,
    ).toBe(404);
    for (const action of ['deleted', 'restored', 'force_deleted']) expect(await logged(rec.id, action)).toHaveLength(1);
  });

  it('bulk delete, restore and force delete are all or nothing', async () => {
    const a = await create();
    const b = await create();
    const missing = await h
      .http()
      .delete(api(def, '/bulk/delete'))
      .set(bearer(token))
      .send({ ids: [a.id, 999_999] });
    expect(missing.status).toBe(404);
    expect(
      (
        await h
          .http()
          .get(api(def, `/${a.id}`))
          .set(bearer(token))
      ).status,
    ).toBe(200);
    const del = await h
      .http()
      .delete(api(def, '/bulk/delete'))
      .set(bearer(token))
      .send({ ids: [a.id, b.h_id] });
    expect(del.body).toMatchObject({ success: true, data: { affected: 2 } });
    const back = await h
      .http()
      .post(api(def, '/bulk/restore'))
      .set(bearer(token))
      .send({ ids: [a.id, b.id] });
    expect(back.body).toMatchObject({ success: true, data: { affected: 2 } });
    const gone = await h
      .http()
      .delete(api(def, '/bulk/force-delete'))
      .set(bearer(token))
      .send({ ids: [a.id, b.id] });
    expect(gone.body).toMatchObject({ success: true, data: { affected: 2 } });
    expect(
      (
        await h
          .http()
          .get(api(def, `/${b.id}/trashed`))
          .set(bearer(token))
      ).status,
    ).toBe(404);
  });

  it('bulk create makes all items or none, with errors keyed by index', async () => {
    const item = fx().bulkItem;
    if (!hasOperation(def, 'bulkCreate') || !item) return;
    const bad = await h
      .http()
      .post(api(def, '/bulk'))
      .set(bearer(token))
      .send([await item(h), {}]);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).every((k) => k.startsWith('1.'))).toBe(true);
    const ok = await h
      .http()
      .post(api(def, '/bulk'))
      .set(bearer(token))
      .send([await item(h), await item(h)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data).toHaveLength(2);
  });
});
