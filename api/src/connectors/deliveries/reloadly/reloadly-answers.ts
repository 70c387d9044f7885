/**
 * Reloadly's answers, and what each one means for the call it answers (issue 24, item 4).
 *
 * A refusal is an HTTP 4xx with `{timeStamp, message, path, errorCode}`; a top-up is a transaction
 * whose `status` is `SUCCESSFUL`, `PROCESSING`, `FAILED` or `REFUNDED`. An answer nobody listed here
 * (an `errorCode` not in the table, a 4xx without one, another status word) is **unknown**: it
 * never completes or fails a sale; the worker asks again and a person sees the raw answer in the
 * review reason. Sending again is always safe: `customIdentifier` is unique per account, so the
 * aggregator never delivers twice under one reference.
 *
 * Where each entry comes from:
 * - [docs] the vendors' protocol notes (INTEGRATIONS.md, "Reloadly": `INVALID_PHONE_NUMBER`, a
 *   duplicate `customIdentifier`, insufficient balance at the aggregator, `TOKEN_EXPIRED` on a 401,
 *   the four status words) and Reloadly's published error-code list (`COUNTRY_NOT_SUPPORTED`,
 *   `INVALID_RECIPIENT_PHONE`, `INVALID_SENDER_PHONE`, `PHONE_RECENTLY_RECHARGED` (the same number
 *   again within two minutes), `OPERATOR_UNAVAILABLE_OR_CURRENTLY_INACTIVE`, `OPERATOR_NOT_IN_SERVICE`,
 *   `INACTIVE_ACCOUNT`, `ACCOUNT_NOT_FOUND`, `INVALID_AMOUNT`, `INVALID_AMOUNT_FOR_OPERATOR`,
 *   `TOPUP_TRANSACTION_FAILED`, `COULD_NOT_AUTO_DETECT_OPERATOR`, `MAX_DAILY_TRANSACTION_COUNT_REACHED`,
 *   `MAX_DAILY_TRANSACTION_AMOUNT_REACHED`, `TRANSACTION_CANNOT_BE_PROCESSED_AT_THE_MOMENT`,
 *   `INSUFFICIENT_BALANCE`).
 * - [traffic] integrators' captured answers: `CUSTOM_IDENTIFIER_ALREADY_USED` (the duplicate),
 *   `IMPOSSIBLE_AMOUNT`, `INVALID_AMOUNT_FOR_RECIPIENT_PHONE`, `PHONE_BANNED_BY_OPERATOR`,
 *   `SERVICE_TO_OPERATOR_TEMPORARILY_UNAVAILABLE`.
 * - [stand-in] the stand-in's codes (stand-ins/reloadly-stand-in.ts, `RELOADLY_ERRORS`):
 *   `DUPLICATE_CUSTOM_IDENTIFIER`, `OPERATOR_NOT_FOUND`, `INVALID_CUSTOM_IDENTIFIER`, `INVALID_TOKEN`,
 *   `INVALID_CREDENTIALS`, `TRANSACTION_NOT_FOUND`, `SERVICE_UNAVAILABLE` (a 503: no answer at all).
 * - [http] 401 (the adapter already got a new token once), 403 and 429 are refusals before anything
 *   was done, whatever their `errorCode`.
 */

/**
 * What a refusal means for a send (and for the operator detection before it):
 * - `refused`: nothing delivered, and it will not be: the delivery fails (the reserve is cancelled).
 * - `retry`: nothing was done; the same top-up can be sent later under the same `customIdentifier`.
 * - `has_it`: the aggregator already has a top-up under this `customIdentifier`: ask the report.
 * - `unknown`: says nothing certain: ask the report.
 */
export type ReloadlyMeaning = 'refused' | 'retry' | 'has_it' | 'unknown';

export interface ReloadlyErrorEntry {
  errorCode: string;
  meaning: ReloadlyMeaning;
  source: string;
}

const entry = (meaning: ReloadlyMeaning, source: string, ...codes: string[]): ReloadlyErrorEntry[] =>
  codes.map((errorCode) => ({ errorCode, meaning, source }));

