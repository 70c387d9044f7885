import { z } from 'zod';

/**
 * The query parameters every list shares (docs/api-conventions.md, "Lists"), with their real
 * types: each list's query schema spreads `listParams(...)` with the sort fields it really
 * applies, so validation, the OpenAPI document and the router's refusal of unknown parameters all
 * read the same declaration. Query strings arrive as text: numbers are coerced, then checked.
 */
export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 1_000_000;
export const LIST_ORDERS = ['asc', 'desc'] as const;

/** Parameters any route may receive whatever it declares: `lng` picks the answer's language. */
export const ALWAYS_ALLOWED_PARAMS = ['lng'] as const;

export const pageParam = z.coerce
  .number({ message: 'validation:page_invalid' })
  .int({ message: 'validation:page_invalid' })
  .min(1, { message: 'validation:page_invalid' })
  .max(MAX_PAGE, { message: 'validation:page_invalid' })
  .optional()
  .describe('Page number, from 1 (default 1)');

export const perPageParam = (defaultSize = 15) =>
  z.coerce
    .number({ message: 'validation:per_page_invalid' })
    .int({ message: 'validation:per_page_invalid' })
    .min(1, { message: 'validation:per_page_invalid' })
    .max(MAX_PER_PAGE, { message: 'validation:per_page_invalid' })
    .optional()
    .describe(`Rows per page, 1-${MAX_PER_PAGE} (default ${defaultSize})`);

/** asc or desc, in either case (react-admin sends ASC/DESC). */
export const orderParam = z
  .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(LIST_ORDERS, { message: 'api:errors.order_invalid' }))
  .optional()
  .describe('asc or desc');

/** The fields a list can be sorted by; another is refused with them named (the router checks it, see list-query.ts). */
export const sortParam = <const F extends readonly [string, ...string[]]>(fields: F, defaultField: F[number]) =>
  z
    .enum(fields, { message: 'api:errors.sort_invalid' })
    .optional()
    .describe(`One of: ${fields.join(', ')} (default ${defaultField})`);

/**
 * Every CSV export's `headers`: labels (default: the header row in the request's language, statuses
 * and kinds as words, for people) or keys (the columns' keys and the values' codes, for scripts).
 */
export const csvExportParams = {
  headers: z
    .enum(['labels', 'keys'], { message: 'validation:invalid_value' })
    .optional()
    .describe(
      "CSV only. labels (default): the header row and enumerated values in the request's language; keys: the column keys (created_at ...) and the codes (refunded ...), the same file in every language",
    ),
};

export const qParam = (description: string, max = 191) => z.string().max(max, { message: 'validation:q_too_long' }).optional().describe(description);

/**
 * page, per_page and what else the list applies: sort (one of `sort`) and order, unless the list
 * has one fixed order (`sort` omitted: then sort is refused, and order too with `order: false`),
 * and q when the list searches. A list with a single order still declares that field, so a client
 * asking for another is told which there are.
 */
export function listParams<const F extends readonly [string, ...string[]]>(opts: {
  sort?: F;
  defaultSort?: F[number];
  /** False: the list's one order cannot be reversed. */
  order?: boolean;
  /** What `q` matches; omitted when the list has no search. */
  q?: string;
  qMax?: number;
}): ListParamsShape<F> {
  return {
    page: pageParam,
    per_page: perPageParam(),
    ...(opts.sort ? { sort: sortParam(opts.sort, opts.defaultSort ?? opts.sort[0]) } : {}),
    ...(opts.order === false ? {} : { order: orderParam }),
    ...(opts.q ? { q: qParam(opts.q, opts.qMax) } : {}),
  } as ListParamsShape<F>;
}

/** What listParams declares, typed as if all were there (each is optional anyway; the absent ones are refused at run time). */
export interface ListParamsShape<F extends readonly [string, ...string[]]> {
  page: typeof pageParam;
  per_page: ReturnType<typeof perPageParam>;
  sort: ReturnType<typeof sortParam<F>>;
  order: typeof orderParam;
  q: ReturnType<typeof qParam>;
}
