import { z } from 'zod';
import { PROVIDER_ADAPTERS } from './catalogue.ts';

/**
 * Delivery routes (docs/integrations.md, "Routes and the aggregators' catalogues"): an operator's
 * ordered list of aggregators. A sale takes the first healthy route that sells its bundle and moves
 * to the next only after a definite refusal.
 */
export const AGGREGATORS = PROVIDER_ADAPTERS;
export type Aggregator = (typeof AGGREGATORS)[number];
/** The most routes one operator may have (one per aggregator). */
export const MAX_ROUTES = AGGREGATORS.length;

/** A product id at the aggregator (DT One's digits) or a fixed amount in dollars (Reloadly's "5.00"). */
const productRef = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .pipe(z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'validation:route_product_invalid' }));

export const routeSchema = z.object({
  aggregator: z.enum(AGGREGATORS, { message: 'validation:route_aggregator_invalid' }),
  /** The operator's id at the aggregator; blank: detected from the number (Reloadly). */
  operator_id: z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
    z
      .string({ message: 'validation:operator_id_invalid' })
      .regex(/^\d{1,18}$/, { message: 'validation:operator_id_invalid' })
      .nullable()
      .optional(),
  ),
  /** {"<bundle id>": "<product id or amount>"}: a bundle missing here is not sold through this route. */
  products: z
    .record(z.string().regex(/^[1-9]\d{0,14}$/, { message: 'validation:route_bundle_invalid' }), productRef, { message: 'validation:route_products_invalid' })
    .default({}),
});

/** What an aggregator's products are: DT One's are ids (digits); Reloadly's (and the sandbox's) fixed amounts in dollars. */
const PRODUCT_FORMS: Record<(typeof PROVIDER_ADAPTERS)[number], { pattern: RegExp; message: string }> = {
  dtone: { pattern: /^[1-9]\d{0,14}$/, message: 'validation:route_product_dtone' },
  reloadly: { pattern: /^\d{1,6}(\.\d{1,2})?$/, message: 'validation:route_product_amount' },
  sandbox: { pattern: /^\d{1,6}(\.\d{1,2})?$/, message: 'validation:route_product_amount' },
};
export type RouteInput = z.infer<typeof routeSchema>;

export const providerRoutesSchema = z
  .object({ routes: z.array(routeSchema, { message: 'validation:routes_required' }).max(MAX_ROUTES, { message: 'validation:routes_too_many' }) })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.routes.forEach((route, i) => {
      if (seen.has(route.aggregator)) ctx.addIssue({ code: 'custom', path: ['routes', i, 'aggregator'], message: 'validation:route_aggregator_twice' });
      seen.add(route.aggregator);
      const form = PRODUCT_FORMS[route.aggregator];
      if (!form) return;
      for (const [bundle, product] of Object.entries(route.products))
        if (!form.pattern.test(product)) ctx.addIssue({ code: 'custom', path: ['routes', i, 'products', bundle], message: form.message });
    });
  });
export type ProviderRoutesInput = z.infer<typeof providerRoutesSchema>;

export const routeHealthSchema = z.object({
  /** healthy | failing (refusals or timeouts counted) | skipped (tried again after skipped_until). */
  state: z.enum(['healthy', 'failing', 'skipped']),
  failures: z.number().int(),
  skipped_until: z.string().nullable(),
  last_failure: z.string().nullable(),
  last_failure_at: z.string().nullable(),
});

export const routeResponseSchema = z.object({
  position: z.number().int(),
  aggregator: z.enum(AGGREGATORS),
  operator_id: z.string().nullable(),
  products: z.record(z.string(), z.string()),
  health: routeHealthSchema,
});

export const providerRoutesResponseSchema = z.object({
  provider_id: z.number().int(),
  /** No routes configured: the operator delivers through its adapter with each bundle's product code (one implicit route). */
  configured: z.boolean(),
  routes: z.array(routeResponseSchema),
  /** Per bundle of the operator: whether some route can deliver it now, and why not. */
  bundles: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      cost: z.number().int(),
      operator_product_code: z.string().nullable(),
      deliverable: z.boolean(),
      reason: z.string().nullable(),
    }),
  ),
});

export const aggregatorProductResponseSchema = z.object({
  aggregator: z.enum(AGGREGATORS),
  operator_id: z.string(),
  operator_name: z.string(),
  product_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  amount: z.number().int(),
  currency: z.string(),
  wholesale: z.number().int().nullable(),
  status: z.enum(['active', 'withdrawn']),
  change: z.enum(['new', 'price', 'withdrawn', 'returned']).nullable(),
  previous_amount: z.number().int().nullable(),
  previous_wholesale: z.number().int().nullable(),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  withdrawn_at: z.string().nullable(),
});

export const aggregatorSyncResponseSchema = z.object({
  aggregators: z.array(
    z.object({
      aggregator: z.enum(AGGREGATORS),
      /** ok: the catalogue was read and stored; unknown: the aggregator did not answer (nothing changed). */
      status: z.enum(['ok', 'unknown']),
      error: z.string().nullable(),
      products: z.number().int(),
      new: z.number().int(),
      changed: z.number().int(),
      withdrawn: z.number().int(),
    }),
  ),
});

export const connectorResponseSchema = z.object({
  name: z.string(),
  kind: z.enum(['payment', 'delivery']),
  /** Where it talks to: the stand-in, or the configured vendor. */
  live: z.boolean(),
  capabilities: z.record(z.string(), z.boolean()),
});

/**
 * GET /connectors/mode: whether this server's sales are real (the console's "Sandbox" chip).
 * payments: the gateways that take new charges (mixed: some real, some stand-ins); deliveries:
 * the aggregators that may deliver (mixed likewise; none: no aggregator may, so no sale can be
 * delivered); sms: where receipts go (off: none are written).
 */
export const CONNECTOR_MODES = ['live', 'sandbox', 'mixed'] as const;
export const connectorModeResponseSchema = z.object({
  payments: z.enum(CONNECTOR_MODES),
  deliveries: z.enum([...CONNECTOR_MODES, 'none']),
  sms: z.enum(['live', 'sandbox', 'off']),
});
export type ConnectorMode = z.infer<typeof connectorModeResponseSchema>;
