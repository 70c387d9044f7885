import { z } from 'zod';
import { API_KEY_MODES, STATUSES } from './common.ts';
import { PRICING_MODELS, USER_TYPES } from './users.ts';
import { AREA_TYPES, CONTACT_TYPES, MAIL_SECURITY, PAYMENT_GATEWAYS, PAYMENT_METHOD_TYPES } from './settings.ts';
import { TOP_UP_REQUEST_KINDS, TOP_UP_REQUEST_STATUSES, TRANSACTION_KINDS, TRANSACTION_TYPES } from './wallets.ts';
import { translationsResponseSchema } from './translations.ts';
import {
  CUSTOMER_DETAILS,
  CUSTOMER_MONEY,
  CUSTOMER_OUTCOMES,
  DELIVERY_STATES,
  PAYMENT_STATES,
  RECHARGE_STATUSES,
  REVIEW_CODES,
  REVIEW_OUTCOMES,
} from './recharges.ts';

/**
 * Response bodies. The API's presenters are typed by these (z.infer), the OpenAPI document
 * describes every `data` with them, and the console reads the same types: written once.
 */
const isoTime = z.string().describe('ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z');
const recordIds = { id: z.number().int().positive(), h_id: z.string().describe('Hashed id; accepted wherever {id} is') };
const recordTimes = { created_at: isoTime.nullable(), updated_at: isoTime.nullable(), deleted_at: isoTime.nullable() };

export const listMetaSchema = z.object({
  current_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  last_page: z.number().int(),
});

export const dealerDetailsSchema = z.object({
  brand_color: z.string(),
  company_name: z.string().nullable(),
  description: z.string().nullable(),
  website: z.string().nullable(),
  contact_email: z.string().nullable(),
  contact_phone: z.string().nullable(),
  pricing_model: z.enum(PRICING_MODELS),
  logo_path: z.string().nullable().describe('URL path under /storage, or null'),
  translations: translationsResponseSchema,
});

export const userResponseSchema = z.object({
  ...recordIds,
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  address: z.string().nullable(),
  dealer_code: z.string().nullable(),
  status: z.enum(STATUSES),
  user_type: z.enum(USER_TYPES),
  roles: z.array(z.object({ id: z.number().int(), name: z.string() })),
  permissions: z.array(z.object({ name: z.string() })),
  profile_image: z.string().nullable(),
  dealer_details: dealerDetailsSchema.nullable(),
  ...recordTimes,
  email_verified_at: isoTime.nullable(),
  last_login_at: isoTime.nullable(),
  two_factor_enabled: z.boolean(),
  two_factor_required: z.boolean().describe('A role of the user requires two-factor sign-in; not enabled yet: only enrolment is open'),
});
export type UserResponse = z.infer<typeof userResponseSchema>;

export const permissionResponseSchema = z.object({ id: z.number().int(), name: z.string(), group: z.string().nullable() });
export type PermissionResponse = z.infer<typeof permissionResponseSchema>;

export const roleResponseSchema = z.object({
  ...recordIds,
  name: z.string(),
  guard_name: z.literal('web'),
  description: z.string().nullable(),
  protected: z.boolean(),
  requires_two_factor: z.boolean(),
  permissions: z.array(permissionResponseSchema),
  users_count: z.number().int(),
  ...recordTimes,
});
export type RoleResponse = z.infer<typeof roleResponseSchema>;

export const bannerResponseSchema = z.object({
  ...recordIds,
  title: z.string(),
  image: z.string().describe('URL path under /storage'),
  link_url: z.string().nullable(),
  sort_order: z.number().int(),
  status: z.enum(STATUSES),
  dealer_id: z.number().int().nullable().describe('null: shown on every storefront'),
  translations: translationsResponseSchema,
  dealer: z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), dealer_code: z.string().nullable() }).nullable(),
  ...recordTimes,
});
export type BannerResponse = z.infer<typeof bannerResponseSchema>;

export const sessionResponseSchema = z.object({
  user: userResponseSchema,
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: isoTime,
});

export const affectedSchema = z.object({ affected: z.number().int() });
export const lockStateSchema = z.object({ is_locked: z.boolean() });
export const meResponseSchema = z.object({ user: userResponseSchema, is_locked: z.boolean() });
export const profileResponseSchema = z.object({ user: userResponseSchema });

