import { z } from 'zod';
import { amountSchema } from './money.ts';
import { MAX_MONEY_LIMIT_MINOR } from './wallets.ts';

/**
 * The float left at each aggregator (docs/integrations.md, "The aggregators' float"): read on a
 * schedule and after every few sales, with an alert threshold that emails the staff who manage
 * delivery routes once per crossing, and a forecast of how many days it lasts.
 */

/** How the console and the emails name an aggregator. */
export const AGGREGATOR_LABELS: Record<string, string> = { reloadly: 'Reloadly', dtone: 'DT One', sandbox: 'Sandbox' };
export const aggregatorLabel = (name: string) => AGGREGATOR_LABELS[name] ?? name;

/** PUT /aggregators/{name}: the alert threshold, an amount ("50.00"), or null (or "") for none. */
export const aggregatorFloatSchema = z.object({
  threshold: z.preprocess(
    (v) => (v === '' ? null : v),
    amountSchema.refine((v) => v <= MAX_MONEY_LIMIT_MINOR, { message: 'validation:money_limit_too_high' }).nullable(),
  ),
});
export type AggregatorFloatInput = z.infer<typeof aggregatorFloatSchema>;

export const aggregatorResponseSchema = z.object({
  name: z.string(),
  label: z.string(),
  /** Talks to the real vendor (false: its embedded stand-in). */
  live: z.boolean(),
  /** The last balance read ("123.45"); null before the first answer. */
  balance: z.string().nullable(),
  currency: z.string().nullable(),
  threshold: z.string().nullable(),
  /** When the balance was last read (ISO 8601); null: never. */
  checked_at: z.string().nullable(),
  /** Why the last read got no answer (the balance shown is the one before); null when it answered. */
  check_error: z.string().nullable(),
  below_threshold: z.boolean(),
  /** Balance / average daily spend of the last 7 company days, rounded down to one decimal; null without spend. */
  days_left: z.number().nullable(),
  /** That average daily spend ("12.34"); null without spend. */
  daily_spend: z.string().nullable(),
});
export type AggregatorResponse = z.infer<typeof aggregatorResponseSchema>;

/** An aggregator whose float is below its threshold (the console's banner, the dashboard's `floats`). */
export const aggregatorAlertSchema = z.object({
  name: z.string(),
  label: z.string(),
  balance: z.string().nullable(),
  currency: z.string().nullable(),
  threshold: z.string().nullable(),
  days_left: z.number().nullable(),
});
export type AggregatorAlert = z.infer<typeof aggregatorAlertSchema>;
