import crypto, { type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

/**
 * Access tokens: HS256 JWTs whose `sid` names a sessions row. Verification pins the algorithm
 * (no "none", no RS/HS confusion) and checks expiry; the caller then checks the session row,
 * so a revoked session dies at once even though its token has not expired.
 */
const ALGORITHM = 'HS256' as const;
const ISSUER = 'bundle-reseller';
const AUDIENCE = 'console';

// A KeyObject made once: given a string, jsonwebtoken would first try (and fail) to read it as a
// public key on every verification.
let secret: KeyObject | undefined;
export function configureTokens(appKey: string): void {
  secret = crypto.createSecretKey(Buffer.from(`${appKey}:access-token`));
}

export function signAccessToken(payload: { userId: number; sessionId: string }, expiresInSeconds: number): string {
  if (!secret) throw new Error('Tokens are not configured (configureTokens first)');
  return jwt.sign({ sid: payload.sessionId }, secret, {
    algorithm: ALGORITHM,
    subject: String(payload.userId),
    expiresIn: expiresInSeconds,
    issuer: ISSUER,
    audience: AUDIENCE,
  });
}

export function verifyAccessToken(token: string): { userId: number; sessionId: string } | null {
  if (!secret) return null;
  try {
    const decoded = jwt.verify(token, secret, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
    if (typeof decoded === 'string' || typeof decoded.sid !== 'string' || !decoded.sub) return null;
    const userId = Number(decoded.sub);
    return Number.isSafeInteger(userId) ? { userId, sessionId: decoded.sid } : null;
  } catch {
    return null;
  }
}
