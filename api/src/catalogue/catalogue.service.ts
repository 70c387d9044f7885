import type { Knex } from 'knex';
import { formatMinor, type ShopBelowCost } from '@app/contracts';
import { decodeId } from '../http/ids.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { fieldError } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import { Bundle, Category, Provider } from './catalogue.models.ts';

/**
 * The catalogue's own rules, for the routes and for the demo seed alike: an operator's prefixes
 * are stored as JSON, a category belongs to a live operator, a bundle to a live category and
 * never sells below its cost. Call inside a unit of work (ctx.db is its transaction).
 */
export const providerColumns = (input: Record<string, unknown>) => ({
  ...input,
  ...(input.phone_prefixes ? { phone_prefixes: JSON.stringify(input.phone_prefixes) } : {}),
});

export async function createProvider(ctx: ServiceContext, input: Record<string, unknown>): Promise<Provider> {
  if (Array.isArray(input.phone_prefixes)) await assertPrefixesFree(ctx, input.phone_prefixes as string[]);
  return Provider.query(ctx.db).insertAndFetch(providerColumns(input) as Partial<Provider>);
}

/**
 * A number belongs to one operator: no prefix may equal, contain or sit inside another operator's
 * (61 is Hormuud's, so neither 61 nor 615 nor 6 may be given to another). Operators in the trash
 * keep theirs. The rows are read with a lock on MySQL so two admins saving at once cannot both pass.
 */
export async function assertPrefixesFree(ctx: ServiceContext, prefixes: readonly string[], exceptId?: number): Promise<void> {
  if (!prefixes.length) return;
  const qb = ctx.db('providers').whereNotNull('phone_prefixes').select('id', 'name', 'phone_prefixes');
  if (exceptId) qb.whereNot('id', exceptId);
  if (ctx.db.client.config.client === 'mysql2') qb.forUpdate();
  for (const other of await qb) {
    const theirs: string[] = JSON.parse(other.phone_prefixes ?? '[]');
    const clash = prefixes.find((p) => theirs.some((t) => p.startsWith(t) || t.startsWith(p)));
    if (clash) throw fieldError('phone_prefixes', 'validation:prefix_taken', { prefix: clash, operator: other.name });
  }
}

export async function createCategory(ctx: ServiceContext, input: Record<string, unknown>): Promise<Category> {
  const id = decodeId(input.provider_id as string | number);
  const provider = id ? await ctx.db('providers').where({ id }).whereNull('deleted_at').first('id') : undefined;
  if (!provider) throw fieldError('provider_id', 'validation:provider_not_found');
  return Category.query(ctx.db).insertAndFetch({ ...input, provider_id: provider.id } as Partial<Category>);
}

export async function createBundle(ctx: ServiceContext, input: Record<string, unknown>): Promise<Bundle> {
  const id = decodeId(input.category_id as string | number);
  const category = id ? await ctx.db('categories').where({ id }).whereNull('deleted_at').first('id') : undefined;
  if (!category) throw fieldError('category_id', 'validation:category_not_found');
  return Bundle.query(ctx.db).insertAndFetch({ ...input, category_id: category.id } as Partial<Bundle>);
}

export async function updateBundle(ctx: ServiceContext, bundle: Bundle, input: Partial<Bundle>): Promise<void> {
  // A new selling price is checked against the cost it will sit beside (stored or sent).
  const cost = input.cost_price ?? bundle.cost_price;
  const price = input.selling_price ?? bundle.selling_price;
  if (Number(price) < Number(cost)) throw fieldError('selling_price', 'validation:selling_below_cost');
  if (Object.keys(input).length) await Bundle.query(ctx.db).patch(input).where('id', bundle.id);
}

/**
 * The shops that offer these bundles (switched on, dealer live) at a price below the cost: their
 * storefront stops selling the bundle (dealer-catalogue.service.ts `below_cost`) while their switch
 * stays on. By bundle id. `at` asks about one bundle at a cost (and suggested price) not saved yet:
 * the console's question before it raises a cost.
 */
export async function shopsBelowCost(
  db: Knex | Knex.Transaction,
  bundleIds: number[],
  at?: { cost: number; suggested?: number },
): Promise<Map<number, ShopBelowCost[]>> {
  const out = new Map<number, ShopBelowCost[]>();
  if (!bundleIds.length) return out;
  const price = 'COALESCE(dealer_bundles.selling_price, bundles.selling_price)';
  const qb = db('dealer_bundles')
    .join('bundles', 'bundles.id', 'dealer_bundles.bundle_id')
    .join('users', 'users.id', 'dealer_bundles.dealer_id')
    .whereIn('dealer_bundles.bundle_id', bundleIds)
    .where('dealer_bundles.status', 'active')
    .whereNull('dealer_bundles.deleted_at')
    .where('users.user_type', 'dealer')
    .whereNull('users.deleted_at')
    .orderBy('users.name')
    .orderBy('users.id')
    .select('dealer_bundles.bundle_id', 'users.id', 'users.name', 'users.dealer_code', 'dealer_bundles.selling_price as own_price', 'bundles.selling_price');
  if (at) {
    // The shops without a price of their own take the suggested price sent (or the saved one).
    if (at.suggested === undefined) qb.whereRaw(`${price} < ?`, [at.cost]);
    else qb.whereRaw('COALESCE(dealer_bundles.selling_price, ?) < ?', [at.suggested, at.cost]);
  } else qb.whereRaw(`${price} < bundles.cost_price`);
  for (const r of await qb) {
    const own = r.own_price === null || r.own_price === undefined ? null : Number(r.own_price);
    const shown = own ?? (at?.suggested !== undefined ? at.suggested : Number(r.selling_price));
    const list = out.get(r.bundle_id) ?? [];
    list.push({ ...dealerRef(r.id, r.name, r.dealer_code), selling_price: formatMinor(shown) });
    out.set(r.bundle_id, list);
  }
  return out;
}
