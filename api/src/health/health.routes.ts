import type { Knex } from 'knex';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { translateMessage } from '../i18n/server-i18n.ts';
import { RETRY_AFTER_SECONDS } from '../database/unit-of-work.ts';
import { z } from 'zod';

const healthSchema = z.object({ status: z.enum(['ok', 'degraded']), database: z.enum(['ok', 'down']) });

/**
 * Liveness and database health, for load balancers and uptime checks. The database is "ok" when
 * it answers, within its own ceiling (DB_HEALTH_TIMEOUT_SECONDS, connection included), a read of
 * the migrations table: a server that is up but has lost the schema (a dropped database) is down
 * too. Down is a 503 with Retry-After.
 */
export function healthRoutes(registry: OpenApiRegistry, knex: Knex, timeoutSeconds: number): ApiRouter {
  // Outside the per-address rate limit (app.ts), so a monitor never gets a 429.
  const api = new ApiRouter(registry, '/health', 'Health', { rateLimited: false });
  api.get(
    '/',
    {
      summary: 'Service and database health',
      auth: 'public',
      response: healthSchema,
      errors: { 503: 'The database does not answer: the error, with data {status: degraded, database: down}' },
    },
    async (req, _ctx, res) => {
      const ms = timeoutSeconds * 1000;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          // The query's own timeout marks its connection as spoiled, so the pool drops it.
          knex('knex_migrations').first('id').timeout(ms),
          // Waiting for a connection counts too.
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms`)), ms);
          }),
        ]);
        return { data: { status: 'ok', database: 'ok' } };
      } catch (err) {
        req.log?.warn({ err }, 'health: database down');
        res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS.unavailable));
        res.status(503).json({
          success: false,
          message: translateMessage(req.t, 'api:errors.database_unavailable'),
          code: 'database.unavailable',
          data: { status: 'degraded', database: 'down' },
        });
      } finally {
        clearTimeout(timer);
      }
    },
  );
  return api;
}
