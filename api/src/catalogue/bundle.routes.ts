import { z } from 'zod';
import {
  bundleResponseSchema,
  bundleSchema,
  updateBundleSchema,
  formatMinor,
  priceSchema,
  shopsBelowCostResponseSchema,
  RESOURCES,
  STATUSES,
} from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId, encodeId } from '../http/ids.ts';
import { Bundle, Category } from './catalogue.models.ts';
import { createBundle, shopsBelowCost, updateBundle } from './catalogue.service.ts';
import { isDealer } from '../platform/context.ts';

/** The question the console asks before it saves a new cost: which shops would it take the bundle off? */
const belowCostQuery = z.object({
  cost_price: priceSchema.describe('The cost about to be saved ("12.50")'),
  selling_price: priceSchema.optional().describe('The suggested price about to be saved (shops without a price of their own sell at it)'),
});

/**
 * /bundles: what a category sells, with cost and default selling price in minor units (answered
 * as "12.50"). The cost is shown only to holders of 'view bundles prices', on every answer, with
 * the shops that priced the bundle below it (`off_sale_shops`: a saved cost raise says whom it hit).
 */
export function bundleRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Bundle, typeof bundleResponseSchema>(registry, storage, {
    def: RESOURCES.bundles,
    model: Bundle,
    schemas: {
      create: bundleSchema,
      update: updateBundleSchema,
      filters: filterQuery({ status: z.enum(STATUSES).optional(), category_id: z.string().optional(), provider_id: z.string().optional() }),
    },
    response: bundleResponseSchema,
    list: {
      sortable: ['id', 'name', 'sort_order', 'status', 'validity_days', 'data_volume_mb', 'selling_price', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: {
        status: (qb, v) => void qb.where('bundles.status', v),
        category_id: (qb, v) => void qb.where('bundles.category_id', decodeId(v) ?? 0),
        provider_id: (qb, v) =>
          void qb.whereIn(
            'bundles.category_id',
            Category.query()
              .select('categories.id')
              .where('categories.provider_id', decodeId(v) ?? 0),
          ),
      },
    },
    graph: 'category.provider',
    create: createBundle,
    update: updateBundle,
    snapshot: (b) => ({
      category_id: b.category_id,
      name: b.name,
      data_volume_mb: b.data_volume_mb,
      validity_days: b.validity_days,
      cost_price: b.cost_price,
      selling_price: b.selling_price,
      operator_product_code: b.operator_product_code,
      status: b.status,
      sort_order: b.sort_order,
      translations: b.translations ?? null,
    }),
    extraRoutes: (api, { find }) => {
      api.get(
        '/:id/shops-below-cost',
        {
          summary: 'The shops that would stop selling a bundle at a given cost (priced below it), before the cost is saved',
          permission: ['update bundles', 'view bundles prices'],
          query: belowCostQuery,
          response: shopsBelowCostResponseSchema,
        },
        async (req, ctx) => {
          const q = belowCostQuery.parse(req.query);
          const bundle = await find(ctx, String(req.params.id), 'active');
          const shops = (await shopsBelowCost(ctx.db, [bundle.id], { cost: q.cost_price, suggested: q.selling_price })).get(bundle.id) ?? [];
          return { data: { count: shops.length, shops } };
        },
      );
    },
    present: async (bundles, ctx) => {
      const seesCost = ctx.actor.permissions.has('view bundles prices');
      // Other dealers' shops are the company's business: staff only.
      const offSale =
        seesCost && !isDealer(ctx.actor)
          ? await shopsBelowCost(
              ctx.db,
              bundles.map((b) => b.id),
            )
          : null;
      return bundles.map((b) => {
        const provider = b.category?.provider;
        return {
          id: b.id,
          h_id: encodeId(b.id),
          category_id: b.category_id,
          category: b.category ? { id: b.category.id, h_id: encodeId(b.category.id), name: b.category.name } : null,
          provider: provider ? { id: provider.id, h_id: encodeId(provider.id), name: provider.name } : null,
          name: b.name,
          data_volume_mb: b.data_volume_mb ?? null,
          validity_days: b.validity_days,
          ...(seesCost ? { cost_price: formatMinor(b.cost_price) } : {}),
          selling_price: formatMinor(b.selling_price),
          operator_product_code: b.operator_product_code ?? null,
          status: b.status,
          sort_order: b.sort_order,
          translations: b.translations ?? null,
          ...(offSale ? { off_sale_shops: offSale.get(b.id) ?? [] } : {}),
          created_at: b.created_at ?? null,
          updated_at: b.updated_at ?? null,
          deleted_at: b.deleted_at ?? null,
        };
      });
    },
  });
}
