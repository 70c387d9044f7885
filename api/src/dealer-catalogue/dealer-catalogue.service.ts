import type { Knex } from 'knex';
import {
  applyMarkup,
  formatMinor,
  MAX_MARKUP_BASIS_POINTS,
  toBasisPoints,
  translatedStoredText,
  type DealerBundleResponse,
  type DealerCategoryResponse,
  type DealerProviderResponse,
} from '@app/contracts';
import { decodeId, encodeId } from '../http/ids.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';

/**
 * A dealer's catalogue (docs/data-model.md, Dealer catalogue): which of the company's operators,
 * categories and bundles it offers, and at what price. Nothing is offered until the dealer turns
 * it on; a missing dealer_* row means "off, default price". Turning a bundle on turns its
 * category and operator on too (the dealer plainly wants to sell it).
 */
type Db = Knex | Knex.Transaction;

/**
 * Names (and a category's description) in the reader's language when translated, else as typed:
 * a dealer reads its catalogue as its customers do (docs/data-model.md, "Content translations").
 */
const inReaderLanguage = <T extends string | null>(ctx: ServiceContext, stored: unknown, field: string, original: T) =>
  translatedStoredText(stored, ctx.language, field, original);
export type Level = 'providers' | 'categories' | 'bundles';
const TABLE: Record<Level, { own: string; company: string; key: string }> = {
  providers: { own: 'dealer_providers', company: 'providers', key: 'provider_id' },
  categories: { own: 'dealer_categories', company: 'categories', key: 'category_id' },
  bundles: { own: 'dealer_bundles', company: 'bundles', key: 'bundle_id' },
};

/** The dealer a request acts for: a dealer is always itself; an admin names a live dealer. */
export async function resolveDealer(ctx: ServiceContext, raw: unknown): Promise<{ id: number; pricing_model: 'cost' | 'profit' }> {
  const missing = !isDealer(ctx.actor) && (raw === undefined || raw === null || raw === '');
  if (missing) throw fieldError('dealer_id', 'validation:dealer_required');
  // A value that is no id at all is a dealer that is not there, like an id nobody has.
  const id = isDealer(ctx.actor) ? ctx.actor.id : decodeId(raw as string | number);
  if (!id) throw fieldError('dealer_id', 'validation:dealer_not_found');
  const row = await ctx
    .db('users')
    .leftJoin('dealer_details', 'dealer_details.user_id', 'users.id')
    .where({ 'users.id': id, 'users.user_type': 'dealer' })
    .whereNull('users.deleted_at')
    .first('users.id', 'dealer_details.pricing_model');
  if (!row) throw fieldError('dealer_id', 'validation:dealer_not_found');
  return { id: row.id, pricing_model: row.pricing_model === 'profit' ? 'profit' : 'cost' };
}

const on = (status: string | null | undefined) => status === 'active';

/** Counts of live children per parent, and of those this dealer has on, in two grouped queries. */
async function childCounts(db: Db, dealerId: number, child: Level, parentColumn: string, parentIds: number[]) {
  const all = new Map<number, number>();
  const enabled = new Map<number, number>();
  if (!parentIds.length) return { all, enabled };
  const t = TABLE[child];
  const rows: { parent: number; n: number | string; e: number | string | null }[] = await db(t.company)
    .leftJoin(t.own, (j) => j.on(`${t.own}.${t.key}`, `${t.company}.id`).andOn(`${t.own}.dealer_id`, db.raw('?', [dealerId])))
    .whereIn(`${t.company}.${parentColumn}`, parentIds)
    .whereNull(`${t.company}.deleted_at`)
    .groupBy(`${t.company}.${parentColumn}`)
    .select(`${t.company}.${parentColumn} as parent`)
    .count({ n: '*' })
    .sum({ e: db.raw(`CASE WHEN ${t.own}.status = 'active' THEN 1 ELSE 0 END`) });
  for (const r of rows) {
    all.set(r.parent, Number(r.n));
    enabled.set(r.parent, Number(r.e ?? 0));
  }
  return { all, enabled };
}

export interface Page<T> {
  data: T[];
  meta: { current_page: number; per_page: number; total: number; last_page: number };
}
export interface ListQuery {
  page: number;
  perPage: number;
  q: string;
  /** Only what the dealer has on (true) or off (false). */
  enabled?: boolean;
  parentId?: number | null;
  sort: 'sort_order' | 'name';
  order: 'asc' | 'desc';
  /** Only these items (a show, or the answer to a change). */
  ids?: number[];
}

