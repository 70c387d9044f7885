import { z, type ZodType } from 'zod';
import { listMetaSchema, WEBHOOK_EVENT_SCHEMAS, WEBHOOK_EVENT_TYPES } from '@app/contracts';
import { ERROR_CODES } from '../http/error-codes.ts';

/** Who a document is for: the console's and storefront's API, or dealers' systems (the reseller API). */
export type Audience = 'console' | 'reseller';

/** Each audience's document: its base URL (the document's one server) and how it introduces itself. */
export const AUDIENCES: Record<Audience, { server: string; title: string; description: string }> = {
  console: {
    server: '/api/v1',
    title: 'Data bundle reseller: console API',
    description:
      'The back office and the storefront (base URL /api/v1, signed in with a bearer token). Paths taking {id} accept the numeric id or the h_id. Messages follow ?lng= or Accept-Language (en, ae, so). Dealers\u2019 own systems use the reseller API instead: /api/reseller/v1/openapi.json.',
  },
  reseller: {
    server: '/api/reseller/v1',
    title: 'Data bundle reseller: reseller API',
    description:
      'For dealers\u2019 own systems (a point of sale, a website, a bot): base URL /api/reseller/v1, authenticated with `Authorization: Bearer rk_live_\u2026` (or `rk_test_\u2026`), a key made on the console\u2019s API keys page with the scopes each call needs. Answers use the envelope `{success, message, data}`; errors carry a stable `code`, and come as RFC 9457 problem details when asked for with `Accept: application/problem+json`. Messages follow ?lng= or Accept-Language (en, ae, so).\n\nTest mode: an `rk_test_\u2026` key (made with mode test) acts on the dealer\u2019s sandbox only: the same catalogue and prices, its sales marked `mode: "test"`, paid from the dealer\u2019s test wallet (1,000.00 to start, reset from the console) or charged through the sandbox gateway, and delivered by the sandbox aggregator (the embedded stand-ins), never live money or a real vendor. It reads only test sales, its test wallet and test events; a live key only live ones (a reference of the other mode is a 404). Idempotency-Keys are per mode; every webhook payload carries `mode` (`live` or `test`).\n\nTest numbers, by their last four digits. The payer (sandbox gateway): 0000 declined, 0001 approved but the answer lost, 0002 HTTP 503 not processed (fails, nothing taken), 0003 never arrives (the same), 0004 the first commit\u2019s (or cancel\u2019s) answer lost, 0005 every commit and cancel 503 (review), any other approved. The number topped up (sandbox aggregator, its operator from the prefix: 61/77 Hormuud, 62/65/66 Somtel, 63 Telesom, 90 Golis, 71 Amtel): 9999 refused, 8888 delivered but the answer lost, 7777 HTTP 503 once, 6666 processing then delivered, 5555 processing then refunded, 4444 never arrives (review), 3333 processing for ever (review), any other delivered.',
  },
};

/** A download an operation answers beside or instead of JSON. */
export type DownloadType = 'text/csv' | 'application/pdf';

/**
 * Every route registers itself here with the zod schemas that validate it, and the OpenAPI
 * documents are generated from this list, so a document cannot drift from the validation.
 */
export interface OperationDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express style (e.g. /users/:id), relative to its audience's server. */
  path: string;
  audience: Audience;
  tag: string;
  summary: string;
  auth: 'public' | 'user' | 'user-while-locked' | 'api-key';
  permission?: string[];
  /** api-key routes: the key's scope the route needs. */
  scope?: string;
  /** Request headers the operation reads (Idempotency-Key). */
  headers?: { name: string; required?: boolean; description: string }[];
  /** Examples of the request body and of the answer's `data`. */
  examples?: { body?: unknown; data?: unknown };
  /** Further answers the operation gives, by status (errors, or a second success such as a replay's 200). */
  errors?: Record<number, string>;
  description?: string;
  body?: ZodType;
  bodyIsArray?: boolean;
  multipart?: { files: string[] };
  query?: ZodType;
  /** Schema of `data` (of each item for lists); null when the answer carries no data. */
  response: ZodType | null;
  /** Files the success answer can be; with `response: null` the answer is only these. */
  downloads?: DownloadType[];
  status: number;
  list?: boolean;
  /** False for the few routes outside the per-address rate limit (health). */
  rateLimited?: boolean;
}

