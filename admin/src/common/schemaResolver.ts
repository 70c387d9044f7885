import { get, set, type FieldValues, type Resolver } from 'react-hook-form';
import type { z } from 'zod';

/**
 * The shared zod schema (contracts) as a react-admin form's resolver, asked about what will be sent
 * (`toInput`: the values with what the form adds or tidies, e.g. a difference's action, '' for an
 * emptied field). Messages stay translation keys ('validation:note_required'): react-admin's inputs
 * translate them. `messages` gives a form's own words for a field where the schema's are too
 * general. The form keeps what was typed: the API gets the values, not the schema's output.
 * An error lands on the input named by its path's first part (a list's 'scopes.1' on 'scopes');
 * `nested` keeps the whole path, for forms whose inputs sit deeper (translations.ae.name).
 */
export function schemaResolver<T extends FieldValues>(
  schema: z.ZodType,
  toInput: (values: T) => unknown = (values) => values,
  messages: Record<string, string> = {},
  { nested = false }: { nested?: boolean } = {},
): Resolver<T> {
  return async (values) => {
    const parsed = await schema.safeParseAsync(toInput(values));
    if (parsed.success) return { values, errors: {} };
    const errors: Record<string, unknown> = {};
    for (const issue of parsed.error.issues) {
      const parts = issue.path.length ? (nested ? issue.path : issue.path.slice(0, 1)) : ['root'];
      const name = parts.map(String).join('.');
      // The first refusal of a field is the one shown.
      if (get(errors, name) === undefined) set(errors, name, { type: 'validation', message: messages[name] ?? issue.message });
    }
    return { values: {}, errors: errors as never };
  };
}

/** react-admin's text inputs turn an emptied field into null; the API's schemas read the text typed (''). */
export function typedText<T extends object>(values: FieldValues | T, initial: T): T {
  const start = initial as Record<string, unknown>;
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === null && typeof start[k] === 'string' ? '' : v])) as T;
}
