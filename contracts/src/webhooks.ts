import { z } from 'zod';
import { dealerRefSchema } from './responses.ts';

/**
 * Signed webhooks (docs/api-conventions.md, "Webhooks"): a dealer's endpoint and the events the
 * product POSTs to it, each signed with the endpoint's secret.
 */
export const WEBHOOK_EVENT_TYPES = ['recharge.completed', 'recharge.failed', 'recharge.needs_review', 'wallet.low_balance', 'webhook.test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
/** How long an event is retried, and how long a rotated-out secret still signs. */
export const WEBHOOK_RETRY_HOURS = 24;
export const WEBHOOK_PREVIOUS_SECRET_HOURS = 24;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** A loopback host name: 127.0.0.0/8, ::1 or localhost (development receivers may use http). */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/** Why a webhook URL is refused (a translation key), or null when it is fine. */
export function webhookUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'validation:webhook_url_invalid';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'validation:webhook_url_invalid';
  if (url.username || url.password) return 'validation:webhook_url_credentials';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return 'validation:webhook_url_https';
  if (url.hash) return 'validation:webhook_url_invalid';
  return null;
}

/** PUT /dealer/webhook (admins add ?dealer_id=): where the dealer's events go. */
export const webhookEndpointSchema = z.object({
  url: z
    .string({ message: 'validation:webhook_url_required' })
    .trim()
    .min(1, 'validation:webhook_url_required')
    .max(500, 'validation:webhook_url_too_long')
    .superRefine((value, ctx) => {
      const problem = webhookUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
});
export type WebhookEndpointInput = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointResponseSchema = z.object({
  id: z.number().int(),
  dealer: dealerRefSchema,
  url: z.string(),
  secret_hint: z.string().describe('The last characters of the signing secret, to tell secrets apart'),
  previous_secret_expires_at: z.string().nullable().describe('Until then the secret before the last rotation also signs each event'),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type WebhookEndpointResponse = z.infer<typeof webhookEndpointResponseSchema>;

/** The answer that carries the whole secret: when the endpoint is made, and on each rotation. */
export const webhookEndpointWithSecretSchema = webhookEndpointResponseSchema.extend({
  secret: z.string().describe('whsec_…: shown in this answer only; verify X-Webhook-Signature with it'),
});
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const webhookDeliveryResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  event_id: z.string(),
  dealer: dealerRefSchema,
  type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_answer: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string().nullable(),
  body: z.string().describe('The JSON POSTed, exactly as signed'),
});
export type WebhookDeliveryResponse = z.infer<typeof webhookDeliveryResponseSchema>;
