import { z } from 'zod';
import { optionalText } from './common.ts';
import { amountSchema } from './money.ts';

/**
 * Wallets and their ledger (docs/data-model.md, Wallets and the ledger): admins top up and adjust,
 * dealers ask for top-ups that admins approve or reject. Amounts are "12.50" strings or numbers,
 * parsed to cents.
 */
export const TRANSACTION_TYPES = ['credit', 'debit'] as const;
export const TRANSACTION_KINDS = ['top_up', 'adjustment', 'recharge_debit', 'recharge_refund', 'profit_credit'] as const;
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
  reason: z.string({ message: 'validation:reason_required' }).trim().min(1, { message: 'validation:reason_required' }).max(500, { message: 'validation:too_long' }),
});

/** The date-range filter of the ledger: YYYY-MM-DD, in the company's time zone. */
export const dateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'validation:date_invalid' })
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), { message: 'validation:date_invalid' })
  .optional();
