import { z } from 'zod';
import { STATUSES } from './common.ts';
import { PRICING_MODELS, USER_TYPES } from './users.ts';

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
  status: z.enum(STATUSES),
  sort_order: z.number().int(),
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
  bundles_count: z.number().int(),
  ...recordTimes,
});
export type CategoryResponse = z.infer<typeof categoryResponseSchema>;

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
  ...recordTimes,
});
export type BundleResponse = z.infer<typeof bundleResponseSchema>;
