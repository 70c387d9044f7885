import { z, type ZodType } from 'zod';
import { listMetaSchema } from '@app/contracts';

/**
 * Every route registers itself here with the zod schemas that validate it, and the OpenAPI
 * document is generated from this list, so the document cannot drift from the validation.
 */
export interface OperationDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string; // express style, e.g. /users/:id
  tag: string;
  summary: string;
  auth: 'public' | 'user' | 'user-while-locked' | 'api-key';
  permission?: string[];
  /** api-key routes: the key's scope the route needs. */
  scope?: string;
  /** A base other than the document's (/api/v1), e.g. /api for the reseller API's /reseller/v1/... paths. */
  server?: string;
  /** Request headers the operation reads (Idempotency-Key). */
  headers?: { name: string; required?: boolean; description: string }[];
  /** Examples of the request body and of the answer's `data`. */
  examples?: { body?: unknown; data?: unknown };
  /** Further error answers the operation gives, by status. */
  errors?: Record<number, string>;
  description?: string;
  body?: ZodType;
  bodyIsArray?: boolean;
  multipart?: { files: string[] };
  query?: ZodType;
  /** Schema of `data` (of each item for lists); null when the answer carries no data. */
  response: ZodType | null;
  status: number;
  list?: boolean;
}

export class OpenApiRegistry {
  readonly operations: OperationDoc[] = [];

  /** Tag descriptions shown at the top of a tag's group in the docs. */
  readonly tagDescriptions = new Map<string, string>();

  add(op: OperationDoc): void {
    this.operations.push(op);
  }

  describeTag(name: string, description: string): void {
    this.tagDescriptions.set(name, description);
  }

  document(serverUrl = '/api/v1'): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const toJson = (schema: ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    const outJson = (schema: ZodType) => {
      const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
      return rest;
    };
    // Every answer is described whole: the envelope with its `data` (and `meta` for lists).
    const envelope = (op: OperationDoc) => {
      const data = op.response === null ? { type: 'null' } : outJson(op.response);
      const properties: Record<string, unknown> = {
        success: { const: true },
        message: { type: 'string' },
        data: op.list ? { type: 'array', items: data } : data,
      };
      if (op.list) properties.meta = { $ref: '#/components/schemas/ListMeta' };
      return { type: 'object', properties, required: op.list ? ['success', 'data', 'meta'] : ['success', 'data'] };
    };
    const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    for (const op of this.operations) {
      const path = op.path.replace(/:(\w+)/g, '{$1}');
      const params = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        description: 'Numeric id or h_id',
        schema: { type: 'string' },
      }));
      const query: unknown[] = [];
      if (op.list) {
        query.push(
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'sort', in: 'query', schema: { type: 'string' } },
          { name: 'order', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'] } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        );
      }
      if (op.query) {
        const js = toJson(op.query) as { properties?: Record<string, unknown> };
        for (const [name, schema] of Object.entries(js.properties ?? {})) query.push({ name, in: 'query', schema });
      }
      for (const h of op.headers ?? [])
        query.push({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } });
      const keyed = op.auth === 'api-key';
      const operation: Record<string, unknown> = {
        operationId: `${op.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
        tags: [op.tag],
        summary: op.summary,
        parameters: [...params, ...query],
        responses: {
          [String(op.status)]: {
            description: 'Success',
            content: {
              'application/json': {
                schema: envelope(op),
                ...(op.examples?.data !== undefined ? { example: { success: true, data: op.examples.data } } : {}),
              },
            },
          },
          ...(op.body || op.multipart ? { 422: { $ref: '#/components/responses/ValidationError' } } : {}),
          ...(keyed
            ? {
                401: { $ref: '#/components/responses/KeyUnauthenticated' },
                403: { $ref: '#/components/responses/KeyForbidden' },
                429: { $ref: '#/components/responses/TooManyRequests' },
              }
            : op.auth !== 'public'
              ? { 401: { $ref: '#/components/responses/Unauthenticated' }, 423: { $ref: '#/components/responses/Locked' } }
              : {}),
          ...(op.permission?.length ? { 403: { $ref: '#/components/responses/Forbidden' } } : {}),
          ...Object.fromEntries(Object.entries(op.errors ?? {}).map(([code, description]) => [code, errorResponse(description)])),
        },
      };
      if (op.auth !== 'public') operation.security = [keyed ? { resellerKey: [] } : { bearer: [] }];
      const notes = [
        op.description,
        op.permission?.length ? `Requires permission: ${op.permission.join(', ')}` : null,
        op.scope ? `Requires the key scope: ${op.scope}` : null,
      ];
      if (notes.some(Boolean)) operation.description = notes.filter(Boolean).join('\n\n');
      if (op.body || op.multipart) {
        const content: Record<string, unknown> = {};
        if (op.body) {
          const schema = toJson(op.body);
          content['application/json'] = { schema: op.bodyIsArray ? { type: 'array', items: schema } : schema };
        }
        if (op.multipart) {
          const base = op.body ? (toJson(op.body) as { properties?: Record<string, unknown> }) : { properties: {} };
          const files = Object.fromEntries(op.multipart.files.map((f) => [f, { type: 'string', format: 'binary' }]));
          content['multipart/form-data'] = { schema: { type: 'object', properties: { ...(base.properties ?? {}), ...files } } };
        }
        if (op.examples?.body !== undefined && content['application/json']) (content['application/json'] as Record<string, unknown>).example = op.examples.body;
        operation.requestBody = { required: true, content };
      }
      (paths[path] ??= {})[op.method] = operation;
      if (op.server) operation.servers = [{ url: op.server }];
    }
    const errorSchema = {
      type: 'object',
      properties: {
        success: { const: false },
        message: { type: 'string' },
        errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        code: { type: 'string', description: 'A reason the client acts on, e.g. two_factor_enrolment_required (403)' },
      },
      required: ['success', 'message'],
    };
    return {
      openapi: '3.1.0',
      info: {
        title: 'Data bundle reseller API',
        version: '1.0.0',
        description:
          'Back-office and storefront API. Paths taking {id} accept the numeric id or the h_id. Messages follow ?lng= or Accept-Language (en, ae, so).',
      },
      servers: [{ url: serverUrl }],
      tags: [...new Set(this.operations.map((op) => op.tag))].map((name) => ({
        name,
        ...(this.tagDescriptions.has(name) ? { description: this.tagDescriptions.get(name) } : {}),
      })),
      paths,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          resellerKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'rk_live_<prefix>_<secret>',
            description: "A dealer's API key (the console's API keys page), sent as Authorization: Bearer rk_live_…",
          },
        },
        schemas: {
          ListMeta: outJson(listMetaSchema),
          Error: errorSchema,
        },
        responses: {
          ValidationError: errorResponse('Validation failed; errors maps each field to its messages'),
          Unauthenticated: errorResponse('Missing, invalid, expired or revoked token'),
          Forbidden: errorResponse('The caller lacks the permission'),
          Locked: errorResponse('The session is locked; unlock it first'),
          KeyUnauthenticated: errorResponse('Missing, unknown or revoked API key, or its dealer is inactive'),
          KeyForbidden: errorResponse("The key lacks the route's scope, or the caller's address is not on the key's allow-list"),
          TooManyRequests: errorResponse('Over the per-key rate limit; Retry-After says how many seconds to wait'),
        },
      },
    };
  }
}
