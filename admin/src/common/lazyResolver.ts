import type { FieldValues, Resolver } from 'react-hook-form';
import type { z } from 'zod';

export type LazyResolver<T extends FieldValues> = Resolver<T> & {
  /** Starts loading the schema and zod (after the form's first render), so the first check does not wait. */
  preload: () => void;
};

/**
 * sharedResolver (zodForm.ts) with the shared schema, zod and the resolver loaded when first
 * needed rather than with the page: the sign-in page shows before zod has loaded.
 */
export function lazySharedResolver<T extends FieldValues>(loadSchema: () => Promise<z.ZodType>): LazyResolver<T> {
  let ready: Promise<Resolver<T>> | undefined;
  const load = () => (ready ??= Promise.all([import('./zodForm'), loadSchema()]).then(([m, schema]) => m.sharedResolver<T>(schema)));
  const resolver: Resolver<T> = async (values, context, options) => (await load())(values, context, options);
  return Object.assign(resolver, {
    preload: () => {
      load().catch(() => {
        // Tried again on the first check.
        ready = undefined;
      });
    },
  });
}
