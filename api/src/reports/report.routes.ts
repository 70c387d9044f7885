import type { Response } from 'express';
import { z } from 'zod';
import { csvExportParams, dateParam, missedSalesSummarySchema, RECHARGE_STATUSES } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { csvColumns, csvWord, sendCsv, type CsvHeaders } from '../http/csv.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { fieldError, forbidden } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { zonedDay } from '../database/time.ts';
import { dashboard, dealerProfitReport, GROUPS, salesReport, type SalesFilters } from './reports.service.ts';
import { MARGIN_GROUPS, marginsReport, type MarginFilters } from './margins.service.ts';

const figures = { count: z.number().int(), revenue: z.string(), cost: z.string().optional().describe('Only with "view bundles prices"'), profit: z.string() };
const salesQuery = z.object({
  from: dateParam,
  to: dateParam,
  group_by: z.enum(GROUPS, { message: 'validation:group_by_invalid' }).optional(),
  dealer_id: z.string().optional(),
  provider_id: z.string().optional(),
  category: z.string().max(191).optional(),
  status: z.enum([...RECHARGE_STATUSES, 'all'], { message: 'validation:recharge_status_invalid' }).optional(),
  payment_method_id: z.string().optional(),
  format: z.enum(['json', 'csv'], { message: 'validation:invalid_value' }).optional(),
  ...csvExportParams,
});

const marginFigures = {
  count: z.number().int(),
  revenue: z.string(),
  list_profit: z.string().describe("The catalogue's profit: price less the bundle's listed cost"),
  gateway_charges: z.string().describe('What the payment gateways charged on these sales, as they said'),
  aggregator_cost: z.string().describe('What the aggregators said the top-ups cost (sales whose cost is known)'),
  margin: z.string().describe('Price less gateway charges less aggregator cost, over the sales whose aggregator cost is known'),
  unknown_cost: z.number().int().describe('Completed sales whose aggregator cost is not known (left out of margin, never guessed)'),
};
const marginsQuery = z.object({
  from: dateParam,
  to: dateParam,
  group_by: z.enum(MARGIN_GROUPS, { message: 'validation:group_by_invalid' }).optional(),
  dealer_id: z.string().optional(),
  provider_id: z.string().optional(),
  format: z.enum(['json', 'csv'], { message: 'validation:invalid_value' }).optional(),
  ...csvExportParams,
});

/** The dashboard's answer: the figures below, `missed_sales` (sales an empty wallet refused today) and, for staff, `attention`. */
const dashboardResponse = z
  .object({
    currency: z.string(),
    timezone: z.string(),
    missed_sales: missedSalesSummarySchema,
    attention: z
      .object({
        money_requests: z.number().int().nullable().describe("Top-up and payout requests waiting for a decision; null without 'review wallet top-ups'"),
        below_alert: z.number().int().nullable().describe("Live wallets under their low-balance alert; null without 'view wallets'"),
      })
      .optional()
      .describe('Staff only (absent for a dealer): what waits for someone, as the Wallets menu badges count it'),
  })
  .catchall(z.unknown());

