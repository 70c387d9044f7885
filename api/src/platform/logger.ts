import pino from 'pino';

/**
 * The log of work that runs outside a request's logger (after-commit notices, fire-and-forget
 * bookkeeping): JSON lines like the request log, at LOG_LEVEL (silent under NODE_ENV=test).
 */
export const serviceLog = pino({ level: process.env.LOG_LEVEL || (process.env.NODE_ENV === 'test' ? 'silent' : 'info') });
