import { z } from 'zod';
import {
  listParams,
  dailyCloseDaySchema,
  dailyCloseDifferenceSchema,
  dailyCloseExportQuery,
  dailyCloseSchema,
  resolveDifferenceSchema,
  type ResolveDifferenceInput,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { RoutingDeps } from '../routing/routing.routes.ts';
import type { RechargeMoney } from '../recharges/recharge-console.service.ts';
import { PaymentGateways } from '../connectors/payments/payment-gateways.ts';
import { closeDay, listDays, readDay, refreshDay, resolveDifference, type DailyCloseDeps } from './daily-close.service.ts';
import { exportDayCsv, exportDayPdf } from './daily-close-export.ts';
import type { CsvHeaders } from '../http/csv.ts';

// Company days, newest first unless order is asc.
const listQuery = z.object({ ...listParams({ sort: ['date'] }) });

/** The process's aggregators and gateways as the close asks them, read at each call. */
export function dailyCloseDeps(routing: RoutingDeps, money: RechargeMoney): DailyCloseDeps {
  return {
    operators: () => routing.operators ?? {},
    gateways: () => (money.payment ? PaymentGateways.from(money.payment) : routing.gateways),
    money,
  };
}

/**
 * /daily-close: a company day compared with the gateways' and aggregators' records, its
 * differences handled, the day closed (daily-close.service.ts). Staff only: a dealer is refused
 * whatever its role holds, since the close covers every dealer.
 */
export function dailyCloseRoutes(registry: OpenApiRegistry, deps: DailyCloseDeps) {
  const api = new ApiRouter(registry, '/daily-close', 'Daily close');

  api.get(
    '/',
    {
      summary: 'The company days that have sales, a close or corrections, newest first, up to today',
      permission: 'view daily close',
      query: listQuery,
      list: true,
      response: dailyCloseDaySchema,
    },
    async (req, ctx) => listDays(ctx, req.query as { page?: string; per_page?: string; order?: string }),
  );

  api.get(
    '/:date',
    {
      summary:
        "A company day (YYYY-MM-DD, the company's time zone): its totals, the differences with the vendors' records, and corrections to earlier closed days",
      description:
        'A closed day answers its frozen figures; an open day its figures as they stand now, with the corrections found by the last refresh, close or scheduled run (a read changes nothing). Cost, profit, aggregator cost and margin are null without "view bundles prices".',
      permission: 'view daily close',
      response: dailyCloseSchema,
      errors: { 403: 'A dealer, or a user without the permission', 422: 'Not a real day, or a day after today' },
    },
    async (req, ctx) => ({ data: await readDay(ctx, String(req.params.date)) }),
  );

  api.get(
    '/:date/export',
    {
      summary: "A day's sales with each one's vendors' view and the differences (format=csv), or a one- or two-page summary to file (format=pdf)",
      // A download of the day, like every report's: 'export reports' beside reading it.
      permission: ['view daily close', 'export reports'],
      query: dailyCloseExportQuery,
      response: null,
      downloads: ['text/csv', 'application/pdf'],
    },
    async (req, ctx, res) => {
      const day = String(req.params.date);
      if ((req.query as { format?: string }).format === 'pdf') await exportDayPdf(ctx, day, res);
      else await exportDayCsv(ctx, day, res, (req.query as { headers?: CsvHeaders }).headers);
    },
  );

  api.post(
    '/:date/refresh',
    {
      summary: 'Ask the gateways and aggregators again about an open day and recompute its differences (handled ones stay as they are)',
      description:
        "This asks the gateway about every sale of the day (the hourly schedule skips a sale whose last answer matched and whose row has not changed since), and finds the corrections to closed days. Closing a past day needs a refresh made after the day's end plus an hour; closing today cuts the day at its last refresh.",
      permission: 'manage daily close',
      response: dailyCloseSchema,
      errors: { 409: 'The day is closed' },
    },
    async (req, ctx) => ({ message: 'api:daily_close.refreshed', data: await refreshDay(ctx, deps, String(req.params.date), { askAll: true }) }),
  );

  api.post(
    '/:date/differences/:id/resolve',
    {
      summary: 'Handle a difference: reask (ask the vendor again now), settle (a sale in review), adjust (a wallet ledger row) or accept; a note always',
      description:
        '`settle` takes `outcome` (delivered | not_delivered) and needs "review recharges"; `adjust` takes `wallet_id`, `type` (credit | debit) and `amount` and needs "adjust wallets". A re-ask that still differs answers 200 with the difference unhandled and its new evidence.',
      permission: 'manage daily close',
      body: resolveDifferenceSchema,
      response: dailyCloseDifferenceSchema,
      errors: { 403: 'settle without "review recharges", adjust without "adjust wallets"', 409: 'Already handled, or (settle) the sale is not in review' },
      examples: {
        body: { action: 'adjust', note: 'Bundle delivered by the operator, dealer refunded by mistake', wallet_id: 4, type: 'debit', amount: '0.40' },
      },
    },
    async (req, ctx) => {
      const { difference, handled } = await resolveDifference(ctx, deps, String(req.params.date), String(req.params.id), req.body as ResolveDifferenceInput);
      return { message: handled ? 'api:daily_close.resolved' : 'api:daily_close.still_different', data: difference };
    },
  );

  api.post(
    '/:date/close',
    {
      summary: 'Close the day: its figures are frozen (409 while a difference is unhandled); closing today cuts it at its last refresh',
      permission: 'manage daily close',
      response: dailyCloseSchema,
      errors: {
        409: 'A difference is unhandled, the day was never refreshed (or, a past day, not since its end plus an hour: refresh first), or it is closed already',
      },
    },
    async (req, ctx) => ({ message: 'api:daily_close.closed_now', data: await closeDay(ctx, String(req.params.date)) }),
  );

  return api;
}
