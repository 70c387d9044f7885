import type { FieldValues, Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { schemaResolver } from './schemaResolver';

export type LazyResolver<T extends FieldValues> = Resolver<T> & {
  /** Starts loading the schema and zod (after the form's first render), so the first check does not wait. */
  preload: () => void;
};

/**
 * schemaResolver with the shared schema (and zod with it) loaded when first needed rather than
 * with the page: the sign-in pages show before zod has loaded.
 */
export function lazySchemaResolver<T extends FieldValues>(loadSchema: () => Promise<z.ZodType>, toInput?: (values: T) => unknown): LazyResolver<T> {
  let ready: Promise<Resolver<T>> | undefined;
  // A failed load is forgotten, so the next check (or preload) tries again instead of failing for good.
  const load = () =>
    (ready ??= loadSchema().then(
      (schema) => schemaResolver<T>(schema, toInput),
      (error: unknown) => {
        ready = undefined;
        throw error;
      },
    ));
  const resolver: Resolver<T> = async (values, context, options) => (await load())(values, context, options);
  return Object.assign(resolver, {
    preload: () => {
      // Tried again on the first check.
      load().catch(() => undefined);
    },
  });
}
