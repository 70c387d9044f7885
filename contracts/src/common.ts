import { z } from 'zod';

/**
 * Pieces that several payload schemas share. Only zod is imported here: these schemas are
 * also bundled into the console, where the same messages show on the form fields.
 * Messages are translation keys (namespace "validation"), translated by the API per request
 * and by the console per user.
 */
export const STATUSES = ['active', 'inactive'] as const;
export const statusSchema = z.enum(STATUSES, { message: 'validation:status_invalid' });

/**
 * Format and control characters: zero-width spaces and joiners, word joiner, BOM, bidi
 * embeddings/overrides/isolates, NUL and the other C0/C1 controls. A name holding one can look
 * like another (`super\u200B-admin` vs `super-admin`) or reorder what is shown around it.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

/**
 * A name people read (user names, role names): trimmed, NFKC-normalised (so full-width and
 * compatibility look-alikes become their plain form), and free of invisible characters.
 */
export const displayNameSchema = (messages: { required: string; max: string }, max = 255) =>
  z
    .string({ message: messages.required })
    .transform((v) => v.normalize('NFKC').trim())
    .pipe(
      z
        .string()
        .min(1, { message: messages.required })
        .max(max, { message: messages.max })
        .refine((v) => !INVISIBLE.test(v), { message: 'validation:name_invisible_chars' }),
    );

/** A blank string from a form means "not given". */
export const optionalText = (max: number, tooLong = 'validation:too_long') =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v),
    z.string().max(max, { message: tooLong }).nullable().optional(),
  );

export const idListSchema = z.object({
  ids: z
    .array(z.union([z.string().min(1), z.number().int().positive()]), { message: 'validation:ids_required' })
    .min(1, { message: 'validation:ids_required' })
    .max(500, { message: 'validation:ids_too_many' }),
});

/**
 * POST /{resource}/reorder: the rows in their new order (first = lowest sort_order); each gets
 * sort_order = start + its position, so a page further down the list keeps its place.
 */
export const reorderSchema = idListSchema.extend({
  start: z.number().int().min(0).max(1_000_000).optional(),
});

/** Optional http(s) URL: other schemes (javascript:, data:, file:) are refused. Blank means none. */
export const httpUrlSchema = (max = 500) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
    z
      .string()
      .max(max, { message: 'validation:too_long' })
      .refine(
        (v) => {
          try {
            const u = new URL(v);
            return (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
          } catch {
            return false;
          }
        },
        { message: 'validation:url_invalid' },
      )
      .nullable()
      .optional(),
  );

/** A record reference from a form or JSON: numeric id or h_id; blank means none. */
export const recordRefSchema = z.preprocess(
  (v) => (v === '' || v === 'null' ? null : v),
  z
    .union([z.number().int().positive(), z.string().trim().min(1).max(64)], { message: 'validation:invalid_value' })
    .nullable()
    .optional(),
);

/** A required record reference (numeric id or h_id), with its own "choose one" message. */
export const requiredRefSchema = (message: string) =>
  z.preprocess(
    (v) => (v === '' || v === null || v === 'null' ? undefined : v),
    z.union([z.number().int().positive(), z.string().trim().min(1).max(64)], { message }),
  );

/** Sort position; multipart forms send it as text. */
export const sortOrderSchema = z.preprocess(
  (v) => (v === '' || v === null || v === undefined ? undefined : typeof v === 'string' ? Number(v) : v),
  z
    .number({ message: 'validation:sort_order_invalid' })
    .int({ message: 'validation:sort_order_invalid' })
    .min(0, { message: 'validation:sort_order_invalid' })
    .max(1_000_000, { message: 'validation:sort_order_invalid' })
    .optional(),
);

/**
 * Live or test (docs/api-conventions.md, "Test mode"): a key's mode, and the mode of what it did
 * (its sales, batches, wallet, events). Here, beside the other shared enums, so every contract
 * file can name it without importing api-keys.ts.
 */
export const API_KEY_MODES = ['live', 'test'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];
