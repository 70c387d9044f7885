import express from 'express';
import { z } from 'zod';
import {
  idempotencyKeySchema,
  rechargeResponseSchema,
  resellerCatalogueSchema,
  resellerRechargeListQuery,
  resellerRechargeSchema,
  walletResponseSchema,
  walletTransactionResponseSchema,
  resellerStatementQuery,
  walletStatementResponseSchema,
  type ResellerRechargeInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { refuseWhileInFlight } from '../http/idempotency-in-flight.ts';
import { apiNotFound } from '../http/error-handler.ts';
import { createRateLimits } from '../http/rate-limits.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { openApiHandler } from '../openapi/docs.routes.ts';
import { apiKeyAuthenticator, keyContext, type KeyAuthOptions } from '../api-keys/api-key-auth.ts';
import { resellerCatalogue, resellerRecharge, resellerRechargeByReference, resellerRecharges, resellerWallet } from './reseller.service.ts';
import { statementPage, type StatementQuery } from '../wallets/statement.service.ts';
import { ownWallet } from '../wallets/wallet.service.ts';
import { registerResellerBatchRoutes } from '../recharge-batches/recharge-batch.routes.ts';
import { headerError, RESELLER_KEY_PREFIX, resellerKeyPrefix } from './idempotency-header.ts';
import { registerResellerWebhookRoutes } from '../webhooks/webhook-reseller.routes.ts';

/**
 * The reseller's Idempotency-Keys live apart from the storefront's (both are unique per dealer in
 * one column): stored behind a prefix with a "/", which a storefront key can never contain, so a
 * stranger sending the dealer's till keys to the public storefront cannot take them first.
 */
const resellerKeySchema = idempotencyKeySchema.max(128 - RESELLER_KEY_PREFIX.length, { message: 'validation:idempotency_key_invalid' });

export const RESELLER_TAG = 'Reseller API';

const RECHARGE_EXAMPLE = {
  id: 412,
  h_id: 'kVzPqjRa',
  reference: 'RC7K3M9Q2XPA',
  client_reference: null,
  mode: 'live',
  dealer: { id: 2, h_id: 'yNbzHLPR', name: 'Demo Telecom Dealer', dealer_code: 'DEMO' },
  status: 'pending',
  provider_id: 1,
  provider_name: 'Hormuud',
  category_name: 'Daily',
  bundle_id: 3,
  bundle_name: '1 GB Daily',
  data_volume_mb: 1024,
  validity_days: 1,
  pricing_model: 'cost',
  phone: '615123456',
  payer_phone: null,
  payment_method: null,
  amount: '0.55',
  cost: '0.45',
  profit: '0.10',
  currency: 'USD',
  gateway_amount: null,
  gateway_currency: null,
  delivered_amount: null,
  delivered_currency: null,
  attempts: 0,
  payment_reference: null,
  operator_reference: null,
  failure_reason: null,
  failure_summary: null,
  payment_state: 'none',
  payment_flow: 'wallet',
  delivery_state: 'none',
  delivery_id: null,
  payment_gateway: null,
  route: null,
  review_reason: null,
  review_code: null,
  review_summary: null,
  needs_review_at: null,
  reviewed_by: null,
  reviewed_at: null,
  review_outcome: null,
  paid_back: null,
  created_at: '2026-11-26T09:15:00.000Z',
  processing_started_at: null,
  completed_at: null,
  failed_at: null,
  refunded_at: null,
};

const walletQuery = z.object({
  limit: z.coerce
    .number({ message: 'validation:reseller_limit_invalid' })
    .int({ message: 'validation:reseller_limit_invalid' })
    .min(1, { message: 'validation:reseller_limit_invalid' })
    .max(100, { message: 'validation:reseller_limit_invalid' })
    .optional()
    .describe('How many of the latest ledger rows (default 20, at most 100)'),
});

/**
 * /api/reseller/v1: the reseller API, authenticated with a dealer's API key (api-keys/). Its own
 * Express router (own body parser, per-address ceiling and 404), documented in its own OpenAPI
 * document (/api/reseller/v1/openapi.json), paths relative to its base URL.
 */
export function resellerRoutes(
  registry: OpenApiRegistry,
  opts: KeyAuthOptions & { perAddressPerMinute: number; onRechargeCreated?: () => void; webhookAllowLoopback?: boolean },
): express.Router {
  registry.describeTag(
    RESELLER_TAG,
    'For dealers\u2019 own systems (a point of sale, a website, a bot): base URL /api/reseller/v1, authenticated with `Authorization: Bearer rk_live_\u2026` (or `rk_test_\u2026`), a key made on the console\u2019s API keys page with the scopes each call needs. Answers use the same envelope and error shapes as /api/v1. A revoked key (or a key whose dealer is inactive, or a live key sent under the test mark) is a 401; a missing scope or an address outside the key\u2019s allow-list a 403; more calls than the per-key limit a 429 with Retry-After. Every call is logged on the key\u2019s page. An `rk_test_\u2026` key acts on the sandbox only: its sales are paid from the dealer\u2019s test wallet (1,000.00, reset from the console) or through the sandbox gateway and delivered by the sandbox aggregator, never a real vendor; it reads its own mode\u2019s sales, wallet and events only. Test numbers, by their last four digits. The payer (sandbox gateway): 0000 declined, 0001 approved but the answer lost, 0002 HTTP 503 not processed (fails, nothing taken), 0003 never arrives (the same), 0004 the first commit\u2019s (or cancel\u2019s) answer lost, 0005 every commit and cancel 503 (review), any other approved. The number topped up (sandbox aggregator, its operator from the prefix: 61/77 Hormuud, 62/65/66 Somtel, 63 Telesom, 90 Golis, 71 Amtel): 9999 refused, 8888 delivered but the answer lost, 7777 HTTP 503 once, 6666 processing then delivered, 5555 processing then refunded, 4444 never arrives (review), 3333 processing for ever (review), any other delivered.',
  );
  // Counted in process memory unless the app passes its limits (shared through Redis with REDIS_URL).
  const limits = opts.limits ?? createRateLimits({ redisUrl: null, keyPrefix: '' });
  const api = new ApiRouter(registry, '', RESELLER_TAG, { keyAuth: apiKeyAuthenticator({ ...opts, limits }), audience: 'reseller' });

  api.get(
    '/catalogue',
    {
      summary: 'The dealer\'s operators, categories and bundles at its prices, with their cost ("view bundles prices"), and its customers\' payment methods',
      auth: 'api-key',
      scope: 'catalogue:read',
      response: resellerCatalogueSchema,
      examples: {
        data: {
          currency: 'USD',
          providers: [
            {
              id: 1,
              h_id: 'yNbzHLPR',
              name: 'Hormuud',
              code: 'HORMUUD',
              phone_prefixes: ['61', '77'],
              categories: [
                {
                  id: 1,
                  h_id: 'kVzPqjRa',
                  name: 'Daily',
                  bundles: [{ id: 3, h_id: 'QmZbTxYe', name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.55', cost: '0.45' }],
                },
              ],
            },
          ],
          payment_methods: [{ id: 4, h_id: 'PpLrWnAs', name: 'EVC Plus', type: 'evc_plus' }],
        },
      },
    },
    async (req, ctx) => ({ data: await resellerCatalogue(keyContext(req, ctx)) }),
  );

  api.post(
    '/recharges',
    {
      summary: 'Sell a bundle: paid from the dealer\u2019s wallet (payment "wallet") or by the customer\u2019s mobile money',
      description:
        '`payment: "wallet"`: the dealer\u2019s wallet pays the bundle\u2019s cost now (422 on `payment` when the balance is short, nothing written) and the dealer collects from its customer itself; a failed delivery returns the cost to the wallet. `payment: {method_id, payer_phone}`: the customer approves a mobile-money prompt, as on the storefront. Idempotent (the IETF Idempotency-Key draft): the same key with the same body answers the first sale (200, `Idempotent-Replayed: true`) and charges nothing again; another body under a used key is a 422 `idempotency.key_reused`; a missing or malformed key a 400; a retry while the first request under the key is still running a 409 `idempotency.in_progress` with Retry-After.',
      auth: 'api-key',
      scope: 'recharges:write',
      body: resellerRechargeSchema,
      status: 201,
      response: rechargeResponseSchema,
      headers: [{ name: 'Idempotency-Key', required: true, description: 'One per sale (8-125 letters, digits, _ . : -); send it again on a retry' }],
      errors: {
        200: 'The same Idempotency-Key and body again: the first sale, charged once (Idempotent-Replayed: true)',
        400: 'The Idempotency-Key header is missing or malformed',
        409: 'A request with the same Idempotency-Key is still being processed',
        422: 'The body is invalid (or the wallet short), or the Idempotency-Key was used before with a different body',
      },
      examples: { body: { bundle_id: 3, phone: '0615123456', payment: 'wallet' }, data: RECHARGE_EXAMPLE },
    },
    async (req, ctx, res) => {
      // The IETF Idempotency-Key draft's statuses: a missing or malformed key is a 400.
      const rawKey = req.get('idempotency-key');
      if (!rawKey) throw headerError('validation:idempotency_key_required');
      const checked = resellerKeySchema.safeParse(rawKey);
      if (!checked.success) throw headerError(checked.error.issues[0].message);
      const kctx = keyContext(req, ctx);
      const key = `${resellerKeyPrefix(kctx.mode)}${checked.data}`;
      const { created, recharge } = await resellerRecharge(kctx, req.body as ResellerRechargeInput, key);
      if (created) opts.onRechargeCreated?.();
      else res.setHeader('Idempotent-Replayed', 'true');
      return { status: created ? 201 : 200, message: created ? 'api:recharges.accepted' : 'api:recharges.already_accepted', data: recharge };
    },
  );

  api.get(
    '/recharges',
    {
      summary: "The dealer's sales, newest first: find by q, filter by status, phone, client_reference, from, to; sort and page",
      description:
        'Every parameter is applied and any other is refused (422 naming it), so a misspelt filter never answers every sale. `q` matches a sale\u2019s reference, phone or client_reference exactly; `status` takes several values comma-separated; `from`/`to` are company days; `sort` is created_at (default), amount, status or completed_at, `order` desc (default) or asc, ties broken by the sale\u2019s id so pages never overlap.',
      auth: 'api-key',
      scope: 'recharges:read',
      query: resellerRechargeListQuery,
      list: true,
      response: rechargeResponseSchema,
      examples: { data: [RECHARGE_EXAMPLE] },
    },
    async (req, ctx) => resellerRecharges(keyContext(req, ctx), resellerRechargeListQuery.parse(req.query)),
  );

  api.get(
    '/recharges/:reference',
    {
      summary: 'One of the dealer\u2019s sales by its reference (RC…)',
      auth: 'api-key',
      scope: 'recharges:read',
      response: rechargeResponseSchema,
      errors: { 404: 'No sale of this dealer has this reference' },
      examples: { data: { ...RECHARGE_EXAMPLE, status: 'completed', delivery_state: 'delivered', operator_reference: 'RL-88421907' } },
    },
    async (req, ctx) => ({ data: await resellerRechargeByReference(keyContext(req, ctx), String(req.params.reference)) }),
  );

  api.get(
    '/wallet',
    {
      summary: 'The dealer\u2019s balance and its latest ledger rows',
      auth: 'api-key',
      scope: 'wallet:read',
      query: walletQuery,
      response: z.object({ wallet: walletResponseSchema, transactions: z.array(walletTransactionResponseSchema).describe('Newest first') }),
    },
    async (req, ctx) => ({ data: await resellerWallet(keyContext(req, ctx), walletQuery.parse(req.query).limit ?? 20) }),
  );

  api.get(
    '/wallet/statement',
    {
      summary:
        'The dealer\u2019s statement for company days from..to (included, at most 366; default this month): opening and closing balances, totals per kind, and a page of its ledger lines, oldest first',
      auth: 'api-key',
      scope: 'wallet:read',
      query: resellerStatementQuery,
      response: walletStatementResponseSchema,
      errors: { 422: 'A date that is not a day, from after to, or a period over 366 days' },
    },
    async (req, ctx) => {
      const kctx = keyContext(req, ctx);
      return statementPage(kctx, await ownWallet(kctx), req.query as StatementQuery);
    },
  );

  registerResellerBatchRoutes(api);
  registerResellerWebhookRoutes(api, { allowLoopback: opts.webhookAllowLoopback ?? false });

  const router = express.Router();
  // The same per-address ceiling as /api/v1 (counted apart), so unknown keys cannot flood the key lookups.
  router.use(limits.perMinute('reseller-address', opts.perAddressPerMinute));
  // A retry under a key whose first request is still running: 409 idempotency.in_progress.
  router.post('/recharges', refuseWhileInFlight());
  router.use(express.json({ limit: '1mb' }));
  // This API's own OpenAPI document, public like /api/v1/openapi.json.
  router.get('/openapi.json', openApiHandler(registry, 'reseller'));
  router.use(api.router);
  router.use(apiNotFound);
  return router;
}
