import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { WEBHOOK_EVENT_TYPES } from '@app/contracts';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { ERROR_CODES } from '../http/error-codes.ts';

/**
 * One OpenAPI document per audience, generated from the route table and the zod schemas: the
 * console API's (/api/v1/openapi.json) and the reseller API's (/api/reseller/v1/openapi.json).
 * Each must be a valid OpenAPI 3.1 document (a standard validator), pass Spectral's `oas` ruleset
 * with no error and no warning, and describe every answer: its data, its files, its errors.
 */
type Operation = {
  operationId: string;
  servers?: unknown;
  parameters: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { properties?: Record<string, unknown>; $ref?: string } }> }>;
};
type Doc = {
  openapi: string;
  servers: { url: string }[];
  info: { title: string };
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Operation & { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } }>;
  components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }>; responses: Record<string, Operation['responses'][string]> };
};

let h: Harness;
const docs = {} as Record<'console' | 'reseller', Doc>;

beforeAll(async () => {
  h = await createHarness();
  docs.console = (await h.http().get('/api/v1/openapi.json').expect(200)).body;
  docs.reseller = (await h.http().get('/api/reseller/v1/openapi.json').expect(200)).body;
});
afterAll(() => h.close());

const operations = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe.each(['console', 'reseller'] as const)('the %s document', (audience) => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(docs[audience]) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(docs[audience].openapi).toBe('3.1.0');
  });

  it("passes Spectral's oas ruleset with no error and no warning", async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [spectralRulesets.oas] } as never);
    const results = await spectral.run(new spectralCore.Document(JSON.stringify(docs[audience]), spectralParsers.Json, `${audience}.json`));
    // Severity 0 is an error, 1 a warning; 2 and 3 (info, hint) are advice.
    const problems = results.filter((r) => r.severity <= 1).map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`);
    expect(problems).toEqual([]);
  });

  it('has one server, its base URL, and no operation with servers of its own', () => {
    expect(docs[audience].servers).toEqual([{ url: audience === 'console' ? '/api/v1' : '/api/reseller/v1' }]);
    expect(operations(docs[audience]).filter(({ op }) => op.servers)).toEqual([]);
  });

  it('declares each parameter once (by name and place)', () => {
    const twice = operations(docs[audience]).flatMap(({ path, method, op }) => {
      const seen = op.parameters.map((p) => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`);
      return seen.filter((k, i) => seen.indexOf(k) !== i).map((k) => `${method.toUpperCase()} ${path} ${k}`);
    });
    expect(twice).toEqual([]);
  });

  it('describes the data of every JSON success answer (no empty schema)', () => {
    const empty: string[] = [];
    for (const { path, method, op } of operations(docs[audience])) {
      const success = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
      const json = success?.[1].content?.['application/json'];
      if (!json) continue;
      const data = json.schema.properties?.data as Record<string, unknown> | undefined;
      if (!data || Object.keys(data).length === 0) empty.push(`${method.toUpperCase()} ${path}`);
      const items = (data as { items?: Record<string, unknown> } | undefined)?.items;
      if (data?.type === 'array' && (!items || Object.keys(items).length === 0)) empty.push(`${method.toUpperCase()} ${path} (items)`);
    }
    expect(empty).toEqual([]);
  });

  it('declares the errors every operation can answer (500, 503) with the Error schema, whose code lists every code', () => {
    for (const { path, method, op } of operations(docs[audience])) {
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['500', '503']));
    }
    const error = docs[audience].components.schemas.Error;
    expect(Object.keys(error.properties)).toEqual(expect.arrayContaining(['success', 'message', 'code', 'errors', 'errors_detail']));
    expect(error.properties.code.enum).toEqual(expect.arrayContaining(ERROR_CODES.map((c) => c.code)));
    expect(docs[audience].components.responses.ServerError.content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });
});

