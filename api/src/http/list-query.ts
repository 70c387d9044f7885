import type { Knex } from 'knex';
import type { QueryBuilder, Model } from 'objection';
import { z, type ZodType } from 'zod';
import { ALWAYS_ALLOWED_PARAMS, MAX_PAGE, MAX_PER_PAGE } from '@app/contracts';
import { AppError, fieldError } from './errors.ts';
import { decodeId } from './ids.ts';

export { MAX_PAGE, MAX_PER_PAGE };
export const DEFAULT_PER_PAGE = 15;

/** The top-level keys of a query schema (an object, possibly optional, piped or refined). */
export function queryKeys(schema: ZodType | undefined): string[] {
  if (!schema) return [];
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return queryKeys(schema.in as ZodType);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return queryKeys(schema.unwrap() as ZodType);
  return [];
}

/** The fields a query schema's `sort` accepts, or null when it declares no enum of them. */
function sortFields(schema: ZodType | undefined): string[] | null {
  if (!(schema instanceof z.ZodObject)) return schema instanceof z.ZodPipe ? sortFields(schema.in as ZodType) : null;
  let sort = (schema.shape as Record<string, ZodType>).sort;
  while (sort instanceof z.ZodOptional || sort instanceof z.ZodNullable || sort instanceof z.ZodDefault) sort = sort.unwrap() as ZodType;
  return sort instanceof z.ZodEnum ? (sort.options as string[]) : null;
}

/**
 * A list's query string against what its route declares (docs/api-conventions.md, "Lists"): a
 * parameter it neither declares nor always allows (lng) is refused, named, rather than silently
 * ignored; so is a sort field it does not have, with the ones it has. The values are then
 * checked by the schema itself (the router's parseOrThrow).
 */
export function refuseUndeclaredParams(schema: ZodType | undefined, query: Record<string, unknown>): void {
  const allowed = new Set<string>([...ALWAYS_ALLOWED_PARAMS, ...queryKeys(schema)]);
  const unknown = Object.keys(query).filter((name) => !allowed.has(name));
  if (unknown.length) {
    const names = unknown.slice(0, 20);
    throw new AppError(422, 'api:errors.validation', Object.fromEntries(names.map((name) => [name, ['validation:unknown_parameter']])), {
      name: names.join(', '),
    });
  }
  const fields = sortFields(schema);
  if (fields && query.sort !== undefined && !(typeof query.sort === 'string' && fields.includes(query.sort))) {
    throw fieldError('sort', 'api:errors.sort_invalid', { fields: fields.join(', ') });
  }
}

export interface ListOptions<M extends Model> {
  table: string;
  sortable: string[];
  defaultSort: { field: string; order: 'asc' | 'desc' };
  /** Columns matched by `q` with LIKE. */
  searchable: string[];
  /** One entry per filterable query param. */
  filters?: Record<string, (qb: QueryBuilder<M, M[]>, value: string) => void>;
}

export interface ListParams {
  page: number;
  perPage: number;
  sort: string;
  order: 'asc' | 'desc';
  q: string;
}

function firstString(v: unknown): string | undefined {
  if (Array.isArray(v)) return firstString(v[0]);
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** `page` and `per_page` (max 100) of any list. Capped so that the offset stays a plain integer on every engine. */
export function pageParams(query: Record<string, unknown>): { page: number; perPage: number } {
  return {
    page: Math.min(MAX_PAGE, Math.max(1, Math.floor(Number(firstString(query.page)) || 1))),
    perPage: Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(firstString(query.per_page)) || DEFAULT_PER_PAGE))),
  };
}

/** `page`, `per_page` (max 100), `sort`, `order`, `q` (docs/api-conventions.md, "Lists"). */
export function parseListParams(query: Record<string, unknown>, opts: Pick<ListOptions<Model>, 'sortable' | 'defaultSort'>): ListParams {
  const { page, perPage } = pageParams(query);
  const sort = firstString(query.sort) || opts.defaultSort.field;
  if (!opts.sortable.includes(sort)) throw fieldError('sort', 'api:errors.sort_invalid', { fields: opts.sortable.join(', ') });
  const orderRaw = (firstString(query.order) || opts.defaultSort.order).toLowerCase();
  if (orderRaw !== 'asc' && orderRaw !== 'desc') throw fieldError('order', 'api:errors.order_invalid');
  return { page, perPage, sort, order: orderRaw, q: (firstString(query.q) || '').trim().slice(0, 191) };
}

/**
 * LIKE with the user's wildcards escaped, so "50%" finds "50%" and not everything. The escape
 * character is '!', not a backslash: MySQL reads a backslash inside a literal as an escape itself.
 */
export function likePattern(q: string): string {
  return `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

export function applySearch<M extends Model>(qb: QueryBuilder<M, M[]>, table: string, columns: string[], q: string): void {
  if (!q) return;
  const pattern = likePattern(q);
  qb.where((w) => {
    for (const col of columns) w.orWhereRaw(`LOWER(??) LIKE LOWER(?) ESCAPE '!'`, [`${table}.${col}`, pattern]);
  });
}

/** Filters from query params, plus `ids` (comma list or repeated), which react-admin's getMany uses. */
export function applyFilters<M extends Model>(qb: QueryBuilder<M, M[]>, query: Record<string, unknown>, opts: ListOptions<M>): void {
  const idsRaw = query.ids ?? query['ids[]'];
  if (idsRaw !== undefined) {
    const list = (Array.isArray(idsRaw) ? idsRaw : String(idsRaw).split(',')).map((v) => decodeId(String(v))).filter((v): v is number => v !== null);
    qb.whereIn(`${opts.table}.id`, list.length ? list : [0]);
  }
  for (const [param, apply] of Object.entries(opts.filters ?? {})) {
    const value = firstString(query[param]);
    if (value !== undefined && value !== '') apply(qb, value);
  }
}

export interface Page<T> {
  data: T[];
  meta: { current_page: number; per_page: number; total: number; last_page: number };
}

export async function paginate<M extends Model>(qb: QueryBuilder<M, M[]>, table: string, params: ListParams): Promise<{ results: M[]; meta: Page<M>['meta'] }> {
  // A stable secondary order keeps pages from overlapping when sort values tie.
  qb.orderBy(`${table}.${params.sort}`, params.order);
  if (params.sort !== 'id') qb.orderBy(`${table}.id`, params.order);
  const { results, total } = await qb.page(params.page - 1, params.perPage);
  return {
    results,
    meta: { current_page: params.page, per_page: params.perPage, total, last_page: Math.max(1, Math.ceil(total / params.perPage)) },
  };
}

/** What a plain knex list takes from its query string. */
export interface PageRequest {
  page?: string;
  per_page?: string;
  order?: string;
}

/**
 * One page of a plain knex query (the money lists, pickers), sorted by `sortColumn` then
 * `tieBreak` (desc unless order is asc), each row presented.
 */
export async function pageOf<R, T>(qb: Knex.QueryBuilder, p: PageRequest, sortColumn: string, present: (r: R) => T, tieBreak: string): Promise<Page<T>> {
  const { page, perPage } = pageParams({ page: p.page, per_page: p.per_page });
  const order = (p.order ?? '').toLowerCase() === 'asc' ? 'asc' : 'desc';
  const countRow = await qb.clone().clearSelect().clearOrder().count({ n: '*' }).first();
  const total = Number((countRow as { n: number | string } | undefined)?.n ?? 0);
  const rows: R[] = await qb
    .orderBy(sortColumn, order)
    .orderBy(tieBreak, order)
    .limit(perPage)
    .offset((page - 1) * perPage);
  return { data: rows.map(present), meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) } };
}