const ref = z.object({ id: z.number().int(), h_id: z.string(), name: z.string() });

export const providerResponseSchema = z.object({
  ...recordIds,
  name: z.string(),
  code: z.string(),
  logo: z.string().nullable().describe('URL path under /storage, or null'),
  phone_prefixes: z.array(z.string()),
  adapter_key: z.string(),
  external_operator_id: z.string().nullable(),
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
  translations: translationsResponseSchema,
  categories_count: z.number().int(),
  ...recordTimes,
});
export type ProviderResponse = z.infer<typeof providerResponseSchema>;

export const categoryResponseSchema = z.object({
  ...recordIds,
  provider_id: z.number().int(),
  provider: ref.nullable(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
  translations: translationsResponseSchema,
  bundles_count: z.number().int(),
  ...recordTimes,
});
export type CategoryResponse = z.infer<typeof categoryResponseSchema>;

/** A shop offering a bundle below its cost: the dealer and its price ("12.50"; the suggested price when it set none). */
export const shopBelowCostSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  name: z.string(),
  dealer_code: z.string().nullable(),
  selling_price: z.string(),
});
export type ShopBelowCost = z.infer<typeof shopBelowCostSchema>;

export const bundleResponseSchema = z.object({
  ...recordIds,
  category_id: z.number().int(),
  category: ref.nullable(),
  provider: ref.nullable(),
  name: z.string(),
  data_volume_mb: z.number().int().nullable().describe('null: unlimited'),
  validity_days: z.number().int(),
  cost_price: z.string().optional().describe('Only for holders of "view bundles prices"'),
  selling_price: z.string(),
  operator_product_code: z.string().nullable(),
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
  translations: translationsResponseSchema,
  off_sale_shops: z
    .array(shopBelowCostSchema)
    .optional()
    .describe(
      'Shops that offer the bundle at a price below its cost, so their storefront does not sell it (a cost raised above their price). Only staff with "view bundles prices"',
    ),
  ...recordTimes,
});
export type BundleResponse = z.infer<typeof bundleResponseSchema>;

/** A dealer named in another record's answer (a payment method's, an API key's, a webhook's). */
export const dealerRefSchema = z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), dealer_code: z.string().nullable() });
/** GET /bundles/{id}/shops-below-cost: the shops a cost (and suggested price) would take the bundle off. */
export const shopsBelowCostResponseSchema = z.object({ count: z.number().int(), shops: z.array(shopBelowCostSchema) });
export type ShopsBelowCostResponse = z.infer<typeof shopsBelowCostResponseSchema>;

export const paymentMethodResponseSchema = z.object({
  ...recordIds,
  name: z.string(),
  type: z.enum(PAYMENT_METHOD_TYPES),
  gateway: z.enum(PAYMENT_GATEWAYS).describe('What takes its payments: `manual` is paid to the dealer in person (never a PIN prompt, not bought online)'),
  account_number: z.string().nullable(),
  instructions: z.string().nullable(),
  logo: z.string().nullable().describe('URL path under /storage, or null'),
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
  dealer_id: z.number().int().nullable().describe("null: the company's own method"),
  translations: translationsResponseSchema,
  dealer: dealerRefSchema.nullable(),
  ...recordTimes,
});
export type PaymentMethodResponse = z.infer<typeof paymentMethodResponseSchema>;

export const contactResponseSchema = z.object({
  ...recordIds,
  type: z.enum(CONTACT_TYPES),
  label: z.string().nullable(),
  value: z.string(),
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
  dealer_id: z.number().int().nullable().describe("null: the company's own contact"),
  translations: translationsResponseSchema,
  dealer: dealerRefSchema.nullable(),
  ...recordTimes,
});
export type ContactResponse = z.infer<typeof contactResponseSchema>;

export const areaResponseSchema = z.object({
  ...recordIds,
  name: z.string(),
  code: z.string().nullable(),
  type: z.enum(AREA_TYPES),
  parent_id: z.number().int().nullable(),
  parent: ref.nullable(),
  children_count: z.number().int(),
  status: z.enum(STATUSES),
  ...recordTimes,
});
export type AreaResponse = z.infer<typeof areaResponseSchema>;

/** The company settings as stored (what the rest of the product reads). */
export const companySettingsValuesSchema = z.object({
  company_name: z.string(),
  logo: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  currency: z.string(),
  timezone: z.string(),
  footer_text: z.string().nullable(),
});
export type CompanySettings = z.infer<typeof companySettingsValuesSchema>;

