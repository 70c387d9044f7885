import type { Knex } from 'knex';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';

/** Liveness and database reachability, for load balancers and uptime checks (503 when the database is down). */
export function healthRoutes(registry: OpenApiRegistry, knex: Knex): ApiRouter {
  const api = new ApiRouter(registry, '/health', 'Health');
  api.get('/', { summary: 'Service and database health', auth: 'public' }, async (_req, res) => {
    try {
      await knex.raw('select 1');
      return { data: { status: 'ok', database: 'ok' } };
    } catch {
      res.status(503).json({ success: false, message: 'Database unavailable', data: { status: 'degraded', database: 'down' } });
    }
  });
  return api;
}
