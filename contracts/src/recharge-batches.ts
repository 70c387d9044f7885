import { z } from 'zod';
import { listParams } from './list-query.ts';
import { API_KEY_MODES, requiredRefSchema } from './common.ts';
import { clientReferenceSchema } from './api-keys.ts';
import { RECHARGE_STATUSES } from './recharges.ts';
import { dealerRefSchema } from './responses.ts';

/**
 * Bulk sales (issue 27): a dealer's batch of up to 1,000 lines (a number and a bundle each), paid
 * from its wallet line by line, sold in the background in line order. A line the sale path refuses
 * (a short wallet, a bundle no longer offered, a number of another operator) is recorded with its
 * reason and the batch goes on. Money is "12.34" strings; times ISO 8601 UTC.
 */
export const MAX_BATCH_LINES = 1000;
export const BATCH_STATUSES = ['queued', 'running', 'completed'] as const;
export const BATCH_LINE_STATUSES = ['pending', 'accepted', 'refused'] as const;

export const rechargeBatchLineInputSchema = z.object({
  // Any text: a number that is not a Somali mobile number is that line's refusal, not the batch's.
  phone: z
    .string({ message: 'validation:phone_required' })
    .trim()
    .min(1, { message: 'validation:phone_required' })
    .max(32, { message: 'validation:phone_somali_invalid' })
    .describe('The number to top up (+252 61 5123456, 0615123456 ...)'),
  bundle_id: requiredRefSchema('validation:bundle_required').describe('The bundle: its id or h_id, as the catalogue answers it'),
  client_reference: clientReferenceSchema.optional(),
});
export type RechargeBatchLineInput = z.output<typeof rechargeBatchLineInputSchema>;

export const rechargeBatchSchema = z.object({
  client_reference: clientReferenceSchema.optional().describe('Your own reference for the batch, echoed in answers and the webhook'),
  lines: z
    .array(rechargeBatchLineInputSchema, { message: 'validation:batch_lines_required' })
    .min(1, { message: 'validation:batch_lines_required' })
    .max(MAX_BATCH_LINES, { message: 'validation:batch_lines_too_many' })
    .describe(`1 to ${MAX_BATCH_LINES} lines, sold in this order`),
});
export type RechargeBatchInput = z.output<typeof rechargeBatchSchema>;

const money = z.string().describe('Amount with two decimals, e.g. "12.34"');

export const batchProblemSchema = z.object({
  field: z.enum(['phone', 'bundle_id', 'payment', 'line']),
  /** The machine code POST /recharges answers for the same refusal (phone.wrong_operator, bundle.unavailable, validation.batch_line_duplicate ...). */
  code: z.string(),
  message: z.string(),
  /** error: the line would be refused; warning: it would sell, but look again (the same number and bundle twice). */
  level: z.enum(['error', 'warning']),
});
export type BatchProblem = z.infer<typeof batchProblemSchema>;

export const batchPreviewSchema = z.object({
  lines: z.array(
    z.object({
      line_no: z.number().int().describe('1 for the first line'),
      ok: z.boolean().describe('Would be sold now (warnings aside)'),
      phone: z.string().nullable().describe('The national number (9 digits) when the number is valid'),
      bundle_name: z.string().nullable(),
      cost: money.nullable().describe('What the wallet pays for this line'),
      problems: z.array(batchProblemSchema),
    }),
  ),
  totals: z.object({
    lines: z.number().int(),
    ok: z.number().int(),
    refused: z.number().int(),
    warnings: z.number().int(),
    /** The cost of the lines that can be sold, in order, until the balance runs out. */
    total_cost: money,
    balance: money,
    /** Lines beyond the balance (valid otherwise): refused at the sale unless the wallet is topped up first. */
    beyond_balance: z.number().int(),
    currency: z.string(),
  }),
});
export type BatchPreview = z.infer<typeof batchPreviewSchema>;

export const rechargeBatchResponseSchema = z.object({
  id: z.string().describe('The batch reference, RB + 10 characters'),
  client_reference: z.string().nullable(),
  mode: z.enum(API_KEY_MODES).describe('test: made with a test key, its sales on the sandbox'),
  status: z.enum(BATCH_STATUSES),
  dealer: dealerRefSchema.optional().describe('Console answers only'),
  lines_total: z.number().int(),
  lines_pending: z.number().int().describe('Lines not yet made into a sale or refused'),
  lines_accepted: z.number().int(),
  lines_refused: z.number().int(),
  /** The accepted lines' sales by their state now. */
  sales: z.object({ delivered: z.number().int(), failed: z.number().int(), in_progress: z.number().int() }),
  progress: z.number().int().min(0).max(100).describe('Lines handled (accepted or refused), in percent'),
  lines_url: z.string().describe('The batch with its lines, page by page (?page&per_page)'),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
});
export type RechargeBatchResponse = z.infer<typeof rechargeBatchResponseSchema>;

export const rechargeBatchLineResponseSchema = z.object({
  line_no: z.number().int(),
  phone: z.string(),
  bundle_id: z.union([z.number().int(), z.string()]),
  client_reference: z.string().nullable(),
  status: z.enum(BATCH_LINE_STATUSES),
  /** The line's sale once accepted. */
  recharge: z.object({ id: z.number().int(), reference: z.string(), status: z.enum(RECHARGE_STATUSES) }).nullable(),
  /** Why the line was refused. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type RechargeBatchLineResponse = z.infer<typeof rechargeBatchLineResponseSchema>;

export const rechargeBatchDetailSchema = rechargeBatchResponseSchema.extend({
  lines: z.array(rechargeBatchLineResponseSchema).describe('One page of lines, in line order'),
  lines_meta: z.object({ current_page: z.number().int(), per_page: z.number().int(), total: z.number().int(), last_page: z.number().int() }),
});
export type RechargeBatchDetail = z.infer<typeof rechargeBatchDetailSchema>;

/** The lines in line order, always: page and per_page as every list's (docs/api-conventions.md, "Lists"). */
export const rechargeBatchLinesQuery = z.object({
  ...listParams({ order: false }),
  status: z.enum(BATCH_LINE_STATUSES, { message: 'validation:batch_line_status_invalid' }).optional().describe('Only the lines in this state'),
});

/** Newest first, always: no sort or order to choose (docs/api-conventions.md, "Lists"). */
export const rechargeBatchListQuery = z.object({
  ...listParams({ order: false }),
  status: z.enum(BATCH_STATUSES, { message: 'validation:batch_status_invalid' }).optional(),
  /** Staff only: one dealer's batches. */
  dealer_id: z.string().optional(),
});
