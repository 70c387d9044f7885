import { decodeId } from '../http/ids.ts';
import { fieldError } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import { Bundle, Category, Provider } from './catalogue.models.ts';

/**
 * The catalogue's own rules, for the routes and for the demo seed alike: an operator's prefixes
 * are stored as JSON, a category belongs to a live operator, a bundle to a live category and
 * never sells below its cost. Call inside a unit of work (ctx.db is its transaction).
 */
export const providerColumns = (input: Record<string, unknown>) => ({ ...input, ...(input.phone_prefixes ? { phone_prefixes: JSON.stringify(input.phone_prefixes) } : {}) });

export async function createProvider(ctx: ServiceContext, input: Record<string, unknown>): Promise<Provider> {
  return Provider.query(ctx.db).insertAndFetch(providerColumns(input) as Partial<Provider>);
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
