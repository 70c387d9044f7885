import jwt from 'jsonwebtoken';

/**
 * Access tokens: HS256 JWTs whose `sid` names a sessions row. Verification pins the algorithm
 * (no "none", no RS/HS confusion) and checks expiry; the caller then checks the session row,
 * so a revoked session dies at once even though its token has not expired.
 */
const ALGORITHM = 'HS256' as const;
const ISSUER = 'bundle-reseller';
const AUDIENCE = 'console';

let secret = '';
export function configureTokens(appKey: string): void {
  secret = `${appKey}:access-token`;
}

export function signAccessToken(payload: { userId: number; sessionId: string }, expiresInSeconds: number): string {
  return jwt.sign({ sid: payload.sessionId }, secret, {
    algorithm: ALGORITHM,
    subject: String(payload.userId),
    expiresIn: expiresInSeconds,
    issuer: ISSUER,
    audience: AUDIENCE,
  });
}

export function verifyAccessToken(token: string): { userId: number; sessionId: string } | null {
  try {
    const decoded = jwt.verify(token, secret, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
    if (typeof decoded === 'string' || typeof decoded.sid !== 'string' || !decoded.sub) return null;
    const userId = Number(decoded.sub);
    return Number.isSafeInteger(userId) ? { userId, sessionId: decoded.sid } : null;
  } catch {
    return null;
  }
}
