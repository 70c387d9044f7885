import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type pino from 'pino';
import { toDbTime } from '../database/time.ts';

/**
 * Other API processes on this database, seen through `process_heartbeats`: each process that counts
 * its rate limits in its own memory (no REDIS_URL) keeps a row fresh (one small write every
 * `everyMs`), and says once, in a warning, when it sees another process's row fresh too: from
 * then on every ceiling is as many times higher as there are processes. Nothing else reads the
 * table; a failure here (the database busy or away) is ignored and tried again at the next beat.
 */
export interface PresenceOptions {
  db: Knex;
  logger: pino.Logger;
  /** How often the row is refreshed (and others looked for, until one is seen). */
  everyMs?: number;
}

const DEFAULT_EVERY_MS = 15_000;
/** Rows this stale belong to processes gone (killed: no goodbye), removed by the next start. */
const FORGET_AFTER_MS = 86_400_000;

export function warnOfOtherProcesses({ db, logger, everyMs = DEFAULT_EVERY_MS }: PresenceOptions): { stop: () => Promise<void> } {
  const id = `${os.hostname().slice(0, 40)}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  // A row older than a few beats is a process gone.
  const aliveMs = Math.max(3 * everyMs, 60_000);
  let warned = false;
  let first = true;
  let stopped = false;

  const beat = async () => {
    const now = new Date();
    if (first) {
      await db('process_heartbeats')
        .where('seen_at', '<', toDbTime(new Date(now.getTime() - FORGET_AFTER_MS)))
        .delete();
      await db('process_heartbeats').insert({ id, host: os.hostname().slice(0, 191), pid: process.pid, started_at: toDbTime(now), seen_at: toDbTime(now) });
      first = false;
    } else {
      await db('process_heartbeats')
        .where({ id })
        .update({ seen_at: toDbTime(now) });
    }
    if (warned) return;
    const others = await db('process_heartbeats')
      .whereNot({ id })
      .where('seen_at', '>', toDbTime(new Date(now.getTime() - aliveMs)))
      .count({ n: '*' })
      .first();
    const count = Number(others?.n ?? 0);
    if (count > 0 && !stopped) {
      warned = true;
      logger.warn(
        `${count} other API process${count === 1 ? '' : 'es'} use${count === 1 ? 's' : ''} this database and REDIS_URL is not set: ` +
          'each process counts its own rate limits (API_RATE_LIMIT_PER_MINUTE, API_KEY_RATE_LIMIT_PER_MINUTE, the storefront ceilings), ' +
          `so every ceiling lets through ${count + 1} times as many calls. Set REDIS_URL to share them (sign-in throttles are shared already).`,
      );
    }
  };
  const run = () => {
    beat().catch((err: unknown) => logger.debug({ err }, 'process heartbeat not written'));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await db('process_heartbeats')
        .where({ id })
        .delete()
        .catch(() => undefined);
    },
  };
}
