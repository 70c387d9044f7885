import { AppError } from '../http/errors.ts';

/** The reseller API's Idempotency-Key prefix: its keys live apart from the console's in the one column (unique per dealer). */
export const RESELLER_KEY_PREFIX = 'rs/';

/** A 400 on the Idempotency-Key header, as POST /recharges answers it (the IETF draft's statuses). */
export const headerError = (message: string) => new AppError(400, message, { idempotency_key: [message] });