/** Generic answers shared by many operations, by status: their component name and description. */
const COMMON_ERRORS: Record<number, [string, string]> = {
  400: ['BadRequest', 'The body is not valid JSON, or the request is malformed'],
  401: ['Unauthenticated', 'Missing, invalid, expired or revoked token'],
  403: ['Forbidden', 'The caller lacks the permission (or must enrol in two-factor sign-in first: code two_factor_enrolment_required)'],
  404: ['NotFound', 'No such record, or not one the caller may see'],
  413: ['PayloadTooLarge', 'The body is over 1 MB (or an upload over its limit)'],
  422: ['ValidationError', 'Validation failed: errors maps each field (or query parameter) to its messages, errors_detail lists them with their codes'],
  423: ['Locked', 'The session is locked; unlock it first'],
  429: ['TooManyRequests', 'Too many calls; Retry-After says how many seconds to wait'],
  500: ['ServerError', 'An unexpected error; the X-Request-Id header identifies it in the logs'],
  503: ['Unavailable', 'The database is down or busy; nothing was changed, retry later'],
};
const KEY_ERRORS: Record<number, [string, string]> = {
  401: ['KeyUnauthenticated', 'Missing, unknown or revoked API key, or its dealer is inactive'],
  403: ['KeyForbidden', "The key lacks the route's scope, or the caller's address is not on the key's allow-list"],
  429: ['KeyTooManyRequests', 'Over the per-key (or per-address) rate limit; Retry-After says how many seconds to wait'],
};

const DOWNLOAD_SCHEMA: Record<DownloadType, Record<string, unknown>> = {
  'text/csv': { type: 'string', description: 'UTF-8 CSV with a byte order mark, one header row' },
  'application/pdf': { type: 'string', contentEncoding: 'binary', description: 'A PDF file' },
};

export class OpenApiRegistry {
  readonly operations: OperationDoc[] = [];

  /** Tag descriptions shown at the top of a tag's group in the docs. */
  readonly tagDescriptions = new Map<string, string>();

  add(op: OperationDoc): void {
    this.operations.push(op);
  }

  private readonly built = new Map<Audience, Record<string, unknown>>();

  /** The audience's document, built once: after every route has registered (the first request). */
  cachedDocument(audience: Audience): Record<string, unknown> {
    let doc = this.built.get(audience);
    if (!doc) this.built.set(audience, (doc = this.document(audience)));
    return doc;
  }

  describeTag(name: string, description: string): void {
    this.tagDescriptions.set(name, description);
  }

  document(audience: Audience = 'console'): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const reseller = audience === 'reseller';
    const toJson = (schema: ZodType) => {
      const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
      return rest;
    };
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
    // The reseller API answers RFC 9457 problem details to a client that asks for them.
    const errorContent = () => ({
      'application/json': { schema: { $ref: '#/components/schemas/Error' } },
      ...(reseller ? { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } : {}),
    });
    const exampleOf = (op: OperationDoc) => {
      if (!op.list || !Array.isArray(op.examples?.data)) return { success: true, data: op.examples?.data };
      const total = op.examples.data.length;
      return { success: true, data: op.examples.data, meta: { current_page: 1, per_page: 15, total, last_page: 1 } };
    };
    const errorResponse = (description: string) => ({ description, content: errorContent() });
    const usedComponents = new Map<string, string>();
    const commonError = (status: number, keyed: boolean) => {
      const [name, description] = (keyed ? KEY_ERRORS[status] : undefined) ?? COMMON_ERRORS[status];
      usedComponents.set(name, description);
      return { $ref: `#/components/responses/${name}` };
    };

