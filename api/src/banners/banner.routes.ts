import { z } from 'zod';
import { bannerResponseSchema, bannerSchema, updateBannerSchema, RESOURCES, STATUSES } from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { ImageFields } from '../platform/resource-service.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { encodeId, decodeId } from '../http/ids.ts';
import { Banner } from './banner.model.ts';
import { dealerRefOf } from '../users/dealer-ref.ts';

/**
 * /banners: storefront banners, global (no dealer) or a dealer's own. Everything generic
 * (routes, dealer scoping and the forced owner, the image, trash, bulk, log) comes from the
 * registry entry and resourceRoutes; this file is what is particular to banners.
 */
export function bannerRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Banner, typeof bannerResponseSchema>(registry, storage, {
    def: RESOURCES.banners,
    model: Banner,
    schemas: {
      create: bannerSchema,
      update: updateBannerSchema,
      filters: filterQuery({ status: z.enum(STATUSES).optional(), dealer_id: z.string().optional() }),
    },
    response: bannerResponseSchema,
    list: {
      sortable: ['id', 'title', 'sort_order', 'status', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: {
        status: (qb, v) => void qb.where('banners.status', v),
        // "global" lists the banners shown on every storefront.
        dealer_id: (qb, v) => void (v === 'global' ? qb.whereNull('banners.dealer_id') : qb.where('banners.dealer_id', decodeId(v) ?? 0)),
      },
    },
    graph: 'dealer',
    images: { image: { folder: 'banners', column: 'image_path', requiredOnCreate: true } } satisfies ImageFields<typeof RESOURCES.banners>,
    snapshot: (b) => ({
      title: b.title,
      image_path: b.image_path,
      link_url: b.link_url,
      sort_order: b.sort_order,
      status: b.status,
      dealer_id: b.dealer_id,
      translations: b.translations ?? null,
    }),
    present: async (banners) =>
      banners.map((b) => ({
        id: b.id,
        h_id: encodeId(b.id),
        title: b.title,
        image: b.image_path,
        link_url: b.link_url ?? null,
        sort_order: b.sort_order,
        status: b.status,
        dealer_id: b.dealer_id ?? null,
        translations: b.translations ?? null,
        dealer: dealerRefOf(b.dealer),
        created_at: b.created_at ?? null,
        updated_at: b.updated_at ?? null,
        deleted_at: b.deleted_at ?? null,
      })),
  });
}
