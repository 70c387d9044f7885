import { AppError } from '../http/errors.ts';
import type { SaleMode } from '../platform/sale-mode.ts';

/**
 * The reseller API's Idempotency-Key prefix: its keys live apart from the console's in the one
 * column (unique per dealer), and a test key's apart from a live key's (the same key sent by both
 * is two sales, never a replay of the other mode's). Both prefixes are as long.
 */
export const RESELLER_KEY_PREFIX = 'rs/';
const TEST_KEY_PREFIX = 'rt/';
export const resellerKeyPrefix = (mode: SaleMode | undefined) => (mode === 'test' ? TEST_KEY_PREFIX : RESELLER_KEY_PREFIX);

/** A 400 on the Idempotency-Key header, as POST /recharges answers it (the IETF draft's statuses). */
export const headerError = (message: string) => new AppError(400, message, { idempotency_key: [message] });
