import { z } from 'zod';
import { displayNameSchema, optionalText, recordRefSchema, sortOrderSchema, statusSchema } from './common.ts';
import { TRANSLATABLE_FIELDS, translationsSchema } from './translations.ts';

/**
 * Settings (docs/data-model.md, Settings): payment methods, storefront contacts and areas are
 * records with the generic lifecycle; company and mail are one group of keys each.
 */
const name = displayNameSchema({ required: 'validation:name_required', max: 'validation:name_max_191' }, 191);

/** Mobile money wallets of the Somali market, then bank and cash. */
export const PAYMENT_METHOD_TYPES = ['evc_plus', 'zaad', 'sahal', 'edahab', 'bank', 'cash'] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

/**
 * The gateway that takes a method's payments: `waafipay` prompts the payer for a PIN on their
 * phone (EVC Plus, Zaad, Sahal and eDahab wallets), `edahab` is eDahab's own API (Somtel's wallet:
 * a PIN prompt too; no refund through it), `sandbox` is the embedded stand-in (a shop with a real
 * gateway configured takes no payments through it), `manual` is paid to the dealer in person
 * (cash, a bank transfer, a transfer to the dealer's own number): never charged, never a PIN prompt,
 * and not bought online.
 */
export const PAYMENT_GATEWAYS = ['waafipay', 'edahab', 'sandbox', 'manual'] as const;
export type PaymentGateway = (typeof PAYMENT_GATEWAYS)[number];
/** Types no gateway can charge: their methods are always `manual`. */
export const MANUAL_ONLY_TYPES: ReadonlySet<PaymentMethodType> = new Set(['cash', 'bank']);
/** A new method's gateway when none is named: eDahab wallets go to eDahab's own API, the other wallets to WaafiPay. */
export const defaultGatewayOf = (type: PaymentMethodType): PaymentGateway =>
  MANUAL_ONLY_TYPES.has(type) ? 'manual' : type === 'edahab' ? 'edahab' : 'waafipay';
/**
 * The gateway that really takes a method's payments: a cash or bank method is paid in person
 * whatever its row says (one written before the rule, or by hand), so it is never charged.
 */
export const gatewayOf = (m: { type: PaymentMethodType; gateway?: PaymentGateway | null }): PaymentGateway =>
  MANUAL_ONLY_TYPES.has(m.type) ? 'manual' : (m.gateway ?? defaultGatewayOf(m.type));
/** Whether a method's payer gets a PIN prompt on their phone (the storefront says so, and nothing else): never for cash or bank. */
export const promptsPayer = (m: { type: PaymentMethodType; gateway?: PaymentGateway | null }) => gatewayOf(m) !== 'manual';

/**
 * Mobile money lives on one network: an EVC Plus payment comes from a Hormuud number, Zaad from
 * Telesom, Sahal from Golis, eDahab from Somtel (national prefixes after +252). Bank and cash
 * payments may come from any number.
 */
export const PAYER_NETWORKS: Partial<Record<PaymentMethodType, { network: string; prefixes: readonly string[] }>> = {
  evc_plus: { network: 'Hormuud', prefixes: ['61', '77', '68'] },
  zaad: { network: 'Telesom', prefixes: ['63'] },
  sahal: { network: 'Golis', prefixes: ['90'] },
  edahab: { network: 'Somtel', prefixes: ['62', '65', '66'] },
};

/** A wallet or merchant number (digits, spaces, + and -) or a bank account (letters too). */
export const accountNumberSchema = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
  z
    .string()
    .max(64, { message: 'validation:too_long' })
    .regex(/^[A-Za-z0-9 +\-/.]+$/, { message: 'validation:account_number_invalid' })
    .nullable()
    .optional(),
);

const paymentMethodFields = {
  name,
  type: z.enum(PAYMENT_METHOD_TYPES, { message: 'validation:payment_type_invalid' }),
  /** Default: `manual` for cash and bank, else `waafipay`. */
  gateway: z.enum(PAYMENT_GATEWAYS, { message: 'validation:payment_gateway_invalid' }).optional(),
  account_number: accountNumberSchema,
  instructions: optionalText(2000),
  status: statusSchema.optional(),
  sort_order: sortOrderSchema,
  dealer_id: recordRefSchema,
  /** Name and instructions per language (multipart with a logo: JSON text). */
  translations: translationsSchema(TRANSLATABLE_FIELDS.payment_methods),
};
/** Every type but cash needs the number the customer pays to. */
const accountNeeded = (d: { type?: string; account_number?: string | null }, ctx: z.RefinementCtx) => {
  if (d.type && d.type !== 'cash' && !d.account_number)
    ctx.addIssue({ code: 'custom', path: ['account_number'], message: 'validation:account_number_required' });
};
/** Cash and bank are paid in person: no gateway can charge them. */
const gatewayFits = (d: { type?: PaymentMethodType; gateway?: PaymentGateway }, ctx: z.RefinementCtx) => {
  if (d.type && d.gateway && MANUAL_ONLY_TYPES.has(d.type) && d.gateway !== 'manual')
    ctx.addIssue({ code: 'custom', path: ['gateway'], message: 'validation:payment_gateway_manual_only' });
};
export const paymentMethodSchema = z.object(paymentMethodFields).superRefine(accountNeeded).superRefine(gatewayFits);
export const updatePaymentMethodSchema = z.object(paymentMethodFields).partial();

