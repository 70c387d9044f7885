import { z } from 'zod';
import { optionalText } from './common.ts';
import { amountSchema } from './money.ts';

/**
 * Wallets and their ledger (docs/data-model.md, Wallets and the ledger): admins top up and adjust,
 * dealers ask for top-ups that admins approve or reject. Amounts are "12.50" strings or numbers,
 * parsed to cents.
 */
export const TRANSACTION_TYPES = ['credit', 'debit'] as const;
/** `profit_reversal`: a "Profit Only" dealer gives back the profit of a delivered sale refunded by hand. */
export const TRANSACTION_KINDS = ['top_up', 'adjustment', 'recharge_debit', 'recharge_refund', 'profit_credit', 'profit_reversal'] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];
export const TOP_UP_REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;

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
