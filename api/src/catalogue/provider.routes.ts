import { z } from 'zod';
import { providerResponseSchema, providerSchema, updateProviderSchema, RESOURCES, STATUSES } from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { ImageFields } from '../platform/resource-service.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { encodeId } from '../http/ids.ts';
import { childCounts, Provider } from './catalogue.models.ts';
import { assertPrefixesFree, createProvider, providerColumns } from './catalogue.service.ts';

const prefixes = (p: Provider): string[] => (p.phone_prefixes ? (JSON.parse(p.phone_prefixes) as string[]) : []);

/** /internet-providers: operators, their logos and the number prefixes that check a customer's phone. */
export function providerRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Provider, typeof providerResponseSchema>(registry, storage, {
    def: RESOURCES['internet-providers'],
    model: Provider,
    schemas: { create: providerSchema, update: updateProviderSchema, filters: filterQuery({ status: z.enum(STATUSES).optional() }) },
    response: providerResponseSchema,
    list: {
      sortable: ['id', 'name', 'code', 'sort_order', 'status', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: { status: (qb, v) => void qb.where('providers.status', v) },
    },
    images: { logo: { folder: 'providers', column: 'logo_path' } } satisfies ImageFields<(typeof RESOURCES)['internet-providers']>,
    uniqueFields: { providers_code_unique: ['code', 'validation:code_taken'] },
    create: createProvider,
    update: async (ctx, row, input) => {
      if (Array.isArray(input.phone_prefixes)) await assertPrefixesFree(ctx, input.phone_prefixes, row.id);
      if (Object.keys(input).length)
        await Provider.query(ctx.db)
          .patch(providerColumns(input) as Partial<Provider>)
          .where('id', row.id);
    },
    snapshot: (p) => ({
      name: p.name,
      code: p.code,
      logo_path: p.logo_path,
      status: p.status,
      sort_order: p.sort_order,
      phone_prefixes: prefixes(p),
      adapter_key: p.adapter_key,
      external_operator_id: p.external_operator_id ?? null,
      translations: p.translations ?? null,
    }),
    present: async (providers, ctx) => {
      const counts = await childCounts(
        ctx.db,
        'categories',
        'provider_id',
        providers.map((p) => p.id),
      );
      return providers.map((p) => ({
        id: p.id,
        h_id: encodeId(p.id),
        name: p.name,
        code: p.code,
        logo: p.logo_path ?? null,
        phone_prefixes: prefixes(p),
        adapter_key: p.adapter_key,
        external_operator_id: p.external_operator_id ?? null,
        status: p.status,
        sort_order: p.sort_order,
        translations: p.translations ?? null,
        categories_count: counts.get(p.id) ?? 0,
        created_at: p.created_at ?? null,
        updated_at: p.updated_at ?? null,
        deleted_at: p.deleted_at ?? null,
      }));
    },
  });
}
