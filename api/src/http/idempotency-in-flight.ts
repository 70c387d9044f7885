import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AppError } from './errors.ts';

/** Seconds a caller refused with idempotency.in_progress waits before retrying. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The IETF Idempotency-Key draft's 409: a retry arriving while the first request under its key is
 * still being received or run (a client that timed out on a slow uplink) is refused with
 * idempotency.in_progress and Retry-After, instead of racing it. Keys are held in this process from
 * the request's first byte until its answer is sent (or its connection dropped); across processes the
 * database's unique (dealer, key) index decides, and the later request answers the first's sale.
 * Mounted before the body parser, so a caller is scoped by its credentials (a hash of its
 * Authorization header): the same key under two callers is two keys.
 */
export function refuseWhileInFlight(): RequestHandler {
  const running = new Set<string>();
  return (req, res, next) => {
    const key = req.get('idempotency-key');
    if (!key) return next();
    const id = `${callerOf(req)}\n${key}`;
    if (running.has(id)) {
      return next(new AppError(409, 'api:errors.idempotency_in_progress', undefined, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) }));
    }
    running.add(id);
    res.once('close', () => running.delete(id));
    next();
  };
}

const callerOf = (req: Request) =>
  crypto
    .createHash('sha256')
    .update(req.get('authorization') ?? '')
    .digest('hex');
