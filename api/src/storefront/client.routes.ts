import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { checkCsrf, csrfTokenOf, CUSTOMER_SESSION_COOKIE } from './customer-session.ts';
import { z } from 'zod';
import {
  idempotencyKeySchema,
  publicRechargeSchema,
  rechargeRequestSchema,
  storefrontContactSchema,
  storefrontDealerSchema,
  storefrontPaymentMethodSchema,
  storefrontProvidersSchema,
  type RechargeRequest,
} from '@app/contracts';
import { createRecharge, findForStorefront, presentPublic } from '../recharges/recharge.service.ts';
import { sellingDealer } from '../recharges/sale-offers.ts';
import type { RechargeRow } from '../recharges/recharge-rows.ts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { fieldError } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import { shopCacheKey, storefrontCache } from './storefront-cache.ts';
import { pickLanguage } from '../i18n/server-i18n.ts';
import {
  findStorefrontDealer,
  inCustomerLanguage,
  storefrontContacts,
  storefrontDealer,
  storefrontPaymentMethods,
  storefrontProviders,
} from './storefront.service.ts';
import { serviceUnavailable } from '../database/unit-of-work.ts';

/**
 * The dealer code of a storefront request: the `dealer_code` header (underscore, as the storefront
 * sends it), else `X-Dealer-Code`, else the `dealer_code` query parameter (docs/api-conventions.md, "Storefront calls").
 */
export function dealerCodeOf(req: Request): string {
  const raw = req.get('dealer_code') ?? req.get('x-dealer-code') ?? (typeof req.query.dealer_code === 'string' ? req.query.dealer_code : undefined);
  const code = raw?.trim() ?? '';
  if (!code) throw fieldError('dealer_code', 'validation:dealer_code_header_required');
  if (code.length > 64 || !/^[A-Za-z0-9_-]+$/.test(code)) throw fieldError('dealer_code', 'validation:dealer_code_invalid');
  return code;
}

/**
 * Sends a cached answer: every storefront visit asks for these, so they are served from the
 * in-process cache with an ETag (a repeat visit gets 304 and no body). `no-cache` makes browsers
 * ask again each time, so a price change shows on the next read. The texts are in the customer's
 * language (?lng=, else Accept-Language), so the answer varies by it.
 */
function sendCached(req: Request, res: Response, answer: { body: string; etag: string }) {
  res.setHeader('ETag', answer.etag);
  res.setHeader('Cache-Control', 'public, no-cache');
  res.setHeader('Vary', 'dealer_code, X-Dealer-Code, Accept-Language');
  if (req.get('if-none-match') === answer.etag) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(answer.body);
}

/** Cache keys of the storefront reads, by path below /api/v1. */
const CACHED_READS: Record<string, string> = {
  '/api/v1/client/dealer': 'dealer',
  '/api/v1/client/dealer/providers': 'providers',
  '/api/v1/client/contacts': 'contacts',
  '/api/v1/client/payment-methods': 'payment-methods',
};

/**
 * The storefront reads' fast path, mounted first in the app: a cached answer is sent at once,
 * without the API's per-request work (logging context, rate counting, helmet's full header set,
 * routing through every API router), so a storefront visit costs about what serving static JSON
 * costs (README, Benchmarks). A miss, or anything unusual, continues to the normal route below,
 * which validates, loads and fills the cache. Only public, cached, dealer-scoped data is served
 * here; the headers that matter for JSON are set the same way.
 */
export function storefrontFastPath(req: Request, res: Response, next: NextFunction) {
  if (req.method !== 'GET') return next();
  const name = CACHED_READS[req.path];
  if (!name) return next();
  const code = (req.get('dealer_code') ?? req.get('x-dealer-code') ?? (typeof req.query.dealer_code === 'string' ? req.query.dealer_code : ''))?.trim();
  // The same language the API's own language step picks (app.ts), so the key matches the route's.
  const answer = code ? storefrontCache.peek(shopCacheKey(name, code, pickLanguage(req.query.lng, req.get('accept-language')))) : undefined;
  if (!answer) return next();
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Referrer-Policy', 'no-referrer');
  sendCached(req, res, answer);
}

const dealerCodeQuery = z.object({ dealer_code: z.string().optional().describe('Also accepted as the dealer_code or X-Dealer-Code header') });

