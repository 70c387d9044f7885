import type { Knex } from 'knex';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { translateMessage } from '../i18n/server-i18n.ts';
import { RETRY_AFTER_SECONDS } from '../database/unit-of-work.ts';
import { z } from 'zod';
import type { Readiness } from './readiness.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'degraded']), database: z.enum(['ok', 'down']) });
const liveSchema = z.object({ status: z.literal('alive') });
const readySchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  database: z.enum(['ok', 'down']),
  draining: z.boolean(),
  loops: z.record(z.string(), z.enum(['ok', 'stalled'])).describe('The background loops this process runs (the recharge worker), each ok or stalled'),
  reasons: z.array(z.string()).describe('Why the process should not get traffic (empty when ready): database down, draining, `<loop> stalled`'),
});

/**
 * The database answers with its schema: a read of the migrations table within its own ceiling
 * (DB_HEALTH_TIMEOUT_SECONDS, waiting for a connection included). Throws otherwise.
 */
async function checkDatabase(knex: Knex, timeoutSeconds: number): Promise<void> {
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
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Health for load balancers, orchestrators and uptime checks, outside the per-address rate limit
 * (mounted ahead of it in app.ts), so a monitor never gets a 429:
 *
 * - `/health`: the database is "ok" when it answers a read of the migrations table: a server that
 *   is up but has lost the schema (a dropped database) is down too. Down is a 503 with Retry-After.
 * - `/health/live`: the process answers (no database): a restart helps only when this fails.
 * - `/health/ready`: the process should get traffic: the database answers with its schema, every
 *   background loop it runs went round recently, and it is not draining (a SIGTERM arrived). 503
 *   with the reasons otherwise.
 */
export function healthRoutes(registry: OpenApiRegistry, knex: Knex, timeoutSeconds: number, readiness: Readiness): ApiRouter {
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
      try {
        await checkDatabase(knex, timeoutSeconds);
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
      }
    },
  );
  api.get(
    '/live',
    {
      summary: 'Liveness: the process answers',
      description: 'Touches nothing else (no database): an orchestrator restarts the process only when this fails.',
      auth: 'public',
      response: liveSchema,
    },
    async () => ({ data: { status: 'alive' } }),
  );
  api.get(
    '/ready',
    {
      summary: 'Readiness: the process should get traffic',
      description:
        'Ready when the database answers with its schema, every background loop this process runs (the recharge worker) went round recently, and the process is not draining (after SIGTERM it answers 503 "draining" at once while it finishes its work).',
      auth: 'public',
      response: readySchema,
      errors: { 503: 'Not ready: the error, with data {status: not_ready, reasons, ...}' },
    },
    async (req, _ctx, res) => {
      let database: 'ok' | 'down' = 'ok';
      try {
        await checkDatabase(knex, timeoutSeconds);
      } catch (err) {
        req.log?.warn({ err }, 'ready: database down');
        database = 'down';
      }
      const now = Date.now();
      const reasons = [...(database === 'down' ? ['database down'] : []), ...readiness.problems(now)];
      const data = { status: reasons.length ? 'not_ready' : 'ready', database, draining: readiness.draining, loops: readiness.loopStates(now), reasons };
      if (!reasons.length) return { data };
      res.status(503).json({ success: false, message: translateMessage(req.t, 'api:errors.not_ready'), code: 'health.not_ready', data });
    },
  );
  return api;
}
