import type { ZodType } from 'zod';
import { validationFailed, type FieldErrors } from './errors.ts';

/** Parse with a zod schema; a failure becomes a 422 whose errors map is keyed by field. */
export function parseOrThrow<T>(schema: ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
    const message = /^[a-z_]+:[\w.]+$/.test(issue.message) ? issue.message : 'validation:invalid_value';
    errors[field] ??= [];
    if (!errors[field].includes(message)) errors[field].push(message);
  }
  throw validationFailed(errors);
}