export const companySettingsResponseSchema = companySettingsValuesSchema.extend({
  currency_locked: z
    .boolean()
    .describe('Money exists (a live ledger row or a live sale): the currency can no longer change without a conversion done by an operator'),
  currency_locked_reason: z.string().nullable().describe("Why, in the reader's language; null when the currency can still change"),
});
export type CompanySettingsResponse = z.infer<typeof companySettingsResponseSchema>;

export const mailSettingsResponseSchema = z.object({
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  security: z.enum(MAIL_SECURITY),
  username: z.string().nullable(),
  password_set: z.boolean().describe('The password itself is never answered'),
  from_address: z.string().nullable(),
  from_name: z.string().nullable(),
  configured: z.boolean(),
});
export type MailSettingsResponse = z.infer<typeof mailSettingsResponseSchema>;

/** One row of a dealer's catalogue: the company's item, whether the dealer offers it, and the dealer's order. */
const dealerSelection = {
  id: z.number().int().describe("The operator's, category's or bundle's own id"),
  h_id: z.string(),
  dealer_id: z.number().int(),
  name: z.string().describe("In the reader's language (?lng=, else Accept-Language) where translated, else as typed; so are the nested names"),
  available: z.boolean().describe('Active in the company catalogue (an inactive item never reaches a storefront)'),
  enabled: z.boolean().describe('Offered by this dealer'),
  status: z.enum(STATUSES).describe("The dealer's switch: active = enabled"),
  sort_order: z.number().int(),
};

export const dealerProviderResponseSchema = z.object({
  ...dealerSelection,
  code: z.string(),
  logo: z.string().nullable(),
  categories_count: z.number().int(),
  enabled_categories_count: z.number().int(),
});
export type DealerProviderResponse = z.infer<typeof dealerProviderResponseSchema>;

export const dealerCategoryResponseSchema = z.object({
  ...dealerSelection,
  provider_id: z.number().int(),
  provider: ref,
  description: z.string().nullable(),
  bundles_count: z.number().int(),
  enabled_bundles_count: z.number().int(),
});
export type DealerCategoryResponse = z.infer<typeof dealerCategoryResponseSchema>;

export const dealerBundleResponseSchema = z.object({
  ...dealerSelection,
  category_id: z.number().int(),
  category: ref,
  provider: ref,
  data_volume_mb: z.number().int().nullable(),
  validity_days: z.number().int(),
  selling_price: z.string().describe("What this dealer's customers pay: its own price, else the default"),
  custom_price: z.string().nullable().describe("The dealer's own price; null: the default selling price"),
  default_selling_price: z.string(),
  cost_price: z.string().optional().describe('Only for holders of "view bundles prices"'),
  profit: z.string().optional().describe('selling_price - cost_price; only with "view bundles prices"'),
  below_cost: z.boolean().describe('The price is below the current cost: the storefront does not offer it until it is raised'),
});
export type DealerBundleResponse = z.infer<typeof dealerBundleResponseSchema>;

/** What a storefront may know of its dealer: public fields only (no email of the account, no pricing model, no wallet). */
export const storefrontDealerSchema = z.object({
  dealer: z.object({
    code: z.string(),
    name: z.string(),
    company_name: z.string().nullable(),
    logo: z.string().nullable(),
    brand_color: z.string(),
    description: z.string().nullable(),
    website: z.string().nullable(),
    contacts: z.array(z.object({ type: z.enum(CONTACT_TYPES), label: z.string().nullable(), value: z.string() })),
    currency: z.string(),
  }),
  banners: z.array(z.object({ id: z.number().int(), title: z.string(), image: z.string(), link_url: z.string().nullable() })),
});
export type StorefrontDealer = z.infer<typeof storefrontDealerSchema>;

export const storefrontBundleSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  name: z.string(),
  data_volume_mb: z.number().int().nullable(),
  validity_days: z.number().int(),
  price: z.string().describe("The dealer's selling price"),
});
export const storefrontProvidersSchema = z.object({
  currency: z.string(),
  providers: z.array(
    z.object({
      id: z.number().int(),
      h_id: z.string(),
      name: z.string(),
      code: z.string(),
      logo: z.string().nullable(),
      phone_prefixes: z.array(z.string()),
      categories: z.array(
        z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), description: z.string().nullable(), bundles: z.array(storefrontBundleSchema) }),
      ),
    }),
  ),
});
export type StorefrontProviders = z.infer<typeof storefrontProvidersSchema>;

