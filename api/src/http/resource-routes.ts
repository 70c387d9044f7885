import type { Request } from 'express';
import { z, type ZodType } from 'zod';
import {
  affectedSchema,
  idListSchema,
  listParams,
  reorderSchema,
  operationPermissions,
  hasOperation,
  type Operation,
  type PermissionName,
} from '@app/contracts';
import { ApiRouter, type EndpointSpec } from './api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { checkedImage, imagesUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';
import type { ServiceContext } from '../platform/context.ts';
import { resourceService, type ImageUpload, type RecordState, type ResourceModule, type SoftModel } from '../platform/resource-service.ts';

export type { ImageField, WriteContext } from '../platform/resource-service.ts';

/**
 * A resource's module as the routes take it: the service's module (platform/resource-service.ts)
 * plus what only HTTP has. The routes of docs/product.md section 7 that it opts in to, their
 * order, permissions, the envelope, messages and the OpenAPI entries come from resourceRoutes below;
 * every rule is the resource service's.
 */
export interface ResourceRoutesModule<M extends SoftModel, R extends ZodType = ZodType> extends ResourceModule<M, R> {
  /** Route permission of PATCH /{id} when finer rules apply inside update (users). */
  updateAnyPermission?: PermissionName[];
  /** Further answers of PATCH /{id} by status, for the OpenAPI document (users: 409, a switch to confirm). */
  updateErrors?: Record<number, string>;
  /** Routes with literal paths, registered before /:id so it does not capture them. */
  extraRoutes?: (api: ApiRouter, helpers: ResourceHelpers<M>) => void;
}

export interface ResourceHelpers<M extends SoftModel> {
  /** One record the caller may see, or 404; `lock` takes a row lock (MySQL) for a write. */
  find: (ctx: ServiceContext, id: string | number, state: RecordState, opts?: { lock?: boolean }) => Promise<M>;
  findMany: (ctx: ServiceContext, ids: (string | number)[], state: RecordState, opts?: { lock?: boolean }) => Promise<M[]>;
  presentOne: (ctx: ServiceContext, id: number) => Promise<unknown>;
  storage: FileStorage;
}

