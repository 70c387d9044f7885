import pino from 'pino';
import { logLevelOf } from '../config.ts';

/**
 * The log of work that runs outside a request's logger (after-commit notices, fire-and-forget
 * bookkeeping): JSON lines like the request log, at LOG_LEVEL (silent under NODE_ENV=test).
 */
export const serviceLog = pino({ level: logLevelOf() });
