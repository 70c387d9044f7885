import { z, type ZodType } from 'zod';
import { dealerRefSchema } from './responses.ts';
import { API_KEY_MODES } from './common.ts';
import { listParams } from './list-query.ts';
import { PAYMENT_STATES, RECHARGE_STATUSES, REVIEW_CODES } from './recharges.ts';
import { TRANSACTION_KINDS } from './wallets.ts';

/**
 * Signed webhooks, Standard Webhooks 1.0 (docs/api-conventions.md, "Webhooks"): a dealer's
 * endpoint and the events the product POSTs to it, each signed with the endpoint's secret.
 */
export const WEBHOOK_EVENT_TYPES = [
  'recharge.created',
  'recharge.payment_approved',
  'recharge.delivered',
  'recharge.failed',
  'recharge.needs_review',
  'recharge.refunded',
  'wallet.credited',
  'wallet.debited',
  'wallet.low_balance',
  'recharge_batch.completed',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
/**
 * The Standard Webhooks retry schedule: after the first attempt fails, again after each of these
 * (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: about three days in all), then failed.
 */
export const WEBHOOK_RETRY_SCHEDULE_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;
/** How long an event is retried in all, rounded up (the console's help says it). */
export const WEBHOOK_RETRY_HOURS = Math.ceil(WEBHOOK_RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) / 3_600);
/** How long a rotated-out secret still signs. */
export const WEBHOOK_PREVIOUS_SECRET_HOURS = 24;
/** Why an endpoint was disabled: `gone`, its receiver answered 410 Gone. */
export const WEBHOOK_DISABLED_REASONS = ['gone'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** A loopback host name: 127.0.0.0/8, ::1 or localhost (development receivers may use http). */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/** A space, a no-break or line separator, or a C0/C1 control character. */
const isSpaceOrControl = (ch: string) => {
  const code = ch.codePointAt(0)!;
  return code <= 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0x2028 || code === 0x2029;
};

/** Why a webhook URL is refused (a translation key), or null when it is fine. */
export function webhookUrlProblem(value: string): string | null {
  // Before the parser: it would quietly drop a tab or a newline and encode a space.
  if ([...value].some(isSpaceOrControl)) return 'validation:webhook_url_spaces';
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
  disabled_at: z.string().nullable().describe('When events stopped going to this endpoint (null: enabled); PUT its URL again to enable it'),
  disabled_reason: z.enum(WEBHOOK_DISABLED_REASONS).nullable().describe('gone: the receiver answered 410 Gone'),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type WebhookEndpointResponse = z.infer<typeof webhookEndpointResponseSchema>;

/** The answer that carries the whole secret: when the endpoint is made, and on each rotation. */
export const webhookEndpointWithSecretSchema = webhookEndpointResponseSchema.extend({
  secret: z.string().describe('whsec_ and base64 of the key: shown in this answer only; verify webhook-signature with it (Standard Webhooks)'),
});
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const webhookDeliveryResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  event_id: z.string(),
  dealer: dealerRefSchema,
  type: z.enum(WEBHOOK_EVENT_TYPES),
  mode: z.enum(API_KEY_MODES).describe("test: the event of a test key's sandbox"),
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

/** A recharge event's data: the sale as the dealer knows it, its cost included (the dealer is the receiver). */
export const webhookRechargeDataSchema = z.object({
  reference: z.string().describe("The sale's reference"),
  client_reference: z.string().nullable().describe("The integrator's own reference, when the sale was made with one"),
  status: z.enum(RECHARGE_STATUSES),
  payment_status: z.enum(PAYMENT_STATES).describe("Where the customer's payment stands"),
  phone: z.string(),
  operator: z.string(),
  bundle_name: z.string(),
  data_volume_mb: z.number().nullable(),
  validity_days: z.number().nullable(),
  amount: z.string().describe('What the customer pays, in major units ("0.55")'),
  cost: z.string().describe('What the dealer pays'),
  currency: z.string(),
  payment: z.enum(['wallet', 'mobile_money']),
  operator_reference: z.string().nullable(),
  failure_reason: z.string().nullable(),
  review_reason: z.string().nullable(),
  review_code: z.enum(REVIEW_CODES).nullable().describe('Why it was sent to review, as a code (see the recharge answer); null when it never was'),
  created_at: z.string().nullable(),
  completed_at: z.string().nullable().describe('When it was delivered'),
  failed_at: z.string().nullable(),
  refunded_at: z.string().nullable(),
});

/** wallet.credited / wallet.debited: one ledger row of the dealer's wallet. */
export const webhookWalletDataSchema = z.object({
  kind: z.enum(TRANSACTION_KINDS),
  amount: z.string(),
  balance_after: z.string().describe("The wallet's balance once this row was posted"),
  currency: z.string(),
  reference: z.string().nullable().describe("The sale's reference (a sale's row), or the bank reference of a top-up"),
  client_reference: z.string().nullable().describe("The sale's client_reference, when the row is a sale's and it has one"),
  created_at: z.string().nullable(),
});

export const webhookLowBalanceDataSchema = z.object({ balance: z.string(), threshold: z.string(), currency: z.string() });

export const webhookRechargeBatchDataSchema = z.object({
  id: z.string().describe("The batch's public id"),
  client_reference: z.string().nullable(),
  status: z.literal('completed'),
  lines_total: z.number().int(),
  lines_delivered: z.number().int(),
  lines_failed: z.number().int(),
  lines_pending: z.number().int(),
  created_at: z.string().nullable(),
  completed_at: z.string().nullable(),
});

export const webhookTestDataSchema = z.object({ message: z.string() });

const payload = <T extends WebhookEventType>(type: T, data: ZodType, description: string) =>
  z
    .object({
      type: z.literal(type),
      timestamp: z.string().describe("When the event happened (ISO 8601); the attempt's time is the webhook-timestamp header"),
      mode: z.enum(API_KEY_MODES).describe('test: an event of the sandbox (a test key\u2019s sale, the test wallet); live: real money'),
      data,
    })
    .describe(description);

/** Each event's whole payload `{type, timestamp, data}`; its id is the webhook-id header. */
export const WEBHOOK_EVENT_SCHEMAS: Record<WebhookEventType, ZodType> = {
  'recharge.created': payload('recharge.created', webhookRechargeDataSchema, 'A sale was accepted'),
  'recharge.payment_approved': payload('recharge.payment_approved', webhookRechargeDataSchema, "The customer's payment was approved"),
  'recharge.delivered': payload('recharge.delivered', webhookRechargeDataSchema, 'The bundle was delivered'),
  'recharge.failed': payload('recharge.failed', webhookRechargeDataSchema, 'The sale failed (money back, if any, is recharge.refunded)'),
  'recharge.needs_review': payload('recharge.needs_review', webhookRechargeDataSchema, 'The outcome is unknown: a person settles it'),
  'recharge.refunded': payload('recharge.refunded', webhookRechargeDataSchema, 'The money of the sale was returned'),
  'wallet.credited': payload('wallet.credited', webhookWalletDataSchema, "A credit to the dealer's wallet"),
  'wallet.debited': payload('wallet.debited', webhookWalletDataSchema, "A debit of the dealer's wallet"),
  'wallet.low_balance': payload('wallet.low_balance', webhookLowBalanceDataSchema, 'The wallet fell below its alert threshold'),
  'recharge_batch.completed': payload('recharge_batch.completed', webhookRechargeBatchDataSchema, 'Every line of a bulk sale has an outcome'),
  'webhook.test': payload('webhook.test', webhookTestDataSchema, 'Sent on request, to try the receiver'),
};

/** GET deliveries (the console's /webhook-deliveries adds dealer_id; the reseller API's /webhook/deliveries is the key's dealer). */
export const webhookDeliveryListQuery = z.object({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES, { message: 'validation:webhook_status_invalid' }).optional(),
  type: z.enum(WEBHOOK_EVENT_TYPES, { message: 'validation:webhook_type_invalid' }).optional(),
  mode: z.enum(API_KEY_MODES, { message: 'validation:api_key_mode_invalid' }).optional().describe('live or test events only (a key reads its own mode\u2019s)'),
  ...listParams({ sort: ['id'] }),
});
