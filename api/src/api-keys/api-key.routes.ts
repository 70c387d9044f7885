import { z } from 'zod';
import {
  API_KEY_MODES,
  walletResponseSchema,
  listParams,
  apiKeyResponseSchema,
  apiKeyUseResponseSchema,
  createApiKeySchema,
  createdApiKeySchema,
  type CreateApiKey,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import {
  createApiKey,
  listApiKeys,
  listApiKeyUses,
  resetDealerTestWallet,
  revokeApiKey,
  showApiKey,
  testWalletOf,
  type ApiKeyFilters,
} from './api-key.service.ts';

// Newest first (by id) unless order is asc.
const pageQuery = listParams({ sort: ['id'] });
const dealerQuery = z.object({ dealer_id: z.string().optional().describe('Admins: the dealer (id or h_id); a dealer is always itself') });
const listQuery = dealerQuery.extend({
  status: z.enum(['active', 'revoked'], { message: 'validation:api_key_status_invalid' }).optional(),
  mode: z.enum(API_KEY_MODES, { message: 'validation:api_key_mode_invalid' }).optional().describe('live or test keys only'),
  ...pageQuery,
});

/** /dealer/api-keys: a dealer's reseller API keys (admins: any dealer's, ?dealer_id=). Rules in api-key.service.ts. */
export function apiKeyRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/dealer/api-keys', 'API keys');

  api.get(
    '/',
    {
      summary: "API keys, newest first: a dealer's own; admins every dealer's, or one's with dealer_id",
      permission: 'view api keys',
      query: listQuery,
      list: true,
      response: apiKeyResponseSchema,
    },
    async (req, ctx) => listApiKeys(ctx, req.query as ApiKeyFilters),
  );
  api.post(
    '/',
    {
      summary: 'Create a key: the whole key (rk_live_…) is in this answer only',
      permission: 'manage api keys',
      query: dealerQuery,
      body: createApiKeySchema,
      status: 201,
      response: createdApiKeySchema,
    },
    async (req, ctx) => ({
      status: 201,
      message: 'api:api_keys.created',
      data: await createApiKey(ctx, req.query.dealer_id, req.body as CreateApiKey),
    }),
  );
  api.get(
    '/test-wallet',
    {
      summary: "The dealer's test wallet (what its rk_test_ keys' sales are paid from), or null before its first test key",
      permission: 'view api keys',
      query: dealerQuery,
      response: walletResponseSchema.nullable(),
    },
    async (req, ctx) => ({ data: await testWalletOf(ctx, req.query.dealer_id) }),
  );
  api.post(
    '/test-wallet/reset',
    {
      summary: 'Put the test wallet back to its starting balance (1,000.00): one adjustment row, sandbox money only',
      permission: 'manage api keys',
      query: dealerQuery,
      response: walletResponseSchema,
    },
    async (req, ctx) => ({ message: 'api:api_keys.test_wallet_reset', data: await resetDealerTestWallet(ctx, req.query.dealer_id) }),
  );
  api.get('/:id', { summary: 'One key (never its secret)', permission: 'view api keys', response: apiKeyResponseSchema }, async (req, ctx) => ({
    data: await showApiKey(ctx, String(req.params.id)),
  }));
  api.get(
    '/:id/uses',
    {
      summary: 'Every call made with the key, newest first',
      permission: 'view api keys',
      query: z.object(pageQuery),
      list: true,
      response: apiKeyUseResponseSchema,
    },
    async (req, ctx) => listApiKeyUses(ctx, String(req.params.id), req.query as ApiKeyFilters),
  );
  api.delete(
    '/:id',
    { summary: 'Revoke a key: its next call answers 401', permission: 'manage api keys', response: apiKeyResponseSchema },
    async (req, ctx) => ({ message: 'api:api_keys.revoked_done', data: await revokeApiKey(ctx, String(req.params.id)) }),
  );
  return api;
}
