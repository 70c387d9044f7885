import type { Knex } from 'knex';
import type { ModelClass, QueryBuilder } from 'objection';
import type { z, ZodType } from 'zod';
import type { ResourceDefinition } from '@app/contracts';
import type { BaseModel } from '../database/base.model.ts';
import { applyFilters, applySearch, paginate, parseListParams, type ListOptions, type Page } from '../http/list-query.ts';
import { decodeId } from '../http/ids.ts';
import { AppError, conflict, fieldError, notFound, validationFailed, type FieldErrors } from '../http/errors.ts';
import { parseOrThrow } from '../http/validate.ts';
import { isForeignKeyViolation, isUniqueViolation, violatedConstraint } from '../database/db-errors.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { recordActivity, type ActivityAction } from '../activity-log/activity-log.ts';
import { isDealer, transact, type ServiceContext } from './context.ts';
import type { FileStorage } from '../uploads/storage.ts';

/**
 * The generic resource service: list, show, create, update, trash, restore, delete for good and
 * their bulk forms for every registry resource (contracts/src/resources.ts), with the dealer
 * scoping, owner rules, images, unique-key answers and activity log that go with them. It takes a
 * ServiceContext and plain input, never a request, so the routes (http/resource-routes.ts), a CLI
 * or a worker run the same rules.
 */
export type SoftModel = BaseModel & { deleted_at?: string | null };
export type RecordState = 'active' | 'trashed' | 'any';

