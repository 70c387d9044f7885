import { z } from 'zod';
import { csvExportParams } from './list-query.ts';
import { amountSchema } from './money.ts';
import { TRANSACTION_TYPES } from './wallets.ts';

/**
 * The daily close (issue 26): a company day's sales compared with the payment gateways' and the
 * aggregators' own records, each difference handled by a person, then the day closed and its figures
 * frozen. Money in answers is "12.34" strings; times ISO 8601 UTC.
 */
export const DAILY_CLOSE_STATUSES = ['open', 'closed'] as const;
export const DIFFERENCE_KINDS = ['only_ours', 'only_theirs', 'amount', 'state'] as const;
export const DIFFERENCE_ACTIONS = ['reask', 'settle', 'adjust', 'accept'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];
export type DifferenceAction = (typeof DIFFERENCE_ACTIONS)[number];

const money = z.string().describe('Amount with two decimals, e.g. "12.34"');
/** A figure that shows what the sales cost: null for a user without "view bundles prices". */
const costly = money.nullable();
const userRef = z.object({ id: z.number().int(), name: z.string() });

export const dailyCloseVendorSchema = z.object({
  vendor: z.string(),
  kind: z.enum(['gateway', 'aggregator']),
  /** Records the vendor answered (an aggregator's report lines; a gateway's payments found). */
  records: z.number().int(),
  matched: z.number().int(),
  amount: money,
  /** Set when the vendor (or some of its answers) could not be had: those sales were not compared, refresh to retry. */
  error: z.string().nullable().optional(),
  unreachable: z.number().int().optional(),
});

export const dailyCloseTotalsSchema = z.object({
  sales: z.object({
    count: z.number().int(),
    amount: money,
    /** Null without "view bundles prices" (so are profit, gateway_charges, aggregator_cost and margin: the company's costs). */
    cost: costly,
    profit: costly,
    gateway_charges: costly,
    /** Over the sales whose aggregator cost is known in their currency (never guessed): the margins report's rule (MARGIN_KNOWN). */
    aggregator_cost: costly,
    /** amount - gateway_charges - aggregator_cost over those same sales (the margins report's figure). */
    margin: costly,
    /** Completed sales whose aggregator cost is not known: left out of aggregator_cost and margin. */
    unknown_cost: z.number().int().optional(),
  }),
  by_status: z.object({
    completed: z.number().int(),
    failed: z.number().int(),
    refunded: z.number().int(),
    needs_review: z.number().int(),
    in_flight: z.number().int(),
  }),
  ledger: z.object({ credits: money, debits: money, net: money }),
  vendors: z.array(dailyCloseVendorSchema),
  corrections: z.object({ count: z.number().int(), amount: money, profit: costly }),
  differences: z.object({ total: z.number().int(), unhandled: z.number().int() }),
});

export const dailyCloseDifferenceSchema = z.object({
  id: z.number().int(),
  kind: z.enum(DIFFERENCE_KINDS),
  /** Whose records differ: a gateway's or an aggregator's (the sandbox names both). */
  source: z.enum(['gateway', 'aggregator']),
  vendor: z.string(),
  reference: z.string().nullable(),
  recharge_id: z.number().int().nullable(),
  ours: z.record(z.string(), z.unknown()).nullable(),
  /** The vendor's side; its `cost` is null for a user without "view bundles prices". */
  theirs: z.record(z.string(), z.unknown()).nullable(),
  evidence: z.string(),
  handled: z.boolean(),
  action: z.enum(DIFFERENCE_ACTIONS).nullable(),
  note: z.string().nullable(),
  handled_by: userRef.nullable(),
  handled_at: z.string().nullable(),
  /** What the handling left: the adjustment's ledger row, a settled outcome, the last re-ask. */
  details: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const dailyCloseCorrectionSchema = z.object({
  id: z.number().int(),
  /** The closed day whose sale changed. */
  day: z.string(),
  reference: z.string().nullable(),
  recharge_id: z.number().int().nullable().optional(),
  what: z.string(),
  amount: money,
  profit: costly,
  at: z.string(),
});

export const dailyCloseSchema = z.object({
  date: z.string(),
  status: z.enum(DAILY_CLOSE_STATUSES),
  currency: z.string(),
  time_zone: z.string(),
  starts_at: z.string(),
  ends_at: z.string(),
  refreshed_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  closed_by: userRef.nullable(),
  cutoff_at: z.string().nullable(),
  totals: dailyCloseTotalsSchema,
  differences: z.array(dailyCloseDifferenceSchema),
  corrections: z.array(dailyCloseCorrectionSchema),
});
export type DailyCloseResponse = z.infer<typeof dailyCloseSchema>;
export type DailyCloseTotals = z.infer<typeof dailyCloseTotalsSchema>;
export type DailyCloseDifference = z.infer<typeof dailyCloseDifferenceSchema>;
export type DailyCloseCorrection = z.infer<typeof dailyCloseCorrectionSchema>;
export type DailyCloseVendor = z.infer<typeof dailyCloseVendorSchema>;

export const dailyCloseDaySchema = z.object({
  date: z.string(),
  status: z.enum(DAILY_CLOSE_STATUSES),
  sales_count: z.number().int(),
  amount: money,
  margin: costly,
  differences_total: z.number().int(),
  differences_unhandled: z.number().int(),
  refreshed_at: z.string().nullable(),
  closed_at: z.string().nullable(),
});
export type DailyCloseDay = z.infer<typeof dailyCloseDaySchema>;

const note = z
  .string({ message: 'validation:note_required' })
  .trim()
  .min(1, { message: 'validation:note_required' })
  .max(500, { message: 'validation:too_long' });

/**
 * How a person handles a difference; `note` always. reask: ask the vendor again now. settle
 * `{outcome}`: a sale in review, as the review queue does. adjust `{wallet_id, type, amount}`: one
 * wallet ledger row. accept: the difference stands as it is, for the reason written.
 */
export const resolveDifferenceSchema = z
  .object({
    action: z.enum(DIFFERENCE_ACTIONS, { message: 'validation:difference_action_invalid' }),
    note,
    outcome: z.enum(['delivered', 'not_delivered'], { message: 'validation:review_outcome_invalid' }).optional(),
    wallet_id: z.union([z.string(), z.number()], { message: 'validation:daily_close_wallet_required' }).optional(),
    type: z.enum(TRANSACTION_TYPES, { message: 'validation:transaction_type_invalid' }).optional(),
    amount: amountSchema.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.action === 'settle' && !v.outcome) ctx.addIssue({ code: 'custom', path: ['outcome'], message: 'validation:review_outcome_invalid' });
    if (v.action === 'adjust') {
      if (v.wallet_id === undefined || v.wallet_id === '')
        ctx.addIssue({ code: 'custom', path: ['wallet_id'], message: 'validation:daily_close_wallet_required' });
      if (!v.type) ctx.addIssue({ code: 'custom', path: ['type'], message: 'validation:transaction_type_invalid' });
      if (v.amount === undefined) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'validation:amount_invalid' });
    }
  });
export type ResolveDifferenceInput = z.infer<typeof resolveDifferenceSchema>;

export const dailyCloseExportQuery = z.object({
  format: z.enum(['csv', 'pdf'], { message: 'validation:export_format_invalid' }).optional(),
  ...csvExportParams,
});
