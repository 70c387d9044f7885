import crypto from 'node:crypto';
import session from 'express-session';
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { AppError } from '../http/errors.ts';

/**
 * The storefront customer's session (docs/api-conventions.md, "Storefront calls"): express-session with its sessions in the
 * `customer_sessions` table (never the memory store), so the recharges made from one browser can be
 * listed after a restart and on any server process. The session also holds the CSRF token that the
 * storefront's POSTs carry, because a cookie is what names the session.
 */
const THIRTY_DAYS_MS = 30 * 86_400_000;

export class KnexSessionStore extends session.Store {
  constructor(private readonly db: Knex) {
    super();
  }

  override get(sid: string, cb: (err: unknown, s?: session.SessionData | null) => void): void {
    this.db('customer_sessions')
      .where({ sid })
      .where('expires_at', '>', toDbTime())
      .first('sess')
      .then((row) => cb(null, row ? (JSON.parse(row.sess) as session.SessionData) : null), cb);
  }

  override set(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void): void {
    const expires = toDbTime(new Date(sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : Date.now() + THIRTY_DAYS_MS));
    const row = { sid, sess: JSON.stringify(sess), expires_at: expires };
    this.db('customer_sessions')
      .insert(row)
      .onConflict('sid')
      .merge(['sess', 'expires_at'])
      .then(
        () => cb?.(),
        (err) => (isUniqueViolation(err) ? cb?.() : cb?.(err)),
      );
  }

  override destroy(sid: string, cb?: (err?: unknown) => void): void {
    this.db('customer_sessions')
      .where({ sid })
      .delete()
      .then(() => cb?.(), cb);
  }

  override touch(sid: string, sess: session.SessionData, cb?: () => void): void {
    const expires = toDbTime(new Date(sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : Date.now() + THIRTY_DAYS_MS));
    this.db('customer_sessions')
      .where({ sid })
      .update({ expires_at: expires })
      .then(
        () => cb?.(),
        () => cb?.(),
      );
  }

  /** Expired sessions, removed now and then (the server calls this on a timer). */
  async prune(): Promise<number> {
    return this.db('customer_sessions').where('expires_at', '<=', toDbTime()).delete();
  }
}

declare module 'express-session' {
  interface SessionData {
    csrfToken?: string;
  }
}

export const CUSTOMER_SESSION_COOKIE = 'storefront.sid';

/**
 * The session id that a request's cookie names, when this server signed the cookie (express-session's
 * `s:<id>.<HMAC-SHA256>`); otherwise null. Read without the database, for counting calls per
 * session (storefront-limits.ts): a made-up cookie is no session.
 */
export function signedSessionIdOf(cookieHeader: string | undefined, secret: string): string | null {
  if (!cookieHeader) return null;
  const start = `${CUSTOMER_SESSION_COOKIE}=`;
  const raw = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(start))
    ?.slice(start.length);
  if (!raw) return null;
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const dot = value.lastIndexOf('.');
  if (!value.startsWith('s:') || dot < 3) return null;
  const id = value.slice(2, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(crypto.createHmac('sha256', secret).update(id).digest('base64').replace(/=+$/, ''));
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? id : null;
}

/** The session middleware for the storefront calls; the cookie is HttpOnly, SameSite=Lax, 30 days. */
export function customerSession(
  db: Knex,
  secret: string,
): { middleware: RequestHandler; store: KnexSessionStore; sessionIdOf: (req: Request) => string | null } {
  const store = new KnexSessionStore(db);
  const middleware = session({
    name: CUSTOMER_SESSION_COOKIE,
    secret,
    store,
    resave: false,
    // A session (and its row) starts only when something is stored in it: a purchase or a token.
    saveUninitialized: false,
    rolling: true,
    // Secure whenever the request came over HTTPS (behind a proxy: set TRUST_PROXY).
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: THIRTY_DAYS_MS, path: '/' },
  });
  return { middleware, store, sessionIdOf: (req) => signedSessionIdOf(req.headers.cookie, secret) };
}

/** The session's CSRF token, made on first use. */
export function csrfTokenOf(req: Request): string {
  if (!req.session.csrfToken) req.session.csrfToken = crypto.randomBytes(24).toString('base64url');
  return req.session.csrfToken;
}

/**
 * A POST that comes with the session cookie must carry the session's token (X-CSRF-Token): a
 * cookie alone is what another site could make a browser send. Calls without the cookie (an API
 * client, a first purchase) have no session to abuse and pass.
 */
export function checkCsrf(req: Request): void {
  const sent = req.get('x-csrf-token');
  if (!req.session?.csrfToken) return;
  const expected = Buffer.from(req.session.csrfToken);
  const given = Buffer.from(sent ?? '');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new AppError(403, 'api:storefront.csrf_invalid');
}
