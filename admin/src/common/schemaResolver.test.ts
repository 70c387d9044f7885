import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaResolver, typedText } from './schemaResolver';

const schema = z.object({
  name: z.string().min(1, { message: 'validation:name_required' }),
  scopes: z.array(z.enum(['a', 'b'], { message: 'validation:scope_invalid' })),
  translations: z.object({ ae: z.object({ name: z.string().max(3, { message: 'validation:too_long' }) }) }),
});
const run = (resolver: ReturnType<typeof schemaResolver>, values: Record<string, unknown>) =>
  resolver(values, undefined, { fields: {}, shouldUseNativeValidation: false }) as Promise<{ values: unknown; errors: Record<string, unknown> }>;

describe('schemaResolver', () => {
  const bad = { name: '', scopes: ['a', 'x'], translations: { ae: { name: 'too long' } } };

  it('puts each refusal on the input its path starts with, the form’s own words first', async () => {
    const result = await run(schemaResolver(schema, undefined, { scopes: 'validation:choose_scopes' }), bad);
    expect(result.values).toEqual({});
    expect(result.errors).toEqual({
      name: { type: 'validation', message: 'validation:name_required' },
      scopes: { type: 'validation', message: 'validation:choose_scopes' },
      translations: { type: 'validation', message: 'validation:too_long' },
    });
  });

  it('keeps whole paths when asked (inputs below the top level)', async () => {
    const result = await run(schemaResolver(schema, undefined, undefined, { nested: true }), bad);
    expect(result.errors.translations).toEqual({ ae: { name: { type: 'validation', message: 'validation:too_long' } } });
    expect((result.errors.scopes as unknown[])[1]).toEqual({ type: 'validation', message: 'validation:scope_invalid' });
  });

  it('asks the schema about what will be sent, and keeps what was typed', async () => {
    const typed = { name: null, scopes: [], translations: { ae: { name: 'ok' } } };
    const initial = { name: '', scopes: [], translations: {} };
    // null (an emptied react-admin input) is read as '' and refused as an empty name.
    expect(
      (
        await run(
          schemaResolver(schema, (v) => typedText(v, initial)),
          typed,
        )
      ).errors,
    ).toEqual({
      name: { type: 'validation', message: 'validation:name_required' },
    });
    const good = { ...typed, name: 'Amina' };
    expect(await run(schemaResolver(schema), good)).toEqual({ values: good, errors: {} });
  });
});