describe('the console document', () => {
  const doc = () => docs.console;

  it('has the console paths only, typed: a user answer names its fields, a list carries meta', () => {
    expect(Object.keys(doc().paths).filter((p) => p.startsWith('/reseller') || p === '/catalogue')).toEqual([]);
    expect(doc().webhooks).toBeUndefined();
    const show = doc().paths['/users/{id}'].get.responses['200'].content!['application/json'].schema.properties!;
    expect(Object.keys((show.data as { properties: Record<string, unknown> }).properties)).toEqual(
      expect.arrayContaining(['id', 'h_id', 'email', 'roles', 'dealer_details']),
    );
    const list = doc().paths['/banners'].get.responses['200'].content!['application/json'].schema.properties!;
    expect(list.meta).toEqual({ $ref: '#/components/schemas/ListMeta' });
    expect(Object.keys((list.data as { items: { properties: Record<string, unknown> } }).items.properties)).toEqual(
      expect.arrayContaining(['title', 'image', 'dealer']),
    );
  });

  it('declares the CSV and PDF answers beside or instead of JSON', () => {
    const content = (path: string) => Object.keys(doc().paths[path].get.responses['200'].content!);
    expect(content('/wallets/{id}/statement')).toEqual(['application/json', 'text/csv', 'application/pdf']);
    expect(content('/daily-close/{date}/export')).toEqual(['text/csv', 'application/pdf']);
    expect(content('/recharges/export')).toEqual(['text/csv']);
    expect(content('/wallet-transactions/export')).toEqual(['text/csv']);
    expect(content('/missed-sales/export')).toEqual(['text/csv']);
    for (const report of ['/reports/sales', '/reports/margins', '/reports/dealer-profit']) expect(content(report)).toEqual(['application/json', 'text/csv']);
    expect(doc().paths['/wallets/{id}/statement'].get.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'format', in: 'query' })]));
  });

  it("documents a report's answer with the properties it carries (from, to, group_by)", () => {
    const data = doc().paths['/reports/sales'].get.responses['200'].content!['application/json'].schema.properties!.data as { properties: object };
    expect(Object.keys(data.properties)).toEqual(expect.arrayContaining(['from', 'to', 'group_by', 'rows', 'totals']));
  });

  it('the docs page shows both documents', async () => {
    const init = await h.http().get('/api/v1/docs/init.js').expect(200);
    expect(init.text).toContain('/api/v1/openapi.json');
    expect(init.text).toContain('/api/reseller/v1/openapi.json');
    const preset = await h.http().get('/api/v1/docs/assets/swagger-ui-standalone-preset.js');
    expect(preset.status).toBe(200);
  });
});

describe('the reseller document', () => {
  const doc = () => docs.reseller;

  it('has the reseller paths relative to its base URL, its own title and key scheme', () => {
    expect(Object.keys(doc().paths)).toEqual(expect.arrayContaining(['/catalogue', '/recharges', '/recharges/{reference}', '/wallet', '/wallet/statement']));
    expect(Object.keys(doc().paths).filter((p) => p.startsWith('/reseller') || p.startsWith('/users'))).toEqual([]);
    expect(doc().info.title).toContain('reseller API');
    expect(doc().info.title).not.toEqual(docs.console.info.title);
    const schemes = (doc().components as unknown as { securitySchemes: Record<string, { description: string }> }).securitySchemes;
    expect(Object.keys(schemes)).toEqual(['resellerKey']);
    expect(schemes.resellerKey.description).toContain('rk_test_');
    for (const { op } of operations(doc())) expect((op as unknown as { security: unknown }).security).toEqual([{ resellerKey: [] }]);
  });

  it('declares the list parameters once each, with the type the route validates', () => {
    const params = doc().paths['/recharges'].get.parameters.filter((p) => p.name === 'page');
    expect(params).toHaveLength(1);
  });

  it('declares its errors as JSON and as RFC 9457 problem details', () => {
    const post = doc().paths['/recharges'].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '403', '409', '422', '429', '500', '503']));
    expect(Object.keys(post.responses['409'].content!)).toEqual(['application/json', 'application/problem+json']);
    const problem = doc().components.schemas.Problem;
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance', 'code', 'errors', 'errors_detail']),
    );
  });

  it('has one webhook per event type, with its payload and the Standard Webhooks headers', () => {
    expect(Object.keys(doc().webhooks!)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const event of WEBHOOK_EVENT_TYPES) {
      const post = doc().webhooks![event].post;
      expect(post.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
      const payload = post.requestBody.content['application/json'].schema as { properties: Record<string, { const?: string }>; required: string[] };
      expect(payload.required).toEqual(expect.arrayContaining(['type', 'timestamp', 'mode', 'data']));
      expect(payload.properties.type.const).toBe(event);
    }
  });
});
