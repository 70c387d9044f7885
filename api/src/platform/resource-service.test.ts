import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { localDiskStorage } from '../uploads/storage.ts';
import { areaResource } from '../settings/area.routes.ts';
import { User } from '../users/user.model.ts';
import { systemContext, userActor, type ServiceContext } from './context.ts';
import { resourceService } from './resource-service.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

// The generic resource service with no Express in sight: what a CLI or a worker would do.
describe(`the resource service without a request on ${TEST_DATABASE}`, () => {
  const areas = () => resourceService(localDiskStorage(path.join(h.dataDir, 'storage')), areaResource);

  it('creates, lists, updates, trashes, restores and deletes an area for good as the system, each step logged', async () => {
    const ctx = systemContext({ db: h.knex });
    const created = await areas().create(ctx, { name: 'Banaadir', code: 'BN', type: 'region' });
    expect(created).toMatchObject({ name: 'Banaadir', code: 'BN', type: 'region', parent: null, children_count: 0 });
    const child = await areas().create(ctx, { name: 'Hodan', type: 'district', parent_id: created.h_id });
    expect(child.parent).toMatchObject({ id: created.id, name: 'Banaadir' });

    const page = await areas().list(ctx, { q: 'banaa' });
    expect(page.data.map((a) => a.name)).toEqual(['Banaadir']);
    expect(page.meta).toMatchObject({ current_page: 1, total: 1 });

    expect(await areas().update(ctx, created.id, { name: 'Banadir' })).toMatchObject({ name: 'Banadir', children_count: 1 });
    // The same rules as over HTTP: a taken code is the field's 422, a cycle is refused.
    await expect(areas().create(ctx, { name: 'Other', code: 'BN', type: 'region' })).rejects.toMatchObject({
      status: 422,
      errors: { code: ['validation:code_taken'] },
    });
    await expect(areas().update(ctx, created.id, { parent_id: child.id })).rejects.toMatchObject({
      status: 422,
      errors: { parent_id: ['validation:area_parent_cycle'] },
    });

    await areas().delete(ctx, child.id);
    expect((await areas().list(ctx, {}, 'trashed')).data.map((a) => a.name)).toEqual(['Hodan']);
    expect(await areas().restore(ctx, child.h_id)).toMatchObject({ name: 'Hodan', deleted_at: null });
    // A parent still used by a child is in use (409); the child first, then the parent.
    await expect(areas().forceDelete(ctx, [created.id])).rejects.toMatchObject({ status: 409 });
    expect(await areas().forceDelete(ctx, [child.id])).toBe(1);
    expect(await areas().forceDelete(ctx, [created.h_id])).toBe(1);
    await expect(areas().get(ctx, created.id)).rejects.toMatchObject({ status: 404 });

    const log = await h.knex('activity_log').where('subject_type', 'area').orderBy('id').pluck('action');
    expect(log).toEqual(['created', 'created', 'updated', 'deleted', 'restored', 'force_deleted', 'force_deleted']);
  });

  it("acts as a signed-in user with that user's permissions and id,, bulk create included", async () => {
    const { id } = await h.userWith(['view areas', 'create areas']);
    const user = await User.query(h.knex).findById(id);
    const ctx: ServiceContext = { ...systemContext({ db: h.knex }), actor: userActor(user!, new Set(['view areas', 'create areas']), false) };
    const area = await areas().create(ctx, { name: 'Gedo', type: 'region' });
    expect(await h.knex('activity_log').where({ subject_type: 'area', subject_id: area.id }).first('actor_id')).toEqual({ actor_id: id });
    expect(
      (
        await areas().createMany(ctx, [
          { name: 'Bay', type: 'region' },
          { name: 'Bakool', type: 'region' },
        ])
      ).map((a) => a.name),
    ).toEqual(['Bay', 'Bakool']);
    await expect(areas().createMany(ctx, [{ name: 'Ok', type: 'region' }, { type: 'region' }])).rejects.toMatchObject({
      status: 422,
      errors: { '1.name': expect.any(Array) },
    });
  });
});
