import type { Knex } from 'knex';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { z } from 'zod';

const healthSchema = z.object({ status: z.enum(['ok', 'degraded']), database: z.enum(['ok', 'down']) });

/** Liveness and database reachability, for load balancers and uptime checks (503 when the database is down). */
export function healthRoutes(registry: OpenApiRegistry, knex: Knex): ApiRouter {
  const api = new ApiRouter(registry, '/health', 'Health');
  api.get('/', { summary: 'Service and database health', auth: 'public', response: healthSchema }, async (_req, _ctx, res) => {
    try {
      await knex.raw('select 1');
      return { data: { status: 'ok', database: 'ok' } };
    } catch {
      res.status(503).json({ success: false, message: 'Database unavailable', data: { status: 'degraded', database: 'down' } });
    }
  });
  return api;
}
