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
let challengeSecret: KeyObject | undefined;
let hashKey: Buffer | undefined;
export function configureTokens(appKey: string): void {
  secret = crypto.createSecretKey(Buffer.from(`${appKey}:access-token`));
  // Keys of their own: a challenge can never pass for an access token, nor the reverse.
  challengeSecret = crypto.createSecretKey(Buffer.from(`${appKey}:two-factor-challenge`));
  hashKey = crypto.createHmac('sha256', appKey).update('two-factor hashes').digest();
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

/**
 * The second step of a sign-in (docs/api-conventions.md, "Two-factor sign-in"): a short-lived JWT
 * saying "this user gave the right password". It carries a fingerprint of the password hash, so a
 * password changed meanwhile ends it. It opens nothing but POST /auth/two-factor/verify.
 */
const CHALLENGE_AUDIENCE = 'two-factor';
export const CHALLENGE_TTL_SECONDS = 5 * 60;

export interface ChallengeClaims {
  userId: number;
  rememberMe: boolean;
  passwordFingerprint: string;
}

/** A verified challenge: its claims, its id and when it expires (a challenge opens one session at most). */
export interface VerifiedChallenge extends ChallengeClaims {
  jti: string;
  expiresAt: Date;
}

export function signChallengeToken(claims: ChallengeClaims): string {
  if (!challengeSecret) throw new Error('Tokens are not configured (configureTokens first)');
  return jwt.sign({ rm: claims.rememberMe, pw: claims.passwordFingerprint }, challengeSecret, {
    algorithm: ALGORITHM,
    subject: String(claims.userId),
    expiresIn: CHALLENGE_TTL_SECONDS,
    issuer: ISSUER,
    audience: CHALLENGE_AUDIENCE,
    jwtid: crypto.randomUUID(),
  });
}

export function verifyChallengeToken(token: string): VerifiedChallenge | null {
  if (!challengeSecret) return null;
  try {
    const decoded = jwt.verify(token, challengeSecret, { algorithms: [ALGORITHM], issuer: ISSUER, audience: CHALLENGE_AUDIENCE });
    if (typeof decoded === 'string' || typeof decoded.pw !== 'string' || !decoded.sub || !decoded.jti || !decoded.exp) return null;
    const userId = Number(decoded.sub);
    return Number.isSafeInteger(userId)
      ? { userId, rememberMe: decoded.rm === true, passwordFingerprint: decoded.pw, jti: decoded.jti, expiresAt: new Date(decoded.exp * 1000) }
      : null;
  } catch {
    return null;
  }
}

/**
 * A keyed hash (HMAC-SHA256 under APP_KEY) of a recovery code, a trusted device's token or a
 * password hash: a database dump alone cannot be used to try guesses offline.
 */
export function keyedHash(purpose: string, value: string): string {
  if (!hashKey) throw new Error('Tokens are not configured (configureTokens first)');
  return crypto.createHmac('sha256', hashKey).update(`${purpose}\0${value}`).digest('hex');
}