/** The route factory: maps HTTP (params, query, multipart files, the envelope) to the resource service. */
export function resourceRoutes<M extends SoftModel, R extends ZodType>(
  registry: OpenApiRegistry,
  storage: FileStorage,
  mod: ResourceRoutesModule<M, R>,
): ApiRouter {
  const { def } = mod;
  const service = resourceService(storage, mod);
  const api = new ApiRouter(registry, `/${def.name}`, def.name.charAt(0).toUpperCase() + def.name.slice(1).replace(/-/g, ' '));
  const has = (op: Operation) => hasOperation(def, op);
  const msg = (key: string) => `${def.messagePrefix}.${key}`;
  const fields = service.imageFieldNames;
  const upload = fields.length ? imagesUpload(fields) : undefined;
  const files = fields.length ? fields : undefined;

  const perms = (op: Operation): Pick<EndpointSpec, 'permission' | 'anyPermission'> => {
    const p = operationPermissions(def, op);
    return { ...(p.all.length ? { permission: p.all } : {}), ...(p.any.length ? { anyPermission: p.any } : {}) };
  };
  /** The request's images, each checked by its bytes (the first bad one is a 422). */
  const imagesOf = async (req: Request) => {
    const images: Record<string, ImageUpload | null> = {};
    for (const field of fields) images[field] = await checkedImage(req, field);
    return images;
  };
  /** The file fields multer received (before their bytes are checked). */
  const sentFiles = (req: Request) =>
    new Set<string>([...(req.file ? [req.file.fieldname] : []), ...Object.keys((req.files as Record<string, unknown>) ?? {})]);
  const requiredImageErrors = (req: Request) => service.missingImages((req.body ?? {}) as Record<string, unknown>, sentFiles(req));

  const listHandler = (state: 'active' | 'trashed') => (req: Request, ctx: ServiceContext) => service.list(ctx, req.query as Record<string, unknown>, state);
  const listQuery = resourceListQuery(mod);
  const noun = def.name.replace(/-/g, ' ');
  const ids = (req: Request) => (req.body as { ids: (string | number)[] }).ids;
  const affected = affectedSchema;

  // Literal paths first: /trashed/list, /bulk/..., /search must come before /:id.
  if (has('trashList'))
    api.get(
      '/trashed/list',
      { summary: `List ${noun} in the trash`, ...perms('trashList'), list: true, query: listQuery, response: mod.response },
      listHandler('trashed'),
    );
  if (has('search'))
    api.get('/search', { summary: `Search ${noun} by q`, ...perms('search'), list: true, query: listQuery, response: mod.response }, listHandler('active'));

  if (has('bulkDelete')) {
    api.delete(
      '/bulk/delete',
      { summary: `Move several ${noun} to the trash`, ...perms('bulkDelete'), body: idListSchema, response: affected },
      async (req, ctx) => {
        const count = await service.deleteMany(ctx, ids(req));
        return { message: msg('bulk_deleted'), messageVars: { count }, data: { affected: count } };
      },
    );
  }
  if (has('bulkRestore')) {
    api.post(
      '/bulk/restore',
      { summary: `Restore several ${noun} from the trash`, ...perms('bulkRestore'), body: idListSchema, response: affected },
      async (req, ctx) => {
        const count = await service.restoreMany(ctx, ids(req));
        return { message: msg('bulk_restored'), messageVars: { count }, data: { affected: count } };
      },
    );
  }
  if (has('bulkForceDelete')) {
    api.delete(
      '/bulk/force-delete',
      { summary: `Delete several ${noun} permanently`, ...perms('bulkForceDelete'), body: idListSchema, response: affected },
      async (req, ctx) => {
        const count = await service.forceDelete(ctx, ids(req));
        return { message: msg('bulk_force_deleted'), messageVars: { count }, data: { affected: count } };
      },
    );
  }
  if (has('bulkCreate') && mod.schemas.create) {
    api.post(
      '/bulk',
      {
        summary: `Create several ${noun} at once (array body, all or nothing)`,
        ...perms('bulkCreate'),
        body: mod.schemas.create,
        bodyIsArray: true,
        status: 201,
        response: z.array(mod.response),
      },
      async (req, ctx) => {
        const created = await service.createMany(ctx, req.body);
        return { message: msg('bulk_created'), messageVars: { count: created.length }, data: created };
      },
    );
  }

  // Resources listed by sort_order: one call saves a new order (one transaction, one log entry),
  // with the update permission; a dealer names only its own rows (any other id: 404).
  if (has('update') && mod.list.sortable.includes('sort_order')) {
    api.post(
      '/reorder',
      { summary: `Save a new order of ${noun} (sort_order = start + position)`, ...perms('update'), body: reorderSchema, response: affected },
      async (req, ctx) => {
        const { ids, start = 0 } = req.body as { ids: (string | number)[]; start?: number };
        return { message: msg('reordered'), data: { affected: await service.reorder(ctx, ids, start) } };
      },
    );
  }

  mod.extraRoutes?.(api, { find: service.find, findMany: service.findMany, presentOne: service.presentOne, storage });

  // Routes with :id.
  if (has('list')) api.get('/', { summary: `List ${noun}`, ...perms('list'), list: true, query: listQuery, response: mod.response }, listHandler('active'));

  if (has('create') && mod.schemas.create) {
    // A missing required file is reported with the body's errors when the body is invalid too.
    api.post(
      '/',
      {
        summary: `Create one of ${noun}`,
        ...perms('create'),
        body: mod.schemas.create,
        upload,
        files,
        check: requiredImageErrors,
        status: 201,
        response: mod.response,
      },
      async (req, ctx) => {
        const data = await service.create(ctx, req.body, await imagesOf(req));
        return { status: 201, message: msg('created'), data };
      },
    );
  }

  if (has('show')) {
    api.get('/:id', { summary: `Show one of ${noun}`, ...perms('show'), response: mod.response }, async (req, ctx) => ({
      data: await service.get(ctx, String(req.params.id), 'active'),
    }));
  }
  if (has('trashShow')) {
    api.get('/:id/trashed', { summary: `Show one of ${noun} in the trash`, ...perms('trashShow'), response: mod.response }, async (req, ctx) => ({
      data: await service.get(ctx, String(req.params.id), 'trashed'),
    }));
  }

  if (has('update') && mod.schemas.update) {
    const routePerms = mod.updateAnyPermission ? { anyPermission: mod.updateAnyPermission } : perms('update');
    api.patch(
      '/:id',
      { summary: `Update one of ${noun}`, ...routePerms, body: mod.schemas.update, upload, files, response: mod.response, errors: mod.updateErrors },
      async (req, ctx) => {
        const data = await service.update(ctx, String(req.params.id), req.body, await imagesOf(req));
        return { message: msg('updated'), data };
      },
    );
  }

  if (has('delete')) {
    api.delete('/:id', { summary: `Move one of ${noun} to the trash`, ...perms('delete'), response: null }, async (req, ctx) => {
      await service.delete(ctx, String(req.params.id));
      return { message: msg('deleted') };
    });
  }
  if (has('forceDelete')) {
    api.delete('/:id/force', { summary: `Delete one of ${noun} permanently`, ...perms('forceDelete'), response: null }, async (req, ctx) => {
      await service.forceDelete(ctx, [String(req.params.id)]);
      return { message: msg('force_deleted') };
    });
  }
  if (has('restore')) {
    api.post('/:id/restore', { summary: `Restore one of ${noun} from the trash`, ...perms('restore'), response: mod.response }, async (req, ctx) => ({
      message: msg('restored'),
      data: await service.restore(ctx, String(req.params.id)),
    }));
  }

  return api;
}

export const idsParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .describe('Only these records: ids or h_ids, comma-separated or repeated (ids[]=…)');

/**
 * The whole query of a resource's lists (list, trash, search): page, per_page, sort (its sortable
 * fields), order, q (when it searches), ids, and its filters; anything else is refused by the router.
 * A filter applied by `list.filters` but missing from the filters schema is declared as text.
 */
export function resourceListQuery<M extends SoftModel, R extends ZodType>(mod: ResourceRoutesModule<M, R>) {
  const declared = mod.schemas.filters instanceof z.ZodObject ? (mod.schemas.filters.shape as Record<string, ZodType>) : {};
  const applied = Object.fromEntries(Object.keys(mod.list.filters ?? {}).map((name) => [name, z.string().optional()]));
  const sortable = mod.list.sortable as [string, ...string[]];
  return z.object({
    ...applied,
    ...declared,
    ...listParams({
      sort: sortable,
      defaultSort: mod.list.defaultSort.field,
      q: mod.def.searchable.length ? `Matches ${mod.def.searchable.join(', ')} (contains, any case)` : undefined,
    }),
    ids: idsParam,
  });
}

/** A zod object of the list filters, for validation and the OpenAPI document. */
export const filterQuery = (shape: Record<string, ZodType>) => z.object({ ...shape, ids: idsParam });
