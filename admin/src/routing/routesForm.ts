import type { Aggregator, ProviderRoutes, RouteHealth, RoutedBundle } from './types';

/**
 * The delivery routes screen's editing, as plain functions: the routes as the screen holds them,
 * the PUT body made from them, the API's field errors placed on them, and the one mapping the
 * catalogue page adds after a bundle is created from a product.
 */
export interface EditedRoute {
  aggregator: Aggregator;
  /** As typed; blank is sent as null. */
  operator_id: string;
  /** Bundle id -> product id or amount, as typed; blank cells are not sent. */
  products: Record<string, string>;
  /** Null for a route added here and not saved yet. */
  health: RouteHealth | null;
}

export interface RouteBody {
  aggregator: Aggregator;
  operator_id: string | null;
  products: Record<string, string>;
}

/**
 * What the implicit route sells each bundle as (the API's productFor): its operator product code,
 * else its cost as the amount.
 */
export function implicitProducts(bundles: readonly RoutedBundle[]): Record<string, string> {
  return Object.fromEntries(bundles.map((b) => [String(b.id), b.operator_product_code?.trim() || (b.cost / 100).toFixed(2)]));
}

/**
 * The routes to edit. An operator with none configured has the one implicit route (its adapter,
 * its operator id, each bundle's product code): the screen starts from it, filled in as it
 * delivers today, so that saving it unchanged keeps what the operator does now.
 */
export function editedRoutes(data: ProviderRoutes): EditedRoute[] {
  return data.routes.map((r) => ({
    aggregator: r.aggregator,
    operator_id: r.operator_id ?? '',
    products: data.configured ? { ...r.products } : implicitProducts(data.bundles),
    health: r.health,
  }));
}

/** The PUT body's routes, in order: trimmed, blank operator id as null, blank cells left out. */
export function routesBody(routes: readonly EditedRoute[]): RouteBody[] {
  return routes.map((r) => ({
    aggregator: r.aggregator,
    operator_id: r.operator_id.trim() || null,
    products: Object.fromEntries(
      Object.entries(r.products)
        .map(([bundle, product]) => [bundle, product.trim()] as const)
        .filter(([, product]) => product !== ''),
    ),
  }));
}

/** Whether two lists would save the same thing. */
export const sameRoutes = (a: readonly EditedRoute[], b: readonly EditedRoute[]): boolean => JSON.stringify(routesBody(a)) === JSON.stringify(routesBody(b));

/** The list with the route at `index` moved one place up (-1) or down (+1). */
export function moveRoute<T>(routes: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= routes.length) return [...routes];
  const next = [...routes];
  [next[index], next[to]] = [next[to], next[index]];
  return next;
}

export interface PlacedErrors {
  /** Errors about no route in particular (or a route the screen no longer has). */
  general: string[];
  /** Per route, by its position in the list sent. */
  routes: Record<number, { aggregator?: string; operator_id?: string; products?: string; cells: Record<string, string> }>;
}

/**
 * The API's 422 field errors (routes.0.aggregator, routes.1.operator_id, routes.0.products,
 * routes.0.products.12) on the route, field or cell they name; anything else is general.
 */
export function placeErrors(errors: Record<string, string>, routeCount: number): PlacedErrors {
  const placed: PlacedErrors = { general: [], routes: {} };
  for (const [field, message] of Object.entries(errors)) {
    const m = /^routes\.(\d+)\.(aggregator|operator_id|products)(?:\.(\d+))?$/.exec(field);
    const index = m ? Number(m[1]) : -1;
    if (!m || index >= routeCount) {
      placed.general.push(message);
      continue;
    }
    const route = (placed.routes[index] ??= { cells: {} });
    if (m[2] === 'products' && m[3]) route.cells[m[3]] = message;
    else route[m[2] as 'aggregator' | 'operator_id' | 'products'] = message;
  }
  return placed;
}

export type MappingPlan =
  | { kind: 'map'; routes: RouteBody[]; position: number; previous: string | null }
  | { kind: 'add'; routes: RouteBody[]; position: number; keepsImplicit: boolean }
  | { kind: 'conflict'; operatorId: string | null };

/**
 * The operator's routes with one bundle sold as `productId` on the `aggregator` route: that route's
 * mapping set (a route naming another operator id is a conflict; one with none, which detects the
 * operator from the number, is left so), else a new route at the end selling only this
 * bundle. An operator with no routes configured keeps its implicit route first, filled in as it
 * delivers today.
 */
export function planMapping(data: ProviderRoutes, aggregator: Aggregator, operatorId: string, bundleId: number, productId: string): MappingPlan {
  const routes = routesBody(editedRoutes(data));
  const at = routes.findIndex((r) => r.aggregator === aggregator);
  if (at >= 0) {
    const route = routes[at];
    if (route.operator_id && route.operator_id !== operatorId) return { kind: 'conflict', operatorId: route.operator_id };
    const previous = route.products[String(bundleId)] ?? null;
    routes[at] = { ...route, products: { ...route.products, [String(bundleId)]: productId } };
    return { kind: 'map', routes, position: at + 1, previous: previous === productId ? null : previous };
  }
  routes.push({ aggregator, operator_id: operatorId, products: { [String(bundleId)]: productId } });
  return { kind: 'add', routes, position: routes.length, keepsImplicit: !data.configured && routes.length > 1 };
}