/** A service call inside a write: its context's db is the open transaction. */
export interface WriteContext extends ServiceContext {
  /** True inside a bulk write, where no file can come with an item. */
  bulk: boolean;
  /** URL paths of the images stored for this write, by image field. */
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

/** The image fields the registry declares for a resource (its `imageFields`), each with how it is stored. */
export type ImageFields<D extends ResourceDefinition> = D extends { imageFields: readonly (infer F extends string)[] } ? Record<F, ImageField> : never;

/** An uploaded image whose bytes were checked (uploads/image-upload.ts checkedImage). */
export interface ImageUpload {
  bytes: Buffer;
  extension: string;
}

/**
 * A resource's API side: its registry declaration plus model, schemas, presenter and the rules
 * that are its own. Everything generic comes from the resource service and the route factory.
 */
export interface ResourceModule<M extends SoftModel, R extends ZodType = ZodType> {
  def: ResourceDefinition;
  model: ModelClass<M>;
  schemas: { create?: ZodType; update?: ZodType; filters?: ZodType };
  /** Schema of one presented record: present() is typed by it, and the OpenAPI document shows it. */
  response: R;
  /** Sorting and filters; the columns `q` searches are the registry's `searchable`. */
  list: Omit<ListOptions<M>, 'table' | 'searchable'>;
  graph?: string;
  /** Narrows reads and writes beyond the owner column (users: a dealer sees only itself). */
  scope?: (qb: QueryBuilder<M, M[]>, ctx: ServiceContext) => void;
  present: (records: M[], ctx: ServiceContext) => Promise<z.input<R>[]>;
  /** Wraps the read of a list page, which `load` does (users: kept per process under the access version). */
  listCache?: (
    ctx: ServiceContext,
    query: Record<string, unknown>,
    state: 'active' | 'trashed',
    load: () => Promise<Page<z.input<R>>>,
  ) => Promise<Page<z.input<R>>>;
  /** A plain snapshot for the activity log's before/after. */
  snapshot: (record: M) => Record<string, unknown>;
  /** How each of the registry's `imageFields` is stored (keyed by exactly those fields: see imageFieldsOf). */
  images?: Record<string, ImageField>;
  /** Runs before the transaction, per item (slow work such as hashing a password). */
  prepare?: (ctx: ServiceContext, input: any) => Promise<any>;
  /** Default: insert the validated input as columns. */
  create?: (ctx: WriteContext, input: any) => Promise<M>;
  /** Default: patch the validated input as columns. May name the log action (e.g. status_changed) and add to its `after`. */
  update?: (ctx: WriteContext, record: M, input: any) => Promise<{ action?: ActivityAction; after?: Record<string, unknown> } | void>;
  /** Throws when the record may not be deleted (protected role, own account ...). */
  guardDelete?: (ctx: WriteContext, record: M) => void | Promise<void>;
  guardRestore?: (ctx: WriteContext, record: M) => void | Promise<void>;
  afterSoftDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  beforeForceDelete?: (ctx: WriteContext, record: M) => Promise<void>;
  /** Unique index name -> the field and message a violation answers (decided by the constraint, not the SQL text). */
  uniqueFields?: Record<string, [field: string, message: string]>;
}

/** The image fields of a resource, declared once in the registry, each with its storage (startup fails on a mismatch). */
export function imageFieldsOf(def: ResourceDefinition, images: Record<string, ImageField> | undefined): [field: string, cfg: ImageField][] {
  const declared = def.imageFields ?? [];
  const configured = Object.keys(images ?? {});
  if (declared.length !== configured.length || declared.some((f) => !configured.includes(f))) {
    throw new Error(
      `Resource ${def.name}: the registry's imageFields (${declared.join(', ') || 'none'}) and the module's images (${configured.join(', ') || 'none'}) differ`,
    );
  }
  return declared.map((field) => [field, images![field]]);
}

export const MAX_BULK_CREATE = 100;

export type Presented<R extends ZodType> = z.input<R>;

export function resourceService<M extends SoftModel, R extends ZodType>(storage: FileStorage, mod: ResourceModule<M, R>) {
  const { def } = mod;
  const Model = mod.model as unknown as ModelClass<M> & { tableName: string; query: (db?: Knex) => QueryBuilder<M, M[]> };
  const table = Model.tableName;
  const listOptions: ListOptions<M> = { ...mod.list, table, searchable: [...def.searchable] };
  const owner = def.ownerColumn;
  const imageFields = imageFieldsOf(def, mod.images);

  const baseQuery = (ctx: ServiceContext, state: RecordState) => {
    const qb = Model.query(ctx.db as Knex) as unknown as QueryBuilder<M, M[]>;
    if (state === 'active') qb.whereNull(`${table}.deleted_at`);
    if (state === 'trashed') qb.whereNotNull(`${table}.deleted_at`);
    // Dealer-owned rows: a dealer reads and writes only its own.
    if (owner && isDealer(ctx.actor)) qb.where(`${table}.${owner}`, ctx.actor.id!);
    mod.scope?.(qb, ctx);
    return qb;
  };

  /** The records the caller may see, all or 404; `lock` takes row locks (MySQL) for a write. */
  const findMany = async (ctx: ServiceContext, rawIds: (string | number)[], state: RecordState, opts: { lock?: boolean } = {}): Promise<M[]> => {
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
  const find = async (ctx: ServiceContext, rawId: string | number, state: RecordState, opts?: { lock?: boolean }): Promise<M> =>
    (await findMany(ctx, [rawId], state, opts))[0];
  const reload = async (ctx: ServiceContext, id: number) => {
    const qb = Model.query(ctx.db as Knex).findById(id) as unknown as QueryBuilder<M, M>;
    if (mod.graph) qb.withGraphFetched(mod.graph);
    const row = await qb;
    if (!row) throw notFound();
    return row;
  };
  const presentOne = async (ctx: ServiceContext, id: number): Promise<Presented<R>> => (await mod.present([await reload(ctx, id)], ctx))[0];

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

  /** Store the images before the transaction; removed again when the write fails or loses a race. */
  const withStoredImages = async <T>(
    images: Partial<Record<string, ImageUpload | null>>,
    work: (stored: Record<string, string | undefined>) => Promise<T>,
  ): Promise<T> => {
    const stored: Record<string, string | undefined> = {};
    try {
      for (const [field, cfg] of imageFields) {
        const image = images[field];
        if (image) stored[field] = await storage.put(cfg.folder, image.extension, image.bytes);
      }
      return await work(stored);
    } catch (err) {
      await Promise.all(Object.values(stored).map((url) => storage.remove(url)));
      throw err;
    }
  };
  const placeImages = (input: Record<string, unknown>, stored: Record<string, string | undefined>) => {
    for (const [field, cfg] of imageFields) if (cfg.column && stored[field]) input[cfg.column] = stored[field];
  };
  /**
   * The required images a create lacks, by field. `all`: also those the resource's own create
   * reports (to answer them together with an invalid body).
   */
  const missingImages = (body: Record<string, unknown>, sent: ReadonlySet<string>, all = true): FieldErrors => {
    const errors: FieldErrors = {};
    for (const [field, cfg] of imageFields) {
      const required = typeof cfg.requiredOnCreate === 'function' ? cfg.requiredOnCreate(body) : cfg.requiredOnCreate;
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
  const softDelete = async (ctx: WriteContext, row: M) => {
    await mod.guardDelete?.(ctx, row);
    await Model.query(ctx.db as Knex)
      .patch({ deleted_at: toDbTime() } as never)
      .where('id', row.id);
    await mod.afterSoftDelete?.(ctx, row);
    await recordActivity(ctx, { action: 'deleted', subjectType: def.subjectType, subjectId: row.id, before: mod.snapshot(row) });
  };
  const restoreRow = async (ctx: WriteContext, row: M) => {
    await mod.guardRestore?.(ctx, row);
    await uniqueErrors(async () => {
      await Model.query(ctx.db as Knex)
        .patch({ deleted_at: null } as never)
        .where('id', row.id);
    });
    await recordActivity(ctx, { action: 'restored', subjectType: def.subjectType, subjectId: row.id });
  };
  const bulkIn = (ctx: ServiceContext, state: RecordState, rawIds: (string | number)[], each: (ctx: WriteContext, row: M) => Promise<void>) =>
    transact(ctx, async (tctx) => {
      const wctx: WriteContext = { ...tctx, bulk: true, files: {} };
      const rows = await findMany(wctx, rawIds, state, { lock: true });
      for (const row of rows) await each(wctx, row);
      return rows.length;
    });

  return {
    def,
    storage,
    find,
    findMany,
    presentOne,
    missingImages,
    /** Image fields in the registry's order (for the multipart parser). */
    imageFieldNames: imageFields.map(([field]) => field),

    /** A page of the records the caller may see; `query` is the list's query string (page, sort, order, q, filters, ids). */
    async list(ctx: ServiceContext, query: Record<string, unknown>, state: 'active' | 'trashed' = 'active'): Promise<Page<Presented<R>>> {
      const load = async () => {
        const params = parseListParams(query, listOptions);
        const qb = baseQuery(ctx, state);
        if (mod.graph) qb.withGraphFetched(mod.graph);
        applyFilters(qb, query, listOptions);
        applySearch(qb, table, listOptions.searchable, params.q);
        const { results, meta } = await paginate(qb, table, params);
        return { data: await mod.present(results, ctx), meta };
      };
      return mod.listCache ? mod.listCache(ctx, query, state, load) : load();
    },

    /** One record the caller may see (live or in the trash), presented; 404 otherwise. */
    async get(ctx: ServiceContext, rawId: string | number, state: 'active' | 'trashed' = 'active'): Promise<Presented<R>> {
      const record = await find(ctx, rawId, state);
      return (await mod.present([record], ctx))[0];
    },

    /**
     * Creates one record from input already checked against `schemas.create` (the router does it;
     * other callers parse with it first), with its checked images.
     */
    async create(ctx: ServiceContext, input: Record<string, unknown>, images: Partial<Record<string, ImageUpload | null>> = {}): Promise<Presented<R>> {
      const missing = missingImages(input, new Set(Object.keys(images).filter((f) => images[f])), false);
      if (Object.keys(missing).length) throw validationFailed(missing);
      const prepared = mod.prepare ? await mod.prepare(ctx, input) : input;
      const record = await withStoredImages(images, (stored) =>
        transact(ctx, (tctx) => {
          const body = { ...prepared };
          placeImages(body, stored);
          return uniqueErrors(() => createOne({ ...tctx, bulk: false, files: stored }, body));
        }),
      );
      return presentOne(ctx, record.id);
    },

    /** Creates several records, all or nothing; each raw item is checked here, its errors keyed `{index}.{field}`. */
    async createMany(ctx: ServiceContext, items: unknown): Promise<Presented<R>[]> {
      const schema = mod.schemas.create;
      if (!schema) throw new Error(`Resource ${def.name} has no create schema`);
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
      return mod.present(rows, ctx);
    },

    /** Changes one live record with input already checked against `schemas.update`, and its checked images. */
    async update(
      ctx: ServiceContext,
      rawId: string | number,
      input: Record<string, unknown>,
      images: Partial<Record<string, ImageUpload | null>> = {},
    ): Promise<Presented<R>> {
      const prepared = mod.prepare ? await mod.prepare(ctx, input) : input;
      const id = await withStoredImages(images, (stored) =>
        transact(ctx, async (tctx) => {
          const wctx: WriteContext = { ...tctx, bulk: false, files: stored };
          // Locked for the whole write: two edits of one record apply one after the other,
          // and the file a parallel upload replaced is the one this write read.
          const row = await find(wctx, rawId, 'active', { lock: true });
          const before = mod.snapshot(row);
          const body = { ...prepared };
          placeImages(body, stored);
          await resolveOwner(wctx, body, false);
          let outcome: { action?: ActivityAction; after?: Record<string, unknown> } | void = undefined;
          await uniqueErrors(async () => {
            if (mod.update) outcome = await mod.update(wctx, row, body);
            else if (Object.keys(body).length)
              await Model.query(wctx.db as Knex)
                .patch(body as never)
                .where('id', row.id);
          });
          for (const [field, cfg] of imageFields) {
            const old = cfg.column ? (row as unknown as Record<string, string | null>)[cfg.column] : null;
            if (stored[field] && old) onCommit(() => storage.remove(old));
          }
          const { action = 'updated', after: extra = {} } = (outcome ?? {}) as { action?: ActivityAction; after?: Record<string, unknown> };
          const after = { ...mod.snapshot(await reload(wctx, row.id)), ...extra };
          // A write that changes nothing leaves no log entry.
          if (JSON.stringify(before) !== JSON.stringify(after))
            await recordActivity(wctx, { action, subjectType: def.subjectType, subjectId: row.id, before, after });
          return row.id;
        }),
      );
      return presentOne(ctx, id);
    },

    /** Moves one live record to the trash. */
    async delete(ctx: ServiceContext, rawId: string | number): Promise<void> {
      await transact(ctx, async (tctx) => {
        const wctx: WriteContext = { ...tctx, bulk: false, files: {} };
        await softDelete(wctx, await find(wctx, rawId, 'active', { lock: true }));
      });
    },

    /** Brings one record back from the trash. */
    async restore(ctx: ServiceContext, rawId: string | number): Promise<Presented<R>> {
      const id = await transact(ctx, async (tctx) => {
        const wctx: WriteContext = { ...tctx, bulk: false, files: {} };
        const row = await find(wctx, rawId, 'trashed', { lock: true });
        await restoreRow(wctx, row);
        return row.id;
      });
      return presentOne(ctx, id);
    },

    /** Deletes records for good (live or trashed), with their files once committed; 409 while other rows use them. Answers how many. */
    async forceDelete(ctx: ServiceContext, rawIds: (string | number)[]): Promise<number> {
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
    },

    /**
     * Saves a new order of live records (sort_order = start + position) in one transaction, with
     * one log entry; only rows whose place changed are written. A dealer names only its own rows
     * (any other id: 404). Answers how many moved.
     */
    async reorder(ctx: ServiceContext, order: (string | number)[], start = 0): Promise<number> {
      const decoded = order.map((v) => decodeId(v));
      if (new Set(decoded).size !== decoded.length) throw validationFailed({ ids: ['validation:ids_distinct'] });
      return transact(ctx, async (tctx) => {
        const rows = await findMany(tctx, order, 'active', { lock: true });
        const byId = new Map(rows.map((r) => [r.id, r as M & { sort_order: number }]));
        const before: Record<number, number> = {};
        const after: Record<number, number> = {};
        for (const [i, id] of (decoded as number[]).entries()) {
          const row = byId.get(id)!;
          if (row.sort_order === start + i) continue;
          before[id] = row.sort_order;
          after[id] = start + i;
          await Model.query(tctx.db as Knex)
            .patch({ sort_order: start + i } as never)
            .where('id', id);
        }
        const changed = Object.keys(after).length;
        if (changed)
          await recordActivity(tctx, {
            action: 'reordered',
            subjectType: def.subjectType,
            subjectId: null,
            before: { sort_order: before },
            after: { sort_order: after },
          });
        return changed;
      });
    },

    /** Moves several live records to the trash, all or nothing. Answers how many. */
    deleteMany: (ctx: ServiceContext, rawIds: (string | number)[]): Promise<number> => bulkIn(ctx, 'active', rawIds, softDelete),
    /** Restores several trashed records, all or nothing. Answers how many. */
    restoreMany: (ctx: ServiceContext, rawIds: (string | number)[]): Promise<number> => bulkIn(ctx, 'trashed', rawIds, restoreRow),
  };
}

export type ResourceService<M extends SoftModel, R extends ZodType = ZodType> = ReturnType<typeof resourceService<M, R>>;