export const RELOADLY_ERROR_TABLE: readonly ReloadlyErrorEntry[] = [
  // The number, the operator or the amount is wrong: sending again would be refused again.
  ...entry('refused', 'docs', 'INVALID_PHONE_NUMBER', 'INVALID_RECIPIENT_PHONE', 'INVALID_SENDER_PHONE', 'COUNTRY_NOT_SUPPORTED'),
  ...entry('refused', 'docs', 'COULD_NOT_AUTO_DETECT_OPERATOR', 'OPERATOR_UNAVAILABLE_OR_CURRENTLY_INACTIVE', 'OPERATOR_NOT_IN_SERVICE'),
  ...entry('refused', 'docs', 'INVALID_AMOUNT', 'INVALID_AMOUNT_FOR_OPERATOR', 'TOPUP_TRANSACTION_FAILED'),
  ...entry('refused', 'traffic', 'IMPOSSIBLE_AMOUNT', 'INVALID_AMOUNT_FOR_RECIPIENT_PHONE', 'PHONE_BANNED_BY_OPERATOR'),
  ...entry('refused', 'stand-in', 'OPERATOR_NOT_FOUND', 'INVALID_CUSTOM_IDENTIFIER'),
  // The aggregator's account: no float, a daily limit, an account switched off. Nothing delivered.
  ...entry('refused', 'docs', 'INSUFFICIENT_BALANCE', 'MAX_DAILY_TRANSACTION_COUNT_REACHED', 'MAX_DAILY_TRANSACTION_AMOUNT_REACHED'),
  ...entry('refused', 'docs', 'INACTIVE_ACCOUNT', 'ACCOUNT_NOT_FOUND'),
  // Not now: the same top-up goes through later (the same number is refused for two minutes after a top-up).
  ...entry('retry', 'docs', 'PHONE_RECENTLY_RECHARGED', 'TRANSACTION_CANNOT_BE_PROCESSED_AT_THE_MOMENT', 'TOKEN_EXPIRED'),
  ...entry('retry', 'traffic', 'SERVICE_TO_OPERATOR_TEMPORARILY_UNAVAILABLE'),
  ...entry('retry', 'stand-in', 'INVALID_TOKEN', 'INVALID_CREDENTIALS'),
  // The aggregator already has this customIdentifier: what became of it is what the report says.
  ...entry('has_it', 'docs, stand-in', 'DUPLICATE_CUSTOM_IDENTIFIER'),
  ...entry('has_it', 'traffic', 'CUSTOM_IDENTIFIER_ALREADY_USED'),
];

const BY_CODE = new Map(RELOADLY_ERROR_TABLE.map((e) => [e.errorCode, e]));
/** Refusals before anything was done, whatever the errorCode ([http]). */
const RETRY_STATUSES = new Set([401, 403, 429]);

export interface ReloadlyErrorReading {
  meaning: ReloadlyMeaning;
  classified: boolean;
  errorCode: string;
  /** `HTTP 400 INVALID_PHONE_NUMBER: message` */
  raw: string;
}

/** Reads a refusal (any answered status that is not a 2xx) of a send or of the operator detection. */
export function readReloadlyError(status: number, body: unknown): ReloadlyErrorReading {
  const b = (body && typeof body === 'object' ? body : {}) as { errorCode?: unknown; message?: unknown };
  const errorCode = typeof b.errorCode === 'string' ? b.errorCode.trim() : '';
  const message = typeof b.message === 'string' ? b.message.trim() : '';
  const raw = `HTTP ${status} ${errorCode || '-'}${message ? `: ${message}` : ''}`;
  const known = BY_CODE.get(errorCode.toUpperCase());
  // An errorCode that says the aggregator has the top-up wins over the status it came with.
  if (known?.meaning === 'has_it') return { meaning: 'has_it', classified: true, errorCode, raw };
  if (RETRY_STATUSES.has(status)) return { meaning: 'retry', classified: true, errorCode, raw };
  if (known && status >= 400 && status < 500) return { meaning: known.meaning, classified: true, errorCode, raw };
  return { meaning: 'unknown', classified: false, errorCode, raw };
}

/** What a top-up's status word means. */
export type ReloadlyStatusMeaning = 'delivered' | 'processing' | 'failed' | 'unknown';

export const RELOADLY_STATUSES: Readonly<Record<string, { meaning: ReloadlyStatusMeaning; source: string }>> = {
  SUCCESSFUL: { meaning: 'delivered', source: 'docs' },
  PROCESSING: { meaning: 'processing', source: 'docs' },
  FAILED: { meaning: 'failed', source: 'docs' },
  // The operator could not deliver and the aggregator gave the money back: not delivered.
  REFUNDED: { meaning: 'failed', source: 'docs' },
};

export function readReloadlyStatus(status: unknown): ReloadlyStatusMeaning {
  return RELOADLY_STATUSES[String(status ?? '').toUpperCase()]?.meaning ?? 'unknown';
}

/** The line a person reads for a refusal that decides nothing. */
export function reloadlyUnknownText(reading: ReloadlyErrorReading): string {
  if (reading.meaning === 'has_it') return `The aggregator already has this customIdentifier: ${reading.raw}`;
  return reading.classified ? `The answer ${reading.raw} says nothing certain about the top-up` : `Unclassified answer ${reading.raw}`;
}
