import { z } from 'zod';
import { API_KEY_MODES, displayNameSchema, requiredRefSchema, type ApiKeyMode } from './common.ts';

export { API_KEY_MODES, type ApiKeyMode };
import { RECHARGE_STATUSES, somaliPhone, type RechargeStatus } from './recharges.ts';
import { listParams } from './list-query.ts';
import { nationalNumber } from './phone.ts';
import { dateParam } from './wallets.ts';
import { dealerRefSchema, storefrontBundleSchema } from './responses.ts';

/**
 * API keys per dealer and the reseller API (docs/api-conventions.md, "Reseller API"). A key is
 * shown once, as `rk_live_<prefix>_<secret>` (or `rk_test_…`, test mode); the prefix is public (it names the key in lists and
 * logs), the secret is kept only as its SHA-256.
 */
export const API_KEY_SCOPES = ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read', 'webhooks:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/**
 * A key's mode (docs/api-conventions.md, "Test mode"): `live` keys sell for real; `test` keys act
 * on the dealer's sandbox (the embedded stand-ins, a separate test wallet), never on live money.
 */
/** The start of a key of each mode: rk_live_ or rk_test_. */
export const apiKeyMark = (mode: ApiKeyMode) => `rk_${mode}_`;
/** The balance a dealer's test wallet starts with (and is reset to), in minor units: 1,000.00. */
export const TEST_WALLET_BALANCE = 100_000;
/** The most addresses and ranges one key's allow-list holds. */
export const MAX_IP_ALLOWLIST = 50;

const ipEntry = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);
/** One IPv4/IPv6 address or CIDR range (203.0.113.7, 203.0.113.0/24, 2001:db8::/32). */
export const isIpOrCidr = (value: string): boolean => ipEntry.safeParse(value).success;

/**
 * The allow-list as a list, or as the console's text (one entry per line, or separated by commas
 * or spaces). Empty: any address may use the key.
 */
const ipAllowlistSchema = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/[\s,]+/) : v === null || v === undefined ? [] : v),
  z
    .array(z.string({ message: 'validation:api_key_ip_invalid' }), { message: 'validation:api_key_ip_invalid' })
    .transform((list) => [...new Set(list.map((s) => s.trim()).filter(Boolean))])
    .superRefine((list, ctx) => {
      if (list.some((entry) => !isIpOrCidr(entry))) ctx.addIssue({ code: 'custom', message: 'validation:api_key_ip_invalid' });
      if (list.length > MAX_IP_ALLOWLIST) ctx.addIssue({ code: 'custom', message: 'validation:api_key_ip_too_many' });
    }),
);

/** POST /dealer/api-keys (admins add ?dealer_id=). */
export const createApiKeySchema = z.object({
  name: displayNameSchema({ required: 'validation:api_key_name_required', max: 'validation:api_key_name_too_long' }, 100),
  scopes: z
    .array(z.enum(API_KEY_SCOPES, { message: 'validation:api_key_scope_invalid' }), { message: 'validation:api_key_scopes_required' })
    .min(1, { message: 'validation:api_key_scopes_required' })
    .transform((list) => API_KEY_SCOPES.filter((s) => list.includes(s))),
  ip_allowlist: ipAllowlistSchema,
  mode: z
    .enum(API_KEY_MODES, { message: 'validation:api_key_mode_invalid' })
    .default('live')
    .describe('live (default): sells for real; test: the sandbox (stand-ins, a test wallet), never live money'),
});
export type CreateApiKey = z.output<typeof createApiKeySchema>;

const isoTime = z.string().describe('ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z');

export const apiKeyResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  dealer: dealerRefSchema,
  name: z.string(),
  prefix: z.string().describe('The public start of the key, rk_live_<prefix>_… or rk_test_<prefix>_…: how the key is named in lists and logs'),
  mode: z.enum(API_KEY_MODES).describe('live: sells for real; test: acts on the sandbox only'),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  ip_allowlist: z.array(z.string()).describe('Addresses and CIDR ranges that may use the key; empty: any'),
  last_used_at: isoTime.nullable().describe('Kept to the minute'),
  last_used_ip: z.string().nullable(),
  created_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  created_at: isoTime,
  revoked_at: isoTime.nullable(),
  revoked_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
});
export type ApiKeyResponse = z.infer<typeof apiKeyResponseSchema>;

