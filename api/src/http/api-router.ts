import express, { type Request, type RequestHandler, type Response } from 'express';
import type { ZodType } from 'zod';
import { authenticateRequest } from '../auth/authenticate.ts';
import { hasAll } from '../auth/access.ts';
import { forbidden, locked } from './errors.ts';
import { parseOrThrow } from './validate.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { translateMessage } from '../i18n/server-i18n.ts';

/** What a handler returns; the envelope `{success, message, data, meta}` is added here, once. */
export interface Result {
  data?: unknown;
  message?: string;
  messageVars?: Record<string, unknown>;
  meta?: unknown;
  status?: number;
}

export interface EndpointSpec {
  summary: string;
  /** public: no token; user: signed in and unlocked; user-while-locked: signed in, lock ignored. */
  auth?: 'public' | 'user' | 'user-while-locked';
  /** Every listed permission is required. */
  permission?: string | string[];
  /** At least one of these is required (finer rules then apply inside the handler). */
  anyPermission?: string[];
  body?: ZodType;
  bodyIsArray?: boolean;
  query?: ZodType;
  /** A multer middleware; runs after the permission check so strangers cannot upload. */
  upload?: RequestHandler;
  files?: string[];
  status?: number;
  list?: boolean;
}

type Handler = (req: Request, res: Response) => Promise<Result | void>;

/**
 * A thin wrapper over an express Router: each route is one line with its whole chain
 * (auth -> lock -> permission -> upload -> validation -> handler), declared with the zod
 * schemas that also feed the OpenAPI document.
 */
export class ApiRouter {
  readonly router = express.Router();

  constructor(
    private readonly registry: OpenApiRegistry,
    private readonly prefix: string,
    private readonly tag: string,
  ) {}

  get(path: string, spec: EndpointSpec, handler: Handler) {
    this.add('get', path, spec, handler);
  }
  post(path: string, spec: EndpointSpec, handler: Handler) {
    this.add('post', path, spec, handler);
  }
  put(path: string, spec: EndpointSpec, handler: Handler) {
    this.add('put', path, spec, handler);
  }
  patch(path: string, spec: EndpointSpec, handler: Handler) {
    this.add('patch', path, spec, handler);
  }
  delete(path: string, spec: EndpointSpec, handler: Handler) {
    this.add('delete', path, spec, handler);
  }

  private add(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, spec: EndpointSpec, handler: Handler) {
    const auth = spec.auth ?? 'user';
    const permission = spec.permission === undefined ? [] : Array.isArray(spec.permission) ? spec.permission : [spec.permission];
    this.registry.add({
      method,
      path: `${this.prefix}${path}`.replace(/(.)\/$/, '$1'),
      tag: this.tag,
      summary: spec.summary,
      auth,
      permission: spec.anyPermission ? [...permission, `one of: ${spec.anyPermission.join(' | ')}`] : permission,
      body: spec.body,
      bodyIsArray: spec.bodyIsArray,
      multipart: spec.files ? { files: spec.files } : undefined,
      query: spec.query,
      status: spec.status ?? 200,
      list: spec.list,
    });

    const guard: RequestHandler = async (req, _res, next) => {
      if (auth !== 'public') {
        await authenticateRequest(req);
        if (auth === 'user' && req.auth!.session.locked_at) throw locked();
        if (!hasAll(req.auth!.permissions, permission)) throw forbidden();
        if (spec.anyPermission && !spec.anyPermission.some((p) => req.auth!.permissions.has(p))) throw forbidden();
      }
      next();
    };
    const run: RequestHandler = async (req, res) => {
      // Query filters are checked (a bad value is a 422, not an empty list) but left in place.
      if (spec.query) parseOrThrow(spec.query, req.query);
      if (spec.body && !spec.bodyIsArray) req.body = parseOrThrow(spec.body, req.body);
      const result = await handler(req, res);
      if (res.headersSent) return;
      const r = result ?? {};
      res.status(r.status ?? spec.status ?? 200).json({
        success: true,
        ...(r.message ? { message: translateMessage(req.t, r.message, r.messageVars) } : {}),
        data: r.data ?? null,
        ...(r.meta ? { meta: r.meta } : {}),
      });
    };
    const chain: RequestHandler[] = [guard];
    if (spec.upload) chain.push(spec.upload);
    chain.push(run);
    this.router[method](path, ...chain);
  }
}
