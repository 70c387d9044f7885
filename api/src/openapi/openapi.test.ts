import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';

/**
 * The OpenAPI document is generated from the route table and the zod schemas: it must be a
 * valid OpenAPI 3.1 document (checked by a standard validator) and describe every answer's
 * `data`, so a generated client is fully typed.
 */
let h: Harness;
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>>;
};

beforeAll(async () => {
  h = await createHarness();
  doc = (await h.http().get('/api/v1/openapi.json')).body;
});
afterAll(() => h.close());

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('describes the data of every success answer (no empty schema)', () => {
    const empty: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const success = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
        const data = success?.[1].content?.['application/json']?.schema.properties?.data as Record<string, unknown> | undefined;
        if (!data || Object.keys(data).length === 0) empty.push(`${method.toUpperCase()} ${path}`);
        const items = (data as { items?: Record<string, unknown> } | undefined)?.items;
        if (data?.type === 'array' && (!items || Object.keys(items).length === 0)) empty.push(`${method.toUpperCase()} ${path} (items)`);
      }
    }
    expect(empty).toEqual([]);
  });

  it('types the records: a user answer names its fields, a list carries meta', () => {
    const show = doc.paths['/users/{id}'].get.responses['200'].content!['application/json'].schema.properties!;
    expect(Object.keys((show.data as { properties: Record<string, unknown> }).properties)).toEqual(
      expect.arrayContaining(['id', 'h_id', 'email', 'roles', 'dealer_details']),
    );
    const list = doc.paths['/banners'].get.responses['200'].content!['application/json'].schema.properties!;
    expect(list.meta).toEqual({ $ref: '#/components/schemas/ListMeta' });
    expect(Object.keys((list.data as { items: { properties: Record<string, unknown> } }).items.properties)).toEqual(
      expect.arrayContaining(['title', 'image', 'dealer']),
    );
  });
});