    const operationIds = new Set<string>();
    for (const op of this.operations.filter((o) => o.audience === audience)) {
      const path = op.path.replace(/:(\w+)/g, '{$1}');
      // One parameter per name and place. A list's query parameters are exactly what its query schema
      // declares (page, per_page, sort, order, q with their real types): it refuses any other (list-query.ts).
      const parameters = new Map<string, Record<string, unknown>>();
      const param = (p: Record<string, unknown> & { name: string; in: string }) => {
        const key = `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
        if (!parameters.has(key)) parameters.set(key, p);
      };
      for (const m of op.path.matchAll(/:(\w+)/g)) {
        param({
          name: m[1],
          in: 'path',
          required: true,
          description: m[1] === 'id' ? 'Numeric id or h_id' : `The ${m[1].replace(/_/g, ' ')}`,
          schema: { type: 'string' },
        });
      }
      if (op.query) {
        const js = toJson(op.query) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
        for (const [name, { description, ...schema }] of Object.entries(js.properties ?? {})) {
          param({
            name,
            in: 'query',
            ...(js.required?.includes(name) ? { required: true } : {}),
            ...(typeof description === 'string' ? { description } : {}),
            schema,
          });
        }
      }
      for (const h of op.headers ?? [])
        param({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } });
      const takesQuery = [...parameters.values()].some((p) => p.in === 'query');
      const hasBody = Boolean(op.body || op.multipart);
      // A record named by the request (a path id, or ids, a *_id or a dealer_code in the body or query) may not exist.
      const bodyFields = op.body ? Object.keys((toJson(op.body) as { properties?: object }).properties ?? {}) : [];
      const namesRecord =
        /:\w+/.test(op.path) ||
        [...bodyFields, ...[...parameters.values()].filter((p) => p.in === 'query').map((p) => p.name)].some((n) => /^(ids|dealer_code)$|_id$/.test(String(n)));
      const idempotent = op.headers?.some((h) => h.name.toLowerCase() === 'idempotency-key');

      const keyed = op.auth === 'api-key';
      const success: Record<string, unknown> = {};
      if (op.response !== null || !op.downloads?.length) {
        success['application/json'] = {
          schema: envelope(op),
          ...(op.examples?.data !== undefined ? { example: exampleOf(op) } : {}),
        };
      }
      for (const type of op.downloads ?? []) success[type] = { schema: DOWNLOAD_SCHEMA[type] };
      const responses: Record<string, unknown> = {
        [String(op.status)]: { description: op.downloads?.length ? `Success (${Object.keys(success).join(', ')})` : 'Success', content: success },
      };
      const add = (status: number, keyedError = keyed) => {
        if (!responses[String(status)]) responses[String(status)] = commonError(status, keyedError);
      };
      // An idempotent creation answers its first result again, with 200, to a retry.
      if (idempotent && op.status === 201)
        responses['200'] = { description: 'The same Idempotency-Key and body again: the first answer, nothing done twice', content: success };
      // The route's own answers before the generic ones: their descriptions say more.
      for (const [status, description] of Object.entries(op.errors ?? {})) {
        const code = Number(status);
        if (code < 400) responses[status] = { description, content: { 'application/json': { schema: envelope(op) } } };
        else responses[status] = errorResponse(description);
      }
      if (hasBody) {
        add(400);
        add(413);
      }
      // Mutations are also refused with field errors by their own rules (a balance too low, a state that forbids it).
      // An api-key route also refuses query parameters it does not declare (422 naming them).
      if (hasBody || takesQuery || op.list || op.method !== 'get' || keyed) add(422);
      if (keyed) {
        add(401, true);
        add(403, true);
      } else if (op.auth !== 'public') {
        add(401, false);
        add(403, false);
        if (op.auth === 'user') add(423, false);
      } else if (op.permission?.length) add(403, false);
      if (namesRecord) add(404);
      if (op.method === 'delete' && !responses['409']) {
        responses['409'] = errorResponse('The record is still in use (code in_use, or a reason of its own) and cannot be removed');
      }
      if (op.rateLimited !== false) add(429);
      add(500);
      add(503);

      let operationId = `${op.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
      while (operationIds.has(operationId)) operationId += '_';
      operationIds.add(operationId);
      const access =
        op.auth === 'public'
          ? 'Public: no token needed.'
          : keyed
            ? `Requires the key scope: ${op.scope}`
            : op.permission?.length
              ? `Requires permission: ${op.permission.join(', ')}`
              : 'Any signed-in user.';
      const operation: Record<string, unknown> = {
        operationId,
        tags: [op.tag],
        summary: op.summary,
        description: [op.description, access].filter(Boolean).join('\n\n'),
        parameters: [...parameters.values()],
        responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
      };
      if (op.auth !== 'public') operation.security = [keyed ? { resellerKey: [] } : { bearer: [] }];
      if (hasBody) {
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
    }

    const fieldErrors = {
      type: 'object',
      description: 'Field (or query parameter) -> its messages, in the request\u2019s language',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    };
    const errorsDetail = {
      type: 'array',
      description: 'Each field error with its stable code',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'code', 'message'],
      },
    };
    const code = {
      type: 'string',
      description: 'A stable reason the client acts on (docs/api-conventions.md, "Error codes")',
      enum: [...new Set(ERROR_CODES.map((c) => c.code))],
    };
    const schemas: Record<string, unknown> = {
      ListMeta: outJson(listMetaSchema),
      Error: {
        type: 'object',
        properties: {
          success: { const: false },
          message: { type: 'string', description: 'What went wrong, in the request\u2019s language' },
          code,
          errors: fieldErrors,
          errors_detail: errorsDetail,
        },
        required: ['success', 'message'],
      },
    };
    if (reseller) {
      schemas.Problem = {
        type: 'object',
        description: 'RFC 9457 problem details, with the same code and field errors as the JSON error',
        properties: {
          type: { type: 'string', description: 'A URI naming the kind of problem' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          instance: { type: 'string' },
          request_id: { type: 'string', description: 'The X-Request-Id of the answer, to quote to support' },
          code,
          errors: fieldErrors,
          errors_detail: errorsDetail,
        },
        required: ['type', 'title', 'status'],
      };
    }
    const usedTags = [...new Set(this.operations.filter((o) => o.audience === audience).map((op) => op.tag))];
    const meta = AUDIENCES[audience];
    const document: Record<string, unknown> = {
      openapi: '3.1.0',
      info: { title: meta.title, version: '1.0.0', description: meta.description, contact: { name: 'The platform\u2019s operator' } },
      servers: [{ url: meta.server }],
      tags: [
        ...usedTags.map((name) => ({ name, description: this.tagDescriptions.get(name) ?? name })),
        ...(reseller ? [{ name: 'Webhooks', description: 'Events POSTed to the dealer\u2019s own endpoint, signed (Standard Webhooks)' }] : []),
      ],
      paths,
      components: {
        securitySchemes: reseller
          ? {
              resellerKey: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: 'rk_live_<prefix>_<secret> or rk_test_<prefix>_<secret>',
                description: "A dealer's API key (the console's API keys page), sent as Authorization: Bearer rk_live_\u2026 (or rk_test_\u2026)",
              },
            }
          : { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token of POST /auth/admin/login or /auth/login' } },
        schemas,
        responses: Object.fromEntries([...usedComponents].map(([name, description]) => [name, errorResponse(description)])),
      },
    };
    if (reseller) document.webhooks = webhookDocs();
    return document;
  }
}

/**
 * The reseller document's webhooks, one per event type: what the dealer's endpoint receives (a
 * POST of the JSON payload) signed with the Standard Webhooks headers, and what it answers.
 */
function webhookDocs(): Record<string, unknown> {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((event) => {
      const schema = WEBHOOK_EVENT_SCHEMAS[event];
      const { $schema: _drop, ...payload } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
        string,
        unknown
      >;
      const summary = schema.description ?? event;
      return [
        event,
        {
          post: {
            operationId: `webhook${event.replace(/(^|[^A-Za-z0-9]+)(.)/g, (_m, _s, c: string) => c.toUpperCase())}`,
            tags: ['Webhooks'],
            summary,
            description: `The event ${event}, POSTed to the dealer's webhook endpoint (the console's Webhook page). Verify webhook-signature with the endpoint's secret (Standard Webhooks) before trusting it; any 2xx answer acknowledges it, anything else is retried.`,
            parameters: [
              header('webhook-id', 'The event\u2019s id: the same on every retry, so a receiver can skip a repeat'),
              header('webhook-timestamp', 'When it was signed (Unix seconds)'),
              header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">; space separated when two secrets sign'),
            ],
            requestBody: { required: true, content: { 'application/json': { schema: payload } } },
            responses: { 200: { description: 'Received (any 2xx)' } },
          },
        },
      ];
    }),
  );
}
