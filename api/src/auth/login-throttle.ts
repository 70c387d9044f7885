import type { Knex } from 'knex';
import { Model } from 'objection';
import { toDbTime } from '../database/time.ts';
import { AppError } from '../http/errors.ts';

/**
 * Failed sign-in throttling, kept in the database so every API instance sees the same counts.
 * Three windows, chosen so that an attacker cannot lock a real user out for long:
 * - account + IP: 5 failures in 15 minutes (the brute-force guard for one source);
 * - IP: 50 failures in 15 minutes (one source spraying many accounts);
 * - account from anywhere: 20 failures in 1 minute, a short back-off only, so failures from
 *   other addresses delay the real user by a minute at most.
 * A successful sign-in clears that account's failures from that IP.
 */
const RULES = [
  { scope: 'account_ip', limit: 5, windowSeconds: 15 * 60 },
  { scope: 'ip', limit: 50, windowSeconds: 15 * 60 },
  { scope: 'account', limit: 20, windowSeconds: 60 },
] as const;

function db(): Knex {
  return Model.knex();
}

export async function assertNotThrottled(email: string, ip: string): Promise<void> {
  const now = Date.now();
  for (const rule of RULES) {
    const since = toDbTime(new Date(now - rule.windowSeconds * 1000));
    const q = db()('login_attempts').where('created_at', '>', since);
    if (rule.scope !== 'ip') q.where('email', email);
    if (rule.scope !== 'account') q.where('ip', ip);
    const rows: { created_at: string }[] = await q.clone().orderBy('created_at', 'desc').limit(rule.limit).select('created_at');
    if (rows.length >= rule.limit) {
      // Blocked until the oldest counted failure leaves the window.
      const oldest = Date.parse(`${rows[rows.length - 1].created_at.replace(' ', 'T')}Z`);
      const retryAfter = Math.max(1, Math.ceil((oldest + rule.windowSeconds * 1000 - now) / 1000));
      throw new AppError(429, 'api:auth.throttled', undefined, { seconds: retryAfter }, { 'Retry-After': String(retryAfter) });
    }
  }
}

export async function recordFailure(email: string, ip: string): Promise<void> {
  await db()('login_attempts').insert({ email, ip, created_at: toDbTime() });
}

export async function clearFailures(email: string, ip: string): Promise<void> {
  await db()('login_attempts').where({ email, ip }).delete();
  // Old rows of everyone are dropped now and then, so the table stays small.
  if (Math.random() < 0.05) {
    await db()('login_attempts').where('created_at', '<', toDbTime(new Date(Date.now() - 24 * 3600 * 1000))).delete();
  }
}
