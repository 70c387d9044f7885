import type { Knex } from 'knex';
import { z } from 'zod';
import {
  listParams,
  aggregatorProductResponseSchema,
  aggregatorSyncResponseSchema,
  AGGREGATORS,
  connectorModeResponseSchema,
  connectorResponseSchema,
  type ConnectorMode,
  providerRoutesResponseSchema,
  providerRoutesSchema,
  type Aggregator,
  type ProviderRoutesInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { fieldError } from '../http/errors.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import { listAggregatorProducts, syncAggregators, type ProductFilters } from './aggregator-catalogue.ts';
import { readProviderRoutes, replaceProviderRoutes } from './provider-routes.ts';
import { smsMode } from '../sms/sms-config.ts';

/** What this process delivers and charges through (the routes, the sync and the connectors list read it). */
export interface RoutingDeps {
  operators?: Record<string, OperatorAdapter>;
  gateways?: PaymentGateways;
  /** Names of the connectors talking to a configured vendor rather than a stand-in. */
  live?: string[];
  /** Which aggregators may deliver here (money-adapters.ts); unset: any this process has. */
  usableAggregator?: (name: string) => boolean;
}

const productsQuery = z.object({
  operator_id: z
    .string()
    .regex(/^\d{1,18}$/, { message: 'validation:operator_id_invalid' })
    .optional(),
  status: z.enum(['active', 'withdrawn'], { message: 'validation:invalid_value' }).optional(),
  changed: z.enum(['true', 'false', '1', '0'], { message: 'validation:invalid_value' }).optional(),
  // Always by operator, then product: no sort or order to choose.
  ...listParams({ order: false, q: 'A product id or name (contains)', qMax: 64 }),
});

const syncBody = z.object({ aggregators: z.array(z.enum(AGGREGATORS, { message: 'validation:route_aggregator_invalid' })).optional() }).default({});

/**
 * /internet-providers/{id}/routes, /aggregators/{aggregator}/products, /aggregators/sync and
 * /connectors (docs/integrations.md, "Routes and the aggregators' catalogues"). Staff only: routes
 * and catalogues carry wholesale prices; /connectors/mode (live or sandbox, nothing more) is for
 * every dashboard reader.
 */
export function routingRoutes(registry: OpenApiRegistry, deps: RoutingDeps, money: RechargeMoney = {}) {
  const providers = new ApiRouter(registry, '/internet-providers', 'Delivery routes');
  providers.get(
    '/:id/routes',
    {
      summary: "An operator's delivery routes in order, each with its health, and whether each of its bundles can be delivered now",
      permission: 'view delivery routes',
      response: providerRoutesResponseSchema,
    },
    async (req, ctx) => ({ data: await readProviderRoutes(ctx.db as Knex, String(req.params.id)) }),
  );
  providers.put(
    '/:id/routes',
    {
      summary: "Replace an operator's delivery routes (in order; an empty list goes back to the operator's own adapter)",
      description:
        'A sale takes the first healthy route that sells its bundle, and moves to the next only after a definite refusal. `products` maps each bundle id to the product id (DT One) or fixed amount (Reloadly, e.g. "5.00") on that aggregator; a bundle missing from a route is not sold through it.',
      permission: 'manage delivery routes',
      body: providerRoutesSchema,
      response: providerRoutesResponseSchema,
      examples: {
        body: {
          routes: [
            { aggregator: 'reloadly', operator_id: '1650', products: { '12': '5.00' } },
            { aggregator: 'dtone', operator_id: '2701', products: { '12': '91002' } },
          ],
        },
      },
    },
    async (req, ctx) => {
      const input = req.body as ProviderRoutesInput;
      const unusable = input.routes.findIndex((r) => deps.usableAggregator && !deps.usableAggregator(r.aggregator));
      if (unusable >= 0)
        throw fieldError(`routes.${unusable}.aggregator`, 'validation:route_aggregator_not_configured', { aggregator: input.routes[unusable].aggregator });
      return { message: 'api:routes.saved', data: await replaceProviderRoutes(ctx, String(req.params.id), input) };
    },
  );

  const aggregators = new ApiRouter(registry, '/aggregators', 'Delivery routes');
  aggregators.get(
    '/:aggregator/products',
    {
      summary: "An aggregator's products as last synced: filter operator_id, status (active | withdrawn), changed (what the last sync saw change), q",
      permission: 'view delivery routes',
      query: productsQuery,
      list: true,
      response: aggregatorProductResponseSchema,
    },
    async (req, ctx) => {
      const aggregator = String(req.params.aggregator);
      if (!(AGGREGATORS as readonly string[]).includes(aggregator)) throw fieldError('aggregator', 'validation:route_aggregator_invalid');
      return listAggregatorProducts(ctx.db as Knex, aggregator as Aggregator, req.query as ProductFilters);
    },
  );
  aggregators.post(
    '/sync',
    {
      summary: "Pull every aggregator's operators and products now (or the ones named) and record what changed",
      description: 'An aggregator that does not answer is reported `unknown` and its stored catalogue is left as it was.',
      permission: 'manage delivery routes',
      body: syncBody,
      response: aggregatorSyncResponseSchema,
    },
    async (req, ctx) => {
      const only = (req.body as { aggregators?: Aggregator[] }).aggregators;
      const usable = Object.fromEntries(Object.entries(deps.operators ?? {}).filter(([name]) => deps.usableAggregator?.(name) ?? true));
      const results = await syncAggregators(ctx, usable, only);
      return { message: results.some((r) => r.status !== 'ok') ? 'api:routes.sync_partial' : 'api:routes.synced', data: { aggregators: results } };
    },
  );

  const connectors = new ApiRouter(registry, '/connectors', 'Delivery routes');
  connectors.get(
    '/mode',
    {
      summary: 'Whether payments, deliveries and SMS receipts are real (live) or stand-ins (sandbox) on this server',
      description:
        "payments: live when every gateway that takes new charges is real, sandbox when none is, mixed otherwise (e.g. a real eDahab beside the stand-in gateway: customers paying by eDahab are charged, the others are not). deliveries: live when every aggregator that may deliver is real, sandbox when none is, mixed otherwise, none when no aggregator may deliver (real payments and no real aggregator: every sale fails undelivered). sms: live (Africa's Talking), sandbox (the embedded stand-in) or off (no receipts are written). Every console user who sees the dashboard may read it: a dealer's customers are charged or not by it.",
      permission: 'view dashboard',
      response: connectorModeResponseSchema,
    },
    // Read at each request, like the list below.
    async () => ({ data: connectorMode({ ...deps, gateways: deps.gateways ?? (money.payment ? PaymentGateways.from(money.payment) : undefined) }) }),
  );
  connectors.get(
    '/',
    {
      summary: 'The payment gateways and aggregators this server talks to, with what each can do',
      permission: ['view delivery routes'],
      response: z.array(connectorResponseSchema),
    },
    // Read at each request: a test's adapters are set after the app is made.
    async () => ({ data: connectorList({ gateways: money.payment ? PaymentGateways.from(money.payment) : undefined, ...deps }) }),
  );

  return { providers, aggregators, connectors };
}

/** Whether this process's payments, deliveries and SMS receipts are real (GET /connectors/mode); no names, URLs or settings. */
export function connectorMode(deps: RoutingDeps, sms: ConnectorMode['sms'] = smsMode()): ConnectorMode {
  const live = new Set(deps.live ?? []);
  const primary = deps.gateways?.primary.name;
  const primaryLive = primary !== undefined && live.has(primary);
  // The gateways that take new charges: while the primary is real no stand-in does (sale-steps.ts
  // refuses the sandbox, edahab-connector.ts builds its stand-in without charges); else every one
  // does, a real eDahab beside the sandbox too.
  const charging = (deps.gateways?.all() ?? []).filter((g) => !primaryLive || live.has(g.name)).map((g) => g.name);
  // The aggregators a sale may be routed to (a stand-in is never one while payments are real).
  const delivering = Object.keys(deps.operators ?? {}).filter((name) => deps.usableAggregator?.(name) ?? true);
  return {
    payments: mix(charging, live),
    // None: real payments and no real aggregator, so no sale can be delivered (not "sandbox": no stand-in delivers either).
    deliveries: delivering.length === 0 ? 'none' : mix(delivering, live),
    sms,
  };
}

/** Live when every one of these connectors is real, sandbox when none is (or there are none), mixed otherwise. */
function mix(names: string[], live: Set<string>): 'live' | 'sandbox' | 'mixed' {
  const real = names.filter((name) => live.has(name)).length;
  return real === 0 ? 'sandbox' : real === names.length ? 'live' : 'mixed';
}

/** Every connector of this process with its capabilities, as data (the console reads it). */
export function connectorList(deps: RoutingDeps) {
  const live = new Set(deps.live ?? []);
  const payments = deps.gateways?.all() ?? [];
  return [
    ...payments.map((g) => ({ name: g.name, kind: 'payment' as const, live: live.has(g.name), capabilities: { ...g.capabilities } })),
    ...Object.values(deps.operators ?? {}).map((o) => ({
      name: o.name,
      kind: 'delivery' as const,
      live: live.has(o.name),
      capabilities: { ...o.capabilities },
    })),
  ];
}
