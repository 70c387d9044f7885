import { z } from 'zod';

/**
 * Pieces that several payload schemas share. Only zod is imported here: these schemas are
 * also bundled into the console, where the same messages show on the form fields.
 * Messages are translation keys (namespace "validation"), translated by the API per request
 * and by the console per user.
 */
export const STATUSES = ['active', 'inactive'] as const;
export const statusSchema = z.enum(STATUSES, { message: 'validation:status_invalid' });

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
