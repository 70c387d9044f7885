/**
 * DT One's answers (DVS API), and what each one means for the call it answers (issue 25, item 3).
 *
 * A refusal is an HTTP 4xx with `{errors: [{code, message}]}`; a transaction carries `status.class`
 * (1 CREATED, 2 CONFIRMED, 3 REJECTED, 4 CANCELLED, 5 SUBMITTED, 7 COMPLETED, 8 REVERSED, 9 DECLINED).
 * An answer nobody listed here (a code not in the table, a 4xx without one, another class) is
 * **unknown**: it never completes or fails a sale; the worker asks again and a person sees the raw
 * answer. Sending again is always safe: `external_id` is unique per account, so DT One never
 * delivers twice under one reference (a second send is refused with 1007001).
 *
 * Where each entry comes from: [docs] the vendors' protocol notes (INTEGRATIONS.md, "DT One": the
 * classes, 1007001, 1008004, 1006001, 1003001, 1005003, 1009503); [stand-in] the stand-in's
 * 1000400 and 1000401 (stand-ins/dtone-stand-in.ts, `DTONE_ERRORS`). 401, 403 and 429 are refusals
 * before anything was done, whatever their code. Check every code against DT One's pre-production
 * API before going live.
 */
import type { ReloadlyMeaning } from '../reloadly/reloadly-answers.ts';

/** The same four meanings as Reloadly's (refused, retry, has_it, unknown). */
export type DtOneMeaning = ReloadlyMeaning;

export const DTONE_ANSWERS: Readonly<Record<number, { meaning: DtOneMeaning; what: string; source: string }>> = {
  1003001: { meaning: 'refused', what: 'product unavailable', source: 'docs' },
  1005003: { meaning: 'refused', what: 'invalid number', source: 'docs' },
  1000400: { meaning: 'refused', what: 'invalid request', source: 'stand-in' },
  // The float is short: nothing was done; it can be sent once the account is topped up.
  1006001: { meaning: 'retry', what: 'insufficient balance at DT One', source: 'docs' },
  1009503: { meaning: 'retry', what: 'retry later', source: 'docs' },
  1000401: { meaning: 'retry', what: 'unauthorized', source: 'stand-in' },
  // Already there under this external_id: ask by it.
  1007001: { meaning: 'has_it', what: 'external_id already used', source: 'docs' },
};

/** What a transaction's class means for the sale. */
export type DtOneClassMeaning = 'delivered' | 'processing' | 'failed' | 'unknown';
export const DTONE_CLASS_MEANINGS: Readonly<Record<number, DtOneClassMeaning>> = {
  1: 'processing',
  2: 'processing',
  5: 'processing',
  7: 'delivered',
  3: 'failed',
  4: 'failed',
  8: 'failed',
  9: 'failed',
};

export interface DtOneErrorReading {
  meaning: DtOneMeaning;
  classified: boolean;
  code: number | null;
  /** The answer in one line: `HTTP 400 1003001 Product is not available`. */
  raw: string;
}

/** Reads a refusal (any non-2xx answer). */
export function readDtOneError(status: number, body: unknown): DtOneErrorReading {
  const first = (body as { errors?: { code?: unknown; message?: unknown }[] } | null)?.errors?.[0];
  const code = typeof first?.code === 'number' ? first.code : Number.isFinite(Number(first?.code)) ? Number(first?.code) : null;
  const raw = `HTTP ${status} ${code ?? '-'} ${typeof first?.message === 'string' ? first.message : ''}`.trim();
  const known = code !== null ? DTONE_ANSWERS[code] : undefined;
  if (known?.meaning === 'has_it') return { meaning: 'has_it', classified: true, code, raw };
  if (status === 401 || status === 403 || status === 429) return { meaning: 'retry', classified: true, code, raw };
  if (known && status >= 400 && status < 500) return { meaning: known.meaning, classified: true, code, raw };
  return { meaning: 'unknown', classified: false, code, raw };
}
