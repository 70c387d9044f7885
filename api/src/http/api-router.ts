import express, { type Request, type RequestHandler, type Response } from 'express';
import type { ZodType } from 'zod';
import { SIGNED_IN, type Permission } from '@app/contracts';
import { authenticateRequest } from '../auth/authenticate.ts';
import { forbidden, locked, validationFailed, AppError, type FieldErrors } from './errors.ts';
import { parseOrThrow } from './validate.ts';
import { refuseUndeclaredParams } from './list-query.ts';
import type { Audience, DownloadType, OpenApiRegistry } from '../openapi/registry.ts';
import { contractCheck, contractCheckEnabled } from '../openapi/contract-check.ts';
import { translateMessage } from '../i18n/server-i18n.ts';
import { contextFromRequest, type ServiceContext } from '../platform/context.ts';
import { hasAll } from '../auth/access.ts';
import { enrolmentRequired, mustEnrolTwoFactor } from '../auth/two-factor.ts';

/** What a handler returns; the envelope `{success, message, data, meta}` is added here, once. */
export interface Result {
  data?: unknown;
  message?: string;
  messageVars?: Record<string, unknown>;
  meta?: unknown;
  status?: number;
}

/** A permission of the catalogue, or SIGNED_IN (any signed-in user). */
export type RoutePermission = Permission | typeof SIGNED_IN;

export interface EndpointSpec {
  summary: string;
  /**
   * public: no token; user: signed in and unlocked; user-while-locked: signed in, lock ignored;
   * api-key: a dealer's API key (the reseller API), checked by the router's `keyAuth` for `scope`.
   */
  auth?: 'public' | 'user' | 'user-while-locked' | 'api-key';
  /** api-key routes: the key scope the route needs (403 naming it when the key lacks it). */
  scope?: string;
  /** Request headers the route reads, for the OpenAPI document. */
  headers?: { name: string; required?: boolean; description: string }[];
  /** OpenAPI examples: a request body and the answer's `data`. */
  examples?: { body?: unknown; data?: unknown };
  /** Further answers, by status, for the OpenAPI document: errors, or a second success (a replay's 200). */
  errors?: Record<number, string>;
  description?: string;
  /**
   * Files the route answers (CSV, PDF), beside the JSON of `response` (chosen by its `format`
   * query parameter), or instead of it when `response` is null.
   */
  downloads?: DownloadType[];
  /**
   * Every listed permission is required. Signed-in routes must declare one (or anyPermission):
   * SIGNED_IN says "any signed-in user" explicitly; a route with neither is refused at startup.
   */
  permission?: RoutePermission | RoutePermission[];
  /** At least one of these is required (finer rules then apply inside the service). */
  anyPermission?: Permission[];
  body?: ZodType;
  bodyIsArray?: boolean;
  query?: ZodType;
  /** A multer middleware; runs after the permission check so strangers cannot upload. */
  upload?: RequestHandler;
  files?: string[];
  /**
   * More field errors (e.g. a required file), answered together with the body's when the body is
   * invalid; with a valid body the handler reports them itself, with its own checks.
   */
  check?: (req: Request) => FieldErrors;
  /**
   * Open to a user whose role requires two-factor sign-in before it has enrolled (the enrolment
   * routes). Every other 'user' route answers that user 403 with code auth.two_factor_enrolment_required.
   */
  beforeTwoFactor?: boolean;
  /** Schema of `data` in the answer (of each item for lists); null: the answer has no data. */
  response: ZodType | null;
  status?: number;
  list?: boolean;
}

type Handler = (req: Request, ctx: ServiceContext, res: Response) => Promise<Result | void>;

export interface ApiRouterOptions {
  /** Authenticates an api-key route's caller for `scope` (throws the 401/403/429). */
  keyAuth?: (req: Request, res: Response, scope: string) => Promise<void>;
  /** The OpenAPI document these routes belong to (default console: /api/v1). */
  audience?: Audience;
  /** False for routes outside the per-address rate limit (health), so no 429 is documented. */
  rateLimited?: boolean;
}

function fieldErrorsOf(err: unknown): FieldErrors {
  if (err instanceof AppError && err.status === 422 && err.errors) return err.errors;
  throw err;
}

