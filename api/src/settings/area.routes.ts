import { z } from 'zod';
import { areaResponseSchema, areaSchema, updateAreaSchema, AREA_TYPES, RESOURCES, STATUSES } from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { ResourceModule, WriteContext } from '../platform/resource-service.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId, encodeId } from '../http/ids.ts';
import { fieldError } from '../http/errors.ts';
import { childCounts } from '../catalogue/catalogue.models.ts';
import { Area } from './settings.models.ts';

/**
 * The parent an area may hang under: a live area that is neither the area itself nor below it
 * (no cycles). Locked for share so a parent trashed at the same moment is seen gone, not a 500.
 */
async function resolveParent(ctx: WriteContext, raw: unknown, self: number | null): Promise<number | null> {
  if (raw === null || raw === undefined) return null;
  const id = decodeId(raw as string | number);
  const parent = id ? await ctx.db('areas').where({ id }).whereNull('deleted_at').forShare().first('id') : undefined;
  if (!parent) throw fieldError('parent_id', 'validation:area_parent_not_found');
  if (self !== null) {
    // Walk up from the new parent; meeting the area itself would close a loop.
    let cursor: number | null = parent.id;
    for (let depth = 0; cursor !== null && depth < 64; depth++) {
      if (cursor === self) throw fieldError('parent_id', 'validation:area_parent_cycle');
      const row: { parent_id: number | null } | undefined = await ctx.db('areas').where({ id: cursor }).first('parent_id');
      cursor = row?.parent_id ?? null;
    }
  }
  return parent.id;
}

/** Areas: regions, cities and districts, as a tree (parent_id), each with an optional unique code. */
export const areaResource: ResourceModule<Area, typeof areaResponseSchema> = {
  def: RESOURCES.areas,
  model: Area,
  schemas: {
    create: areaSchema,
    update: updateAreaSchema,
    filters: filterQuery({ status: z.enum(STATUSES).optional(), type: z.enum(AREA_TYPES).optional(), parent_id: z.string().optional() }),
  },
  response: areaResponseSchema,
  list: {
    sortable: ['id', 'name', 'code', 'type', 'status', 'created_at', 'updated_at', 'deleted_at'],
    defaultSort: { field: 'name', order: 'asc' },
    filters: {
      status: (qb, v) => void qb.where('areas.status', v),
      type: (qb, v) => void qb.where('areas.type', v),
      // "none" lists the top level.
      parent_id: (qb, v) => void (v === 'none' ? qb.whereNull('areas.parent_id') : qb.where('areas.parent_id', decodeId(v) ?? 0)),
    },
  },
  graph: 'parent',
  uniqueFields: { areas_code_unique: ['code', 'validation:code_taken'] },
  create: async (ctx, input) => Area.query(ctx.db).insertAndFetch({ ...input, parent_id: await resolveParent(ctx, input.parent_id, null) }),
  update: async (ctx, row, input) => {
    const patch = { ...input };
    if ('parent_id' in input) patch.parent_id = await resolveParent(ctx, input.parent_id, row.id);
    if (Object.keys(patch).length) await Area.query(ctx.db).patch(patch).where('id', row.id);
  },
  snapshot: (a) => ({ name: a.name, code: a.code, type: a.type, parent_id: a.parent_id, status: a.status }),
  present: async (areas, ctx) => {
    const counts = await childCounts(
      ctx.db,
      'areas',
      'parent_id',
      areas.map((a) => a.id),
    );
    return areas.map((a) => ({
      id: a.id,
      h_id: encodeId(a.id),
      name: a.name,
      code: a.code ?? null,
      type: a.type,
      parent_id: a.parent_id ?? null,
      parent: a.parent ? { id: a.parent.id, h_id: encodeId(a.parent.id), name: a.parent.name } : null,
      children_count: counts.get(a.id) ?? 0,
      status: a.status,
      created_at: a.created_at ?? null,
      updated_at: a.updated_at ?? null,
      deleted_at: a.deleted_at ?? null,
    }));
  },
};

/** /areas: the generic routes over areaResource. */
export function areaRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes(registry, storage, areaResource);
}
