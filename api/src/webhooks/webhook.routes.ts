import { z } from 'zod';
import {
  webhookDeliveryListQuery,
  webhookDeliveryResponseSchema,
  webhookEndpointResponseSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  type WebhookEndpointInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import {
  listDeliveries,
  removeEndpoint,
  resendDelivery,
  rotateSecret,
  sendTestEvent,
  setEndpoint,
  showDelivery,
  showEndpoint,
  type DeliveryFilters,
} from './webhook.service.ts';

const dealerQuery = z.object({ dealer_id: z.string().optional().describe('Admins: the dealer (id or h_id); a dealer is always itself') });
const deliveryQuery = webhookDeliveryListQuery.extend(dealerQuery.shape);

/** /dealer/webhook: a dealer's endpoint and secret (admins: ?dealer_id=). Rules in webhook.service.ts. */
export function webhookEndpointRoutes(registry: OpenApiRegistry, opts: { allowLoopback: boolean }) {
  const api = new ApiRouter(registry, '/dealer/webhook', 'Webhooks');
  api.get(
    '/',
    {
      summary: "The dealer's webhook endpoint (null when none is set); never its secret",
      permission: 'view webhooks',
      query: dealerQuery,
      response: webhookEndpointResponseSchema.nullable(),
    },
    async (req, ctx) => ({ data: await showEndpoint(ctx, req.query.dealer_id) }),
  );
  api.put(
    '/',
    {
      summary: 'Set where events go: https, or http on loopback for development. The first time the answer carries the signing secret, once',
      permission: 'manage webhooks',
      query: dealerQuery,
      body: webhookEndpointSchema,
      response: webhookEndpointWithSecretSchema.partial({ secret: true }),
      errors: { 201: 'The endpoint was made: the answer carries its secret, once' },
    },
    async (req, ctx) => {
      const { created, endpoint } = await setEndpoint(ctx, req.query.dealer_id, req.body as WebhookEndpointInput, opts.allowLoopback);
      return { status: created ? 201 : 200, message: created ? 'api:webhooks.created' : 'api:webhooks.updated', data: endpoint };
    },
  );
  api.delete(
    '/',
    {
      summary: 'Stop sending events (those still waiting are failed)',
      permission: 'manage webhooks',
      query: dealerQuery,
      response: null,
      errors: { 404: 'No webhook is set' },
    },
    async (req, ctx) => {
      await removeEndpoint(ctx, req.query.dealer_id);
      return { message: 'api:webhooks.removed' };
    },
  );
  api.post(
    '/rotate-secret',
    {
      summary: 'A new signing secret, in this answer only; the previous one also signs for 24 hours. Again within a minute: the same new secret',
      permission: 'manage webhooks',
      query: dealerQuery,
      response: webhookEndpointWithSecretSchema,
      errors: { 404: 'No webhook is set' },
    },
    async (req, ctx) => ({ message: 'api:webhooks.secret_rotated', data: await rotateSecret(ctx, req.query.dealer_id) }),
  );
  api.post(
    '/test',
    {
      summary: 'Send a webhook.test event now',
      permission: 'manage webhooks',
      query: dealerQuery,
      status: 201,
      response: webhookDeliveryResponseSchema,
      errors: { 404: 'No webhook is set', 409: 'The endpoint is disabled (a 410): set its URL again first' },
    },
    async (req, ctx) => ({ status: 201, message: 'api:webhooks.test_queued', data: await sendTestEvent(ctx, req.query.dealer_id) }),
  );
  return api;
}

/** /webhook-deliveries: the events sent (or being sent), with "resend". */
export function webhookDeliveryRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/webhook-deliveries', 'Webhooks');
  api.get(
    '/',
    {
      summary: "Webhook deliveries, newest first: a dealer's own; admins every dealer's, or one's",
      permission: 'view webhooks',
      query: deliveryQuery,
      list: true,
      response: webhookDeliveryResponseSchema,
    },
    async (req, ctx) => listDeliveries(ctx, req.query as DeliveryFilters),
  );
  api.get(
    '/:id',
    {
      summary: 'One delivery with the body sent',
      permission: 'view webhooks',
      response: webhookDeliveryResponseSchema,
      errors: { 404: 'No such delivery (of this dealer)' },
    },
    async (req, ctx) => ({ data: await showDelivery(ctx, String(req.params.id)) }),
  );
  api.post(
    '/:id/resend',
    {
      summary: 'Send the event again now (same id, same body)',
      permission: 'manage webhooks',
      response: webhookDeliveryResponseSchema,
      errors: { 404: 'No such delivery (of this dealer)', 409: 'Being sent right now, or the endpoint is removed or disabled' },
    },
    async (req, ctx) => ({ message: 'api:webhooks.resent', data: await resendDelivery(ctx, String(req.params.id)) }),
  );
  return api;
}