export const CONTACT_TYPES = ['phone', 'whatsapp', 'email', 'address'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

const PHONE = /^\+?[0-9][0-9 ()-]{4,22}[0-9]$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Blank is reported once, as "required", not also as a bad address. */
const emailOrBlank = (v: string) => v === '' || EMAIL.test(v);
const contactFields = {
  type: z.enum(CONTACT_TYPES, { message: 'validation:contact_type_invalid' }),
  label: optionalText(191),
  value: z
    .string({ message: 'validation:contact_value_required' })
    .trim()
    .min(1, { message: 'validation:contact_value_required' })
    .max(500, { message: 'validation:too_long' }),
  status: statusSchema.optional(),
  sort_order: sortOrderSchema,
  dealer_id: recordRefSchema,
  translations: translationsSchema(TRANSLATABLE_FIELDS.contacts),
};
/** The value must fit its type: a phone number for phone and WhatsApp, an address for email. */
const valueFitsType = (d: { type?: string; value?: string }, ctx: z.RefinementCtx) => {
  if (!d.type || d.value === undefined) return;
  if ((d.type === 'phone' || d.type === 'whatsapp') && !PHONE.test(d.value))
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'validation:contact_phone_invalid' });
  if (d.type === 'email' && !EMAIL.test(d.value)) ctx.addIssue({ code: 'custom', path: ['value'], message: 'validation:email_invalid' });
};
export const contactSchema = z.object(contactFields).superRefine(valueFitsType);
export const updateContactSchema = z.object(contactFields).partial().superRefine(valueFitsType);

export const AREA_TYPES = ['region', 'city', 'district'] as const;
const areaFields = {
  name,
  code: z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim().toUpperCase()) : v),
    z
      .string()
      .max(32, { message: 'validation:too_long' })
      .regex(/^[A-Z0-9_-]+$/, { message: 'validation:code_invalid' })
      .nullable()
      .optional(),
  ),
  type: z.enum(AREA_TYPES, { message: 'validation:area_type_invalid' }).optional(),
  parent_id: recordRefSchema,
  status: statusSchema.optional(),
};
export const areaSchema = z.object(areaFields);
export const updateAreaSchema = areaSchema.partial();

/** ISO 4217 code; the storefront and console format amounts with it. */
export const CURRENCIES = ['USD', 'SOS', 'SLSH', 'KES', 'ETB', 'DJF', 'EUR', 'GBP', 'AED'] as const;

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const companySettingsSchema = z.object({
  company_name: displayNameSchema({ required: 'validation:company_name_required', max: 'validation:name_max_191' }, 191),
  address: optionalText(500),
  phone: z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
    z.string().regex(PHONE, { message: 'validation:contact_phone_invalid' }).nullable().optional(),
  ),
  email: z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
    z.string().max(191, { message: 'validation:email_max' }).regex(EMAIL, { message: 'validation:email_invalid' }).nullable().optional(),
  ),
  currency: z.enum(CURRENCIES, { message: 'validation:currency_invalid' }),
  timezone: z
    .string({ message: 'validation:timezone_invalid' })
    .trim()
    .min(1, { message: 'validation:timezone_invalid' })
    .max(64, { message: 'validation:timezone_invalid' })
    .refine(isTimeZone, { message: 'validation:timezone_invalid' }),
  footer_text: optionalText(500),
});
export type CompanySettingsInput = z.infer<typeof companySettingsSchema>;

export const MAIL_SECURITY = ['none', 'starttls', 'tls'] as const;
export const mailSettingsSchema = z.object({
  host: z
    .string({ message: 'validation:mail_host_required' })
    .trim()
    .min(1, { message: 'validation:mail_host_required' })
    .max(191, { message: 'validation:too_long' })
    .refine((v) => v === '' || /^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/.test(v), { message: 'validation:mail_host_invalid' }),
  port: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z
      .number({ message: 'validation:mail_port_invalid' })
      .int({ message: 'validation:mail_port_invalid' })
      .min(1, { message: 'validation:mail_port_invalid' })
      .max(65535, { message: 'validation:mail_port_invalid' }),
  ),
  security: z.enum(MAIL_SECURITY, { message: 'validation:mail_security_invalid' }),
  username: optionalText(191),
  /** Blank or absent keeps the stored password; `clear_password: true` removes it. Never answered back. */
  password: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().max(500, { message: 'validation:too_long' }).optional()),
  clear_password: z.boolean().optional(),
  from_address: z
    .string({ message: 'validation:mail_from_required' })
    .trim()
    .min(1, { message: 'validation:mail_from_required' })
    .max(191, { message: 'validation:email_max' })
    .refine(emailOrBlank, { message: 'validation:email_invalid' }),
  from_name: optionalText(191),
});
export type MailSettingsInput = z.infer<typeof mailSettingsSchema>;

export const testMailSchema = z.object({
  to: z
    .string({ message: 'validation:email_required' })
    .trim()
    .min(1, { message: 'validation:email_required' })
    .max(191, { message: 'validation:email_max' })
    .refine(emailOrBlank, { message: 'validation:email_invalid' }),
});
