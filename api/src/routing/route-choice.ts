import type { Knex } from 'knex';
import { productFor, routeRefusal, RoutingViewCache, type DeliveryRoute, type RoutedBundle } from './delivery-routes.ts';
import { DEFAULT_ROUTE_HEALTH, RouteHealth, type RouteHealthOptions } from './route-health.ts';
import { FloatView } from '../aggregators/float-view.ts';

/**
 * Which route a sale's top-up goes through (docs/integrations.md, "Routes"). In order, the first
 * route that sells the bundle, is known to this process, has not refused this sale and is not
 * resting after too many failures. A route that rests is still taken when every other one is out
 * (it rests to spare the sales a likely failure, not to fail them outright). So is a route whose
 * aggregator's float, as last read within the hour, cannot pay the sale's cost (the aggregator has
 * the last word when no other route is left). A sale whose top-up was already sent keeps its
 * route until that route definitely refuses it (sale-steps.ts).
 */
export interface RouteChoice {
  route: DeliveryRoute;
  /** What is sent: the product id or amount. */
  product: string;
  /** Why the routes before it were passed over, for the sale's trail. */
  passed: { aggregator: string; why: string }[];
}

export interface RoutedSale extends RoutedBundle {
  /** Aggregators that definitely refused this sale. */
  refused: string[];
  /** The sale's currency: a float in another currency says nothing about this cost. */
  currency?: string;
}

export class RouteChooser {
  readonly health: RouteHealth;
  private readonly views: RoutingViewCache;
  private readonly floats: FloatView;

  constructor(
    db: Knex,
    private readonly known: (aggregator: string) => boolean,
    health?: Partial<RouteHealthOptions>,
  ) {
    this.views = new RoutingViewCache(db);
    this.floats = new FloatView(db);
    this.health = new RouteHealth(db, { ...DEFAULT_ROUTE_HEALTH, ...health });
  }

  /** The route for this sale now, or why none can deliver it (every reason, in order). */
  async choose(sale: RoutedSale): Promise<RouteChoice | { none: string; passed: RouteChoice['passed'] }> {
    const view = await this.views.get();
    const routes = view.routes.get(sale.provider_id) ?? [];
    const passed: RouteChoice['passed'] = [];
    let resting: RouteChoice | null = null;
    let lowOnFloat = false;
    for (const route of routes) {
      if (sale.refused.includes(route.aggregator)) {
        passed.push({ aggregator: route.aggregator, why: 'It refused this sale.' });
        continue;
      }
      if (!this.known(route.aggregator)) {
        passed.push({
          aggregator: route.aggregator,
          why: `The aggregator "${route.aggregator}" is not configured in this process (a shop taking real payments never delivers through a stand-in).`,
        });
        continue;
      }
      const refusal = routeRefusal(view, route, sale);
      if (refusal) {
        passed.push({ aggregator: route.aggregator, why: refusal });
        continue;
      }
      const product = productFor(route, sale)!;
      const until = await this.health.skippedUntil(sale.provider_id, route.aggregator);
      if (until) {
        passed.push({ aggregator: route.aggregator, why: `Resting after repeated refusals or timeouts until ${until.toISOString()}.` });
        resting ??= { route, product, passed: [] };
        continue;
      }
      const lowFloat = await this.floats.tooLow(route.aggregator, sale.cost, sale.currency);
      if (lowFloat) {
        passed.push({ aggregator: route.aggregator, why: lowFloat });
        if (!resting) lowOnFloat = true;
        resting ??= { route, product, passed: [] };
        continue;
      }
      return { route, product, passed };
    }
    if (resting)
      return {
        ...resting,
        passed: [
          ...passed,
          {
            aggregator: resting.route.aggregator,
            why: lowOnFloat
              ? 'Taken although its float looked too low: no other route can deliver it.'
              : 'Taken although resting: no other route can deliver it.',
          },
        ],
      };
    return { none: passed.length ? passed.map((p) => `${p.aggregator}: ${p.why}`).join(' ') : 'The operator has no delivery route.', passed };
  }
}
