import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { ModelClass, QueryBuilder } from 'objection';
import { z, type ZodType } from 'zod';
import { affectedSchema, idListSchema, reorderSchema, operationPermissions, hasOperation, type Operation, type ResourceDefinition } from '@app/contracts';
import { ApiRouter, type EndpointSpec } from './api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { BaseModel } from '../database/base.model.ts';
import { applyFilters, applySearch, paginate, parseListParams, type ListOptions } from './list-query.ts';
import { decodeId } from './ids.ts';
import { AppError, conflict, fieldError, notFound, validationFailed, type FieldErrors } from './errors.ts';
import { parseOrThrow } from './validate.ts';
import { isForeignKeyViolation, isUniqueViolation, violatedConstraint } from '../database/db-errors.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { recordActivity, type ActivityAction } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { checkedImage, imagesUpload } from '../uploads/image-upload.ts';
import type { FileStorage } from '../uploads/storage.ts';

type SoftModel = BaseModel & { deleted_at?: string | null };
type State = 'active' | 'trashed' | 'any';

/** A service call inside the generic routes: its context's db is the open transaction. */
export interface WriteContext extends ServiceContext {
  /** True inside POST {endpoint}/bulk, where no file can come with an item. */
  bulk: boolean;
  /** URL paths of the images stored for this request, by multipart field. */
  files: Record<string, string | undefined>;
}

export interface ImageField {
  /** Storage folder under DATA_DIR/storage. */
  folder: string;
  /** Column that holds the URL path; without one the resource's create/update places it. */
  column?: string;
  /** When a create must carry the file (checked with the body, so all errors come at once). */
  requiredOnCreate?: boolean | ((body: Record<string, unknown>) => boolean);
  requiredMessage?: string;
  /** The resource's create reports a missing file itself, with its other checks (all errors in one 422). */
  checkedByCreate?: boolean;
}

/**
 * A resource's API side: its registry declaration (contracts/src/resources.ts) plus model,
 * schemas, presenter and the rules that are its own. Everything else (the routes of docs/product.md
 * section 7 that it opts in to, their order, permissions, dealer scoping, images, activity log,
 * messages, the envelope and the OpenAPI entries) comes from resourceRoutes below.
 */
export interface ResourceModule<M extends SoftModel, R extends ZodType = ZodType> {
  def: ResourceDefinition;
  model: ModelClass<M>;
  schemas: { create?: ZodType; update?: ZodType; filters?: ZodType };
  /** Schema of one presented record: present() is typed by it, and the OpenAPI document shows it. */
  response: R;
  list: Omit<ListOptions<M>, 'table' | 'searchable'>;
  graph?: string;
  /** Narrows reads and writes beyond the owner column (users: a dealer sees only itself). */
  scope?: (qb: QueryBuilder<M, M[]>, ctx: ServiceContext) => void;
  present: (records: M[], ctx: ServiceContext) => Promise<z.input<R>[]>;
  /** A plain snapshot for the activity log's before/after. */
  snapshot: (record: M) => Record<string, unknown>;
  images?: Record<string, ImageField>;
  /** Runs before the transaction, per item (slow work such as hashing a password). */
  prepare?: (ctx: ServiceContext, input: any) => Promise<any>;
  /** Default: insert the validated input as columns. */
  create?: (ctx: WriteContext, input: any) => Promise<M>;
  /** Default: patch the validated input as columns. May name the log action (e.g. status_changed) and add to its `after`. */
  update?: (ctx: WriteContext, record: M, input: any) => Promise<{ action?: ActivityAction; after?: Record<string, unknown> } | void>;
  /** Route permission of PATCH /{id} when finer rules apply inside update (users). */
  updateAnyPermission?: string[];
  /** Throws when the record may not be deleted (protected role, own account ...). */
  guardDelete?: (ctx: WriteContext, record: M) => void | Promise<void>;
  guardRestore?: (ctx: WriteContext, record: M) => void | Promise<void>;
  afterSoftDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  beforeForceDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  /** Unique index name -> the field and message a violation answers (decided by the constraint, not the SQL text). */
  uniqueFields?: Record<string, [field: string, message: string]>;
  /** Routes with literal paths, registered before /:id so it does not capture them. */
  extraRoutes?: (api: ApiRouter, helpers: ResourceHelpers<M>) => void;
}

