import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listParams } from '@app/contracts';
import { AppError } from './errors.ts';
import { queryKeys, refuseUndeclaredParams } from './list-query.ts';

/**
 * The list parameters' declaration (contracts/src/list-query.ts) and the router's refusal of what
 * a list does not declare (refuseUndeclaredParams), without HTTP: tests/api/list-parameters.test.ts
 * walks every real list over HTTP.
 */
const schema = z.object({ status: z.enum(['a', 'b']).optional(), ...listParams({ sort: ['id', 'name'], q: 'Name' }) });

/** The 422 refuseUndeclaredParams throws, or null; `s` null: a route without a query schema. */
const refusal = (query: Record<string, unknown>, s: z.ZodType | null = schema) => {
  try {
    refuseUndeclaredParams(s ?? undefined, query);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { status: e.status, errors: e.errors, vars: e.vars };
  }
  return null;
};

describe('queryKeys', () => {
  it('reads an object, through optional, pipes and refinements', () => {
    expect(queryKeys(schema).sort()).toEqual(['order', 'page', 'per_page', 'q', 'sort', 'status']);
    expect(queryKeys(schema.optional())).toContain('status');
    expect(queryKeys(schema.transform((v) => v))).toContain('per_page');
    expect(queryKeys(schema.superRefine(() => undefined))).toContain('q');
    expect(queryKeys(undefined)).toEqual([]);
  });
});

describe('refuseUndeclaredParams', () => {
  it('lets through what the schema declares, and lng always', () => {
    expect(refusal({ status: 'a', page: '2', per_page: '5', sort: 'name', order: 'DESC', q: 'x', lng: 'ae' })).toBeNull();
    expect(refusal({ lng: 'so' }, null)).toBeNull();
  });

  it('refuses every undeclared parameter, each named, with the names as the message variable', () => {
    expect(refusal({ status: 'a', stauts: 'b', _: '123' })).toEqual({
      status: 422,
      errors: { stauts: ['validation:unknown_parameter'], _: ['validation:unknown_parameter'] },
      vars: { name: 'stauts, _' },
    });
    // A list without a schema takes nothing but lng.
    expect(refusal({ page: '1' }, null)?.errors).toEqual({ page: ['validation:unknown_parameter'] });
  });

  it('refuses a sort field the list does not have, naming the ones it has', () => {
    expect(refusal({ sort: 'email' })).toEqual({ status: 422, errors: { sort: ['api:errors.sort_invalid'] }, vars: { fields: 'id, name' } });
    expect(refusal({ sort: ['id', 'name'] })?.errors).toEqual({ sort: ['api:errors.sort_invalid'] });
  });

  it('a list without sort refuses sort and order as unknown', () => {
    const fixed = z.object(listParams({ order: false }));
    expect(queryKeys(fixed).sort()).toEqual(['page', 'per_page']);
    expect(refusal({ sort: 'id', order: 'asc' }, fixed)?.errors).toEqual({ sort: ['validation:unknown_parameter'], order: ['validation:unknown_parameter'] });
  });
});

describe('listParams values', () => {
  const parse = (query: Record<string, unknown>) => schema.safeParse(query);
  const messages = (query: Record<string, unknown>) => {
    const r = parse(query);
    return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
  };

  it('page and per_page are integers in range; per_page at most 100', () => {
    expect(parse({ page: '3', per_page: '100' })).toMatchObject({ success: true, data: { page: 3, per_page: 100 } });
    for (const bad of ['abc', '', '0', '-1', '1.5', '101']) expect(messages({ per_page: bad })).toEqual({ per_page: 'validation:per_page_invalid' });
    for (const bad of ['x', '0', '2.5', '1000001']) expect(messages({ page: bad })).toEqual({ page: 'validation:page_invalid' });
    expect(messages({ page: ['1', '2'] })).toEqual({ page: 'validation:page_invalid' });
  });

  it('order is asc or desc in either case; q has a ceiling', () => {
    expect(parse({ order: 'DESC' })).toMatchObject({ success: true, data: { order: 'desc' } });
    expect(messages({ order: 'down' })).toEqual({ order: 'api:errors.order_invalid' });
    expect(messages({ q: 'x'.repeat(192) })).toEqual({ q: 'validation:q_too_long' });
  });

  it('is documented with the real types (the OpenAPI document reads this)', () => {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties: Record<string, { type?: string; enum?: string[]; maximum?: number }>;
    };
    expect(json.properties.page.type).toBe('integer');
    expect(json.properties.per_page).toMatchObject({ type: 'integer', maximum: 100 });
    expect(json.properties.sort.enum).toEqual(['id', 'name']);
  });
});
