import { z } from 'zod';
import { displayNameSchema, httpUrlSchema, optionalText, statusSchema } from './common.ts';
import { toMinor } from './money.ts';
import { TRANSLATABLE_FIELDS, fromJsonText, translationsSchema } from './translations.ts';
import { accountNumberSchema } from './settings.ts';

/**
 * The user form payload of docs/product.md section 3, with the rules and exact messages of section 5.
 * Shared by the API (422 errors map) and the console's user form.
 */
export const USER_TYPES = ['admin', 'dealer'] as const;
export const PRICING_MODELS = ['cost', 'profit'] as const;

// Lowercase, uppercase and "special" (anything not a letter or digit), as the specification
// says; whitespace and control/format characters are not special (OWASP ASVS 5.0, V6).
const PASSWORD_CLASSES = /^(?=.*[a-z])(?=.*[A-Z])(?=.*[^A-Za-z0-9\s\p{Cc}\p{Cf}]).*$/su;

/**
 * The list of the most common passwords lives on the server (too large for the console): the
 * API installs it at start (api/src/auth/common-passwords.ts). Without one, nothing is refused
 * for being common, so the console's form simply leaves that check to the server.
 */
let isCommonPassword: (password: string) => boolean = () => false;
export function configurePasswordPolicy(policy: { isCommon: (password: string) => boolean }): void {
  isCommonPassword = policy.isCommon;
}

export const passwordSchema = z
  .string({ message: 'validation:password_required' })
  .min(1, { message: 'validation:password_required' })
  .min(8, { message: 'validation:password_min' })
  .max(255, { message: 'validation:password_max' })
  .regex(PASSWORD_CLASSES, { message: 'validation:password_classes' })
  // Said only of a password that passes the rules above: a short one needs no third message.
  .refine((v) => v.length < 8 || !PASSWORD_CLASSES.test(v) || !isCommonPassword(v), { message: 'validation:password_common' });

/** True when the password holds the email's local part (3+ characters), whatever the case. */
export function passwordContainsEmailName(password: string, email: string | undefined | null): boolean {
  const local = (email ?? '').split('@')[0]?.toLowerCase() ?? '';
  return local.length >= 3 && password.toLowerCase().includes(local);
}

export const nameSchema = displayNameSchema({ required: 'validation:name_required', max: 'validation:name_max' });

export const emailSchema = z
  .string({ message: 'validation:email_required' })
  .trim()
  .min(1, { message: 'validation:email_required' })
  .max(191, { message: 'validation:email_max' })
  .email({ message: 'validation:email_invalid' })
  .transform((v) => v.toLowerCase());

const brandColor = z.preprocess(
  (v) => (v === '' || v == null ? undefined : v),
  z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, { message: 'validation:brand_color_invalid' })
    .optional(),
);

const roleId = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z.union([z.number().int().positive(), z.string().trim().min(1)], { message: 'validation:role_required' }).optional(),
);

/** Trimmed; blank means none. It becomes part of the storefront URL, so only URL-safe characters. */
const dealerCode = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
  z
    .string()
    .max(64, { message: 'validation:too_long' })
    .regex(/^[A-Za-z0-9_-]+$/, { message: 'validation:dealer_code_invalid' })
    .nullable()
    .optional(),
);

const userFields = {
  name: nameSchema,
  email: emailSchema,
  phone: optionalText(32),
  address: optionalText(500),
  dealer_code: dealerCode,
  status: statusSchema.optional(),
  user_type: z.enum(USER_TYPES, { message: 'validation:user_type_invalid' }).optional(),
  role_id: roleId,
  brand_color: brandColor,
  company_name: optionalText(255),
  description: optionalText(2000),
  website: httpUrlSchema(255),
  contact_email: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z.string().trim().email({ message: 'validation:email_invalid' }).max(191, { message: 'validation:email_max' }).nullable().optional(),
  ),
  contact_phone: optionalText(32),
  pricing_model: z.enum(PRICING_MODELS, { message: 'validation:pricing_model_invalid' }).optional(),
  /** A dealer's company name and description per language (dealer_details.translations; multipart: JSON text). */
  translations: translationsSchema(TRANSLATABLE_FIELDS.dealer_details),
};

type UserPayloadShape = {
  user_type?: string;
  email?: string;
  dealer_code?: string | null;
  role_id?: unknown;
  password?: string;
  password_confirmation?: string;
};

