import type { NextFunction, Request, Response } from 'express';
import { Session } from './session.model.ts';
import { User } from '../users/user.model.ts';
import { verifyAccessToken } from './tokens.ts';
import { loadPermissions } from './access.ts';
import { toDbTime } from '../database/time.ts';
import { unauthorized } from '../http/errors.ts';

function bearerToken(req: Request): string | null {
  const header = req.get('authorization');
  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || null;
  return null;
}

// last_seen_at is informational; writing it on every call would be a write per request.
const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * Resolve the caller from the bearer token: valid signature and expiry, then a live session
 * row (not revoked, not expired) of an active, not-deleted user. Sets req.auth or throws 401.
 */
export async function authenticateRequest(req: Request): Promise<void> {
  const token = bearerToken(req);
  if (!token) throw unauthorized();
  const claims = verifyAccessToken(token);
  if (!claims) throw unauthorized('api:auth.session_expired');
  const session = await Session.query().findById(claims.sessionId);
  const now = Date.now();
  if (!session || session.user_id !== claims.userId || session.revoked_at || Date.parse(session.expires_at) <= now) {
    throw unauthorized('api:auth.session_expired');
  }
  const user = await User.query()
    .findById(session.user_id)
    .whereNull('deleted_at')
    .withGraphFetched('[roles(notTrashed), dealer_details]')
    .modifiers({
      notTrashed: (qb) => qb.whereNull('roles.deleted_at'),
    });
  if (!user || user.status !== 'active') throw unauthorized('api:auth.session_expired');
  const { permissions, isSuperAdmin } = await loadPermissions(user.id);
  req.auth = { user, session, permissions, isSuperAdmin };
  if (!session.last_seen_at || now - Date.parse(session.last_seen_at) > LAST_SEEN_RESOLUTION_MS) {
    await Session.query()
      .patch({ last_seen_at: toDbTime() } as Partial<Session>)
      .where('id', session.id);
  }
}

export function authenticate(req: Request, _res: Response, next: NextFunction): void {
  authenticateRequest(req).then(() => next(), next);
}