export const storefrontContactSchema = z.object({ id: z.number().int(), type: z.enum(CONTACT_TYPES), label: z.string().nullable(), value: z.string() });
export const storefrontPaymentMethodSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  name: z.string(),
  type: z.enum(PAYMENT_METHOD_TYPES),
  gateway: z.enum(PAYMENT_GATEWAYS),
  prompts_payer: z
    .boolean()
    .describe(
      'true: the payer approves a prompt on their phone (enter the PIN) and the bundle is bought here; false: paid to the dealer in person (the instructions say how), not bought online',
    ),
  account_number: z.string().nullable(),
  instructions: z.string().nullable(),
  logo: z.string().nullable(),
});

const walletDealer = z.object({ id: z.number().int(), h_id: z.string(), name: z.string(), dealer_code: z.string().nullable() });

export const walletResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  dealer_id: z.number().int(),
  dealer: walletDealer,
  balance: z.string().describe('"12.50"'),
  currency: z.string(),
  pricing_model: z.enum(PRICING_MODELS),
  low_balance_threshold: z.string().nullable().describe('The dealer is told (once per crossing) when a sale takes the balance below it'),
  low_balance: z.boolean().describe('The balance is below the threshold'),
  created_at: isoTime.nullable(),
  updated_at: isoTime.nullable(),
});
export type WalletResponse = z.infer<typeof walletResponseSchema>;

export const walletTransactionResponseSchema = z.object({
  id: z.number().int(),
  wallet_id: z.number().int(),
  dealer: walletDealer,
  type: z.enum(TRANSACTION_TYPES),
  kind: z.enum(TRANSACTION_KINDS),
  amount: z.string(),
  balance_before: z.string(),
  balance_after: z.string(),
  reference: z.string().nullable(),
  note: z.string().nullable(),
  recharge_id: z.number().int().nullable(),
  actor: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  created_at: isoTime,
});
export type WalletTransactionResponse = z.infer<typeof walletTransactionResponseSchema>;

export const myWalletResponseSchema = z.object({
  wallet: walletResponseSchema,
  transactions: z.array(walletTransactionResponseSchema).describe('The latest 10'),
  days: z
    .array(z.object({ date: z.string(), credits: z.string(), debits: z.string(), balance: z.string() }))
    .describe('The last 30 days, oldest first, in the company time zone'),
  pending_top_ups: z.number().int(),
  missed_sales_today: z.object({ count: z.number().int(), amount: z.string() }).describe('Purchases refused today because the wallet was empty'),
});

export const topUpRequestResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  wallet_id: z.number().int(),
  dealer: walletDealer,
  kind: z.enum(TOP_UP_REQUEST_KINDS).describe('top_up: money paid in, to credit; payout: profit to pay out to the mobile number in `reference`'),
  amount: z.string(),
  reference: z.string().describe("top_up: the payment's reference; payout: the mobile number to send the money to (9 digits)"),
  note: z.string().nullable(),
  receipt: z.string().nullable().describe('URL path under /storage'),
  status: z.enum(TOP_UP_REQUEST_STATUSES),
  reason: z.string().nullable(),
  reviewed_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  reviewed_at: isoTime.nullable(),
  wallet_transaction_id: z.number().int().nullable(),
  created_at: isoTime.nullable(),
  updated_at: isoTime.nullable(),
});
export type TopUpRequestResponse = z.infer<typeof topUpRequestResponseSchema>;

