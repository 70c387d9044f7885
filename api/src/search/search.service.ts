import { formatMinor, RESOURCES, type Permission } from '@app/contracts';
import { encodeId } from '../http/ids.ts';
import { likePattern } from '../http/list-query.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';

/**
 * The header's search across users, dealers, operators, bundles and recharges (live sales, by
 * phone or reference), each group only for those who may read it, a dealer only its own recharges.
 * The columns matched are the registry's `searchable` (contracts/src/resources.ts), as the lists' `q`.
 */
export interface SearchHit {
  id: number;
  h_id: string;
  title: string;
  subtitle: string | null;
  provider_id?: number;
  category_id?: number;
}

export interface SearchResults {
  users: SearchHit[];
  dealers: SearchHit[];
  providers: SearchHit[];
  bundles: SearchHit[];
  recharges: SearchHit[];
}

const LIMIT = 5;
/** Shorter queries find everything and nothing useful. */
export const MIN_SEARCH_LENGTH = 2;

/** Matches any of `columns` (qualified by `table`) with LIKE, case-insensitively, the user's wildcards escaped. */
const anyColumnLike = (table: string, columns: readonly string[], like: string) => (w: import('knex').Knex.QueryBuilder) => {
  for (const col of columns) w.orWhereRaw(`LOWER(??) LIKE LOWER(?) ESCAPE '!'`, [`${table}.${col}`, like]);
};

export async function searchEverything(ctx: ServiceContext, rawQuery: string): Promise<SearchResults> {
  const q = rawQuery.trim();
  if (q.length < MIN_SEARCH_LENGTH) return { users: [], dealers: [], providers: [], bundles: [], recharges: [] };
  const like = likePattern(q);
  const has = (p: Permission) => ctx.actor.permissions.has(p);

  const people = async (type: 'admin' | 'dealer'): Promise<SearchHit[]> => {
    const allowed = !isDealer(ctx.actor) && (has('view users') || has(type === 'admin' ? 'view admins' : 'view dealers'));
    if (!allowed) return [];
    const rows: { id: number; name: string; email: string; dealer_code: string | null }[] = await ctx
      .db('users')
      .whereNull('deleted_at')
      .where('user_type', type)
      .where(anyColumnLike('users', RESOURCES.users.searchable, like))
      .orderBy('name')
      .limit(LIMIT)
      .select('id', 'name', 'email', 'dealer_code');
    return rows.map((r) => ({ id: r.id, h_id: encodeId(r.id), title: r.name, subtitle: type === 'dealer' ? `${r.dealer_code ?? ''} · ${r.email}` : r.email }));
  };
  const providers = async (): Promise<SearchHit[]> => {
    if (!has('view internet providers')) return [];
    const rows: { id: number; name: string; code: string }[] = await ctx
      .db('providers')
      .whereNull('deleted_at')
      .where(anyColumnLike('providers', RESOURCES['internet-providers'].searchable, like))
      .orderBy('name')
      .limit(LIMIT)
      .select('id', 'name', 'code');
    return rows.map((r) => ({ id: r.id, h_id: encodeId(r.id), title: r.name, subtitle: r.code }));
  };
  const bundles = async (): Promise<SearchHit[]> => {
    if (!has('view bundles')) return [];
    const rows: { id: number; name: string; category_id: number; provider_id: number; provider: string; category: string; selling_price: number }[] = await ctx
      .db('bundles')
      .join('categories', 'categories.id', 'bundles.category_id')
      .join('providers', 'providers.id', 'categories.provider_id')
      .whereNull('bundles.deleted_at')
      .where(anyColumnLike('bundles', RESOURCES.bundles.searchable, like))
      .orderBy('bundles.name')
      .limit(LIMIT)
      .select(
        'bundles.id',
        'bundles.name',
        'bundles.category_id',
        'categories.provider_id',
        'providers.name as provider',
        'categories.name as category',
        'bundles.selling_price',
      );
    return rows.map((r) => ({
      id: r.id,
      h_id: encodeId(r.id),
      title: r.name,
      subtitle: `${r.provider} · ${r.category} · ${formatMinor(Number(r.selling_price))}`,
      category_id: r.category_id,
      provider_id: r.provider_id,
    }));
  };
  const recharges = async (): Promise<SearchHit[]> => {
    if (!has('view recharges')) return [];
    const digits = q.replace(/\D/g, '').replace(/^(?:00252|252|0)/, '');
    // Live sales only: a test key's sales are found on the recharges page's test list (?mode=test).
    const qb = ctx
      .db('recharges')
      .where('mode', 'live')
      .orderBy('id', 'desc')
      .limit(LIMIT)
      .select('id', 'reference', 'phone', 'bundle_name', 'status', 'amount');
    if (isDealer(ctx.actor)) qb.where('dealer_id', ctx.actor.id!);
    qb.where((w) => {
      w.where('reference', q.toUpperCase());
      if (digits.length >= 3) w.orWhere('phone', 'like', `%${digits}%`);
    });
    const rows: { id: number; reference: string | null; phone: string; bundle_name: string; status: string; amount: number }[] = await qb;
    return rows.map((r) => ({
      id: r.id,
      h_id: encodeId(r.id),
      title: `${r.reference} · ${r.phone}`,
      subtitle: `${r.bundle_name} · ${formatMinor(Number(r.amount))} · ${r.status}`,
    }));
  };

  const [users, dealers, p, b, r] = await Promise.all([people('admin'), people('dealer'), providers(), bundles(), recharges()]);
  return { users, dealers, providers: p, bundles: b, recharges: r };
}