/** The range asked for, in company days; by default the last 30 days. */
function range(q: Record<string, unknown>, timeZone: string) {
  const to = typeof q.to === 'string' ? q.to : zonedDay(new Date(), timeZone);
  const from = typeof q.from === 'string' ? q.from : zonedDay(new Date(Date.parse(`${to}T12:00:00Z`) - 29 * 86_400_000), timeZone);
  if (from > to) throw fieldError('from', 'validation:date_range_invalid');
  if (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`) > 400 * 86_400_000) throw fieldError('from', 'validation:date_range_too_long');
  return { from, to };
}

/** A report's CSV: reading the report is not enough, downloading it needs 'export reports' too (403). */
export function requireExport(ctx: ServiceContext): void {
  if (!ctx.actor.permissions.has('export reports')) throw forbidden();
}

/** GET /dashboard, /reports/sales (and its CSV), /reports/dealer-profit: figures computed in SQL, scoped to a dealer's own. */
export function reportRoutes(registry: OpenApiRegistry) {
  const dash = new ApiRouter(registry, '/dashboard', 'Reports');
  const reports = new ApiRouter(registry, '/reports', 'Reports');

  dash.get(
    '/',
    {
      summary: "Today's and this month's sales, the last 30 days, top bundles and dealers, latest sales, wallet balance, today's missed sales",
      permission: 'view dashboard',
      response: dashboardResponse,
    },
    async (_req, ctx) => {
      const { timezone, currency } = await readCompanySettings(ctx.db);
      return { data: { currency, timezone, ...(await dashboard(ctx, timezone)) } };
    },
  );

  reports.get(
    '/sales',
    {
      summary:
        'Sales over a date range, grouped by day, week, month, provider, bundle or dealer, with totals; format=csv exports exactly the rows shown (with "export reports")',
      permission: 'view reports',
      query: salesQuery,
      downloads: ['text/csv'],
      errors: { 403: "Without the permission to read the report, or format=csv without 'export reports'" },
      response: z.object({
        from: z.string(),
        to: z.string(),
        group_by: z.enum(GROUPS),
        rows: z.array(
          z.object({
            key: z.string(),
            id: z.number().int().nullable().optional().describe('The provider, bundle or dealer id when grouped by one of them (null: none)'),
            label: z.string(),
            ...figures,
          }),
        ),
        totals: z.object(figures),
      }),
    },
    async (req, ctx, res: Response) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.format === 'csv') requireExport(ctx);
      const { timezone } = await readCompanySettings(ctx.db);
      const filters: SalesFilters = { ...q, ...range(q, timezone), group_by: (q.group_by as SalesFilters['group_by']) ?? 'day' };
      const report = await salesReport(ctx, filters, timezone);
      if (q.format === 'csv') {
        const seesCost = report.totals.cost !== undefined;
        const header = csvColumns(ctx.t, [filters.group_by, 'count', 'revenue', ...(seesCost ? ['cost'] : []), 'profit']);
        const line = (label: unknown, r: { count: number; revenue: string; cost?: string; profit: string }) => [
          label,
          r.count,
          r.revenue,
          ...(seesCost ? [r.cost] : []),
          r.profit,
        ];
        sendCsv(
          res,
          `sales-${filters.from}-${filters.to}-by-${filters.group_by}.csv`,
          header,
          [...report.rows.map((r) => line(String(r.label), r as never)), line(csvWord(ctx.t, 'words', 'total'), report.totals)],
          { headers: q.headers as CsvHeaders | undefined },
        );
        return;
      }
      return { data: { from: filters.from, to: filters.to, group_by: filters.group_by, ...report } };
    },
  );

  reports.get(
    '/margins',
    {
      summary:
        "The company's real margin on completed sales over a date range (price less the gateway's charges less the aggregator's cost, as the vendors said), grouped by day, dealer, provider or route (the aggregator that delivered), with totals; staff with 'view bundles prices' only; format=csv exports the rows shown (with 'export reports')",
      permission: ['view reports', 'view bundles prices'],
      query: marginsQuery,
      downloads: ['text/csv'],
      errors: { 403: "Without the permission to read the report, or format=csv without 'export reports'" },
      response: z.object({
        from: z.string(),
        to: z.string(),
        group_by: z.enum(MARGIN_GROUPS),
        rows: z.array(z.object({ key: z.string(), label: z.string(), ...marginFigures })),
        totals: z.object(marginFigures),
      }),
    },
    async (req, ctx, res: Response) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.format === 'csv') requireExport(ctx);
      const { timezone } = await readCompanySettings(ctx.db);
      const filters: MarginFilters = {
        ...range(q, timezone),
        group_by: (q.group_by as MarginFilters['group_by']) ?? 'day',
        dealer_id: q.dealer_id,
        provider_id: q.provider_id,
      };
      const report = await marginsReport(ctx, filters, timezone);
      if (q.format === 'csv') {
        type Figures = (typeof report)['totals'];
        const line = (label: unknown, r: Figures) => [label, r.count, r.revenue, r.list_profit, r.gateway_charges, r.aggregator_cost, r.margin, r.unknown_cost];
        sendCsv(
          res,
          `margins-${filters.from}-${filters.to}-by-${filters.group_by}.csv`,
          csvColumns(ctx.t, [filters.group_by, 'count', 'revenue', 'list_profit', 'gateway_charges', 'aggregator_cost', 'margin', 'unknown_cost']),
          // Sales of no dealer, provider or route are grouped as `none` (margins.service.ts).
          [
            ...report.rows.map((r) => line(r.key === 'none' ? csvWord(ctx.t, 'words', 'none') : r.label, r)),
            line(csvWord(ctx.t, 'words', 'total'), report.totals),
          ],
          { headers: q.headers as CsvHeaders | undefined },
        );
        return;
      }
      return { data: { from: filters.from, to: filters.to, group_by: filters.group_by, ...report } };
    },
  );

  reports.get(
    '/dealer-profit',
    {
      summary:
        'Profit per dealer over a date range (a dealer: its own); with dealer_id, per bundle too; format=csv exports the rows shown (per bundle for one dealer; with "export reports")',
      permission: 'view dealer profit report',
      query: salesQuery.pick({ from: true, to: true, dealer_id: true, format: true, headers: true }),
      downloads: ['text/csv'],
      errors: { 403: "Without the permission to read the report, or format=csv without 'export reports'" },
      response: z.record(z.string(), z.unknown()),
    },
    async (req, ctx, res: Response) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.format === 'csv') requireExport(ctx);
      const { timezone } = await readCompanySettings(ctx.db);
      const r = range(q, timezone);
      const report = await dealerProfitReport(ctx, { ...r, dealer_id: q.dealer_id }, timezone);
      if (q.format === 'csv') {
        const seesCost = report.totals.cost !== undefined;
        type Figures = { count: number; revenue: string; cost?: string; profit: string };
        const sums = (f: Figures) => [f.count, f.revenue, ...(seesCost ? [f.cost] : []), f.profit];
        const tail = ['count', 'revenue', ...(seesCost ? ['cost'] : []), 'profit'];
        const [header, rows] = report.bundles
          ? [['provider', 'bundle', ...tail], report.bundles.map((b) => [b.provider, b.name, ...sums(b)])]
          : [
              ['dealer', 'dealer_code', 'pricing_model', ...tail],
              report.rows.map((d) => [d.dealer.name, d.dealer.dealer_code, csvWord(ctx.t, 'pricing', d.pricing_model), ...sums(d)]),
            ];
        const total = [csvWord(ctx.t, 'words', 'total'), ...(report.bundles ? [''] : ['', '']), ...sums(report.totals)];
        sendCsv(res, `dealer-profit-${r.from}-${r.to}${report.bundles ? '-by-bundle' : ''}.csv`, csvColumns(ctx.t, header), [...rows, total], {
          headers: q.headers as CsvHeaders | undefined,
        });
        return;
      }
      return { data: { ...r, ...report } };
    },
  );
  return { dash, reports };
}