/** What the storefront that made a recharge may know of it (the number partly hidden, no costs). */
export const publicRechargeSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  reference: z.string().describe('The reference to quote to the dealer'),
  status: z.enum(RECHARGE_STATUSES),
  provider_name: z.string().describe("In the request's language when the catalogue has a translation"),
  bundle_name: z.string().describe("In the request's language when the catalogue has a translation"),
  bundle_id: z.number().int().nullable().optional().describe('The catalogue bundle, to buy it again (null when it was deleted)'),
  phone: z.string().describe('Partly hidden, e.g. 61****456'),
  amount: z.string(),
  currency: z.string(),
  failure_reason: z.string().nullable().describe('Why it failed, in words a customer understands'),
  outcome: z.enum(CUSTOMER_OUTCOMES).describe('What the customer is told: each outcome has its own words'),
  money: z.enum(CUSTOMER_MONEY).describe("What happened to the customer's money"),
  detail: z
    .enum(CUSTOMER_DETAILS)
    .nullable()
    .describe(
      'More of the outcome, when it changes what the customer does: payment_slow (no payment approved yet), payment_not_started (failed before any payment was taken)',
    ),
  message: z.string().describe('The outcome in words, in the request language'),
  can_retry: z.boolean().describe('True when buying again makes sense (the payment was declined)'),
  created_at: isoTime.nullable(),
  completed_at: isoTime.nullable(),
});
export type PublicRecharge = z.infer<typeof publicRechargeSchema>;

export const rechargeResponseSchema = z.object({
  id: z.number().int(),
  h_id: z.string(),
  reference: z.string(),
  client_reference: z.string().nullable().describe("The integrator's own reference, when the sale was made with one (reseller API)"),
  mode: z.enum(API_KEY_MODES).describe('test: made with a test key, on the sandbox (no live money moved)'),
  dealer: walletDealer,
  status: z.enum(RECHARGE_STATUSES),
  provider_id: z.number().int().nullable(),
  provider_name: z.string(),
  category_name: z.string(),
  bundle_id: z.number().int().nullable(),
  bundle_name: z.string(),
  data_volume_mb: z.number().int().nullable(),
  validity_days: z.number().int().nullable(),
  pricing_model: z.enum(PRICING_MODELS),
  phone: z.string(),
  payer_phone: z.string().nullable(),
  payment_method: z.string().nullable(),
  amount: z.string(),
  cost: z.string().optional().describe('Only with "view bundles prices"'),
  profit: z
    .string()
    .optional()
    .describe(
      '0.00 unless the sale was delivered and kept (status completed): a failed, refunded or unfinished sale earns none. Only with "view bundles prices"',
    ),
  currency: z.string(),
  gateway_amount: z.string().nullable().describe('What the payment gateway said it took (WaafiPay txAmount), in gateway_currency; null when it did not say'),
  gateway_charges: z
    .string()
    .nullable()
    .optional()
    .describe(
      'The gateway\'s charges on the payment (WaafiPay merchantCharges); null when it did not say. Only staff with "view bundles prices" (a company cost)',
    ),
  gateway_currency: z.string().nullable(),
  aggregator_cost: z
    .string()
    .nullable()
    .optional()
    .describe('What the aggregator said the top-up cost, in aggregator_currency; null when it did not say. Only staff with "view bundles prices"'),
  aggregator_currency: z.string().nullable().optional().describe('Only staff with "view bundles prices"'),
  delivered_amount: z.string().nullable().describe("What reached the customer's number as the aggregator said, in delivered_currency"),
  delivered_currency: z.string().nullable(),
  fx_rate: z.string().nullable().optional().describe('The exchange rate the aggregator applied, as it wrote it. Only staff with "view bundles prices"'),
  margin: z
    .string()
    .nullable()
    .optional()
    .describe(
      'The real margin: amount less gateway_charges less aggregator_cost, for a completed sale whose aggregator cost is known in its currency (else null). Only staff with "view reports" and "view bundles prices"',
    ),
  attempts: z.number().int(),
  payment_reference: z.string().nullable(),
  operator_reference: z.string().nullable(),
  failure_reason: z.string().nullable().describe("What was recorded when it failed: free text, often the vendor's own words (English)"),
  failure_summary: z.string().nullable().describe('Why it failed, from its state, in the request language; null unless it failed'),
  payment_state: z.enum(PAYMENT_STATES),
  payment_flow: z.enum(['preauthorize', 'purchase', 'wallet']).nullable().describe("wallet: a reseller API sale paid from the dealer's wallet"),
  delivery_state: z.enum(DELIVERY_STATES),
  delivery_id: z.string().nullable().describe("The aggregator's transaction id"),
  payment_gateway: z
    .string()
    .nullable()
    .describe(
      'The payment gateway that took (or was asked for) the payment, by name (`sandbox`, `waafipay`, `edahab`); null before any payment was asked for or for a wallet sale. Every later step of the sale goes through it.',
    ),
  route: z
    .string()
    .nullable()
    .describe('The aggregator that delivered the bundle or was last tried (`sandbox`, `reloadly`, `dtone`); null before any top-up was sent.'),
  review_reason: z.string().nullable().describe("Why it was sent to review, in the system's own English words with the vendor's answer (for the record)"),
  review_code: z.enum(REVIEW_CODES).nullable().describe('Why it was sent to review, as a code to program against; null when it never was'),
  review_summary: z.string().nullable().describe('Why it was sent to review, in the request language; null when it never was'),
  needs_review_at: isoTime.nullable(),
  reviewed_by: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  reviewed_at: isoTime.nullable(),
  review_outcome: z.enum(REVIEW_OUTCOMES).nullable(),
  paid_back: z
    .object({ by: z.object({ id: z.number().int(), name: z.string() }).nullable(), at: isoTime, note: z.string(), reference: z.string().nullable() })
    .nullable()
    .describe('A payment taken through a gateway without refunds (payment_state refund_due) and paid back by a person: who, when, how'),
  created_at: isoTime.nullable(),
  processing_started_at: isoTime.nullable(),
  completed_at: isoTime.nullable(),
  failed_at: isoTime.nullable(),
  refunded_at: isoTime.nullable(),
});
export type RechargeResponse = z.infer<typeof rechargeResponseSchema>;

