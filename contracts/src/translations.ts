import { z } from 'zod';

/**
 * Translations of the texts a dealer or an admin types (docs/data-model.md, Content
 * translations): operator, category and bundle names, banner titles, the dealer's company name
 * and description, contact labels, payment method names and instructions. Each record keeps its
 * original text in its own column and, in a nullable JSON text column `translations`, the same
 * fields per language: `{"ae": {"name": "…"}, "so": {"name": "…"}, "en": {…}}`. A storefront
 * answers each text in the customer's language, falling back to the original.
 */
export const CONTENT_LANGUAGES = ['en', 'ae', 'so'] as const;
export type ContentLanguage = (typeof CONTENT_LANGUAGES)[number];
export type Translations = Partial<Record<ContentLanguage, Record<string, string>>>;

/** The translatable fields of each table and their length limits (the originals' limits). */
export const TRANSLATABLE_FIELDS = {
  providers: { name: 191 },
  categories: { name: 191, description: 500 },
  bundles: { name: 191 },
  banners: { title: 191 },
  contacts: { label: 191 },
  payment_methods: { name: 191, instructions: 2000 },
  dealer_details: { company_name: 255, description: 2000 },
} as const satisfies Record<string, Record<string, number>>;
export type TranslatableTable = keyof typeof TRANSLATABLE_FIELDS;

/** The too-long message of a field: names say their limit, the rest the generic one. */
const tooLong = (field: string, max: number) => (field === 'name' && max === 191 ? 'validation:name_max_191' : 'validation:too_long');

/** Multipart forms send the object as JSON text; blank text or "null" means none. */
export function fromJsonText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t === '' || t === 'null') return null;
  try {
    return JSON.parse(t);
  } catch {
    return v; // reported as not an object below
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `translations` field of a create or update: optional; null clears every translation; an
 * object replaces the stored one whole. Unknown languages and fields are refused (422 on
 * `translations.<lang>` or `translations.<lang>.<field>`); each text has its original's limit.
 * Blank texts are dropped, so the output holds only what is translated (null when nothing is).
 */
export function translationsSchema<F extends Record<string, number>>(fields: F) {
  return z
    .preprocess(
      fromJsonText,
      z
        .unknown()
        .superRefine((value, ctx) => {
          if (value === null || value === undefined) return;
          if (!isPlainObject(value)) {
            ctx.addIssue({ code: 'custom', message: 'validation:translations_invalid' });
            return;
          }
          for (const [lang, texts] of Object.entries(value)) {
            if (!(CONTENT_LANGUAGES as readonly string[]).includes(lang)) {
              ctx.addIssue({ code: 'custom', path: [lang], message: 'validation:translation_language_invalid' });
              continue;
            }
            if (texts === null || texts === undefined) continue;
            if (!isPlainObject(texts)) {
              ctx.addIssue({ code: 'custom', path: [lang], message: 'validation:translations_invalid' });
              continue;
            }
            for (const [field, text] of Object.entries(texts)) {
              const max = fields[field];
              if (max === undefined) ctx.addIssue({ code: 'custom', path: [lang, field], message: 'validation:translation_field_invalid' });
              else if (text !== null && text !== undefined && typeof text !== 'string')
                ctx.addIssue({ code: 'custom', path: [lang, field], message: 'validation:translation_text_invalid' });
              else if (typeof text === 'string' && text.trim().length > max)
                ctx.addIssue({ code: 'custom', path: [lang, field], message: tooLong(field, max) });
            }
          }
        })
        .transform((value): Translations | null => {
          if (!isPlainObject(value)) return null;
          const out: Translations = {};
          for (const lang of CONTENT_LANGUAGES) {
            const texts = value[lang];
            if (!isPlainObject(texts)) continue;
            const kept: Record<string, string> = {};
            for (const field of Object.keys(fields)) {
              const text = texts[field];
              if (typeof text === 'string' && text.trim() !== '') kept[field] = text.trim();
            }
            if (Object.keys(kept).length) out[lang] = kept;
          }
          return Object.keys(out).length ? out : null;
        }),
    )
    .optional();
}

/** The shape answered with every translatable record. */
export const translationsResponseSchema = z
  .record(z.string(), z.record(z.string(), z.string()))
  .nullable()
  .describe('Texts per language ({"ae": {"name": "…"}, "so": {…}, "en": {…}}); null: none');

/** Stored JSON text (or an already parsed object) to translations; anything unreadable is none. */
export function parseTranslations(stored: unknown): Translations | null {
  let value = stored;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return isPlainObject(value) ? (value as Translations) : null;
}

/** The text of `field` in `lang`, falling back to the original. */
export function translatedText<T extends string | null>(translations: Translations | null | undefined, lang: string, field: string, original: T): T | string {
  const text = translations?.[lang as ContentLanguage]?.[field];
  return typeof text === 'string' && text.trim() !== '' ? text : original;
}

/** `field` in `lang` from a record's stored `translations` (JSON text or object), falling back to the original. */
export function translatedStoredText<T extends string | null>(stored: unknown, lang: string, field: string, original: T): T | string {
  return translatedText(parseTranslations(stored), lang, field, original);
}
