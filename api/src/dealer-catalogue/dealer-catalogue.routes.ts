import type { Request } from 'express';
import { z } from 'zod';
import {
  listParams as listQueryParams,
  affectedSchema,
  dealerBundleResponseSchema,
  dealerBundleSchema,
  dealerBundlesBulkSchema,
  dealerCategoryResponseSchema,
  dealerProviderResponseSchema,
  dealerSelectionSchema,
  DEALER_CATALOGUE,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { decodeId } from '../http/ids.ts';
import { idsParam } from '../http/resource-routes.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE } from '../http/list-query.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import {
  bulkDealerBundles,
  listDealerBundles,
  listDealerCategories,
  listDealerProviders,
  resolveDealer,
  switchSelection,
  updateDealerBundle,
  type ListQuery,
} from './dealer-catalogue.service.ts';

const listQuery = z.object({
  dealer_id: z.string().optional().describe('Admins: the dealer (id or h_id). Dealers: ignored, always themselves'),
  enabled: z.enum(['true', 'false']).optional(),
  ...listQueryParams({ sort: ['sort_order', 'name'], q: 'The name (contains, any case)' }),
  provider_id: z.string().optional(),
  category_id: z.string().optional(),
  // The rows behind a list of ids in one call (react-admin getMany: the Operator filter's chosen value).
  ids: idsParam,
});

function listParams(req: Request): ListQuery {
  const q = req.query as Record<string, string | undefined>;
  return {
    page: Math.min(1_000_000, Math.max(1, Math.floor(Number(q.page) || 1))),
    perPage: Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(q.per_page) || DEFAULT_PER_PAGE))),
    q: (q.q ?? '').trim(),
    enabled: q.enabled === undefined ? undefined : q.enabled === 'true',
    sort: q.sort === 'name' ? 'name' : 'sort_order',
    order: (q.order ?? 'asc').toLowerCase() === 'desc' ? 'desc' : 'asc',
    ...(req.query.ids === undefined ? {} : { ids: idList(req.query.ids) }),
  };
}

/** `ids` as the generic lists read it: comma-separated or repeated, numbers or h_ids; an unknown one matches nothing. */
const idList = (raw: unknown): number[] =>
  (Array.isArray(raw) ? raw : String(raw).split(',')).map((v) => decodeId(String(v).trim())).filter((v): v is number => v !== null);

/** A parent named in the query: must be given and decode (an unknown id lists nothing). */
function parentParam(req: Request, name: 'provider_id' | 'category_id', required: boolean): number | null | undefined {
  const raw = (req.query as Record<string, string | undefined>)[name];
  if (raw === undefined || raw === '') {
    if (required) throw fieldError(name, name === 'provider_id' ? 'validation:provider_required' : 'validation:category_required');
    return undefined;
  }
  return decodeId(raw);
}

/** Reads act for the dealer in the query (admins) or the caller (dealers); writes for the one in the body. */
const dealerOf = (ctx: ServiceContext, req: Request, from: 'query' | 'body') =>
  resolveDealer(ctx, (from === 'query' ? (req.query as Record<string, unknown>) : (req.body as Record<string, unknown>)).dealer_id);

/**
 * /dealer-providers, /dealer-categories, /dealer-bundles: a dealer's switches and prices over
 * the company catalogue. Each item's id is the company item's id, so the console's URLs
 * (/dealer-providers/{providerId}/categories/{categoryId}/bundles) are the catalogue's.
 */