function likePattern(q: string) {
  return `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

async function pageOf(qb: Knex.QueryBuilder, table: string, query: ListQuery) {
  if (query.q) qb.whereRaw(`LOWER(${table}.name) LIKE LOWER(?) ESCAPE '!'`, [likePattern(query.q)]);
  if (query.ids) qb.whereIn(`${table}.id`, query.ids.length ? query.ids : [0]);
  const countRow = await qb.clone().clearSelect().clearOrder().count({ n: '*' }).first();
  const total = Number((countRow as { n: number | string } | undefined)?.n ?? 0);
  const rows = await qb
    .orderBy(`${table}.${query.sort}`, query.order)
    .orderBy(`${table}.id`, query.order)
    .limit(query.perPage)
    .offset((query.page - 1) * query.perPage);
  return { rows, meta: { current_page: query.page, per_page: query.perPage, total, last_page: Math.max(1, Math.ceil(total / query.perPage)) } };
}

const enabledFilter = (qb: Knex.QueryBuilder, own: string, enabled: boolean | undefined) => {
  if (enabled === true) qb.where(`${own}.status`, 'active');
  if (enabled === false) qb.where((w) => w.whereNull(`${own}.status`).orWhereNot(`${own}.status`, 'active'));
};

export async function listDealerProviders(ctx: ServiceContext, dealerId: number, query: ListQuery): Promise<Page<DealerProviderResponse>> {
  const qb = ctx
    .db('providers')
    .leftJoin('dealer_providers as own', (j) => j.on('own.provider_id', 'providers.id').andOn('own.dealer_id', ctx.db.raw('?', [dealerId])))
    .whereNull('providers.deleted_at')
    .select(
      'providers.id',
      'providers.name',
      'providers.translations',
      'providers.code',
      'providers.logo_path',
      'providers.status as company_status',
      'providers.sort_order',
      'own.status as own_status',
    );
  enabledFilter(qb, 'own', query.enabled);
  const { rows, meta } = await pageOf(qb, 'providers', query);
  const counts = await childCounts(
    ctx.db,
    dealerId,
    'categories',
    'provider_id',
    rows.map((r: { id: number }) => r.id),
  );
  return {
    meta,
    data: rows.map((r: Record<string, any>) => ({
      id: r.id,
      h_id: encodeId(r.id),
      dealer_id: dealerId,
      name: inReaderLanguage(ctx, r.translations, 'name', r.name),
      code: r.code,
      logo: r.logo_path ?? null,
      available: r.company_status === 'active',
      enabled: on(r.own_status),
      status: on(r.own_status) ? 'active' : 'inactive',
      sort_order: r.sort_order,
      categories_count: counts.all.get(r.id) ?? 0,
      enabled_categories_count: counts.enabled.get(r.id) ?? 0,
    })),
  };
}

export async function listDealerCategories(ctx: ServiceContext, dealerId: number, query: ListQuery): Promise<Page<DealerCategoryResponse>> {
  const qb = ctx
    .db('categories')
    .join('providers', 'providers.id', 'categories.provider_id')
    .leftJoin('dealer_categories as own', (j) => j.on('own.category_id', 'categories.id').andOn('own.dealer_id', ctx.db.raw('?', [dealerId])))
    .whereNull('categories.deleted_at')
    .whereNull('providers.deleted_at')
    .select(
      'categories.id',
      'categories.name',
      'categories.translations',
      'categories.description',
      'categories.provider_id',
      'categories.sort_order',
      'categories.status as company_status',
      'providers.status as provider_status',
      'providers.name as provider_name',
      'providers.translations as provider_translations',
      'own.status as own_status',
    );
  if (query.parentId !== undefined) qb.where('categories.provider_id', query.parentId ?? 0);
  enabledFilter(qb, 'own', query.enabled);
  const { rows, meta } = await pageOf(qb, 'categories', query);
  const counts = await childCounts(
    ctx.db,
    dealerId,
    'bundles',
    'category_id',
    rows.map((r: { id: number }) => r.id),
  );
  return {
    meta,
    data: rows.map((r: Record<string, any>) => ({
      id: r.id,
      h_id: encodeId(r.id),
      dealer_id: dealerId,
      name: inReaderLanguage(ctx, r.translations, 'name', r.name),
      description: inReaderLanguage(ctx, r.translations, 'description', r.description ?? null),
      provider_id: r.provider_id,
      provider: { id: r.provider_id, h_id: encodeId(r.provider_id), name: inReaderLanguage(ctx, r.provider_translations, 'name', r.provider_name) },
      available: r.company_status === 'active' && r.provider_status === 'active',
      enabled: on(r.own_status),
      status: on(r.own_status) ? 'active' : 'inactive',
      sort_order: r.sort_order,
      bundles_count: counts.all.get(r.id) ?? 0,
      enabled_bundles_count: counts.enabled.get(r.id) ?? 0,
    })),
  };
}

export async function listDealerBundles(
  ctx: ServiceContext,
  dealerId: number,
  query: ListQuery & { providerId?: number | null },
): Promise<Page<DealerBundleResponse>> {
  const qb = ctx
    .db('bundles')
    .join('categories', 'categories.id', 'bundles.category_id')
    .join('providers', 'providers.id', 'categories.provider_id')
    .leftJoin('dealer_bundles as own', (j) => j.on('own.bundle_id', 'bundles.id').andOn('own.dealer_id', ctx.db.raw('?', [dealerId])))
    .whereNull('bundles.deleted_at')
    .whereNull('categories.deleted_at')
    .whereNull('providers.deleted_at')
    .select(
      'bundles.id',
      'bundles.name',
      'bundles.translations',
      'bundles.category_id',
      'bundles.data_volume_mb',
      'bundles.validity_days',
      'bundles.cost_price',
      'bundles.selling_price',
      'bundles.sort_order',
      'bundles.status as company_status',
      'categories.status as category_status',
      'providers.status as provider_status',
      'categories.name as category_name',
      'categories.translations as category_translations',
      'providers.id as provider_id',
      'providers.name as provider_name',
      'providers.translations as provider_translations',
      'own.status as own_status',
      'own.selling_price as own_price',
    );
  if (query.parentId !== undefined) qb.where('bundles.category_id', query.parentId ?? 0);
  if (query.providerId !== undefined) qb.where('categories.provider_id', query.providerId ?? 0);
  enabledFilter(qb, 'own', query.enabled);
  const { rows, meta } = await pageOf(qb, 'bundles', query);
  const seesCost = ctx.actor.permissions.has('view bundles prices');
  return {
    meta,
    data: rows.map((r: Record<string, any>) => {
      const cost = Number(r.cost_price);
      const custom = r.own_price === null || r.own_price === undefined ? null : Number(r.own_price);
      const price = custom ?? Number(r.selling_price);
      return {
        id: r.id,
        h_id: encodeId(r.id),
        dealer_id: dealerId,
        name: inReaderLanguage(ctx, r.translations, 'name', r.name),
        category_id: r.category_id,
        category: { id: r.category_id, h_id: encodeId(r.category_id), name: inReaderLanguage(ctx, r.category_translations, 'name', r.category_name) },
        provider: { id: r.provider_id, h_id: encodeId(r.provider_id), name: inReaderLanguage(ctx, r.provider_translations, 'name', r.provider_name) },
        data_volume_mb: r.data_volume_mb ?? null,
        validity_days: r.validity_days,
        available: r.company_status === 'active' && r.category_status === 'active' && r.provider_status === 'active',
        enabled: on(r.own_status),
        status: on(r.own_status) ? 'active' : 'inactive',
        sort_order: r.sort_order,
        selling_price: formatMinor(price),
        custom_price: custom === null ? null : formatMinor(custom),
        default_selling_price: formatMinor(Number(r.selling_price)),
        ...(seesCost ? { cost_price: formatMinor(cost), profit: formatMinor(price - cost) } : {}),
        below_cost: price < cost,
      };
    }),
  };
}

/** A live company item of this level, share-locked until the change commits (a parallel trash waits). */
async function liveItem(ctx: ServiceContext, level: Level, rawId: string | number) {
  const id = decodeId(rawId);
  const t = TABLE[level];
  const row = id ? await ctx.db(t.company).where({ id }).whereNull('deleted_at').forShare().first() : undefined;
  if (!row) throw notFound();
  return row as Record<string, any>;
}

/** Upsert of the dealer's row for one item: atomic on (dealer_id, item), so parallel switches never collide. */
async function upsertOwn(ctx: ServiceContext, level: Level, dealerId: number, itemId: number, values: Record<string, unknown>) {
  const t = TABLE[level];
  const now = toDbTime();
  const before = await ctx
    .db(t.own)
    .where({ dealer_id: dealerId, [t.key]: itemId })
    .forUpdate()
    .first();
  await ctx
    .db(t.own)
    .insert({ dealer_id: dealerId, [t.key]: itemId, status: 'inactive', sort_order: 0, ...values, created_at: now, updated_at: now, deleted_at: null })
    .onConflict(['dealer_id', t.key])
    .merge([...Object.keys(values), 'updated_at', 'deleted_at']);
  return before as Record<string, any> | undefined;
}

/** Turns an operator or category on or off for the dealer; turning a category on turns its operator on. */
export async function switchSelection(
  ctx: ServiceContext,
  level: 'providers' | 'categories',
  dealerId: number,
  rawId: string | number,
  status: 'active' | 'inactive',
) {
  const item = await liveItem(ctx, level, rawId);
  const before = await upsertOwn(ctx, level, dealerId, item.id, { status });
  if (level === 'categories' && status === 'active') await upsertOwn(ctx, 'providers', dealerId, item.provider_id, { status: 'active' });
  if (before?.status !== status) {
    await recordActivity(ctx, {
      action: 'updated',
      subjectType: level === 'providers' ? 'dealer_provider' : 'dealer_category',
      subjectId: item.id,
      description: `dealer ${dealerId}`,
      before: { status: before?.status ?? 'inactive' },
      after: { status },
    });
  }
  return item.id as number;
}

/**
 * The dealer's price must cover the cost (docs/decisions.md, "Catalogue, settings and storefront
 * reads"): under "Cost + Profit" the dealer pays the cost from its wallet, under "Profit Only" the
 * company does; either way a price below cost would sell at a loss.
 */
function checkPrice(price: number, cost: number, field: 'selling_price' | 'profit' | 'markup_percent') {
  if (price < cost) throw fieldError(field, 'validation:dealer_price_below_cost', { cost: formatMinor(cost) });
}

/**
 * The price at cost + markup (docs/decisions.md, "Percentage markup"): computed from the cost now
 * and kept as the dealer's fixed price, like a fixed profit; a later cost change does not move it.
 */
function markedUp(cost: number, percent: number) {
  const basisPoints = toBasisPoints(percent);
  if (basisPoints === null || basisPoints <= 0 || basisPoints > MAX_MARKUP_BASIS_POINTS) throw fieldError('markup_percent', 'validation:markup_invalid');
  const price = applyMarkup(cost, basisPoints);
  // A price a number cannot hold exactly is refused, never stored rounded.
  if (price === null) throw fieldError('markup_percent', 'validation:markup_price_too_large');
  checkPrice(price, cost, 'markup_percent');
  return price;
}

export async function updateDealerBundle(
  ctx: ServiceContext,
  dealerId: number,
  rawId: string | number,
  input: { status?: 'active' | 'inactive'; selling_price?: number | null; profit?: number; markup_percent?: number },
) {
  const bundle = await liveItem(ctx, 'bundles', rawId);
  const cost = Number(bundle.cost_price);
  const values: Record<string, unknown> = {};
  if (input.status) values.status = input.status;
  if (input.markup_percent !== undefined) values.selling_price = markedUp(cost, input.markup_percent);
  else if (input.profit !== undefined) values.selling_price = cost + input.profit;
  else if (input.selling_price !== undefined) values.selling_price = input.selling_price;
  if (input.markup_percent === undefined && values.selling_price !== undefined && values.selling_price !== null)
    checkPrice(values.selling_price as number, cost, input.profit !== undefined ? 'profit' : 'selling_price');
  const before = await upsertOwn(ctx, 'bundles', dealerId, bundle.id, values);
  if (values.status === 'active') await enableParents(ctx, dealerId, [bundle.category_id]);
  const after = {
    status: values.status ?? before?.status ?? 'inactive',
    selling_price: 'selling_price' in values ? values.selling_price : (before?.selling_price ?? null),
  };
  const was = { status: before?.status ?? 'inactive', selling_price: before?.selling_price ?? null };
  if (was.status !== after.status || Number(was.selling_price ?? -1) !== Number(after.selling_price ?? -1)) {
    // How the price was set, beside the price it gave.
    const how = input.markup_percent !== undefined ? { markup_percent: input.markup_percent } : {};
    await recordActivity(ctx, {
      action: 'updated',
      subjectType: 'dealer_bundle',
      subjectId: bundle.id,
      description: `dealer ${dealerId}`,
      before: was,
      after: { ...after, ...how },
    });
  }
  return bundle.id as number;
}

/** Turns on the categories (and their operators) of bundles just turned on. */
async function enableParents(ctx: ServiceContext, dealerId: number, categoryIds: number[]) {
  const unique = [...new Set(categoryIds)];
  const providers = new Set<number>();
  for (const id of unique) {
    await upsertOwn(ctx, 'categories', dealerId, id, { status: 'active' });
    const c = await ctx.db('categories').where({ id }).first('provider_id');
    if (c) providers.add(c.provider_id);
  }
  for (const id of providers) await upsertOwn(ctx, 'providers', dealerId, id, { status: 'active' });
}

/**
 * Bulk over one category's bundles (or one operator's, or the whole catalogue): turn them all on
 * or off, and/or price them all at cost + profit or cost + a markup percentage (each bundle's own
 * cost). One transaction; one log entry.
 */
export async function bulkDealerBundles(
  ctx: ServiceContext,
  dealerId: number,
  input: {
    category_id?: string | number | null;
    provider_id?: string | number | null;
    status?: 'active' | 'inactive';
    profit?: number;
    markup_percent?: number;
  },
): Promise<{ affected: number }> {
  const qb = ctx
    .db('bundles')
    .join('categories', 'categories.id', 'bundles.category_id')
    .join('providers', 'providers.id', 'categories.provider_id')
    .whereNull('bundles.deleted_at')
    .whereNull('categories.deleted_at')
    .whereNull('providers.deleted_at')
    .select('bundles.id', 'bundles.category_id', 'bundles.cost_price');
  if (input.category_id !== undefined && input.category_id !== null) {
    const id = decodeId(input.category_id);
    if (!id || !(await ctx.db('categories').where({ id }).whereNull('deleted_at').first('id')))
      throw fieldError('category_id', 'validation:category_not_found');
    qb.where('bundles.category_id', id);
  }
  if (input.provider_id !== undefined && input.provider_id !== null) {
    const id = decodeId(input.provider_id);
    if (!id || !(await ctx.db('providers').where({ id }).whereNull('deleted_at').first('id'))) throw fieldError('provider_id', 'validation:provider_not_found');
    qb.where('categories.provider_id', id);
  }
  // Locked like a single change would lock them: a parallel cost change waits (MySQL).
  const bundles: { id: number; category_id: number; cost_price: number | string }[] = await qb.forShare();
  const now = toDbTime();
  const priceOf = (cost: number) =>
    input.markup_percent !== undefined ? markedUp(cost, input.markup_percent) : input.profit !== undefined ? cost + input.profit : undefined;
  const rows = bundles.map((b) => {
    const price = priceOf(Number(b.cost_price));
    return {
      dealer_id: dealerId,
      bundle_id: b.id,
      status: input.status ?? 'inactive',
      sort_order: 0,
      ...(price !== undefined ? { selling_price: price } : {}),
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
  });
  const priced = input.profit !== undefined || input.markup_percent !== undefined;
  const merge = [...(input.status ? ['status'] : []), ...(priced ? ['selling_price'] : []), 'updated_at', 'deleted_at'];
  for (let i = 0; i < rows.length; i += 200) {
    await ctx
      .db('dealer_bundles')
      .insert(rows.slice(i, i + 200))
      .onConflict(['dealer_id', 'bundle_id'])
      .merge(merge);
  }
  if (input.status === 'active')
    await enableParents(
      ctx,
      dealerId,
      bundles.map((b) => b.category_id),
    );
  await recordActivity(ctx, {
    action: 'catalogue_changed',
    subjectType: 'dealer_bundle',
    description: `dealer ${dealerId}: ${bundles.length} bundles`,
    after: { ...input, dealer_id: dealerId, affected: bundles.length },
  });
  return { affected: bundles.length };
}
