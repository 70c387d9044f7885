import type { Request, RequestHandler, Response } from 'express';
import type { AppConfig } from '../config.ts';
import type { RateLimits } from '../http/rate-limits.ts';

/**
 * The storefront's ceilings (/api/v1/client: purchases, order lookups, catalogue reads that miss
 * the cache), in place of the API's per-address ceiling (docs/decisions.md, "Rate limits"). Mobile
 * customers in Somalia come through carrier-grade NAT, thousands of phones on a few addresses, so
 * an address alone cannot tell a crowd from a script. A customer is counted by the session its
 * browser holds (the signed `storefront.sid` cookie, one per browser and so per device):
 * - every call: the address's crowd-sized ceiling (`perAddress`);
 * - with a session: that session's ceiling (`perSession`), what a person never reaches and a
 *   script looping on one session soon does;
 * - without one (or with a cookie this server did not sign): the address's stricter ceiling
 *   (`perAddressWithoutSession`), except GET /client/session, the call that opens a session, so a
 *   rush of new visitors behind one address gets in.
 * Cached catalogue answers are sent before any of this (client.routes.ts, storefrontFastPath) and
 * are not counted: a hit costs about what counting it would.
 */
export function storefrontLimits(limits: RateLimits, ceilings: AppConfig['storefrontLimits'], sessionIdOf: (req: Request) => string | null): RequestHandler[] {
  const sessionOf = (res: Response): string | null => (res.locals.customerSessionId as string | null | undefined) ?? null;
  const findSession: RequestHandler = (req, res, next) => {
    res.locals.customerSessionId = sessionIdOf(req);
    next();
  };
  const opensSession = (req: Request) => req.method === 'GET' && req.path === '/session';
  return [
    findSession,
    limits.perMinute('storefront-address', ceilings.perAddress, { identifier: 'storefront-address' }),
    limits.perMinute('storefront-session', ceilings.perSession, {
      identifier: 'storefront-session',
      skip: (_req, res) => sessionOf(res) === null,
      keyGenerator: (_req, res) => `session:${sessionOf(res)}`,
    }),
    limits.perMinute('storefront-no-session', ceilings.perAddressWithoutSession, {
      identifier: 'storefront-no-session',
      skip: (req, res) => sessionOf(res) !== null || opensSession(req),
    }),
  ];
}
