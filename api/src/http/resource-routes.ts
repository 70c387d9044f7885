import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { ModelClass, QueryBuilder } from 'objection';
import { z, type ZodType } from 'zod';
import { ApiRouter } from './api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { BaseModel } from '../database/base.model.ts';
import { applyFilters, applySearch, paginate, parseListParams, type ListOptions } from './list-query.ts';
import { decodeId } from './ids.ts';
import { AppError, conflict, notFound, validationFailed, type FieldErrors } from './errors.ts';
import { parseOrThrow } from './validate.ts';
import { idListSchema } from '@app/contracts';
import { withTransaction, isForeignKeyViolation } from '../database/transaction.ts';
import { toDbTime } from '../database/time.ts';
import { logActivity } from '../activity-log/activity-log.ts';

type SoftModel = BaseModel & { deleted_at?: string | null };

export interface ResourcePermissions {
  view: string;
  /** Reading needs any one of these instead of `view` (the resource's scope narrows the rows). */
  viewAny?: string[];
  create: string;
  update: string;
  delete: string;
  restore: string;
  forceDelete: string;
  /** Reading the trash needs these as well as `view`. */
  viewTrashed: string;
}

export interface WriteContext {
  req: Request;
  trx: Knex.Transaction;
  /** True inside POST {endpoint}/bulk, where no file can come with an item. */
  bulk: boolean;
}

/**
 * The generic resource pattern of SPEC.md section 7 for one endpoint: list, show, create,
 * update, soft delete, force delete, trashed list, show trashed, restore, search and the bulk
 * forms, each permission-checked, scoped and logged. A resource supplies its model, rules
 * and presenter; the routes, their order and the envelope are the same everywhere.
 */
export interface ResourceConfig<M extends SoftModel> {
  path: string;
  tag: string;
  subjectType: string;
  model: ModelClass<M>;
  permissions: ResourcePermissions;
  list: ListOptions<M>;
  filterQuery?: ZodType;
  /** Relations to load for presentation. */
  graph?: string;
  /** Narrows every read and write to what the caller may see (dealers see only their own). */
  scope?: (qb: QueryBuilder<M, M[]>, req: Request) => void;
  present: (records: M[], req: Request) => Promise<unknown[]>;
  /** A plain snapshot for the activity log's before/after. */
  snapshot: (record: M) => Record<string, unknown>;
  create: {
    schema: ZodType;
    upload?: RequestHandler;
    files?: string[];
    run: (ctx: WriteContext, input: any) => Promise<M>;
  };
  update: {
    schema: ZodType;
    upload?: RequestHandler;
    files?: string[];
    /** Route-level rule: any of these; default [update]. Users decide finer rules inside run. */
    anyPermission?: string[];
    run: (ctx: WriteContext, record: M, input: any) => Promise<void>;
  };
  /** Throws when the record may not be deleted (protected role, own account ...). Query on ctx.trx. */
  guardDelete?: (ctx: WriteContext, record: M) => void | Promise<void>;
  /** Throws when the record may not be restored by this caller. Query on ctx.trx. */
  guardRestore?: (ctx: WriteContext, record: M) => void | Promise<void>;
  afterSoftDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  beforeForceDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  /** After commit: remove files that belonged to the record. */
  afterForceDelete?: (record: M) => Promise<void>;
  messages: { created: string; updated: string; deleted: string; restored: string; forceDeleted: string; bulkCreated: string; bulkDeleted: string; bulkRestored: string; bulkForceDeleted: string };
  /** Routes with literal paths, registered before /:id so it does not capture them. */
  extraRoutes?: (api: ApiRouter, helpers: ResourceHelpers<M>) => void;
}

export interface ResourceHelpers<M extends SoftModel> {
  find: (req: Request, id: string, state: 'active' | 'trashed' | 'any', db?: Knex | Knex.Transaction) => Promise<M>;
  findMany: (req: Request, ids: (string | number)[], state: 'active' | 'trashed' | 'any', db?: Knex | Knex.Transaction) => Promise<M[]>;
  presentOne: (req: Request, record: M) => Promise<unknown>;
  reload: (id: number) => Promise<M>;
}

const MAX_BULK_CREATE = 100;

