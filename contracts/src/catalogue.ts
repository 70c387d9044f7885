import { z } from 'zod';
import { displayNameSchema, optionalText, recordRefSchema, requiredRefSchema, sortOrderSchema, statusSchema } from './common.ts';
import { markupPercentSchema, priceSchema } from './money.ts';
import { TRANSLATABLE_FIELDS, translationsSchema } from './translations.ts';

/**
 * The catalogue (docs/data-model.md, Catalogue): operators with their number prefixes, their
 * categories, and bundles with cost and default selling price in minor units.
 */
const name = displayNameSchema({ required: 'validation:name_required', max: 'validation:name_max_191' }, 191);

/** Operator code: short, URL-safe, unique. */
const providerCode = z
  .string({ message: 'validation:code_required' })
  .trim()
  .min(1, { message: 'validation:code_required' })
  .max(64, { message: 'validation:too_long' })
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'validation:code_invalid' });

/**
 * Number prefixes after the country code (Hormuud 61 and 77 ...): 1 to 4 digits each, at most 20.
 * Forms may send a comma list or JSON text.
 */
export const phonePrefixesSchema = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    if (t.startsWith('[')) {
      try {
        return JSON.parse(t);
      } catch {
        return v;
      }
    }
    return t === '' ? [] : t.split(',').map((s) => s.trim());
  },
  z
    .array(z.string({ message: 'validation:prefix_invalid' }), { message: 'validation:prefix_invalid' })
    .max(20, { message: 'validation:prefixes_too_many' })
    // One message on the field (where the form shows it), not one per list position.
    .refine((list) => list.every((p) => /^\d{1,4}$/.test(p)), { message: 'validation:prefix_invalid' })
    .transform((list) => [...new Set(list)]),
);

/**
 * How a provider's bundles are delivered: `sandbox` the embedded Reloadly stand-in (demo and tests,
 * whatever the configuration), `reloadly` Reloadly's API at RELOADLY_API_URL, `dtone` DT One's DVS API
 * at DTONE_API_URL (each its stand-in when unset; with DT One, a bundle's operator product code is
 * DT One's product id).
 */
export const PROVIDER_ADAPTERS = ['sandbox', 'reloadly', 'dtone'] as const;

/** The aggregator's operator id (digits); blank: detected from the customer's number. */
const externalOperatorId = z.preprocess(
  (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
  z
    .string({ message: 'validation:operator_id_invalid' })
    .regex(/^\d{1,18}$/, { message: 'validation:operator_id_invalid' })
    .nullable()
    .optional(),
);

export const providerSchema = z.object({
  name,
  code: providerCode,
  phone_prefixes: phonePrefixesSchema.optional(),
  adapter_key: z.enum(PROVIDER_ADAPTERS, { message: 'validation:invalid_value' }).optional(),
  external_operator_id: externalOperatorId,
  status: statusSchema.optional(),
  sort_order: sortOrderSchema,
  /** The name per language (multipart with a logo: JSON text). */
  translations: translationsSchema(TRANSLATABLE_FIELDS.providers),
});
export const updateProviderSchema = providerSchema.partial();

export const categorySchema = z.object({
  provider_id: requiredRefSchema('validation:provider_required'),
  name,
  description: optionalText(500),
  status: statusSchema.optional(),
  sort_order: sortOrderSchema,
  translations: translationsSchema(TRANSLATABLE_FIELDS.categories),
});
export const updateCategorySchema = categorySchema.omit({ provider_id: true }).partial();

const bundleFields = {
  category_id: requiredRefSchema('validation:category_required'),
  name,
  /** Megabytes; empty means unlimited. */
  data_volume_mb: z.preprocess(
    (v) => (v === '' || v === null ? null : typeof v === 'string' ? Number(v) : v),
    z
      .number({ message: 'validation:volume_invalid' })
      .int({ message: 'validation:volume_invalid' })
      .min(1, { message: 'validation:volume_invalid' })
      .max(10_000_000, { message: 'validation:volume_invalid' })
      .nullable()
      .optional(),
  ),
  validity_days: z.preprocess(
    (v) => (typeof v === 'string' && v !== '' ? Number(v) : v),
    z
      .number({ message: 'validation:validity_invalid' })
      .int({ message: 'validation:validity_invalid' })
      .min(1, { message: 'validation:validity_invalid' })
      .max(366, { message: 'validation:validity_invalid' }),
  ),
  cost_price: priceSchema,
  selling_price: priceSchema,
  operator_product_code: optionalText(64),
  status: statusSchema.optional(),
  sort_order: sortOrderSchema,
  translations: translationsSchema(TRANSLATABLE_FIELDS.bundles),
};

/** The default selling price never undercuts the cost. */
const notBelowCost = (d: { cost_price?: number; selling_price?: number }, ctx: z.RefinementCtx) => {
  if (d.cost_price !== undefined && d.selling_price !== undefined && d.selling_price < d.cost_price) {
    ctx.addIssue({ code: 'custom', path: ['selling_price'], message: 'validation:selling_below_cost' });
  }
};
export const bundleSchema = z.object(bundleFields).superRefine(notBelowCost);
export const updateBundleSchema = z.object(bundleFields).omit({ category_id: true }).partial().superRefine(notBelowCost);

/**
 * The dealer catalogue (docs/data-model.md, Dealer catalogue): what a dealer offers on its
 * storefront. An admin names the dealer (`dealer_id`); a dealer is always itself.
 */
export const dealerSelectionSchema = z.object({
  dealer_id: recordRefSchema,
  status: statusSchema,
});

const nullablePrice = z.preprocess((v) => (v === '' ? null : v), priceSchema.nullable().optional());

/** A second way of setting the price sent with a markup: refused on the markup field. */
function oneWayWithMarkup(d: { selling_price?: unknown; profit?: unknown; markup_percent?: unknown }, ctx: z.RefinementCtx) {
  if (d.markup_percent !== undefined && (d.selling_price !== undefined || d.profit !== undefined))
    ctx.addIssue({ code: 'custom', path: ['markup_percent'], message: 'validation:price_profit_or_markup' });
}

/**
 * Exactly one way of setting the price: a selling price (null: the bundle's default), a profit
 * over the cost, or a markup percentage of the cost (docs/decisions.md, "Percentage markup").
 */
export const dealerBundleSchema = z
  .object({
    dealer_id: recordRefSchema,
    status: statusSchema.optional(),
    selling_price: nullablePrice,
    profit: priceSchema.optional(),
    markup_percent: markupPercentSchema.optional(),
  })
  .superRefine((d, ctx) => {
    if (d.selling_price !== undefined && d.profit !== undefined) ctx.addIssue({ code: 'custom', path: ['profit'], message: 'validation:price_or_profit' });
    oneWayWithMarkup(d, ctx);
    if (d.status === undefined && d.selling_price === undefined && d.profit === undefined && d.markup_percent === undefined)
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'validation:nothing_to_change' });
  });

/** Bulk actions over one category's bundles (or one operator's, or all): turn on/off, or price at cost + profit or cost + a markup. */
export const dealerBundlesBulkSchema = z
  .object({
    dealer_id: recordRefSchema,
    category_id: recordRefSchema,
    provider_id: recordRefSchema,
    status: statusSchema.optional(),
    profit: priceSchema.optional(),
    markup_percent: markupPercentSchema.optional(),
  })
  .superRefine((d, ctx) => {
    oneWayWithMarkup(d, ctx);
    if (d.status === undefined && d.profit === undefined && d.markup_percent === undefined)
      ctx.addIssue({ code: 'custom', path: ['profit'], message: 'validation:nothing_to_change' });
  });