export interface ResourceHelpers<M extends SoftModel> {
  /** One record the caller may see, or 404; `lock` takes a row lock (MySQL) for a write. */
  find: (ctx: ServiceContext, id: string | number, state: State, opts?: { lock?: boolean }) => Promise<M>;
  findMany: (ctx: ServiceContext, ids: (string | number)[], state: State, opts?: { lock?: boolean }) => Promise<M[]>;
  presentOne: (ctx: ServiceContext, id: number) => Promise<unknown>;
  storage: FileStorage;
}

const MAX_BULK_CREATE = 100;

export function resourceRoutes<M extends SoftModel, R extends ZodType>(registry: OpenApiRegistry, storage: FileStorage, mod: ResourceModule<M, R>): ApiRouter {
  const { def } = mod;
  const api = new ApiRouter(registry, `/${def.name}`, def.name.charAt(0).toUpperCase() + def.name.slice(1).replace(/-/g, ' '));
  const Model = mod.model as unknown as ModelClass<M> & { tableName: string; query: (db?: Knex) => QueryBuilder<M, M[]> };
  const table = Model.tableName;
  const listOptions: ListOptions<M> = { ...mod.list, table, searchable: [...def.searchable] };
  const has = (op: Operation) => hasOperation(def, op);
  const msg = (key: string) => `${def.messagePrefix}.${key}`;
  const owner = def.ownerColumn;
  const imageFields = Object.entries(mod.images ?? {});
  const upload: RequestHandler | undefined = imageFields.length ? imagesUpload(imageFields.map(([f]) => f)) : undefined;
  const files = imageFields.length ? imageFields.map(([f]) => f) : undefined;

  const perms = (op: Operation): Pick<EndpointSpec, 'permission' | 'anyPermission'> => {
    const p = operationPermissions(def, op);
    return { ...(p.all.length ? { permission: p.all } : {}), ...(p.any.length ? { anyPermission: p.any } : {}) };
  };

  const baseQuery = (ctx: ServiceContext, state: State) => {
    const qb = Model.query(ctx.db as Knex) as unknown as QueryBuilder<M, M[]>;
    if (state === 'active') qb.whereNull(`${table}.deleted_at`);
    if (state === 'trashed') qb.whereNotNull(`${table}.deleted_at`);
    // Dealer-owned rows: a dealer reads and writes only its own.
    if (owner && isDealer(ctx.actor)) qb.where(`${table}.${owner}`, ctx.actor.id!);
    mod.scope?.(qb, ctx);
    return qb;
  };

  const findMany: ResourceHelpers<M>['findMany'] = async (ctx, rawIds, state, opts = {}) => {
    const ids = rawIds.map((v) => decodeId(v));
    if (ids.some((id) => id === null)) throw notFound();
    const unique = [...new Set(ids as number[])];
    const qb = baseQuery(ctx, state).whereIn(`${table}.id`, unique);
    if (mod.graph) qb.withGraphFetched(mod.graph);
    // On MySQL the rows stay locked until the write commits (knex leaves SQLite, which
    // serialises writers, without FOR UPDATE).
    if (opts.lock) qb.forUpdate();
    const rows = await qb;
    // All or nothing: one id the caller cannot see fails the whole request.
    if (rows.length !== unique.length) throw notFound();
    return rows;
  };
  const find: ResourceHelpers<M>['find'] = async (ctx, rawId, state, opts) => (await findMany(ctx, [rawId], state, opts))[0];
  const reload = async (ctx: ServiceContext, id: number) => {
    const qb = Model.query(ctx.db as Knex).findById(id) as unknown as QueryBuilder<M, M>;
    if (mod.graph) qb.withGraphFetched(mod.graph);
    const row = await qb;
    if (!row) throw notFound();
    return row;
  };
  const presentOne = async (ctx: ServiceContext, id: number) => (await mod.present([await reload(ctx, id)], ctx))[0];
  const helpers: ResourceHelpers<M> = { find, findMany, presentOne, storage };

  /** Unique-key races end in the right field's 422, decided by the index name. */
  const uniqueErrors = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) {
        const hit = mod.uniqueFields?.[violatedConstraint(err) ?? ''];
        if (hit) throw fieldError(hit[0], hit[1]);
        throw conflict('api:errors.duplicate');
      }
      throw err;
    }
  };

  /** The owner of a dealer-owned row: a dealer always itself; an admin names an active dealer or none. */
  const resolveOwner = async (ctx: ServiceContext, input: Record<string, unknown>, creating: boolean) => {
    if (!owner) return;
    if (isDealer(ctx.actor)) {
      if (creating || owner in input) input[owner] = ctx.actor.id;
      return;
    }
    if (!(owner in input) || input[owner] === undefined) {
      if (creating && !def.ownerOptional) throw fieldError(owner, 'validation:dealer_not_found');
      return;
    }
    if (input[owner] === null) {
      if (!def.ownerOptional) throw fieldError(owner, 'validation:dealer_not_found');
      return;
    }
    const id = decodeId(input[owner] as string | number);
    // Share-locked until the write commits (MySQL; SQLite serialises writers): a dealer trashed or
    // deleted at the same moment is either seen gone here (422) or waits for this row, never a
    // foreign-key failure (500) at the insert below.
    const dealer = id ? await ctx.db('users').where({ id, user_type: 'dealer' }).whereNull('deleted_at').forShare().first('id') : undefined;
    if (!dealer) throw fieldError(owner, 'validation:dealer_not_found');
    input[owner] = dealer.id;
  };

  /** Store the request's images (checked by their bytes) before the transaction; removed again if it fails. */
  const storeImages = async (req: Request | null): Promise<Record<string, string | undefined>> => {
    const stored: Record<string, string | undefined> = {};
    if (!req) return stored;
    try {
      for (const [field, cfg] of imageFields) {
        const image = await checkedImage(req, field);
        if (image) stored[field] = await storage.put(cfg.folder, image.extension, image.bytes);
      }
    } catch (err) {
      await Promise.all(Object.values(stored).map((url) => storage.remove(url)));
      throw err;
    }
    return stored;
  };
  const withStoredImages = async <T>(req: Request | null, work: (stored: Record<string, string | undefined>) => Promise<T>): Promise<T> => {
    const stored = await storeImages(req);
    try {
      return await work(stored);
    } catch (err) {
      // A failed write, or one that lost a race, leaves no file behind.
      await Promise.all(Object.values(stored).map((url) => storage.remove(url)));
      throw err;
    }
  };
  const placeImages = (input: Record<string, unknown>, stored: Record<string, string | undefined>) => {
    for (const [field, cfg] of imageFields) if (cfg.column && stored[field]) input[cfg.column] = stored[field];
  };
  const requiredImageErrors = (req: Request, all = true): FieldErrors => {
    const errors: FieldErrors = {};
    const sent = new Set<string>([...(req.file ? [req.file.fieldname] : []), ...Object.keys((req.files as Record<string, unknown>) ?? {})]);
    for (const [field, cfg] of imageFields) {
      const required = typeof cfg.requiredOnCreate === 'function' ? cfg.requiredOnCreate((req.body ?? {}) as Record<string, unknown>) : cfg.requiredOnCreate;
      if (required && !sent.has(field) && (all || !cfg.checkedByCreate)) errors[field] = [cfg.requiredMessage ?? 'validation:image_required'];
    }
    return errors;
  };

  const createOne = async (ctx: WriteContext, input: Record<string, unknown>): Promise<M> => {
    await resolveOwner(ctx, input, true);
    const row = (mod.create ? await mod.create(ctx, input) : await Model.query(ctx.db as Knex).insertAndFetch(input as never)) as M;
    await recordActivity(ctx, { action: 'created', subjectType: def.subjectType, subjectId: row.id, after: mod.snapshot(await reload(ctx, row.id)) });
    return row;
  };

  const listHandler = (state: 'active' | 'trashed') => async (req: Request, ctx: ServiceContext) => {
    const params = parseListParams(req.query as Record<string, unknown>, listOptions);
    const qb = baseQuery(ctx, state);
    if (mod.graph) qb.withGraphFetched(mod.graph);
    applyFilters(qb, req.query as Record<string, unknown>, listOptions);
    applySearch(qb, table, listOptions.searchable, params.q);
    const { results, meta } = await paginate(qb, table, params);
    return { data: await mod.present(results, ctx), meta };
  };

  const noun = def.name.replace(/-/g, ' ');
  const ids = (req: Request) => (req.body as { ids: (string | number)[] }).ids;
  const affected = affectedSchema;

  // Literal paths first: /trashed/list, /bulk/..., /search must come before /:id.
  if (has('trashList')) api.get('/trashed/list', { summary: `List ${noun} in the trash`, ...perms('trashList'), list: true, query: mod.schemas.filters, response: mod.response }, listHandler('trashed'));
  if (has('search')) api.get('/search', { summary: `Search ${noun} by q`, ...perms('search'), list: true, query: mod.schemas.filters, response: mod.response }, listHandler('active'));

  const softDelete = async (ctx: WriteContext, row: M) => {
    await mod.guardDelete?.(ctx, row);
    await Model.query(ctx.db as Knex).patch({ deleted_at: toDbTime() } as never).where('id', row.id);
    await mod.afterSoftDelete?.(ctx, row);
    await recordActivity(ctx, { action: 'deleted', subjectType: def.subjectType, subjectId: row.id, before: mod.snapshot(row) });
  };
  const restore = async (ctx: WriteContext, row: M) => {
    await mod.guardRestore?.(ctx, row);
    await uniqueErrors(async () => {
      await Model.query(ctx.db as Knex).patch({ deleted_at: null } as never).where('id', row.id);
    });
    await recordActivity(ctx, { action: 'restored', subjectType: def.subjectType, subjectId: row.id });
  };
  const forceDelete = async (ctx: ServiceContext, rawIds: (string | number)[]) => {
    try {
      return await transact(ctx, async (tctx) => {
        const wctx: WriteContext = { ...tctx, bulk: rawIds.length > 1, files: {} };
        const rows = await findMany(wctx, rawIds, 'any', { lock: true });
        for (const row of rows) {
          await mod.guardDelete?.(wctx, row);
          await mod.beforeForceDelete?.(wctx, row);
          await Model.query(wctx.db as Knex).deleteById(row.id);
          await recordActivity(wctx, { action: 'force_deleted', subjectType: def.subjectType, subjectId: row.id, before: mod.snapshot(row) });
          // The record's files go once the rows are gone for good.
          for (const [, cfg] of imageFields) {
            const url = cfg.column ? ((row as unknown as Record<string, string | null>)[cfg.column] ?? null) : null;
            if (url) onCommit(() => storage.remove(url));
          }
        }
        return rows.length;
      });
    } catch (err) {
      if (isForeignKeyViolation(err)) throw conflict('api:errors.in_use');
      throw err;
    }
  };
  const bulkIn = (ctx: ServiceContext, state: State, rawIds: (string | number)[], each: (ctx: WriteContext, row: M) => Promise<void>) =>
    transact(ctx, async (tctx) => {
      const wctx: WriteContext = { ...tctx, bulk: true, files: {} };
      const rows = await findMany(wctx, rawIds, state, { lock: true });
      for (const row of rows) await each(wctx, row);
      return rows.length;
    });

  if (has('bulkDelete')) {
    api.delete('/bulk/delete', { summary: `Move several ${noun} to the trash`, ...perms('bulkDelete'), body: idListSchema, response: affected }, async (req, ctx) => {
      const count = await bulkIn(ctx, 'active', ids(req), softDelete);
      return { message: msg('bulk_deleted'), messageVars: { count }, data: { affected: count } };
    });
  }
  if (has('bulkRestore')) {
    api.post('/bulk/restore', { summary: `Restore several ${noun} from the trash`, ...perms('bulkRestore'), body: idListSchema, response: affected }, async (req, ctx) => {
      const count = await bulkIn(ctx, 'trashed', ids(req), restore);
      return { message: msg('bulk_restored'), messageVars: { count }, data: { affected: count } };
    });
  }
  if (has('bulkForceDelete')) {
    api.delete('/bulk/force-delete', { summary: `Delete several ${noun} permanently`, ...perms('bulkForceDelete'), body: idListSchema, response: affected }, async (req, ctx) => {
      const count = await forceDelete(ctx, ids(req));
      return { message: msg('bulk_force_deleted'), messageVars: { count }, data: { affected: count } };
    });
  }
  if (has('bulkCreate') && mod.schemas.create) {
    const schema = mod.schemas.create;
    api.post('/bulk', { summary: `Create several ${noun} at once (array body, all or nothing)`, ...perms('bulkCreate'), body: schema, bodyIsArray: true, status: 201, response: z.array(mod.response) }, async (req, ctx) => {
      const items = req.body;
      if (!Array.isArray(items) || items.length === 0) throw validationFailed({ body: ['api:errors.bulk_array_required'] });
      if (items.length > MAX_BULK_CREATE) throw validationFailed({ body: ['api:errors.bulk_too_many'] });
      const inputs: Record<string, unknown>[] = [];
      const errors: FieldErrors = {};
      items.forEach((item, i) => {
        try {
          inputs.push(parseOrThrow(schema, item) as Record<string, unknown>);
        } catch (err) {
          if (!(err instanceof AppError) || !err.errors) throw err;
          for (const [field, msgs] of Object.entries(err.errors)) errors[`${i}.${field}`] = msgs;
        }
        for (const [field, cfg] of imageFields) {
          const required = typeof cfg.requiredOnCreate === 'function' ? cfg.requiredOnCreate((item ?? {}) as Record<string, unknown>) : cfg.requiredOnCreate;
          if (required) (errors[`${i}.${field}`] ??= []).push(cfg.requiredMessage ?? 'validation:image_required');
        }
      });
      if (Object.keys(errors).length) throw validationFailed(errors);
      // Slow preparation (password hashing) happens before the transaction opens, so a bulk of
      // 100 never holds the database (SQLite has one connection) while it computes.
      const prepared = mod.prepare ? await Promise.all(inputs.map((input) => mod.prepare!(ctx, input))) : inputs;
      const created = await transact(ctx, async (tctx) => {
        const out: M[] = [];
        for (const [i, input] of prepared.entries()) {
          try {
            out.push(await uniqueErrors(() => createOne({ ...tctx, bulk: true, files: {} }, { ...input })));
          } catch (err) {
            if (err instanceof AppError && err.errors) {
              throw validationFailed(Object.fromEntries(Object.entries(err.errors).map(([f, m]) => [`${i}.${f}`, m])));
            }
            throw err;
          }
        }
        return out;
      });
      const rows = await Promise.all(created.map((r) => reload(ctx, r.id)));
      return { message: msg('bulk_created'), messageVars: { count: created.length }, data: await mod.present(rows, ctx) };
    });
  }

  // Resources listed by sort_order: one call saves a new order (one transaction, one log entry),
  // with the update permission; a dealer names only its own rows (any other id: 404).
  if (has('update') && listOptions.sortable?.includes('sort_order')) {
    api.post('/reorder', { summary: `Save a new order of ${noun} (sort_order = start + position)`, ...perms('update'), body: reorderSchema, response: affected }, async (req, ctx) => {
      const { ids: order, start = 0 } = req.body as { ids: (string | number)[]; start?: number };
      const decoded = order.map((v) => decodeId(v));
      if (new Set(decoded).size !== decoded.length) throw validationFailed({ ids: ['validation:ids_distinct'] });
      const count = await transact(ctx, async (tctx) => {
        const rows = await findMany(tctx, order, 'active', { lock: true });
        const byId = new Map(rows.map((r) => [r.id, r as M & { sort_order: number }]));
        const before: Record<number, number> = {};
        const after: Record<number, number> = {};
        for (const [i, id] of (decoded as number[]).entries()) {
          const row = byId.get(id)!;
          if (row.sort_order === start + i) continue;
          before[id] = row.sort_order;
          after[id] = start + i;
          await Model.query(tctx.db as Knex).patch({ sort_order: start + i } as never).where('id', id);
        }
        const changed = Object.keys(after).length;
        if (changed) await recordActivity(tctx, { action: 'reordered', subjectType: def.subjectType, subjectId: null, before: { sort_order: before }, after: { sort_order: after } });
        return changed;
      });
      return { message: msg('reordered'), data: { affected: count } };
    });
  }

  mod.extraRoutes?.(api, helpers);

  // Routes with :id.
  if (has('list')) api.get('/', { summary: `List ${noun}`, ...perms('list'), list: true, query: mod.schemas.filters, response: mod.response }, listHandler('active'));

  if (has('create') && mod.schemas.create) {
    // A missing required file is reported with the body's errors when the body is invalid too.
    api.post('/', { summary: `Create one of ${noun}`, ...perms('create'), body: mod.schemas.create, upload, files, check: requiredImageErrors, status: 201, response: mod.response }, async (req, ctx) => {
      const missing = requiredImageErrors(req, false);
      if (Object.keys(missing).length) throw validationFailed(missing);
      const input = mod.prepare ? await mod.prepare(ctx, req.body) : req.body;
      const record = await withStoredImages(req, (stored) =>
        transact(ctx, (tctx) => {
          const body = { ...input };
          placeImages(body, stored);
          return uniqueErrors(() => createOne({ ...tctx, bulk: false, files: stored }, body));
        }),
      );
      return { status: 201, message: msg('created'), data: await presentOne(ctx, record.id) };
    });
  }

  if (has('show')) {
    api.get('/:id', { summary: `Show one of ${noun}`, ...perms('show'), response: mod.response }, async (req, ctx) => {
      const record = await find(ctx, String(req.params.id), 'active');
      return { data: (await mod.present([record], ctx))[0] };
    });
  }
  if (has('trashShow')) {
    api.get('/:id/trashed', { summary: `Show one of ${noun} in the trash`, ...perms('trashShow'), response: mod.response }, async (req, ctx) => {
      const record = await find(ctx, String(req.params.id), 'trashed');
      return { data: (await mod.present([record], ctx))[0] };
    });
  }

  if (has('update') && mod.schemas.update) {
    const routePerms = mod.updateAnyPermission ? { anyPermission: mod.updateAnyPermission } : perms('update');
    api.patch('/:id', { summary: `Update one of ${noun}`, ...routePerms, body: mod.schemas.update, upload, files, response: mod.response }, async (req, ctx) => {
      const input = mod.prepare ? await mod.prepare(ctx, req.body) : req.body;
      const id = await withStoredImages(req, (stored) =>
        transact(ctx, async (tctx) => {
          const wctx: WriteContext = { ...tctx, bulk: false, files: stored };
          // Locked for the whole write: two edits of one record apply one after the other,
          // and the file a parallel upload replaced is the one this write read.
          const row = await find(wctx, String(req.params.id), 'active', { lock: true });
          const before = mod.snapshot(row);
          const body = { ...input };
          placeImages(body, stored);
          await resolveOwner(wctx, body, false);
          let outcome: { action?: ActivityAction; after?: Record<string, unknown> } | void = undefined;
          await uniqueErrors(async () => {
            if (mod.update) outcome = await mod.update(wctx, row, body);
            else if (Object.keys(body).length) await Model.query(wctx.db as Knex).patch(body as never).where('id', row.id);
          });
          for (const [field, cfg] of imageFields) {
            const old = cfg.column ? (row as unknown as Record<string, string | null>)[cfg.column] : null;
            if (stored[field] && old) onCommit(() => storage.remove(old));
          }
          const { action = 'updated', after: extra = {} } = (outcome ?? {}) as { action?: ActivityAction; after?: Record<string, unknown> };
          const after = { ...mod.snapshot(await reload(wctx, row.id)), ...extra };
          // A PATCH that changes nothing leaves no log entry.
          if (JSON.stringify(before) !== JSON.stringify(after)) await recordActivity(wctx, { action, subjectType: def.subjectType, subjectId: row.id, before, after });
          return row.id;
        }),
      );
      return { message: msg('updated'), data: await presentOne(ctx, id) };
    });
  }

  if (has('delete')) {
    api.delete('/:id', { summary: `Move one of ${noun} to the trash`, ...perms('delete'), response: null }, async (req, ctx) => {
      await transact(ctx, async (tctx) => {
        const wctx: WriteContext = { ...tctx, bulk: false, files: {} };
        await softDelete(wctx, await find(wctx, String(req.params.id), 'active', { lock: true }));
      });
      return { message: msg('deleted') };
    });
  }
  if (has('forceDelete')) {
    api.delete('/:id/force', { summary: `Delete one of ${noun} permanently`, ...perms('forceDelete'), response: null }, async (req, ctx) => {
      await forceDelete(ctx, [String(req.params.id)]);
      return { message: msg('force_deleted') };
    });
  }
  if (has('restore')) {
    api.post('/:id/restore', { summary: `Restore one of ${noun} from the trash`, ...perms('restore'), response: mod.response }, async (req, ctx) => {
      const id = await transact(ctx, async (tctx) => {
        const wctx: WriteContext = { ...tctx, bulk: false, files: {} };
        const row = await find(wctx, String(req.params.id), 'trashed', { lock: true });
        await restore(wctx, row);
        return row.id;
      });
      return { message: msg('restored'), data: await presentOne(ctx, id) };
    });
  }

  return api;
}

/** A zod object of the list filters, for validation and the OpenAPI document. */
export const filterQuery = (shape: Record<string, ZodType>) =>
  z.object({ ...shape, ids: z.union([z.string(), z.array(z.string())]).optional() });
