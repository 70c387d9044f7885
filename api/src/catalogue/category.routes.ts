import { z } from 'zod';
import { categoryResponseSchema, categorySchema, updateCategorySchema, RESOURCES, STATUSES } from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId, encodeId } from '../http/ids.ts';
import { Category, childCounts } from './catalogue.models.ts';
import { createCategory } from './catalogue.service.ts';

/** /internet-categories: an operator's categories (daily, weekly, monthly ...), filtered by provider_id. */
export function categoryRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Category, typeof categoryResponseSchema>(registry, storage, {
    def: RESOURCES['internet-categories'],
    model: Category,
    schemas: {
      create: categorySchema,
      update: updateCategorySchema,
      filters: filterQuery({ status: z.enum(STATUSES).optional(), provider_id: z.string().optional() }),
    },
    response: categoryResponseSchema,
    list: {
      sortable: ['id', 'name', 'sort_order', 'status', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: {
        status: (qb, v) => void qb.where('categories.status', v),
        provider_id: (qb, v) => void qb.where('categories.provider_id', decodeId(v) ?? 0),
      },
    },
    graph: 'provider',
    create: createCategory,
    snapshot: (c) => ({
      provider_id: c.provider_id,
      name: c.name,
      description: c.description,
      status: c.status,
      sort_order: c.sort_order,
      translations: c.translations ?? null,
    }),
    present: async (categories, ctx) => {
      const counts = await childCounts(
        ctx.db,
        'bundles',
        'category_id',
        categories.map((c) => c.id),
      );
      return categories.map((c) => ({
        id: c.id,
        h_id: encodeId(c.id),
        provider_id: c.provider_id,
        provider: c.provider ? { id: c.provider.id, h_id: encodeId(c.provider.id), name: c.provider.name } : null,
        name: c.name,
        description: c.description ?? null,
        status: c.status,
        sort_order: c.sort_order,
        translations: c.translations ?? null,
        bundles_count: counts.get(c.id) ?? 0,
        created_at: c.created_at ?? null,
        updated_at: c.updated_at ?? null,
        deleted_at: c.deleted_at ?? null,
      }));
    },
  });
}
