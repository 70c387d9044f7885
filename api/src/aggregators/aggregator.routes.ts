import type { Knex } from 'knex';
import { z } from 'zod';
import { aggregatorAlertSchema, aggregatorFloatSchema, aggregatorLabel, aggregatorResponseSchema, type AggregatorFloatInput } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { forbidden } from '../http/errors.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { floatAdapter, floatAlerts, findFloat, listFloats, readFloat, setFloatThreshold, type FloatSources } from './float.service.ts';

const EXAMPLE = {
  name: 'reloadly',
  label: 'Reloadly',
  live: true,
  balance: '812.40',
  currency: 'USD',
  threshold: '500.00',
  checked_at: '2026-11-27T09:10:00.000Z',
  check_error: null,
  below_threshold: false,
  days_left: 6.2,
  daily_spend: '131.05',
};

/** Floats are the company's money at its vendors: staff only, whatever a dealer's role was given. */
const staffOnly = (ctx: ServiceContext) => {
  if (isDealer(ctx.actor)) throw forbidden();
};

/**
 * /aggregators (the list and each float), /aggregators/alerts, PUT /aggregators/{name} (its alert
 * threshold) and POST /aggregators/{name}/check (read it now). Mounted on the same prefix as the
 * routing's /aggregators/{aggregator}/products and /aggregators/sync, whose paths these never match.
 * `sources` is read at each request: a test's adapters are set after the app is made.
 */
export function aggregatorRoutes(registry: OpenApiRegistry, sources: FloatSources) {
  const r = new ApiRouter(registry, '/aggregators', 'Delivery routes');
  r.get(
    '/',
    {
      summary: "Each aggregator's float: the last balance read, its alert threshold, and how many days it lasts at the last 7 days' spend",
      description:
        '`days_left` is the balance over the average daily spend through the aggregator in the last 7 full company days (what the aggregator said each completed sale cost, else its cost), rounded down to one decimal; null without spend.',
      permission: 'view delivery routes',
      response: z.array(aggregatorResponseSchema),
      examples: { data: [EXAMPLE] },
    },
    async (_req, ctx) => {
      staffOnly(ctx);
      return { data: await listFloats(ctx.db as Knex, sources) };
    },
  );
  r.get(
    '/alerts',
    {
      summary: 'The aggregators whose float was last read below its threshold (the console shows a banner)',
      permission: 'view delivery routes',
      response: z.array(aggregatorAlertSchema),
    },
    async (_req, ctx) => {
      staffOnly(ctx);
      return { data: await floatAlerts(ctx.db as Knex) };
    },
  );
  r.put(
    '/:name',
    {
      summary:
        "Set (or with null clear) an aggregator's float alert: one email to the staff who manage delivery routes when a read finds the balance below it, the next after a read found it back up",
      permission: 'manage delivery routes',
      body: aggregatorFloatSchema,
      response: aggregatorResponseSchema,
      errors: { 404: 'This server reads no float of that aggregator' },
      examples: { body: { threshold: '500.00' }, data: EXAMPLE },
    },
    async (req, ctx) => {
      staffOnly(ctx);
      const name = String(req.params.name);
      const { threshold } = req.body as AggregatorFloatInput;
      await setFloatThreshold(ctx, sources, name, threshold);
      return {
        message: threshold === null ? 'api:aggregators.threshold_cleared' : 'api:aggregators.threshold_saved',
        data: await findFloat(ctx.db as Knex, sources, name),
      };
    },
  );
  r.post(
    '/:name/check',
    {
      summary: "Read an aggregator's float now; answers the aggregator (check_error says why when it did not answer)",
      permission: 'manage delivery routes',
      response: aggregatorResponseSchema,
      errors: { 404: 'This server reads no float of that aggregator' },
      examples: { data: EXAMPLE },
    },
    async (req, ctx) => {
      staffOnly(ctx);
      const adapter = floatAdapter(sources, String(req.params.name));
      await readFloat(ctx.db as Knex, adapter);
      const data = await findFloat(ctx.db as Knex, sources, adapter.name);
      return {
        message: data.check_error ? 'api:aggregators.check_failed' : 'api:aggregators.checked',
        messageVars: { aggregator: aggregatorLabel(adapter.name) },
        data,
      };
    },
  );
  return r;
}