/**
 * A thin wrapper over an express Router: each route is one line with its whole chain
 * (auth -> lock -> permission -> upload -> validation -> handler), declared with the zod
 * schemas that also feed the OpenAPI document. Handlers get the request's service context.
 */
export class ApiRouter {
  readonly router = express.Router();

  constructor(
    private readonly registry: OpenApiRegistry,
    private readonly prefix: string,
    private readonly tag: string,
    private readonly options: ApiRouterOptions = {},
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
    const fullPath = `${this.prefix}${path}`.replace(/(.)\/$/, '$1');
    if (auth === 'api-key' && (!spec.scope || !this.options.keyAuth)) {
      throw new Error(`${method.toUpperCase()} ${fullPath}: an api-key route names its scope, and its router a keyAuth`);
    }
    if (auth !== 'public' && auth !== 'api-key' && permission.length === 0 && !spec.anyPermission?.length) {
      throw new Error(`${method.toUpperCase()} ${fullPath} declares no permission: name one, or SIGNED_IN for any signed-in user`);
    }
    const required = permission.filter((p): p is Permission => p !== SIGNED_IN);
    this.registry.add({
      method,
      path: fullPath,
      tag: this.tag,
      summary: spec.summary,
      auth,
      permission: spec.anyPermission ? [...required, `one of: ${spec.anyPermission.join(' | ')}`] : required,
      body: spec.body,
      bodyIsArray: spec.bodyIsArray,
      multipart: spec.files ? { files: spec.files } : undefined,
      query: spec.query,
      response: spec.response,
      status: spec.status ?? 200,
      list: spec.list,
      scope: spec.scope,
      audience: this.options.audience ?? 'console',
      rateLimited: this.options.rateLimited,
      downloads: spec.downloads,
      headers: spec.headers,
      examples: spec.examples,
      errors: spec.errors,
      description: spec.description,
    });

    const guard: RequestHandler = async (req, res, next) => {
      if (auth === 'api-key') {
        res.setHeader('Cache-Control', 'no-store');
        await this.options.keyAuth!(req, res, spec.scope!);
      } else if (auth !== 'public') {
        await authenticateRequest(req);
        // Signed-in answers are personal: never kept by a browser or a shared cache.
        res.setHeader('Cache-Control', 'no-store');
        if (auth === 'user' && req.auth!.session.locked_at) throw locked();
        if (auth === 'user' && !spec.beforeTwoFactor && mustEnrolTwoFactor(req.auth!.user)) throw enrolmentRequired();
        if (!hasAll(req.auth!.permissions, required)) throw forbidden();
        if (spec.anyPermission && !spec.anyPermission.some((p) => req.auth!.permissions.has(p))) throw forbidden();
      }
      next();
    };
    // Lists, the reseller API and the console's reads with parameters name what they do not know
    // (the storefront's public reads stay lenient: a shared link may carry a campaign's tags).
    const refusesUndeclared = spec.list || auth === 'api-key' || (method === 'get' && spec.query !== undefined && auth !== 'public');
    const run: RequestHandler = async (req, res) => {
      // A list refuses what it does not declare (named, not silently ignored); values are then
      // checked (a bad value is a 422, not an empty list) but left in place.
      if (refusesUndeclared) refuseUndeclaredParams(spec.query, req.query as Record<string, unknown>);
      if (spec.query) parseOrThrow(spec.query, req.query);
      // Every problem of the request in one 422: the body's fields and the route's own checks.
      let errors: FieldErrors = {};
      if (spec.body && !spec.bodyIsArray) {
        try {
          req.body = parseOrThrow(spec.body, req.body);
        } catch (err) {
          errors = { ...fieldErrorsOf(err) };
        }
      }
      if (Object.keys(errors).length) {
        for (const [field, messages] of Object.entries(spec.check?.(req) ?? {})) errors[field] = [...(errors[field] ?? []), ...messages];
        throw validationFailed(errors);
      }
      const result = await handler(req, contextFromRequest(req), res);
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
    // In the API tests: every answer of this route is checked against its OpenAPI operation.
    if (contractCheckEnabled()) {
      const audience = this.options.audience ?? 'console';
      chain.unshift(contractCheck(this.registry, { audience, method, path: fullPath, response: spec.response, list: spec.list, downloads: spec.downloads }));
    }
    if (spec.upload) chain.push(spec.upload);
    chain.push(run);
    this.router[method](path, ...chain);
  }
}