/** Cross-field rules: the confirmation, the admin's role, the dealer's code. */
function crossFieldRules(data: UserPayloadShape, ctx: z.RefinementCtx, mode: 'create' | 'update'): void {
  if (data.password !== undefined && data.password !== '' && data.password !== data.password_confirmation) {
    ctx.addIssue({ code: 'custom', path: ['password_confirmation'], message: 'validation:password_mismatch' });
  }
  if (data.password && passwordContainsEmailName(data.password, data.email)) {
    ctx.addIssue({ code: 'custom', path: ['password'], message: 'validation:password_contains_email' });
  }
  if (mode === 'create') {
    const type = data.user_type ?? 'admin';
    if (type === 'admin' && (data.role_id === undefined || data.role_id === null)) {
      ctx.addIssue({ code: 'custom', path: ['role_id'], message: 'validation:role_required' });
    }
    if (type === 'dealer' && !data.dealer_code) {
      ctx.addIssue({ code: 'custom', path: ['dealer_code'], message: 'validation:dealer_code_required' });
    }
  } else if (data.user_type === 'dealer' && data.dealer_code === null) {
    ctx.addIssue({ code: 'custom', path: ['dealer_code'], message: 'validation:dealer_code_required' });
  }
}

/**
 * A new dealer may start from the company's catalogue: every operator's bundles switched on at
 * cost plus this margin ("0.10"; "0" sells at cost). Blank or absent: an empty shop.
 */
const starterMargin = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z
    .union([z.string(), z.number()], { message: 'validation:starter_margin_invalid' })
    .transform((v, ctx) => {
      const minor = toMinor(v);
      if (minor === null || minor < 0 || minor > 100_000_00) {
        ctx.addIssue({ code: 'custom', message: 'validation:starter_margin_invalid' });
        return z.NEVER;
      }
      return minor;
    })
    .optional(),
);

/**
 * A new "Cost + Profit" dealer may also start from the company's payment methods: a map from a
 * company method's id to this dealer's own account number (customers of such a shop pay the
 * dealer, so the company's numbers are never copied). Multipart: JSON text.
 */
const starterPaymentMethods = z.preprocess(
  fromJsonText,
  z
    .record(z.string().max(32), accountNumberSchema, { message: 'validation:starter_payment_methods_invalid' })
    .nullable()
    .optional()
    .refine((v) => !v || Object.keys(v).length <= 50, { message: 'validation:starter_payment_methods_invalid' })
    .transform((v) =>
      v && Object.keys(v).length ? Object.entries(v).map(([method_id, account_number]) => ({ method_id, account_number: account_number ?? null })) : undefined,
    )
    .optional(),
);

export const createUserSchema = z
  .object({
    ...userFields,
    password: passwordSchema,
    password_confirmation: z.string().optional(),
    starter_margin: starterMargin,
    starter_payment_methods: starterPaymentMethods,
  })
  .superRefine((d, ctx) => crossFieldRules(d, ctx, 'create'));

/** On edit every field is optional and a blank password means "keep the current one". */
export const updateUserSchema = z
  .object({
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    phone: userFields.phone,
    address: userFields.address,
    dealer_code: userFields.dealer_code,
    status: userFields.status,
    user_type: userFields.user_type,
    role_id: userFields.role_id,
    brand_color: userFields.brand_color,
    company_name: userFields.company_name,
    description: userFields.description,
    website: userFields.website,
    contact_email: userFields.contact_email,
    contact_phone: userFields.contact_phone,
    pricing_model: userFields.pricing_model,
    /** A new pricing model for a dealer whose wallet holds money is refused (409) unless this says it was meant. */
    confirm_pricing_change: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean()).optional(),
    translations: userFields.translations,
    password: z.preprocess((v) => (v === '' || v === null ? undefined : v), passwordSchema.optional()),
    password_confirmation: z.string().nullable().optional(),
  })
  .superRefine((d, ctx) => crossFieldRules(d as UserPayloadShape, ctx, 'update'));

export const bulkUserStatusSchema = z.object({
  ids: z
    .array(z.union([z.string().min(1), z.number().int().positive()]))
    .min(1, { message: 'validation:ids_required' })
    .max(500),
  status: statusSchema,
});

export type CreateUserInput = z.infer<typeof createUserSchema>;
export type UpdateUserInput = z.infer<typeof updateUserSchema>;
