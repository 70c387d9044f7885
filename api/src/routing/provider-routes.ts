import type { Knex } from 'knex';
import type { ProviderRoutesInput } from '@app/contracts';
import { toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { readRoutingView, undeliverableReason, type DeliveryRoute } from './delivery-routes.ts';
import { healthState, RouteHealth } from './route-health.ts';

/**
 * An operator's routes as the console and the API read and replace them
 * (GET/PUT /internet-providers/{id}/routes): in order, with each route's health and, per bundle of
 * the operator, whether some route can deliver it now.
 */
async function providerOf(db: Knex | Knex.Transaction, raw: string) {
  const id = decodeId(raw);
  const provider = id ? await db('providers').where({ id }).whereNull('deleted_at').first('id', 'name') : undefined;
  if (!provider) throw notFound('api:errors.not_found');
  return { id: Number(provider.id), name: String(provider.name) };
}

const present = (route: DeliveryRoute) => ({ aggregator: route.aggregator, operator_id: route.operatorId, products: route.products ?? {} });

export async function readProviderRoutes(db: Knex, rawId: string) {
  const provider = await providerOf(db, rawId);
  const [view, configured, health, bundles] = await Promise.all([
    readRoutingView(db, [provider.id]),
    db('provider_routes').where({ provider_id: provider.id }).first('id'),
    new RouteHealth(db).all(provider.id),
    db('bundles')
      .join('categories', 'categories.id', 'bundles.category_id')
      .where('categories.provider_id', provider.id)
      .whereNull('bundles.deleted_at')
      .orderBy(['categories.sort_order', 'bundles.sort_order', 'bundles.id'])
      .select('bundles.id', 'bundles.name', 'bundles.cost_price', 'bundles.operator_product_code'),
  ]);
  const routes = view.routes.get(provider.id) ?? [];
  return {
    provider_id: provider.id,
    configured: Boolean(configured),
    routes: routes.map((r, i) => ({
      position: i + 1,
      aggregator: r.aggregator,
      operator_id: r.operatorId,
      products: r.products ?? {},
      health: healthState(health.get(r.aggregator)),
    })),
    bundles: bundles.map((b: { id: number; name: string; cost_price: number | string; operator_product_code: string | null }) => {
      const routed = { id: Number(b.id), provider_id: provider.id, cost: Number(b.cost_price), operator_product_code: b.operator_product_code ?? null };
      const reason = undeliverableReason(view, routed);
      return { id: routed.id, name: b.name, cost: routed.cost, operator_product_code: routed.operator_product_code, deliverable: !reason, reason };
    }),
  };
}

/**
 * Replaces an operator's routes with `input.routes`, in order (an empty list: back to the implicit
 * route). Every bundle named must be one of the operator's. The provider's row is locked first, so
 * two replacements at once are applied one after the other (the last one wins, whole).
 */
export async function replaceProviderRoutes(ctx: ServiceContext, rawId: string, input: ProviderRoutesInput) {
  const id = await transact(ctx, async (tctx) => {
    const provider = await providerOf(tctx.db, rawId);
    await tctx.db('providers').where({ id: provider.id }).forUpdate().first('id');
    const named = [...new Set(input.routes.flatMap((r) => Object.keys(r.products)).map(Number))];
    if (named.length) {
      const own: number[] = (
        await tctx
          .db('bundles')
          .join('categories', 'categories.id', 'bundles.category_id')
          .where('categories.provider_id', provider.id)
          .whereIn('bundles.id', named)
          .whereNull('bundles.deleted_at')
          .select('bundles.id')
      ).map((b: { id: number }) => Number(b.id));
      const stranger = named.find((b) => !own.includes(b));
      if (stranger !== undefined) {
        const at = input.routes.findIndex((r) => String(stranger) in r.products);
        throw fieldError(`routes.${at}.products`, 'validation:route_bundle_not_operator', { bundle: stranger, operator: provider.name });
      }
    }
    const before = (
      await tctx.db('provider_routes').where({ provider_id: provider.id }).orderBy('position').select('aggregator', 'operator_id', 'products')
    ).map((r: { aggregator: string; operator_id: string | null; products: string }) => ({
      aggregator: r.aggregator,
      operator_id: r.operator_id,
      products: JSON.parse(r.products),
    }));
    await tctx.db('provider_routes').where({ provider_id: provider.id }).delete();
    const now = toDbTime();
    if (input.routes.length)
      await tctx.db('provider_routes').insert(
        input.routes.map((r, i) => ({
          provider_id: provider.id,
          position: i + 1,
          aggregator: r.aggregator,
          operator_id: r.operator_id ?? null,
          products: JSON.stringify(r.products),
          created_at: now,
          updated_at: now,
        })),
      );
    await recordActivity(tctx, {
      action: 'routes_changed',
      subjectType: 'provider',
      subjectId: provider.id,
      description: `Delivery routes of ${provider.name}: ${input.routes.map((r) => r.aggregator).join(' > ') || 'the operator’s own adapter'}`,
      before,
      after: input.routes.map((r) => present({ position: 0, aggregator: r.aggregator, operatorId: r.operator_id ?? null, products: r.products })),
    });
    return provider.id;
  });
  return readProviderRoutes(ctx.db as Knex, String(id));
}