/** GET /client/dealer, /client/dealer/providers, /client/contacts, /client/payment-methods: public, cached. */
export function clientRoutes(registry: OpenApiRegistry, hooks: { onRechargeCreated?: () => void; session?: RequestHandler; limits?: RequestHandler[] } = {}) {
  const api = new ApiRouter(registry, '/client', 'Storefront');
  // The storefront's own ceilings (storefront-limits.ts), before anything reads the session or the database.
  if (hooks.limits?.length) api.router.use(hooks.limits);
  // The customer's session (cookie + database row) for the calls below that use it.
  if (hooks.session) {
    const session = hooks.session;
    api.router.use('/session', session);
    // A call without the cookie has no session to find: express-session would only make up an
    // empty one per call (a random id and a hash, a purchase's hottest CPU) and throw it away.
    api.router.use(['/recharge', '/recharges'], (req, res, next) =>
      req.headers.cookie?.includes(`${CUSTOMER_SESSION_COOKIE}=`) ? session(req, res, next) : next(),
    );
  }
  // One cache entry per shop and language: texts come in the request's language (ctx.language).
  const cached = (name: string, load: (ctx: ServiceContext, code: string) => Promise<unknown>) => async (req: Request, ctx: ServiceContext, res: Response) => {
    const code = dealerCodeOf(req);
    const answer = await storefrontCache.get(shopCacheKey(name, code, ctx.language), async () => ({ success: true, data: await load(ctx, code) }));
    sendCached(req, res, answer);
  };

  api.get(
    '/dealer',
    { summary: "The dealer's public profile, contacts and banners", auth: 'public', query: dealerCodeQuery, response: storefrontDealerSchema },
    cached('dealer', async (ctx, code) => storefrontDealer(ctx.db, await findStorefrontDealer(ctx.db, code), ctx.language)),
  );
  api.get(
    '/dealer/providers',
    { summary: "The dealer's operators, categories and bundles at its prices", auth: 'public', query: dealerCodeQuery, response: storefrontProvidersSchema },
    cached('providers', async (ctx, code) => storefrontProviders(ctx.db, (await findStorefrontDealer(ctx.db, code)).id, ctx.language)),
  );
  api.get(
    '/contacts',
    {
      summary: "The storefront's contacts (the dealer's, then the company's)",
      auth: 'public',
      query: dealerCodeQuery,
      response: z.array(storefrontContactSchema),
    },
    cached('contacts', async (ctx, code) => storefrontContacts(ctx.db, (await findStorefrontDealer(ctx.db, code)).id, ctx.language)),
  );
  api.get(
    '/payment-methods',
    {
      summary: 'How customers of this storefront pay (by the dealer’s pricing model)',
      auth: 'public',
      query: dealerCodeQuery,
      response: z.array(storefrontPaymentMethodSchema),
    },
    cached('payment-methods', async (ctx, code) => storefrontPaymentMethods(ctx.db, await findStorefrontDealer(ctx.db, code), ctx.language)),
  );

  // A purchase: answered at once with the pending recharge; the worker fulfils it in the background.
  api.post(
    '/recharge',
    {
      summary: 'Buy a bundle (idempotent by idempotency_key or the Idempotency-Key header)',
      auth: 'public',
      body: rechargeRequestSchema,
      status: 201,
      headers: [{ name: 'Idempotency-Key', description: 'One per purchase, unless sent as idempotency_key in the body; send it again on a retry' }],
      errors: { 403: 'The storefront form token is missing or stale (a browser session)' },
      response: publicRechargeSchema,
    },
    async (req, ctx) => {
      const code = dealerCodeOf(req);
      const input = req.body as RechargeRequest;
      const rawKey = input.idempotency_key ?? req.get('idempotency-key');
      if (!rawKey) throw fieldError('idempotency_key', 'validation:idempotency_key_required');
      const checked = idempotencyKeySchema.safeParse(rawKey);
      if (!checked.success) throw fieldError('idempotency_key', checked.error.issues[0].message);
      const key = checked.data;
      if (req.session) checkCsrf(req);
      const dealer = await sellingDealer(ctx.db, code);
      // A browser's purchase joins its session (the storefront opens one with GET /session before
      // buying), so the storefront can list it later. A client without the cookie (a script, an
      // API client) gets no session: it could never present it again.
      const customerSessionId = req.session?.csrfToken ? req.sessionID : null;
      const purchase = await createRecharge(ctx, dealer, input, key, { customerSessionId });
      const { id, created } = purchase;
      if (created) hooks.onRechargeCreated?.();
      // The purchase just made (or replayed under its key): its maker may read it.
      const row = purchase.row ?? (await ctx.db('recharges').where({ id, dealer_id: dealer.id }).first());
      const [data] = await inCustomerLanguage(ctx.db, [{ row, answer: presentPublic(row, ctx.t) }], ctx.language);
      return { status: created ? 201 : 200, message: created ? 'api:recharges.accepted' : 'api:recharges.already_accepted', data };
    },
  );
  api.get(
    '/session',
    {
      summary: "The customer's session: its CSRF token for the storefront's POSTs (sets the session cookie)",
      auth: 'public',
      response: z.object({ csrf_token: z.string() }),
    },
    async (req, _ctx, res) => {
      res.setHeader('Cache-Control', 'no-store');
      if (!req.session) throw serviceUnavailable();
      return { data: { csrf_token: csrfTokenOf(req) } };
    },
  );
  api.get(
    '/recharges',
    {
      summary: 'The recharges made from this browser (its session) in this shop, newest first',
      auth: 'public',
      query: dealerCodeQuery,
      response: z.array(publicRechargeSchema),
    },
    async (req, ctx, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const dealer = await findStorefrontDealer(ctx.db, dealerCodeOf(req));
      if (!req.session?.csrfToken) return { data: [] };
      const rows: RechargeRow[] = await ctx.db('recharges').where({ dealer_id: dealer.id, customer_session_id: req.sessionID }).orderBy('id', 'desc').limit(20);
      return {
        data: await inCustomerLanguage(
          ctx.db,
          rows.map((row) => ({ row, answer: presentPublic(row, ctx.t) })),
          ctx.language,
        ),
      };
    },
  );
  api.get(
    '/recharge/:id',
    {
      summary: "A recharge's status: by its reference, or by id / h_id from the browser session that made it",
      auth: 'public',
      query: dealerCodeQuery,
      response: publicRechargeSchema,
    },
    async (req, ctx, res) => {
      const dealer = await findStorefrontDealer(ctx.db, dealerCodeOf(req));
      res.setHeader('Cache-Control', 'no-store');
      // Only a session that holds a token is a customer's browser (a bare request gets a fresh, empty one).
      const sessionId = req.session?.csrfToken ? req.sessionID : null;
      const row = await findForStorefront(ctx.db, dealer.id, String(req.params.id), sessionId);
      // The operator and bundle in the reader's language (the order page, the "Buy again" button).
      const [data] = await inCustomerLanguage(ctx.db, [{ row, answer: presentPublic(row, ctx.t) }], ctx.language);
      return { data };
    },
  );
  return api;
}
