import {
  webhookDeliveryListQuery,
  webhookDeliveryResponseSchema,
  webhookEndpointResponseSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  type WebhookEndpointInput,
} from '@app/contracts';
import type { ApiRouter } from '../http/api-router.ts';
import { keyContext } from '../api-keys/api-key-auth.ts';
import { AppError } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { Request } from 'express';
import { listDeliveries, removeEndpoint, rotateSecret, sendTestEvent, setEndpoint, showEndpoint, type DeliveryFilters } from './webhook.service.ts';

/**
 * The dealer's one endpoint receives live events too: a test key (handed to developers and staging
 * machines) reads it and sends test events, but only a live key sets, removes or rotates it.
 */
const TEST_KEY_REFUSED = 'A test key (rk_test_) cannot change the endpoint: live events go to it too';
function liveKeyContext(req: Request, ctx: ServiceContext): ServiceContext {
  const kctx = keyContext(req, ctx);
  if (kctx.mode === 'test') throw new AppError(403, 'api:webhooks.test_key_cannot_manage');
  return kctx;
}

/**
 * The dealer's webhook on the reseller API (/api/reseller/v1/webhook): the console's rules
 * (webhook.service.ts), acting as the key's dealer, with the scope webhooks:write. A key never
 * names a dealer: it reaches its own dealer's endpoint and deliveries only.
 */
const SCOPE = 'webhooks:write';

const ENDPOINT_EXAMPLE = {
  id: 7,
  dealer: { id: 2, h_id: 'yNbzHLPR', name: 'Demo Telecom Dealer', dealer_code: 'DEMO' },
  url: 'https://shop.example.so/webhooks',
  secret_hint: '…Qk0=',
  previous_secret_expires_at: null,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-11-27T09:00:00.000Z',
  updated_at: '2026-11-27T09:00:00.000Z',
};

export function registerResellerWebhookRoutes(api: ApiRouter, opts: { allowLoopback: boolean }): void {
  api.get(
    '/webhook',
    {
      summary: "The dealer's webhook endpoint (null when none is set): its URL, the end of its secret, and whether a 410 disabled it",
      auth: 'api-key',
      scope: SCOPE,
      response: webhookEndpointResponseSchema.nullable(),
      examples: { data: ENDPOINT_EXAMPLE },
    },
    async (req, ctx) => ({ data: await showEndpoint(keyContext(req, ctx), undefined) }),
  );

  api.put(
    '/webhook',
    {
      summary: 'Set where events go (https); the first time the answer carries the signing secret, once. Setting it again enables an endpoint a 410 disabled',
      auth: 'api-key',
      scope: SCOPE,
      body: webhookEndpointSchema,
      status: 201,
      response: webhookEndpointWithSecretSchema.partial({ secret: true }),
      errors: {
        200: 'The URL changed (or the endpoint was enabled again): no secret in the answer',
        403: TEST_KEY_REFUSED,
        422: 'An address refused (not https, private, with spaces...)',
      },
      examples: {
        body: { url: 'https://shop.example.so/webhooks' },
        data: { ...ENDPOINT_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Hwy0Ngiw0E=' },
      },
    },
    async (req, ctx) => {
      const { created, endpoint } = await setEndpoint(liveKeyContext(req, ctx), undefined, req.body as WebhookEndpointInput, opts.allowLoopback);
      return { status: created ? 201 : 200, message: created ? 'api:webhooks.created' : 'api:webhooks.updated', data: endpoint };
    },
  );

  api.delete(
    '/webhook',
    {
      summary: 'Stop sending events (those still waiting are failed)',
      auth: 'api-key',
      scope: SCOPE,
      response: null,
      errors: { 403: TEST_KEY_REFUSED, 404: 'No webhook is set' },
    },
    async (req, ctx) => {
      await removeEndpoint(liveKeyContext(req, ctx), undefined);
      return { message: 'api:webhooks.removed' };
    },
  );

  api.post(
    '/webhook/rotate',
    {
      summary: 'A new signing secret, in this answer only; the previous one also signs for 24 hours. Again within a minute: the same new secret',
      auth: 'api-key',
      scope: SCOPE,
      response: webhookEndpointWithSecretSchema,
      errors: { 403: TEST_KEY_REFUSED, 404: 'No webhook is set' },
    },
    async (req, ctx) => ({ message: 'api:webhooks.secret_rotated', data: await rotateSecret(liveKeyContext(req, ctx), undefined) }),
  );

  api.post(
    '/webhook/test',
    {
      summary: 'Send a webhook.test event now',
      auth: 'api-key',
      scope: SCOPE,
      status: 201,
      response: webhookDeliveryResponseSchema,
      errors: { 404: 'No webhook is set', 409: 'The endpoint is disabled (a 410): set its URL again first' },
    },
    async (req, ctx) => ({ status: 201, message: 'api:webhooks.test_queued', data: await sendTestEvent(keyContext(req, ctx), undefined) }),
  );

  api.get(
    '/webhook/deliveries',
    {
      summary: "The dealer's webhook deliveries, newest first, with each one's attempts, last answer and the body sent",
      auth: 'api-key',
      scope: SCOPE,
      query: webhookDeliveryListQuery,
      list: true,
      response: webhookDeliveryResponseSchema,
    },
    async (req, ctx) => listDeliveries(keyContext(req, ctx), req.query as DeliveryFilters),
  );
}
