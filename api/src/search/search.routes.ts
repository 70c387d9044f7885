import { z } from 'zod';
import { formatMinor } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { encodeId } from '../http/ids.ts';
import { likePattern } from '../http/list-query.ts';
import { SIGNED_IN } from '@app/contracts';
import { isDealer, type ServiceContext } from '../platform/context.ts';

const hit = z.object({ id: z.number().int(), h_id: z.string(), title: z.string(), subtitle: z.string().nullable(), provider_id: z.number().int().optional(), category_id: z.number().int().optional() });
const LIMIT = 5;

/**
 * GET /search?q=: the header search across users, dealers, operators, bundles and recharges (by
 * phone or reference), each group only for those who may read it, a dealer only its own recharges.
 */
export function searchRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/search', 'Search');
  api.get(
    '/',
    { summary: 'Search everything the caller may see (q: at least 2 characters)', permission: SIGNED_IN, query: z.object({ q: z.string().max(100).optional() }), response: z.object({ users: z.array(hit), dealers: z.array(hit), providers: z.array(hit), bundles: z.array(hit), recharges: z.array(hit) }) },
    async (req, ctx) => {
      const q = String(req.query.q ?? '').trim();
      const empty = { users: [], dealers: [], providers: [], bundles: [], recharges: [] };
      if (q.length < 2) return { data: empty };
      const like = likePattern(q);
      const has = (p: string) => ctx.actor.permissions.has(p);
      const people = async (type: 'admin' | 'dealer') => {
        const allowed = !isDealer(ctx.actor) && (has('view users') || has(type === 'admin' ? 'view admins' : 'view dealers'));
        if (!allowed) return [];
        const rows = await ctx.db('users')
          .whereNull('deleted_at')
          .where('user_type', type)
          .where((w) => {
            for (const col of ['name', 'email', 'phone', 'dealer_code']) w.orWhereRaw(`LOWER(${col}) LIKE LOWER(?) ESCAPE '!'`, [like]);
          })
          .orderBy('name')
          .limit(LIMIT)
          .select('id', 'name', 'email', 'dealer_code');
        return rows.map((r: Record<string, any>) => ({ id: r.id, h_id: encodeId(r.id), title: r.name, subtitle: type === 'dealer' ? `${r.dealer_code ?? ''} · ${r.email}` : r.email }));
      };
      const providers = async () => {
        if (!has('view internet providers')) return [];
        const rows = await ctx.db('providers').whereNull('deleted_at').where((w) => w.whereRaw(`LOWER(name) LIKE LOWER(?) ESCAPE '!'`, [like]).orWhereRaw(`LOWER(code) LIKE LOWER(?) ESCAPE '!'`, [like])).orderBy('name').limit(LIMIT).select('id', 'name', 'code');
        return rows.map((r: Record<string, any>) => ({ id: r.id, h_id: encodeId(r.id), title: r.name, subtitle: r.code }));
      };
      const bundles = async () => {
        if (!has('view bundles')) return [];
        const rows = await ctx.db('bundles')
          .join('categories', 'categories.id', 'bundles.category_id')
          .join('providers', 'providers.id', 'categories.provider_id')
          .whereNull('bundles.deleted_at')
          .where((w) => w.whereRaw(`LOWER(bundles.name) LIKE LOWER(?) ESCAPE '!'`, [like]).orWhereRaw(`LOWER(bundles.operator_product_code) LIKE LOWER(?) ESCAPE '!'`, [like]))
          .orderBy('bundles.name')
          .limit(LIMIT)
          .select('bundles.id', 'bundles.name', 'bundles.category_id', 'categories.provider_id', 'providers.name as provider', 'categories.name as category', 'bundles.selling_price');
        return rows.map((r: Record<string, any>) => ({ id: r.id, h_id: encodeId(r.id), title: r.name, subtitle: `${r.provider} · ${r.category} · ${formatMinor(Number(r.selling_price))}`, category_id: r.category_id, provider_id: r.provider_id }));
      };
      const recharges = async (c: ServiceContext) => {
        if (!has('view recharges')) return [];
        const digits = q.replace(/\D/g, '').replace(/^(?:00252|252|0)/, '');
        const qb = c.db('recharges').orderBy('id', 'desc').limit(LIMIT).select('id', 'reference', 'phone', 'bundle_name', 'status', 'amount');
        if (isDealer(c.actor)) qb.where('dealer_id', c.actor.id!);
        qb.where((w) => {
          w.where('reference', q.toUpperCase());
          if (digits.length >= 3) w.orWhere('phone', 'like', `%${digits}%`);
        });
        return (await qb).map((r: Record<string, any>) => ({ id: r.id, h_id: encodeId(r.id), title: `${r.reference} · ${r.phone}`, subtitle: `${r.bundle_name} · ${formatMinor(Number(r.amount))} · ${r.status}` }));
      };
      const [users, dealers, p, b, r] = await Promise.all([people('admin'), people('dealer'), providers(), bundles(), recharges(ctx)]);
      return { data: { users, dealers, providers: p, bundles: b, recharges: r } };
    },
  );
  return api;
}