/** One request to a payment gateway or an aggregator and its answer (credentials redacted). */
export const remoteCallResponseSchema = z.object({
  id: z.number().int(),
  system: z
    .string()
    .describe(
      "waafipay | edahab | reloadly | dtone (a sandbox connector records its protocol's name), or `routing` for a line about the routes (taken, skipped and why)",
    ),
  operation: z.string().describe('e.g. API_PREAUTHORIZE, POST /topups, route dtone'),
  method: z.string(),
  url: z.string(),
  request: z.string().nullable().describe('JSON, credentials redacted'),
  response: z.string().nullable(),
  http_status: z.number().int().nullable(),
  outcome: z.enum(['ok', 'refused', 'unknown', 'skipped']).describe('`skipped`: a route passed over (routing lines only)'),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: isoTime,
});
export type RemoteCallResponse = z.infer<typeof remoteCallResponseSchema>;

/** GET|PUT /settings/money: the ceilings on one operation and on one balance. */
export const moneyLimitsResponseSchema = z.object({
  max_operation: z.string().describe('The most one top-up, adjustment credit or top-up request may move, "100000.00"'),
  max_balance: z.string().describe('No credit by an admin may take a balance above this'),
  max_allowed: z.string().describe('The highest value either ceiling may be set to'),
  currency: z.string(),
});
export type MoneyLimitsResponse = z.infer<typeof moneyLimitsResponseSchema>;

/** A sale refused because the dealer's wallet could not pay its cost. */
export const missedSaleResponseSchema = z.object({
  id: z.number().int(),
  dealer: dealerRefSchema,
  bundle_id: z.number().int().nullable(),
  bundle_name: z.string(),
  amount: z.string().describe('What the customer would have paid'),
  cost: z.string().optional().describe('What the wallet would have been debited; only with "view bundles prices"'),
  created_at: isoTime,
});
export type MissedSaleResponse = z.infer<typeof missedSaleResponseSchema>;

/** The dashboard's `missed_sales`: today's (company time zone), and for admins the five dealers who missed most. */
export const missedSalesSummarySchema = z.object({
  today_count: z.number().int(),
  today_amount: z.string(),
  by_dealer: z.array(z.object({ dealer: dealerRefSchema, count: z.number().int(), amount: z.string() })).describe('Top 5 by amount today; empty for a dealer'),
});

/**
 * What a log entry is about, as GET /logs names it (api/src/activity-log/subjects.ts): its name
 * and the ids the console needs to link to its page.
 */
export interface LogSubject {
  type: string;
  id: number | null;
  name: string | null;
  /** users: admin or dealer (the console opens them under /admin or /dealers). */
  user_type?: string;
  /** wallets, top-up requests, dealer catalogue switches: the dealer they belong to. */
  dealer_id?: number;
  /** categories and bundles: the operator (and category) they open under. */
  provider_id?: number;
  category_id?: number;
  /** a deleted record: its page no longer opens. */
  gone?: boolean;
}
