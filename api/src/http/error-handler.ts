import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from './errors.ts';
import { databaseTrouble } from '../database/db-errors.ts';
import { serviceUnavailable } from '../database/unit-of-work.ts';
import { translateMessage, translator, pickLanguage } from '../i18n/server-i18n.ts';

/** JSON 404 for any unknown API path. */
export const apiNotFound: RequestHandler = (req, res) => {
  res.status(404).json({ success: false, message: translateMessage(req.t, 'api:errors.route_not_found') });
};

/**
 * The one place errors become responses: translated message, errors map for 422, never a stack.
 * Anything unexpected is logged with the request id and answered with a generic 500.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const t = req.t ?? translator(pickLanguage(req.query?.lng, req.get('accept-language')));
  if (res.headersSent) return;
  let status = 500;
  let message = 'api:errors.server';
  let errors: Record<string, string[]> | undefined;
  let vars: Record<string, unknown> | undefined;
  let code: string | undefined;
  const trouble = err instanceof AppError ? null : databaseTrouble(err);
  if (trouble) {
    // Down, silent, busy or missing its schema: the client may retry; nothing it did was wrong.
    req.log?.warn({ err }, `database ${trouble}`);
    err = serviceUnavailable(trouble);
  }
  if (err instanceof AppError) {
    status = err.status;
    message = err.message;
    errors = err.errors;
    vars = err.vars;
    code = err.code;
    for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
  } else if (err?.type === 'entity.parse.failed') {
    status = 400;
    message = 'validation:invalid_json';
  } else if (err?.type === 'entity.too.large') {
    status = 413;
    message = 'api:errors.payload_too_large';
  } else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
    status = err.status;
    message = 'api:errors.bad_request';
  } else {
    req.log?.error({ err }, 'unhandled error');
  }
  const body: Record<string, unknown> = { success: false, message: translateMessage(t, message, vars) };
  if (code) body.code = code;
  if (errors) {
    body.errors = Object.fromEntries(Object.entries(errors).map(([field, msgs]) => [field, msgs.map((m) => translateMessage(t, m, vars))]));
  }
  res.status(status).json(body);
};
