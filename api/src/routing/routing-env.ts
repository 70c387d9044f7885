import type pino from 'pino';
import { z } from 'zod';
import type { ServiceContext } from '../platform/context.ts';
import type { OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { syncAggregators } from './aggregator-catalogue.ts';
import { DEFAULT_ROUTE_HEALTH } from './route-health.ts';

/**
 * Routing's settings (docs/integrations.md, "Routes and the aggregators' catalogues"): when a route
 * rests after failures and for how long, and how often the aggregators' catalogues are pulled.
 */
const num = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

export const routingEnvSchema = z.object({
  /** Definite refusals or unanswered sends in a row (a delivery clears them) on one route within the window that rest it. */
  ROUTE_UNHEALTHY_AFTER: z.coerce.number().int().min(1).default(DEFAULT_ROUTE_HEALTH.threshold),
  ROUTE_HEALTH_WINDOW_MS: z.coerce.number().int().min(1000).default(DEFAULT_ROUTE_HEALTH.windowMs),
  /** How long a resting route is passed over before it is tried again. */
  ROUTE_REST_MS: z.coerce.number().int().min(1000).default(DEFAULT_ROUTE_HEALTH.skipMs),
  /** Minutes between two syncs of the aggregators' catalogues; 0: only by the console's button (POST /aggregators/sync). */
  CATALOGUE_SYNC_MINUTES: num(360),
});
export type RoutingEnv = z.infer<typeof routingEnvSchema>;

export function readRoutingEnv(env: NodeJS.ProcessEnv = process.env): RoutingEnv {
  const parsed = routingEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) throw new Error(`Invalid routing configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * Pulls the catalogues every `minutes` (the first time shortly after start, so a new installation
 * has them): each process that runs the worker does; syncs are idempotent. Returns a stop function.
 */
export function scheduleCatalogueSync(ctx: ServiceContext, operators: Record<string, OperatorAdapter>, minutes: number, logger?: pino.Logger): () => void {
  if (!minutes) return () => undefined;
  let timer: NodeJS.Timeout;
  const run = async (next: number) => {
    try {
      const results = await syncAggregators(ctx, operators);
      for (const r of results.filter((x) => x.status !== 'ok'))
        logger?.warn({ aggregator: r.aggregator, error: r.error }, 'catalogue sync: the aggregator did not answer');
    } catch (err) {
      logger?.error({ err }, 'catalogue sync failed');
    }
    timer = setTimeout(() => void run(next), next);
    timer.unref();
  };
  timer = setTimeout(() => void run(minutes * 60_000), 30_000);
  timer.unref();
  return () => clearTimeout(timer);
}