/** The answer to a creation: the key in full, this once. */
export const createdApiKeySchema = z.object({
  api_key: apiKeyResponseSchema,
  key: z.string().describe('The whole key, rk_live_<prefix>_<secret> or rk_test_<prefix>_<secret>: shown only in this answer, never again'),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyUseResponseSchema = z.object({
  id: z.number().int(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: isoTime,
});
export type ApiKeyUseResponse = z.infer<typeof apiKeyUseResponseSchema>;

/* ---------------- the reseller API (/api/reseller/v1) ---------------- */

/** An integrator's own reference for a sale (its till's receipt number, an order id): kept and echoed, never interpreted. */
export const clientReferenceSchema = z
  .string({ message: 'validation:client_reference_invalid' })
  .trim()
  .min(1, { message: 'validation:client_reference_invalid' })
  .max(100, { message: 'validation:client_reference_invalid' })
  .regex(/^[\x21-\x7E]+$/, { message: 'validation:client_reference_invalid' })
  .describe('Your own reference for the sale (1-100 printable ASCII characters, no spaces), echoed in answers and webhooks');

/**
 * POST /recharges: `wallet` (the dealer pays the cost from its wallet and collects from its
 * customer itself, the point-of-sale case) or the customer's mobile-money payment as on the storefront.
 */
export const resellerRechargeSchema = z.object({
  bundle_id: requiredRefSchema('validation:bundle_required'),
  phone: somaliPhone('validation:phone_required'),
  payment: z.union(
    [
      z.literal('wallet'),
      z.object({
        method_id: requiredRefSchema('validation:payment_method_required'),
        payer_phone: somaliPhone('validation:payer_phone_required'),
      }),
    ],
    { message: 'validation:reseller_payment_invalid' },
  ),
  client_reference: clientReferenceSchema.optional(),
});
export type ResellerRechargeInput = z.output<typeof resellerRechargeSchema>;

/** The orders of the reseller's GET /recharges (each ties on the sale's id, in the same direction). */
export const RECHARGE_LIST_SORTS = ['created_at', 'amount', 'status', 'completed_at'] as const;
export type RechargeListSort = (typeof RECHARGE_LIST_SORTS)[number];

/** One status or several, comma-separated: `completed,refunded`. */
export const rechargeStatusesParam = z
  .string({ message: 'validation:recharge_status_invalid' })
  .refine((v) => v.split(',').every((s) => (RECHARGE_STATUSES as readonly string[]).includes(s.trim())), { message: 'validation:recharge_status_invalid' })
  .transform((v) => [...new Set(v.split(',').map((s) => s.trim() as RechargeStatus))])
  .optional()
  .describe(`One status or several, comma-separated (${RECHARGE_STATUSES.join(', ')})`);

/**
 * GET /api/reseller/v1/recharges (docs/api-conventions.md, "Reseller API"): every parameter is
 * applied, any other is refused with its name (a 422), so a typo never answers every sale.
 */
export const resellerRechargeListQuery = z.object({
  ...listParams({ sort: RECHARGE_LIST_SORTS, defaultSort: 'created_at' }),
  q: z
    .string({ message: 'validation:reseller_q_invalid' })
    .trim()
    .min(1, { message: 'validation:reseller_q_invalid' })
    .max(100, { message: 'validation:reseller_q_invalid' })
    .optional()
    .describe(
      'A sale by what you know of it, matched exactly: its reference (RC…, any case), its phone (any form a sale accepts: 0615123456, +252 61 512 3456…) or your client_reference',
    ),
  status: rechargeStatusesParam,
  phone: z
    .string({ message: 'validation:phone_somali_invalid' })
    .refine((v) => nationalNumber(v) !== null, { message: 'validation:phone_somali_invalid' })
    .transform((v) => nationalNumber(v)!)
    .optional()
    .describe('The number topped up, in any form a sale accepts (0615123456, +252615123456, 615123456): its sales only'),
  client_reference: clientReferenceSchema.optional().describe('Your client_reference, exact: the sales you sent with it'),
  from: dateParam.describe('A day (YYYY-MM-DD) in the company time zone'),
  to: dateParam.describe('A day (YYYY-MM-DD) in the company time zone, included'),
});
export type ResellerRechargeListQuery = z.output<typeof resellerRechargeListQuery>;

export const resellerBundleSchema = storefrontBundleSchema.extend({
  validity_days: z.number().int().nullable(),
  cost: z.string().optional().describe("What the dealer's wallet pays for the bundle with payment 'wallet'; only with \"view bundles prices\""),
});
export const resellerCatalogueSchema = z.object({
  currency: z.string(),
  providers: z.array(
    z.object({
      id: z.number().int(),
      h_id: z.string(),
      name: z.string(),
      code: z.string(),
      phone_prefixes: z.array(z.string()),
      categories: z.array(z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), bundles: z.array(resellerBundleSchema) })),
    }),
  ),
  payment_methods: z
    .array(z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), type: z.string() }))
    .describe("The methods a customer may pay with ({method_id, payer_phone}); 'wallet' is always possible"),
});
export type ResellerCatalogue = z.infer<typeof resellerCatalogueSchema>;
