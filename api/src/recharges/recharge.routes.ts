import { z } from 'zod';
import {
  API_KEY_MODES,
  csvExportParams,
  dateParam,
  listParams,
  rechargeResponseSchema,
  remoteCallResponseSchema,
  RECHARGE_STATUSES,
  PAYMENT_STATES,
  settleRechargeSchema,
  paidBackSchema,
  walletTransactionResponseSchema,
  type PaidBackInput,
  type SettleRechargeInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { csvColumns, csvWord, sendCsv, type CsvHeaders } from '../http/csv.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { zonedDay } from '../database/time.ts';
import {
  exportRecharges,
  listRecharges,
  rechargeDetail,
  recordPaidBack,
  refundRecharge,
  retryRecharge,
  reviewCount,
  settleRecharge,
  RECHARGE_SORTS,
  type RechargeFilters,
  type RechargeMoney,
  type RechargePageRequest,
} from './recharge-console.service.ts';

export type { RechargeMoney } from './recharge-console.service.ts';

const listQuery = z.object({
  mode: z
    .enum(API_KEY_MODES, { message: 'validation:api_key_mode_invalid' })
    .optional()
    .describe("live (default): real sales; test: the sandbox sales of the dealers' test keys"),
  dealer_id: z.string().optional(),
  provider_id: z.string().optional(),
  status: z.enum(RECHARGE_STATUSES, { message: 'validation:recharge_status_invalid' }).optional(),
  payment_state: z.enum(PAYMENT_STATES, { message: 'validation:invalid_value' }).optional(),
  from: dateParam,
  to: dateParam,
  // Digits with the usual separators: anything else would be stripped to nothing and filter nothing.
  phone: z
    .string()
    .max(32)
    .regex(/^[\d\s+().-]*$/, { message: 'validation:phone_filter_invalid' })
    .optional(),
  ...listParams({ sort: RECHARGE_SORTS, defaultSort: 'id', q: "A reference, exactly: ours (RC…), the gateway's or the operator's", qMax: 64 }),
});

const timelineSchema = z.object({
  recharge: rechargeResponseSchema,
  timeline: z.array(z.object({ at: z.string(), event: z.string(), detail: z.string().nullable() })),
  transactions: z.array(walletTransactionResponseSchema),
  remote_calls: z.array(remoteCallResponseSchema).describe('Every request to the gateway and the aggregator for this sale (empty for dealers)'),
});

const EXPORT_LIMIT = 50_000;

/** The query string as the services take it (checked against listQuery by the router). */
const filtersOf = (query: unknown) => query as RechargeFilters & RechargePageRequest;

/** /recharges: the console's list (dealers: their own), detail with timeline, manual retry and refund, CSV. The rules are in recharge-console.service.ts. */
export function rechargeRoutes(registry: OpenApiRegistry, money: RechargeMoney = {}) {
  const api = new ApiRouter(registry, '/recharges', 'Recharges');

  api.get(
    '/export',
    {
      summary: 'The filtered recharges as CSV (up to 50,000 rows)',
      permission: 'view recharges',
      query: listQuery.extend(csvExportParams),
      response: null,
      downloads: ['text/csv'],
    },
    async (req, ctx, res) => {
      const { rows, seesCost: cost, timezone } = await exportRecharges(ctx, filtersOf(req.query), EXPORT_LIMIT);
      const header = csvColumns(ctx.t, [
        'id',
        'reference',
        'created_at',
        'dealer',
        'provider',
        'bundle',
        'phone',
        'status',
        'amount',
        ...(cost ? ['cost', 'profit'] : []),
        'currency',
        'payment_reference',
        'operator_reference',
        'failure_summary',
        'failure_reason',
      ]);
      const lines = rows.map((r) => [
        r.id,
        r.reference,
        r.created_at,
        r.dealer.name,
        r.provider_name,
        r.bundle_name,
        r.phone,
        csvWord(ctx.t, 'statuses', r.status),
        r.amount,
        ...(cost ? [r.cost, r.profit] : []),
        r.currency,
        r.payment_reference,
        r.operator_reference,
        r.failure_summary,
        r.failure_reason,
      ]);
      sendCsv(res, `recharges-${zonedDay(new Date(), timezone)}.csv`, header, lines, {
        timeZone: timezone,
        headers: (req.query as { headers?: CsvHeaders }).headers,
      });
    },
  );

  api.get(
    '/',
    {
      summary:
        'Recharges: filter dealer_id, provider_id, status, payment_state (refund_due: money to pay back by hand), from, to (days), phone, q (a reference)',
      permission: 'view recharges',
      query: listQuery,
      list: true,
      response: rechargeResponseSchema,
    },
    async (req, ctx) => listRecharges(ctx, filtersOf(req.query), filtersOf(req.query)),
  );

  api.get(
    '/review-count',
    { summary: 'How many sales wait for review (the console badge)', permission: 'review recharges', response: z.object({ count: z.number().int() }) },
    async (_req, ctx) => ({ data: { count: await reviewCount(ctx) } }),
  );

  api.get(
    '/:id',
    {
      summary: 'One recharge with its timeline, wallet transactions and (staff) the remote-call trail',
      permission: 'view recharges',
      response: timelineSchema,
    },
    async (req, ctx) => ({ data: await rechargeDetail(ctx, String(req.params.id)) }),
  );

  api.post(
    '/:id/retry',
    {
      summary: 'Try a failed recharge again (only one that reached neither the gateway nor the operator)',
      permission: 'retry recharges',
      response: rechargeResponseSchema,
      errors: { 409: 'The recharge cannot be retried (not failed, or it reached the gateway or the operator)' },
    },
    async (req, ctx) => ({
      message: 'api:recharges.retried',
      data: await retryRecharge(ctx, money, String(req.params.id)),
    }),
  );

  api.post(
    '/:id/refund',
    {
      summary:
        "Refund a sale by hand: a failed one's dealer debit and customer payment, whatever is not back yet; a delivered one's money undone (the customer's payment back through the gateway, the dealer's debit back or its profit returned). 409 when nothing is left",
      permission: 'refund recharges',
      response: rechargeResponseSchema,
      errors: { 409: 'Nothing is left to refund' },
    },
    async (req, ctx) => {
      const { recharge, paymentReturned, paidBackByHand } = await refundRecharge(ctx, money, String(req.params.id));
      const message = paidBackByHand ? 'api:recharges.refund_by_hand_due' : paymentReturned ? 'api:recharges.refunded' : 'api:recharges.payment_return_pending';
      return { message, data: recharge };
    },
  );

  api.post(
    '/:id/paid-back',
    {
      summary: 'Record that a payment taken through a gateway without refunds (eDahab) was paid back to the customer by hand',
      description: 'Only for a sale whose payment_state is `refund_due`; records who, when, the note and the transfer reference once (409 otherwise).',
      permission: 'refund recharges',
      body: paidBackSchema,
      response: rechargeResponseSchema,
      errors: { 409: 'The payment is not refund_due, or its paying back was recorded already' },
    },
    async (req, ctx) => ({ message: 'api:recharges.paid_back', data: await recordPaidBack(ctx, String(req.params.id), req.body as PaidBackInput) }),
  );

  api.post(
    '/:id/settle',
    {
      summary: 'Settle a sale in review as delivered or not delivered',
      permission: 'review recharges',
      body: settleRechargeSchema,
      response: rechargeResponseSchema,
      errors: { 409: 'The sale is not in review (settled already)' },
    },
    async (req, ctx) => {
      const input = req.body as SettleRechargeInput;
      return { message: `api:recharges.settled_${input.outcome}`, data: await settleRecharge(ctx, money, String(req.params.id), input) };
    },
  );

  return api;
}