export function resourceRoutes<M extends SoftModel>(registry: OpenApiRegistry, cfg: ResourceConfig<M>): ApiRouter {
  const api = new ApiRouter(registry, cfg.path, cfg.tag);
  const table = cfg.list.table;
  const P = cfg.permissions;
  const read = P.viewAny ?? [P.view];
  const Model = cfg.model as unknown as ModelClass<M> & { query: (db?: Knex) => QueryBuilder<M, M[]> };

  const baseQuery = (req: Request, state: 'active' | 'trashed' | 'any', db?: Knex | Knex.Transaction) => {
    const qb = Model.query(db as Knex) as unknown as QueryBuilder<M, M[]>;
    if (state === 'active') qb.whereNull(`${table}.deleted_at`);
    if (state === 'trashed') qb.whereNotNull(`${table}.deleted_at`);
    cfg.scope?.(qb, req);
    return qb;
  };

  const findMany: ResourceHelpers<M>['findMany'] = async (req, rawIds, state, db) => {
    const ids = rawIds.map((v) => decodeId(v));
    if (ids.some((id) => id === null)) throw notFound();
    const unique = [...new Set(ids as number[])];
    const rows = await baseQuery(req, state, db).whereIn(`${table}.id`, unique);
    // All or nothing: one id the caller cannot see fails the whole request.
    if (rows.length !== unique.length) throw notFound();
    return rows;
  };
  const find: ResourceHelpers<M>['find'] = async (req, rawId, state, db) => (await findMany(req, [rawId], state, db))[0];
  /** The record as stored now, with its relations (after a write, for the answer). */
  const reload = async (id: number) => {
    const qb = Model.query().findById(id) as unknown as QueryBuilder<M, M>;
    if (cfg.graph) qb.withGraphFetched(cfg.graph);
    const row = await qb;
    if (!row) throw notFound();
    return row;
  };
  const presentOne = async (req: Request, record: M) => (await cfg.present([await reload(record.id)], req))[0];
  const helpers: ResourceHelpers<M> = { find, findMany, presentOne, reload };

  const listHandler = (state: 'active' | 'trashed') => async (req: Request) => {
    const params = parseListParams(req.query as Record<string, unknown>, cfg.list);
    const qb = baseQuery(req, state);
    if (cfg.graph) qb.withGraphFetched(cfg.graph);
    applyFilters(qb, req.query as Record<string, unknown>, cfg.list);
    applySearch(qb, table, cfg.list.searchable, params.q);
    const { results, meta } = await paginate(qb, table, params);
    return { data: await cfg.present(results, req), meta };
  };

  const noun = cfg.tag.toLowerCase();
  // Literal paths first.
  api.get('/trashed/list', { summary: `List ${noun} in the trash`, permission: P.viewTrashed, anyPermission: read, list: true, query: cfg.filterQuery }, listHandler('trashed'));
  api.get('/search', { summary: `Search ${noun} by q`, anyPermission: read, list: true, query: cfg.filterQuery }, listHandler('active'));

  api.delete('/bulk/delete', { summary: `Move several ${noun} to the trash`, permission: P.delete, body: idListSchema }, async (req) => {
    const ids = (req.body as { ids: (string | number)[] }).ids;
    const count = await withTransaction(async (trx) => {
      const rows = await findMany(req, ids, 'active', trx);
      for (const row of rows) await cfg.guardDelete?.({ req, trx, bulk: true }, row);
      const now = toDbTime();
      for (const row of rows) {
        await Model.query(trx).patch({ deleted_at: now } as never).where('id', row.id);
        await cfg.afterSoftDelete?.({ req, trx, bulk: true }, row);
        await logActivity(trx, req, { action: 'deleted', subjectType: cfg.subjectType, subjectId: row.id, before: cfg.snapshot(row) });
      }
      return rows.length;
    });
    return { message: cfg.messages.bulkDeleted, messageVars: { count }, data: { affected: count } };
  });

  api.post('/bulk/restore', { summary: `Restore several ${noun} from the trash`, permission: P.restore, body: idListSchema }, async (req) => {
    const ids = (req.body as { ids: (string | number)[] }).ids;
    const count = await withTransaction(async (trx) => {
      const rows = await findMany(req, ids, 'trashed', trx);
      for (const row of rows) await cfg.guardRestore?.({ req, trx, bulk: true }, row);
      for (const row of rows) {
        await Model.query(trx).patch({ deleted_at: null } as never).where('id', row.id);
        await logActivity(trx, req, { action: 'restored', subjectType: cfg.subjectType, subjectId: row.id });
      }
      return rows.length;
    });
    return { message: cfg.messages.bulkRestored, messageVars: { count }, data: { affected: count } };
  });

  const forceDelete = async (req: Request, rows: M[], trx: Knex.Transaction) => {
    for (const row of rows) {
      await cfg.guardDelete?.({ req, trx, bulk: rows.length > 1 }, row);
      await cfg.beforeForceDelete?.({ req, trx, bulk: rows.length > 1 }, row);
      await Model.query(trx).deleteById(row.id);
      await logActivity(trx, req, { action: 'force_deleted', subjectType: cfg.subjectType, subjectId: row.id, before: cfg.snapshot(row) });
    }
  };
  const runForceDelete = async (req: Request, ids: (string | number)[]) => {
    let rows: M[] = [];
    try {
      await withTransaction(async (trx) => {
        rows = await findMany(req, ids, 'any', trx);
        await forceDelete(req, rows, trx);
      });
    } catch (err) {
      if (isForeignKeyViolation(err)) throw conflict('api:errors.in_use');
      throw err;
    }
    for (const row of rows) await cfg.afterForceDelete?.(row);
    return rows.length;
  };

  api.delete('/bulk/force-delete', { summary: `Delete several ${noun} permanently`, permission: P.forceDelete, body: idListSchema }, async (req) => {
    const count = await runForceDelete(req, (req.body as { ids: (string | number)[] }).ids);
    return { message: cfg.messages.bulkForceDeleted, messageVars: { count }, data: { affected: count } };
  });

  api.post('/bulk', { summary: `Create several ${noun} at once (array body, all or nothing)`, permission: P.create, body: cfg.create.schema, bodyIsArray: true, status: 201 }, async (req) => {
    const items = req.body;
    if (!Array.isArray(items) || items.length === 0) throw validationFailed({ body: ['api:errors.bulk_array_required'] });
    if (items.length > MAX_BULK_CREATE) throw validationFailed({ body: ['api:errors.bulk_too_many'] });
    const inputs: unknown[] = [];
    const errors: FieldErrors = {};
    items.forEach((item, i) => {
      try {
        inputs.push(parseOrThrow(cfg.create.schema, item));
      } catch (err) {
        if (!(err instanceof AppError) || !err.errors) throw err;
        for (const [field, msgs] of Object.entries(err.errors)) errors[`${i}.${field}`] = msgs;
      }
    });
    if (Object.keys(errors).length) throw validationFailed(errors);
    const created = await withTransaction(async (trx) => {
      const out: M[] = [];
      for (const [i, input] of inputs.entries()) {
        try {
          out.push(await cfg.create.run({ req, trx, bulk: true }, input));
        } catch (err) {
          if (err instanceof AppError && err.errors) {
            throw validationFailed(Object.fromEntries(Object.entries(err.errors).map(([f, m]) => [`${i}.${f}`, m])));
          }
          throw err;
        }
      }
      return out;
    });
    const reloaded = await Promise.all(created.map((r) => reload(r.id)));
    return { message: cfg.messages.bulkCreated, messageVars: { count: created.length }, data: await cfg.present(reloaded, req) };
  });

  cfg.extraRoutes?.(api, helpers);

  // Routes with :id.
  api.get('/', { summary: `List ${noun}`, anyPermission: read, list: true, query: cfg.filterQuery }, listHandler('active'));

  api.post('/', { summary: `Create one of ${noun}`, permission: P.create, body: cfg.create.schema, upload: cfg.create.upload, files: cfg.create.files, status: 201 }, async (req) => {
    // req.body is already parsed by the schema (after the upload middleware, for multipart).
    const record = await withTransaction((trx) => cfg.create.run({ req, trx, bulk: false }, req.body));
    return { status: 201, message: cfg.messages.created, data: await presentOne(req, record) };
  });

  api.get('/:id', { summary: `Show one of ${noun}`, anyPermission: read }, async (req) => {
    const record = await find(req, String(req.params.id), 'active');
    return { data: await presentOne(req, record) };
  });

  api.get('/:id/trashed', { summary: `Show one of ${noun} in the trash`, permission: P.viewTrashed, anyPermission: read }, async (req) => {
    const record = await find(req, String(req.params.id), 'trashed');
    return { data: await presentOne(req, record) };
  });

  api.patch('/:id', { summary: `Update one of ${noun}`, anyPermission: cfg.update.anyPermission ?? [P.update], body: cfg.update.schema, upload: cfg.update.upload, files: cfg.update.files }, async (req) => {
    const record = await withTransaction(async (trx) => {
      const row = await find(req, String(req.params.id), 'active', trx);
      await cfg.update.run({ req, trx, bulk: false }, row, req.body);
      return row;
    });
    return { message: cfg.messages.updated, data: await presentOne(req, record) };
  });

  api.delete('/:id', { summary: `Move one of ${noun} to the trash`, permission: P.delete }, async (req) => {
    await withTransaction(async (trx) => {
      const row = await find(req, String(req.params.id), 'active', trx);
      await cfg.guardDelete?.({ req, trx, bulk: false }, row);
      await Model.query(trx).patch({ deleted_at: toDbTime() } as never).where('id', row.id);
      await cfg.afterSoftDelete?.({ req, trx, bulk: false }, row);
      await logActivity(trx, req, { action: 'deleted', subjectType: cfg.subjectType, subjectId: row.id, before: cfg.snapshot(row) });
    });
    return { message: cfg.messages.deleted };
  });

  api.delete('/:id/force', { summary: `Delete one of ${noun} permanently`, permission: P.forceDelete }, async (req) => {
    await runForceDelete(req, [String(req.params.id)]);
    return { message: cfg.messages.forceDeleted };
  });

  api.post('/:id/restore', { summary: `Restore one of ${noun} from the trash`, permission: P.restore }, async (req) => {
    const record = await withTransaction(async (trx) => {
      const row = await find(req, String(req.params.id), 'trashed', trx);
      await cfg.guardRestore?.({ req, trx, bulk: false }, row);
      await Model.query(trx).patch({ deleted_at: null } as never).where('id', row.id);
      await logActivity(trx, req, { action: 'restored', subjectType: cfg.subjectType, subjectId: row.id });
      return row;
    });
    return { message: cfg.messages.restored, data: await presentOne(req, record) };
  });

  return api;
}

/** A zod object of the list filters, for the OpenAPI document. */
export const filterQuery = (shape: Record<string, ZodType>) => z.object(shape);
