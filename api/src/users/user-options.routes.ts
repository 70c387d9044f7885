import { z } from 'zod';
import type { Permission } from '@app/contracts';
import { listParams } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { encodeId, decodeId } from '../http/ids.ts';
import { notFound } from '../http/errors.ts';
import { likePattern, pageOf } from '../http/list-query.ts';
import { idsParam } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * /user-options: names (and dealer codes) for the pickers of lists and reports: the dealer filter
 * of sales, wallets, the ledger, missed sales, reports, payment methods and contacts, and the actor
 * filter of the logs. Whoever may read something filtered by dealer may read the dealers' names,
 * without 'view users'; admins' names only those who read admins or the logs (where they appear
 * as actors). A dealer gets only itself.
 */
const DEALER_READERS: Permission[] = [
  'view users',
  'view dealers',
  'view recharges',
  'view wallets',
  'view wallet transactions',
  'view reports',
  'view dealer profit report',
  'view payment methods',
  'view contact settings',
  'view banners',
  'view dealer providers',
  'view dealer categories',
  'view dealer bundles',
  'review recharges',
  'view logs',
];
const ADMIN_READERS: Permission[] = ['view users', 'view admins', 'view logs'];

const userOptionSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  name: z.string(),
  user_type: z.enum(['admin', 'dealer']),
  dealer_code: z.string().nullable(),
  status: z.enum(['active', 'inactive']),
});
const optionsQuery = z.object({
  user_type: z.enum(['admin', 'dealer'], { message: 'validation:user_type_invalid' }).optional(),
  // By name only (a picker); order applies.
  ...listParams({ sort: ['name'], q: 'Part of the name or dealer code (any case)' }),
  // The names behind the ids a list shows (react-admin's getMany): one call, not one per id.
  ids: idsParam,
});

type Row = z.infer<typeof userOptionSchema>;
const present = (r: Omit<Row, 'h_id'>): Row => ({
  id: r.id,
  h_id: encodeId(r.id),
  name: r.name,
  user_type: r.user_type,
  dealer_code: r.dealer_code,
  status: r.status,
});

/** The users the caller may name, optionally of one type. */
function visibleUsers(ctx: ServiceContext, userType?: 'admin' | 'dealer') {
  const qb = ctx.db('users').whereNull('deleted_at').select('id', 'name', 'user_type', 'dealer_code', 'status');
  if (ctx.actor.userType === 'dealer') return qb.where('id', ctx.actor.id!);
  const held = (names: Permission[]) => ctx.actor.kind === 'system' || names.some((p) => ctx.actor.permissions.has(p));
  const types = (['admin', 'dealer'] as const).filter((t) => (!userType || t === userType) && held(t === 'admin' ? ADMIN_READERS : DEALER_READERS));
  return qb.whereIn('user_type', types.length ? types : ['none']);
}

export function userOptionRoutes(registry: OpenApiRegistry): ApiRouter {
  const api = new ApiRouter(registry, '/user-options', 'Users');
  const anyPermission = [...new Set([...DEALER_READERS, ...ADMIN_READERS])];
  api.get(
    '/',
    {
      summary: 'Users for a picker: name, type, dealer code (q on name and code, by name)',
      anyPermission,
      query: optionsQuery,
      list: true,
      response: userOptionSchema,
    },
    async (req, ctx) => {
      const qb = visibleUsers(ctx, req.query.user_type as 'admin' | 'dealer' | undefined);
      const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
      if (q)
        qb.where((w) =>
          w.whereRaw("LOWER(name) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)]).orWhereRaw("LOWER(dealer_code) LIKE LOWER(?) ESCAPE '!'", [likePattern(q)]),
        );
      const ids = req.query.ids;
      if (ids !== undefined) {
        const list = (Array.isArray(ids) ? ids : String(ids).split(',')).map((v) => decodeId(String(v).trim())).filter((v): v is number => v !== null);
        qb.whereIn('id', list.length ? list : [0]);
      }
      // By name, A to Z unless order says desc.
      const { page, per_page, order } = req.query as { page?: string; per_page?: string; order?: string };
      return pageOf(qb, { page, per_page, order: order ?? 'asc' }, 'name', present, 'id');
    },
  );
  api.get('/:id', { summary: 'One user for a picker', anyPermission, response: userOptionSchema }, async (req, ctx) => {
    const row = await visibleUsers(ctx)
      .where('id', decodeId(String(req.params.id)) ?? 0)
      .first();
    if (!row) throw notFound();
    return { data: present(row) };
  });
  return api;
}