export function dealerCatalogueRoutes(registry: OpenApiRegistry) {
  const { providers, categories, bundles } = DEALER_CATALOGUE;
  const providerApi = new ApiRouter(registry, `/${providers.name}`, 'Dealer catalogue');
  const categoryApi = new ApiRouter(registry, `/${categories.name}`, 'Dealer catalogue');
  const bundleApi = new ApiRouter(registry, `/${bundles.name}`, 'Dealer catalogue');

  providerApi.get(
    '/',
    {
      summary: "The company's operators with this dealer's switch",
      permission: providers.view,
      query: listQuery,
      list: true,
      response: dealerProviderResponseSchema,
    },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return listDealerProviders(ctx, dealer.id, listParams(req));
    },
  );
  providerApi.get(
    '/:id',
    { summary: "One operator with this dealer's switch", permission: providers.view, query: listQuery, response: dealerProviderResponseSchema },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return { data: await one(listDealerProviders(ctx, dealer.id, byId(String(req.params.id))), String(req.params.id)) };
    },
  );
  providerApi.patch(
    '/:id',
    { summary: 'Turn an operator on or off for the dealer', permission: providers.update, body: dealerSelectionSchema, response: dealerProviderResponseSchema },
    async (req, ctx) => {
      const { dealerId, id } = await transact(ctx, async (tctx) => {
        const dealer = await dealerOf(tctx, req, 'body');
        return { dealerId: dealer.id, id: await switchSelection(tctx, 'providers', dealer.id, String(req.params.id), req.body.status) };
      });
      return { message: 'api:dealer_catalogue.updated', data: await one(listDealerProviders(ctx, dealerId, byId(id)), id) };
    },
  );

  categoryApi.get(
    '/',
    {
      summary: "An operator's categories with this dealer's switch (provider_id required)",
      permission: categories.view,
      query: listQuery,
      list: true,
      response: dealerCategoryResponseSchema,
    },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return listDealerCategories(ctx, dealer.id, { ...listParams(req), parentId: parentParam(req, 'provider_id', false) });
    },
  );
  categoryApi.get(
    '/:id',
    { summary: "One category with this dealer's switch", permission: categories.view, query: listQuery, response: dealerCategoryResponseSchema },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return { data: await one(listDealerCategories(ctx, dealer.id, byId(String(req.params.id))), String(req.params.id)) };
    },
  );
  categoryApi.patch(
    '/:id',
    {
      summary: 'Turn a category on or off for the dealer (on also turns its operator on)',
      permission: categories.update,
      body: dealerSelectionSchema,
      response: dealerCategoryResponseSchema,
    },
    async (req, ctx) => {
      const { dealerId, id } = await transact(ctx, async (tctx) => {
        const dealer = await dealerOf(tctx, req, 'body');
        return { dealerId: dealer.id, id: await switchSelection(tctx, 'categories', dealer.id, String(req.params.id), req.body.status) };
      });
      return { message: 'api:dealer_catalogue.updated', data: await one(listDealerCategories(ctx, dealerId, byId(id)), id) };
    },
  );

  // Literal path before /:id.
  bundleApi.post(
    '/bulk',
    {
      summary: 'Turn on/off, or price at cost + profit or cost + markup_percent, all bundles of a category (or operator, or all)',
      permission: bundles.update,
      body: dealerBundlesBulkSchema,
      response: affectedSchema,
    },
    async (req, ctx) => {
      const result = await transact(ctx, async (tctx) => {
        const dealer = await dealerOf(tctx, req, 'body');
        return bulkDealerBundles(tctx, dealer.id, req.body);
      });
      return { message: 'api:dealer_catalogue.bulk_updated', messageVars: { count: result.affected }, data: result };
    },
  );
  bundleApi.get(
    '/',
    {
      summary: "Bundles with this dealer's switch and price (filter category_id or provider_id)",
      permission: bundles.view,
      query: listQuery,
      list: true,
      response: dealerBundleResponseSchema,
    },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return listDealerBundles(ctx, dealer.id, {
        ...listParams(req),
        parentId: parentParam(req, 'category_id', false),
        providerId: parentParam(req, 'provider_id', false),
      });
    },
  );
  bundleApi.get(
    '/:id',
    { summary: "One bundle with this dealer's switch and price", permission: bundles.view, query: listQuery, response: dealerBundleResponseSchema },
    async (req, ctx) => {
      const dealer = await dealerOf(ctx, req, 'query');
      return { data: await one(listDealerBundles(ctx, dealer.id, byId(String(req.params.id))), String(req.params.id)) };
    },
  );
  bundleApi.patch(
    '/:id',
    {
      summary: "Turn a bundle on or off and set the dealer's price (selling_price, null for the default, profit over cost, or markup_percent of cost)",
      permission: bundles.update,
      body: dealerBundleSchema,
      response: dealerBundleResponseSchema,
    },
    async (req, ctx) => {
      const { dealerId, id } = await transact(ctx, async (tctx) => {
        const dealer = await dealerOf(tctx, req, 'body');
        return { dealerId: dealer.id, id: await updateDealerBundle(tctx, dealer.id, String(req.params.id), req.body) };
      });
      return { message: 'api:dealer_catalogue.updated', data: await one(listDealerBundles(ctx, dealerId, byId(id)), id) };
    },
  );

  return [providerApi, categoryApi, bundleApi] as const;
}

/** The listing narrowed to one item. */
const byId = (raw: string | number): ListQuery => {
  const id = decodeId(raw);
  return { page: 1, perPage: 1, q: '', sort: 'sort_order', order: 'asc', ids: id ? [id] : [] };
};

/** The one item with this id from a listing, or 404 (unknown, trashed, or not decodable). */
async function one<T extends { id: number }>(page: Promise<{ data: T[] }>, rawId: string | number): Promise<T> {
  const id = decodeId(rawId);
  if (!id) throw notFound();
  const found = (await page).data.find((r) => r.id === id);
  if (!found) throw notFound();
  return found;
}
