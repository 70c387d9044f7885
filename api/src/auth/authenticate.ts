import type { NextFunction, Request, Response } from 'express';
import { Session } from './session.model.ts';
import { User } from '../users/user.model.ts';
import { verifyAccessToken } from './tokens.ts';
import { loadPermissions } from './access.ts';
import { ACCESS_VERSION_TABLE, accessCache, frozenAccess, type CachedAccess } from './access-cache.ts';
import { db } from '../database/unit-of-work.ts';
import { toDbTime } from '../database/time.ts';
import { unauthorized } from '../http/errors.ts';

function bearerToken(req: Request): string | null {
  const header = req.get('authorization');
  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || null;
  return null;
}

// last_seen_at is informational; writing it on every call would be a write per request.
const LAST_SEEN_RESOLUTION_MS = 60_000;

interface SessionRow extends Record<string, unknown> {
  user_id: number;
  user_status: string;
  user_deleted_at: unknown;
  access_version: string | number | null;
}

/**
 * What must be fresh on every call, in one query by primary key: the session (revoked, expired,
 * locked, last seen), its user's status and trash state, and the access version. Plain SQL, the
 * same on both engines: knex's query builder would take longer to build it than the database to
 * answer it.
 */
const FRESH_SESSION_SQL =
  'SELECT sessions.*, users.status AS user_status, users.deleted_at AS user_deleted_at, ' +
  `(SELECT version FROM ${ACCESS_VERSION_TABLE} WHERE id = 1) AS access_version ` +
  'FROM sessions INNER JOIN users ON users.id = sessions.user_id WHERE sessions.id = ?';

async function freshSession(sessionId: string): Promise<{ session: Session; active: boolean; version: string | null } | null> {
  const result = await db().raw(FRESH_SESSION_SQL, [sessionId]);
  // better-sqlite3 answers the rows, mysql2 [rows, fields].
  const rows: SessionRow[] = Array.isArray(result[0]) ? result[0] : result;
  const row = rows[0];
  if (!row) return null;
  const { user_status, user_deleted_at, access_version, ...columns } = row;
  return {
    session: Session.fromDatabaseJson(columns),
    active: user_status === 'active' && !user_deleted_at,
    version: access_version === null || access_version === undefined ? null : String(access_version),
  };
}

/** The user with its live roles and dealer details, and its effective permissions. */
async function loadAccess(userId: number, version: string): Promise<CachedAccess | null> {
  const user = await User.query()
    .findById(userId)
    .whereNull('deleted_at')
    .withGraphFetched('[roles(notTrashed), dealer_details]')
    .modifiers({
      notTrashed: (qb) => qb.whereNull('roles.deleted_at'),
    });
  if (!user || user.status !== 'active') return null;
  const { permissions, isSuperAdmin } = await loadPermissions(user.id);
  return frozenAccess(version, user, permissions, isSuperAdmin);
}

/**
 * Resolve the caller from the bearer token: valid signature and expiry, then a live session
 * row (not revoked, not expired) of an active, not-deleted user. Sets req.auth or throws 401.
 *
 * The session row and the user's status are read on every call; the user with its roles, dealer
 * details and permissions comes from the process's cache when it was loaded under the access
 * version read now (access-cache.ts), so any change to them, made by any process, applies on the
 * next call.
 */
export async function authenticateRequest(req: Request): Promise<void> {
  const token = bearerToken(req);
  if (!token) throw unauthorized();
  const claims = verifyAccessToken(token);
  if (!claims) throw unauthorized('api:auth.session_expired');
  const fresh = await freshSession(claims.sessionId);
  const now = Date.now();
  if (!fresh || !fresh.active || fresh.session.user_id !== claims.userId || fresh.session.revoked_at || Date.parse(fresh.session.expires_at) <= now) {
    accessCache.delete(claims.sessionId);
    throw unauthorized('api:auth.session_expired');
  }
  const { session, version } = fresh;
  let access = version === null ? undefined : accessCache.get(session.id, version);
  if (!access || access.user.id !== session.user_id) {
    // The version is read before the user: a change committed meanwhile has raised it already, so
    // what is loaded now is never kept past the next call.
    access = (await loadAccess(session.user_id, version ?? '')) ?? undefined;
    if (!access) {
      accessCache.delete(session.id);
      throw unauthorized('api:auth.session_expired');
    }
    if (version !== null) accessCache.set(session.id, access);
  }
  req.auth = { user: access.user, session, permissions: access.permissions, isSuperAdmin: access.isSuperAdmin };
  if (!session.last_seen_at || now - Date.parse(session.last_seen_at) > LAST_SEEN_RESOLUTION_MS) {
    await Session.query()
      .patch({ last_seen_at: toDbTime() } as Partial<Session>)
      .where('id', session.id);
  }
}

export function authenticate(req: Request, _res: Response, next: NextFunction): void {
  authenticateRequest(req).then(() => next(), next);
}
