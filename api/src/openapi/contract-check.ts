import type { RequestHandler, Response } from 'express';
import { z, type ZodType } from 'zod';
import { listMetaSchema } from '@app/contracts';
import { ERROR_CODES } from '../http/error-codes.ts';
import type { Audience, DownloadType, OpenApiRegistry } from './registry.ts';

/**
 * The contract check (API_CONTRACT_CHECK=1, set for the API test suite): every answer of an
 * ApiRouter route is checked against its operation in the generated OpenAPI document, so that a
 * route cannot answer what its document does not say. The status must be declared; a success's
 * JSON must be the envelope with `data` matching the route's response schema and no property the
 * schema does not name; an error's must be the Error shape with a known `code`; a file must be one
 * of the route's `downloads`. A violation is logged and answered as a 500 "contract violation: …"
 * instead, so the test that caused it fails where it happened.
 */
export const contractCheckEnabled = () => process.env.API_CONTRACT_CHECK === '1';

export interface CheckedOperation {
  audience: Audience;
  method: string;
  /** Express style, relative to the audience's server. */
  path: string;
  response: ZodType | null;
  list?: boolean;
  downloads?: DownloadType[];
}

const CODES = new Set(ERROR_CODES.map((c) => c.code));

// The Error schema allows further members (the health check's `data`), as the document says.
const errorBody = z.looseObject({
  success: z.literal(false),
  message: z.string().min(1),
  code: z.string().refine((c) => CODES.has(c), { message: 'not a code of ERROR_CODES' }),
  errors: z.record(z.string(), z.array(z.string())).optional(),
  errors_detail: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
});
const problemBody = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  code: z.string().refine((c) => CODES.has(c), { message: 'not a code of ERROR_CODES' }),
  request_id: z.string().optional(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
  errors_detail: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
});

/** Properties of `given` that parsing dropped: what the schema does not name (zod strips them quietly). */
function undeclared(given: unknown, parsed: unknown, path: string, out: string[]): void {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    given.forEach((item, i) => undeclared(item, parsed[i], `${path}[${i}]`, out));
  } else if (given && parsed && typeof given === 'object' && typeof parsed === 'object') {
    for (const [key, value] of Object.entries(given)) {
      if (!(key in parsed)) out.push(`${path}.${key}`);
      else undeclared(value, (parsed as Record<string, unknown>)[key], `${path}.${key}`, out);
    }
  }
}

function problemsOf(schema: ZodType, body: unknown): string | null {
  const result = schema.safeParse(body);
  if (!result.success) {
    return result.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
      .join('; ');
  }
  const extra: string[] = [];
  undeclared(body, result.data, '', extra);
  return extra.length ? `properties the schema does not declare: ${extra.slice(0, 5).join(', ')}` : null;
}

/** The middleware that checks one route's answers (first in its chain, so it sees its errors too). */
export function contractCheck(registry: OpenApiRegistry, op: CheckedOperation): RequestHandler {
  const success = z.looseObject({
    success: z.literal(true),
    message: z.string().optional(),
    data: op.list ? z.array(op.response ?? z.null()) : (op.response ?? z.null()),
    ...(op.list ? { meta: listMetaSchema } : {}),
  });
  const docPath = op.path.replace(/:(\w+)/g, '{$1}');
  const declared = () => {
    const paths = registry.cachedDocument(op.audience).paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    return Object.keys(paths[docPath]?.[op.method]?.responses ?? {});
  };

  return (req, res, next) => {
    const violation = (issue: string) => {
      req.log?.error({ route: `${op.method.toUpperCase()} ${docPath}`, status: res.statusCode, issue }, 'contract violation');
      // Also on stderr: the test output shows it beside the failing test, whatever the log level.
      process.stderr.write(`contract violation: ${op.method.toUpperCase()} ${docPath} answered ${res.statusCode}: ${issue}\n`);
      return `contract violation: ${op.method.toUpperCase()} ${docPath} answered ${res.statusCode}: ${issue}`;
    };
    const refuse = (send: Response['send'], message: string) => {
      res.status(500).type('application/json');
      return send.call(res, JSON.stringify({ success: false, message, code: 'server.error' }));
    };
    const send = res.send;
    const json = res.json;
    let checked = false;
    res.json = function checkedJson(body: unknown): Response {
      checked = true;
      const status = res.statusCode;
      const plain = JSON.parse(JSON.stringify(body ?? null)) as unknown;
      let issue: string | null = null;
      if (!declared().includes(String(status))) issue = `status ${status} is not declared (declared: ${declared().join(', ')})`;
      else if (status < 400) issue = problemsOf(success, plain);
      else issue = problemsOf(errorBody, plain);
      if (issue) return refuse(send, violation(issue));
      return json.call(res, body);
    } as Response['json'];
    res.send = function checkedSend(body?: unknown): Response {
      if (checked) return send.call(res, body);
      checked = true;
      const status = res.statusCode;
      const type = String(res.getHeader('content-type') ?? '').split(';')[0];
      let issue: string | null = null;
      if (status !== 304 && !declared().includes(String(status))) issue = `status ${status} is not declared (declared: ${declared().join(', ')})`;
      else if (type === 'application/problem+json') issue = problemsOf(problemBody, JSON.parse(String(body)));
      else if (status < 300 && (type === 'text/csv' || type === 'application/pdf') && !op.downloads?.includes(type))
        issue = `${type} is not among its downloads`;
      if (issue) return refuse(send, violation(issue));
      return send.call(res, body);
    } as Response['send'];
    next();
  };
}
