import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { rootKnex, unitOfWork } from '../database/unit-of-work.ts';
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
 * Each attempt is written before the password is checked, so parallel guesses cannot slip
 * past the limit together. A success removes that account's failures from that IP and
 * remembers the address.
 */
export interface ThrottleRule {
  scope: 'account_ip' | 'ip' | 'account';
  limit: number;
  windowSeconds: number;
}
export const PASSWORD_RULES: readonly ThrottleRule[] = [
  { scope: 'account_ip', limit: 5, windowSeconds: 15 * 60 },
  { scope: 'ip', limit: 50, windowSeconds: 15 * 60 },
  { scope: 'account', limit: 20, windowSeconds: 60 },
];
/**
 * Second-factor codes (auth/two-factor.routes.ts), counted under the key `two-factor:{user id}`:
 * the same windows per account and address and per address (an address's failures of both kinds
 * add up), but a six-digit code is a smaller space than a password, so the account-wide window
 * is 10 in 15 minutes (about 1 000 guesses a day against 3 live codes of a million).
 */
export const SECOND_FACTOR_RULES: readonly ThrottleRule[] = [
  { scope: 'account_ip', limit: 5, windowSeconds: 15 * 60 },
  { scope: 'ip', limit: 50, windowSeconds: 15 * 60 },
  { scope: 'account', limit: 10, windowSeconds: 15 * 60 },
];
const KNOWN_ADDRESS_DAYS = 30;

// Outside any unit of work: an attempt is recorded even when the sign-in then fails.
function db(): Knex {
  return rootKnex();
}

export interface Attempt {
  id: number;
  email: string;
  ip: string;
}

// An attempt left unsettled this long (its process died) counts as a failure.
const STALE_PENDING_MS = 30_000;
const WAIT_STEP_MS = 25;
// Long enough for 30 correct sign-ins at once to settle one after another on a loaded 2-core machine (argon2 each).
const WAIT_LIMIT_MS = 20_000;

const refuse = async (attempt: Attempt, retryAfter: number): Promise<never> => {
  // This attempt does not count: the wait stays what it was when the limit was reached.
  await db()('login_attempts').where('id', attempt.id).delete();
  throw new AppError(429, 'api:auth.throttled', undefined, { seconds: retryAfter }, { 'Retry-After': String(retryAfter) });
};

/**
 * Record an attempt, then let it through, or refuse it (429 with Retry-After) when it is over a
 * limit. Only settled failures are failures: attempts still being checked are not, but an
 * attempt that could only pass if earlier ones in progress succeed waits for them to settle
 * (earlier ones never wait for later ones, so this always ends). So 30 correct sign-ins at
 * once all pass, and 30 wrong guesses at once are still cut off at the limit.
 */
export async function beginAttempt(email: string, ip: string, rules: readonly ThrottleRule[] = PASSWORD_RULES): Promise<Attempt> {
  const started = Date.now();
  // Both engines answer an insert with [new id] (MySQL's insertId, SQLite's last rowid).
  const [id] = await db()('login_attempts').insert({ email, ip, succeeded: false, settled_at: null, created_at: toDbTime(new Date(started)) });
  const attempt = { id: Number(id), email, ip };
  for (;;) {
    const now = Date.now();
    const known = await db()('login_attempts')
      .where({ email, ip, succeeded: true })
      .where('created_at', '>', toDbTime(new Date(now - KNOWN_ADDRESS_DAYS * 86400_000)))
      .first('id');
    let mustWait = false;
    for (const rule of rules) {
      if (rule.scope === 'account' && known) continue;
      const since = toDbTime(new Date(now - rule.windowSeconds * 1000));
      const q = db()('login_attempts').where('succeeded', false).where('created_at', '>', since).where('id', '<', attempt.id);
      if (rule.scope !== 'ip') q.where('email', email);
      if (rule.scope !== 'account') q.where('ip', ip);
      const rows: { created_at: string; settled_at: string | null }[] = await q
        .orderBy('id', 'desc')
        .limit(rule.limit * 4 + 1)
        .select('created_at', 'settled_at');
      const staleBefore = toDbTime(new Date(now - STALE_PENDING_MS));
      const failed = rows.filter((r) => r.settled_at !== null || r.created_at < staleBefore);
      if (failed.length >= rule.limit) {
        const oldest = Date.parse(`${failed[rule.limit - 1].created_at.replace(' ', 'T')}Z`);
        return refuse(attempt, Math.max(1, Math.ceil((oldest + rule.windowSeconds * 1000 - now) / 1000)));
      }
      if (rows.length >= rule.limit) mustWait = true;
    }
    if (!mustWait) return attempt;
    if (now - started > WAIT_LIMIT_MS) return refuse(attempt, 1);
    await sleep(WAIT_STEP_MS);
  }
}

/** The password was wrong (or the account may not sign in): the attempt is a failure now. */
export async function attemptFailed(attempt: Attempt): Promise<void> {
  await db()('login_attempts').where('id', attempt.id).update({ settled_at: toDbTime() });
}

/** The password was right: forget this source's failures and remember the address. */
export async function attemptSucceeded(attempt: Attempt): Promise<void> {
  // Settled failures and this attempt go; attempts still in progress stay and settle themselves.
  // Deleted by primary key: a range delete on the secondary index would take gap locks that
  // deadlock with parallel inserts on MySQL/MariaDB.
  const ids: number[] = await db()('login_attempts')
    .where({ email: attempt.email, ip: attempt.ip })
    .where((q) => q.where('id', attempt.id).orWhere((f) => f.where('succeeded', false).whereNotNull('settled_at')))
    .pluck('id');
  if (ids.length) await db()('login_attempts').whereIn('id', ids).delete();
  await db()('login_attempts').insert({ email: attempt.email, ip: attempt.ip, succeeded: true, settled_at: toDbTime(), created_at: toDbTime() });
  // Old rows are dropped now and then, so the table stays small.
  if (Math.random() < 0.05) {
    // Housekeeping may lose a lock race to a sign-in; it is retried, or simply done next time.
    await unitOfWork(async (trx) => {
      await trx('login_attempts')
        .where('succeeded', false)
        .where('created_at', '<', toDbTime(new Date(Date.now() - 86400_000)))
        .delete();
      await trx('login_attempts')
        .where('created_at', '<', toDbTime(new Date(Date.now() - KNOWN_ADDRESS_DAYS * 86400_000)))
        .delete();
    }).catch(() => undefined);
  }
}
