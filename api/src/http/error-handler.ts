import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError } from './errors.ts';
import { errorCodeOf, topLevelCode } from './error-codes.ts';
import { databaseTrouble } from '../database/db-errors.ts';
import { serviceUnavailable } from '../database/unit-of-work.ts';
import { translateMessage, translator, pickLanguage } from '../i18n/server-i18n.ts';

/** RFC 9457 `type` of a code: a tag URI (RFC 4151), stable and never fetched; docs/api-conventions.md lists the codes. */
export const problemType = (code: string) => `tag:bundle-reseller,2026:errors/${code}`;

const PROBLEM_JSON = 'application/problem+json';

/**
 * Writes one error answer: the envelope `{success: false, message, code, errors?, errors_detail?}`,
 * or RFC 9457 problem details when the caller's Accept prefers application/problem+json. Every
 * error answer of the API goes through here (the error handler, the 404s, the rate limits), so
 * none lacks a code.
 */
export function sendError(req: Request, res: Response, err: AppError): void {
  const t = req.t ?? translator(pickLanguage(req.query?.lng, req.get('accept-language')));
  const message = translateMessage(t, err.message, err.vars);
  const code = topLevelCode(err.message, err.errors, err.code, err.status);
  const fields = Object.entries(err.errors ?? {});
  const errors = err.errors ? Object.fromEntries(fields.map(([field, keys]) => [field, keys.map((k) => translateMessage(t, k, err.vars))])) : undefined;
  const detail = errors ? fields.flatMap(([field, keys]) => keys.map((k, i) => ({ field, code: errorCodeOf(k), message: errors[field][i] }))) : undefined;
  for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
  res.status(err.status);
  // The same error comes in two forms, by Accept: shared caches must keep them apart.
  res.vary('Accept');
  // Only a caller that asks for it gets problem+json; without Accept (or with */*) the envelope.
  if (req.accepts(['application/json', PROBLEM_JSON]) === PROBLEM_JSON) {
    const problem: Record<string, unknown> = {
      type: problemType(code),
      title: message,
      status: err.status,
      detail: errors ? Object.values(errors).flat().join(' ') : message,
      instance: req.originalUrl.split('?')[0],
      code,
    };
    if (typeof req.id === 'string') problem.request_id = req.id;
    if (errors) Object.assign(problem, { errors, errors_detail: detail });
    res.type(PROBLEM_JSON).send(JSON.stringify(problem));
    return;
  }
  const body: Record<string, unknown> = { success: false, message, code };
  if (errors) Object.assign(body, { errors, errors_detail: detail });
  res.json(body);
}

/** JSON 404 for any unknown API path. */
export const apiNotFound: RequestHandler = (req, res) => sendError(req, res, new AppError(404, 'api:errors.route_not_found'));

/** express-rate-limit's `handler` for the API's ceilings: the same 429 as every other refusal. */
export const rateLimited: RequestHandler = (req, res) => sendError(req, res, new AppError(429, 'api:errors.rate_limited'));

/** The AppError any thrown value answers as (a driver's trouble, body-parser's failures, a bug). */
function asAppError(err: unknown, req: Request): AppError {
  if (err instanceof AppError) return err;
  const trouble = databaseTrouble(err);
  if (trouble) {
    // Down, silent, busy or missing its schema: the client may retry; nothing it did was wrong.
    req.log?.warn({ err }, `database ${trouble}`);
    return serviceUnavailable(trouble);
  }
  const e = err as { type?: string; status?: number } | null;
  if (e?.type === 'entity.parse.failed') return new AppError(400, 'validation:invalid_json');
  if (e?.type === 'entity.too.large') return new AppError(413, 'api:errors.payload_too_large');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new AppError(e.status, 'api:errors.bad_request');
  req.log?.error({ err }, 'unhandled error');
  return new AppError(500, 'api:errors.server');
}

/**
 * The one place errors become responses: translated message, machine code, errors map for 422,
 * never a stack. Anything unexpected is logged with the request id and answered with a generic 500.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  sendError(req, res, asAppError(err, req));
};
