import type { Knex } from 'knex';
import { Model } from 'objection';
import { toDbTime } from '../database/time.ts';
import { AppError } from '../http/errors.ts';

/**
 * Password-guess throttling for sign-in, unlock and change-password, kept in the database so
 * every API instance sees the same counts. Three windows:
 * - account + IP: 5 failures in 15 minutes (the brute-force guard for one source);
 * - IP: 50 failures in 15 minutes (one source spraying many accounts);
 * - account from anywhere: 20 failures in 1 minute, a short back-off that does not apply to an
 *   address that signed in to that account in the last 30 days, so failures from strangers
 *   never lock the real user out.
 * Each attempt is written before the password is checked and counted with the others, so
 * parallel guesses cannot slip past the limit together. A success removes that account's
 * failures from that IP and remembers the address.
 */
const RULES = [
  { scope: 'account_ip', limit: 5, windowSeconds: 15 * 60 },
  { scope: 'ip', limit: 50, windowSeconds: 15 * 60 },
  { scope: 'account', limit: 20, windowSeconds: 60 },
] as const;
const KNOWN_ADDRESS_DAYS = 30;

function db(): Knex {
  return Model.knex();
}

export interface Attempt {
  id: number;
  email: string;
  ip: string;
}

/** Record an attempt, then refuse it (429 with Retry-After) when it is over a limit. */
export async function beginAttempt(email: string, ip: string): Promise<Attempt> {
  const now = Date.now();
  // Both engines answer an insert with [new id] (MySQL's insertId, SQLite's last rowid).
  const [id] = await db()('login_attempts').insert({ email, ip, succeeded: false, created_at: toDbTime(new Date(now)) });
  const attempt = { id: Number(id), email, ip };
  const known = await db()('login_attempts')
    .where({ email, ip, succeeded: true })
    .where('created_at', '>', toDbTime(new Date(now - KNOWN_ADDRESS_DAYS * 86400_000)))
    .first('id');
  for (const rule of RULES) {
    if (rule.scope === 'account' && known) continue;
    const since = toDbTime(new Date(now - rule.windowSeconds * 1000));
    const q = db()('login_attempts').where('succeeded', false).where('created_at', '>', since).where('id', '<=', attempt.id);
    if (rule.scope !== 'ip') q.where('email', email);
    if (rule.scope !== 'account') q.where('ip', ip);
    const rows: { created_at: string }[] = await q.orderBy('id', 'desc').limit(rule.limit + 1).select('created_at');
    if (rows.length > rule.limit) {
      // This attempt does not count: the wait stays what it was when the limit was reached.
      await db()('login_attempts').where('id', attempt.id).delete();
      const oldest = Date.parse(`${rows[rows.length - 2].created_at.replace(' ', 'T')}Z`);
      const retryAfter = Math.max(1, Math.ceil((oldest + rule.windowSeconds * 1000 - now) / 1000));
      throw new AppError(429, 'api:auth.throttled', undefined, { seconds: retryAfter }, { 'Retry-After': String(retryAfter) });
    }
  }
  return attempt;
}

/** The password was right: forget this source's failures and remember the address. */
export async function attemptSucceeded(attempt: Attempt): Promise<void> {
  await db()('login_attempts').where({ email: attempt.email, ip: attempt.ip }).delete();
  await db()('login_attempts').insert({ email: attempt.email, ip: attempt.ip, succeeded: true, created_at: toDbTime() });
  // Old rows are dropped now and then, so the table stays small.
  if (Math.random() < 0.05) {
    await db()('login_attempts').where('succeeded', false).where('created_at', '<', toDbTime(new Date(Date.now() - 86400_000))).delete();
    await db()('login_attempts').where('created_at', '<', toDbTime(new Date(Date.now() - KNOWN_ADDRESS_DAYS * 86400_000))).delete();
  }
}
