import type { Knex } from 'knex';
import { fromDbTime } from '../database/time.ts';
import { storefrontCache } from '../storefront/storefront-cache.ts';

/**
 * Delivery routes (docs/integrations.md, "Routes and the aggregators' catalogues"). An operator
 * (provider) has an ordered list of routes: an aggregator, the operator's id there, and the product
 * each bundle is sold as. An operator with none configured has one implicit route: its adapter, its
 * external operator id and each bundle's operator product code (what the product did before routes).
 *
 * A route can deliver a bundle when it names a product for it and, once the aggregator's catalogue
 * for that operator has been synced (aggregator-catalogue.ts), the product is in it and not
 * withdrawn. A catalogue never synced cannot be checked: the mapping is trusted.
 */
type Db = Knex | Knex.Transaction;

export interface DeliveryRoute {
  position: number;
  aggregator: string;
  operatorId: string | null;
  /** Bundle id -> product id or amount; null for the implicit route (each bundle's own product code). */
  products: Record<string, string> | null;
}

export interface RoutedBundle {
  id: number;
  provider_id: number;
  cost: number;
  operator_product_code: string | null;
}

export interface CatalogueRow {
  aggregator: string;
  operator_id: string;
  product_id: string;
  amount: number;
  status: string;
  withdrawn_at: string | null;
}

/** What a provider's routes and their aggregators' catalogues say, read together. */
export interface RoutingView {
  routes: Map<number, DeliveryRoute[]>;
  /** `${aggregator}:${operatorId}` -> its synced products. */
  catalogues: Map<string, CatalogueRow[]>;
}

const catalogueKey = (aggregator: string, operatorId: string) => `${aggregator}:${operatorId}`;

/** A product code that is an amount in dollars ("5", "0.50"), in cents; else null. */
export function amountCents(value: string): number | null {
  return /^\d{1,6}(\.\d{1,2})?$/.test(value) ? Math.round(Number(value) * 100) : null;
}

/** The product a route sells a bundle as, or null (the route does not sell it). */
export function productFor(route: DeliveryRoute, bundle: RoutedBundle): string | null {
  if (route.products) return route.products[String(bundle.id)] ?? null;
  // The implicit route: the bundle's product code, else its cost as the amount (operator-adapter topUpAmount).
  const code = bundle.operator_product_code?.trim();
  return code ? code : (bundle.cost / 100).toFixed(2);
}

/**
 * Whether the aggregator still sells `product` for the route's operator: null when it does (or
 * cannot be checked), else why not.
 */
export function catalogueRefusal(view: RoutingView, route: DeliveryRoute, product: string): string | null {
  if (!route.operatorId) return null;
  const rows = view.catalogues.get(catalogueKey(route.aggregator, route.operatorId));
  if (!rows?.length) return null;
  const cents = amountCents(product);
  // A product id, or an amount where the aggregator's product ids are amounts (Reloadly's "5.00").
  const matches = rows.filter((p) => p.product_id === product || (cents !== null && p.product_id.includes('.') && Number(p.amount) === cents));
  if (matches.some((p) => p.status === 'active')) return null;
  if (matches.length)
    return `${route.aggregator} withdrew product ${product} for operator ${route.operatorId} (${fromDbTime(matches[0].withdrawn_at) ?? 'at the last sync'}).`;
  return `${route.aggregator} does not sell product ${product} for operator ${route.operatorId}.`;
}

/** Why a route cannot deliver a bundle, or null when it can. */
export function routeRefusal(view: RoutingView, route: DeliveryRoute, bundle: RoutedBundle): string | null {
  const product = productFor(route, bundle);
  if (!product) return `No product is set for this bundle on the ${route.aggregator} route.`;
  return catalogueRefusal(view, route, product);
}

/** Whether some route of its operator can deliver the bundle: null when one can, else every route's reason. */
export function undeliverableReason(view: RoutingView, bundle: RoutedBundle): string | null {
  const routes = view.routes.get(bundle.provider_id) ?? [];
  if (!routes.length) return 'The operator has no delivery route.';
  const reasons: string[] = [];
  for (const route of routes) {
    const refusal = routeRefusal(view, route, bundle);
    if (!refusal) return null;
    reasons.push(refusal);
  }
  return reasons.join(' ');
}

/** The routes of these providers (configured, else the implicit one) and the catalogues they name. */
export async function readRoutingView(db: Db, providerIds?: number[]): Promise<RoutingView> {
  const providerQuery = db('providers').select('id', 'adapter_key', 'external_operator_id');
  const routeQuery = db('provider_routes').orderBy(['provider_id', 'position']).select('provider_id', 'position', 'aggregator', 'operator_id', 'products');
  if (providerIds) {
    providerQuery.whereIn('id', providerIds);
    routeQuery.whereIn('provider_id', providerIds);
  }
  const [providers, rows] = await Promise.all([providerQuery, routeQuery]);
  const routes = new Map<number, DeliveryRoute[]>();
  for (const r of rows) {
    const list = routes.get(Number(r.provider_id)) ?? [];
    list.push({ position: Number(r.position), aggregator: r.aggregator, operatorId: r.operator_id ?? null, products: JSON.parse(r.products) });
    routes.set(Number(r.provider_id), list);
  }
  for (const p of providers) {
    if (!routes.has(Number(p.id)))
      routes.set(Number(p.id), [{ position: 0, aggregator: p.adapter_key ?? 'sandbox', operatorId: p.external_operator_id ?? null, products: null }]);
  }
  const pairs = new Set<string>();
  for (const list of routes.values()) for (const r of list) if (r.operatorId) pairs.add(catalogueKey(r.aggregator, r.operatorId));
  const catalogues = new Map<string, CatalogueRow[]>();
  if (pairs.size) {
    const aggregators = [...new Set([...pairs].map((k) => k.split(':')[0]))];
    const operators = [...new Set([...pairs].map((k) => k.split(':')[1]))];
    const products: CatalogueRow[] = await db('aggregator_products')
      .whereIn('aggregator', aggregators)
      .whereIn('operator_id', operators)
      .select('aggregator', 'operator_id', 'product_id', 'amount', 'status', 'withdrawn_at');
    for (const p of products) {
      const key = catalogueKey(p.aggregator, p.operator_id);
      if (!pairs.has(key)) continue;
      const list = catalogues.get(key) ?? [];
      list.push(p);
      catalogues.set(key, list);
    }
  }
  return { routes, catalogues };
}

/**
 * The routing view kept in process for a few seconds (the worker asks it for every sale it delivers),
 * dropped on every committed change in this process, as the shops' offers are.
 */
export class RoutingViewCache {
  private kept: { at: number; view: Promise<RoutingView> } | null = null;

  constructor(
    private readonly db: Knex,
    private readonly ttlMs = 5_000,
  ) {
    storefrontCache.onClear(() => (this.kept = null));
  }

  get(): Promise<RoutingView> {
    if (this.kept && Date.now() - this.kept.at < this.ttlMs) return this.kept.view;
    const entry = { at: Date.now(), view: readRoutingView(this.db) };
    this.kept = entry;
    entry.view.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return entry.view;
  }
}
