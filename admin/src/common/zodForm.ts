import { zodResolver } from '@hookform/resolvers/zod';
import type { FieldValues, Resolver } from 'react-hook-form';
import type { z } from 'zod';

/**
 * react-hook-form resolver from one of the API's shared zod schemas. The schema's messages are
 * translation keys ('validation:name_required'); fields translate them when they show them.
 * Values are validated but the form keeps the raw input (the API gets what the user typed).
 */
export function sharedResolver<T extends FieldValues>(schema: z.ZodType): Resolver<T> {
  const resolver = zodResolver(schema as never) as unknown as Resolver<T>;
  return async (values, context, options) => {
    const result = await resolver(values, context, options);
    return Object.keys(result.errors).length ? result : { values, errors: {} };
  };
}
