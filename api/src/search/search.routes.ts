import { z } from 'zod';
import { SIGNED_IN } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { searchEverything } from './search.service.ts';

const hit = z.object({
  id: z.number().int(),
  h_id: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  provider_id: z.number().int().optional(),
  category_id: z.number().int().optional(),
});

/** GET /search?q=: the header search; what it finds, and for whom, is search.service.ts. */
export function searchRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/search', 'Search');
  api.get(
    '/',
    {
      summary: 'Search everything the caller may see (q: at least 2 characters)',
      permission: SIGNED_IN,
      query: z.object({ q: z.string().max(100).optional() }),
      response: z.object({ users: z.array(hit), dealers: z.array(hit), providers: z.array(hit), bundles: z.array(hit), recharges: z.array(hit) }),
    },
    async (req, ctx) => ({ data: await searchEverything(ctx, String(req.query.q ?? '')) }),
  );
  return api;
}
