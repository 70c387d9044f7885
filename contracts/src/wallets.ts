import { z } from 'zod';
import { optionalText } from './common.ts';
import { amountSchema } from './money.ts';
import { nationalNumber } from './phone.ts';

/**
 * Wallets and their ledger (docs/data-model.md, Wallets and the ledger): admins top up and adjust,
 * dealers ask for top-ups that admins approve or reject. Amounts are "12.50" strings or numbers,
 * parsed to cents.
 */
export const TRANSACTION_TYPES = ['credit', 'debit'] as const;
/** `profit_reversal`: a "Profit Only" dealer gives back the profit of a delivered sale refunded by hand. */
/** `payout`: a "Profit Only" dealer's profit paid out to its mobile number (an approved payout request). */
export const TRANSACTION_KINDS = ['top_up', 'adjustment', 'recharge_debit', 'recharge_refund', 'profit_credit', 'profit_reversal', 'payout'] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];
export const TOP_UP_REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;
/** A dealer's money request: money paid in to be credited (`top_up`), or profit to be paid out (`payout`, a "Profit Only" dealer). */
export const TOP_UP_REQUEST_KINDS = ['top_up', 'payout'] as const;
export type TopUpRequestKind = (typeof TOP_UP_REQUEST_KINDS)[number];

const reference = z
  .string({ message: 'validation:reference_required' })
  .trim()
  .min(1, { message: 'validation:reference_required' })
  .max(128, { message: 'validation:too_long' });

export const walletTopUpSchema = z.object({
  amount: amountSchema,
  reference,
  note: optionalText(500),
});

/** A correction: credit or debit with the reason written down (a debit never takes a balance below zero). */
export const walletAdjustSchema = z.object({
  type: z.enum(TRANSACTION_TYPES, { message: 'validation:transaction_type_invalid' }),
  amount: amountSchema,
  reference,
  note: z.string({ message: 'validation:note_required' }).trim().min(1, { message: 'validation:note_required' }).max(500, { message: 'validation:too_long' }),
});

/** A dealer's request: how much it paid in, and the payment's reference (a receipt image may come along). */
export const topUpRequestSchema = z.object({
  amount: amountSchema,
  reference,
  note: optionalText(500),
});

/**
 * A "Profit Only" dealer asks for its profit: how much (at most its balance less what it already
 * asked for) and the mobile number to send it to ("+252 61 5123456", "0615123456": kept as 9 digits).
 */
export const payoutRequestSchema = z.object({
  amount: amountSchema,
  phone: z
    .string({ message: 'validation:payout_phone_required' })
    .trim()
    .min(1, { message: 'validation:payout_phone_required' })
    .refine((v) => v === '' || nationalNumber(v) !== null, { message: 'validation:phone_somali_invalid' })
    .transform((v) => nationalNumber(v) as string),
  note: optionalText(500),
});
export type PayoutRequestInput = z.infer<typeof payoutRequestSchema>;

/** Where a dealer pays a top-up in: the company's payment methods that say so, and its phone. */
export const topUpPaymentDetailsSchema = z.object({
  company_name: z.string(),
  phone: z.string().nullable(),
  methods: z.array(z.object({ name: z.string(), type: z.string(), account_number: z.string().nullable(), instructions: z.string().nullable() })),
});
export type TopUpPaymentDetails = z.infer<typeof topUpPaymentDetailsSchema>;

export const rejectTopUpSchema = z.object({
  reason: z
    .string({ message: 'validation:reason_required' })
    .trim()
    .min(1, { message: 'validation:reason_required' })
    .max(500, { message: 'validation:too_long' }),
});

/**
 * Ceilings on money (company settings, group `money`): one operation (a top-up, an adjustment, a
 * top-up request) and one balance. They keep every figure far below 2^53 cents, so the ledger
 * stays exact with plain numbers; the schema's own bound is MAX_MONEY_LIMIT.
 */
export const MAX_MONEY_LIMIT_MINOR = 1_000_000_000_000_00; // 1,000,000,000,000.00
export const DEFAULT_MONEY_LIMITS = { max_operation: 100_000_00, max_balance: 10_000_000_00 };
const limit = amountSchema.refine((v) => v <= MAX_MONEY_LIMIT_MINOR, { message: 'validation:money_limit_too_high' });
export const moneyLimitsSchema = z.object({ max_operation: limit, max_balance: limit });
export type MoneyLimitsInput = z.infer<typeof moneyLimitsSchema>;

/** A dealer's low-balance alert: an amount, or null (or "") for none. */
export const lowBalanceAlertSchema = z.object({
  threshold: z.preprocess((v) => (v === '' ? null : v), amountSchema.nullable()),
});

/** A real calendar day: 2026-02-30 is refused (Date.parse would roll it over to March 2). */
export const isCalendarDay = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const at = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === v;
};

/** The date-range filters (ledger, sales, reports, logs): YYYY-MM-DD, in the company's time zone. */
export const dateParam = z.string().refine(isCalendarDay, { message: 'validation:date_invalid' }).optional();

/**
 * A wallet's statement (GET /wallets/{id}/statement, the reseller's GET /wallet/statement): company
 * days `from`..`to` (both included, at most 366 days; by default the current month up to today),
 * the balances at either end, totals of the whole period, and its ledger lines oldest first, a
 * page at a time (JSON) or all of them (CSV, PDF).
 */
export const STATEMENT_FORMATS = ['json', 'csv', 'pdf'] as const;
export const STATEMENT_MAX_DAYS = 366;
export const STATEMENT_MAX_PER_PAGE = 500;
export const walletStatementQuery = z.object({
  from: dateParam.describe('First company day (YYYY-MM-DD); default the first day of the month of `to`'),
  to: dateParam.describe('Last company day (YYYY-MM-DD), included; default today'),
  format: z
    .enum(STATEMENT_FORMATS, { message: 'validation:statement_format_invalid' })
    .optional()
    .describe('json (default, lines paginated), csv or pdf (every line)'),
  page: z.string().optional(),
  per_page: z.string().optional().describe('Lines per page (default 100, at most 500)'),
});
export const resellerStatementQuery = walletStatementQuery.omit({ format: true });

export const walletStatementLineSchema = z.object({
  id: z.number().int(),
  at: z.string().describe('When it was written (ISO 8601, UTC)'),
  type: z.enum(TRANSACTION_TYPES),
  kind: z.enum(TRANSACTION_KINDS),
  amount: z.string(),
  balance_after: z.string(),
  reference: z.string().nullable(),
  recharge: z.object({ id: z.number().int(), reference: z.string().nullable() }).nullable(),
  note: z.string().nullable(),
});

export const walletStatementResponseSchema = z.object({
  wallet: z.object({
    id: z.number().int(),
    dealer: z.object({ id: z.number().int(), name: z.string(), dealer_code: z.string().nullable() }),
  }),
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  opening_balance: z.string().describe('The balance after the last line before the period (0.00 when there is none)'),
  closing_balance: z.string().describe('The balance after the last line of the period (the opening balance when it has none)'),
  totals: z.object({
    credits: z.string(),
    debits: z.string(),
    by_kind: z.array(z.object({ kind: z.enum(TRANSACTION_KINDS), type: z.enum(TRANSACTION_TYPES), count: z.number().int(), amount: z.string() })),
  }),
  lines: z.array(walletStatementLineSchema).describe('Oldest first; this page only (see meta)'),
});
export type WalletStatementResponse = z.infer<typeof walletStatementResponseSchema>;
