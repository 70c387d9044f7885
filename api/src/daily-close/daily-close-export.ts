import type { Response } from 'express';
import type { DailyCloseDifference } from '@app/contracts';
import { formatMinor } from '@app/contracts';
import { csvColumns, csvWord, csvWords, sendCsv, zonedIsoTime, type CsvHeaders } from '../http/csv.ts';
import { renderPdf, sendPdf, type PdfSection } from '../http/pdf.ts';
import type { ServiceContext } from '../platform/context.ts';
import { daySales, readDay, seesCost } from './daily-close.service.ts';

/**
 * A day's close as files: the CSV (every sale of the day with what the vendors said of it and the
 * match, then the vendors' records that match no sale) and the PDF summary a finance person files
 * (company, day, status, who closed it, totals, vendors, differences with their handling,
 * corrections), in the request's language where the texts are ours.
 *
 * A closed day's files carry its frozen figures: each sale's status, payment and delivery states,
 * amount, cost and profit as the close counted them (amount, cost and profit only for a completed
 * sale, as the totals count them), so CSV, PDF and totals agree; the sale's live status is the extra
 * column `now`. A sale after the cutoff has no frozen figures (after_cutoff: yes; it is the next open
 * day's correction). Cost and profit (CSV), and cost, profit, gateway charges, aggregator cost and
 * margin (PDF), are left out for a user without "view bundles prices".
 */

const view = (d: DailyCloseDifference | undefined, field: 'state' | 'amount') => (d?.theirs ? String(d.theirs[field] ?? '') : '');

/** A difference's handling in the reader's words (the PDF's): "Settled: note", or "Not handled". */
const handling = (ctx: ServiceContext, d: DailyCloseDifference) =>
  d.handled
    ? `${String(ctx.t(`api:daily_close.pdf.action_${d.action}`, { defaultValue: d.action ?? '' }))}: ${d.note ?? ''}`
    : csvWord(ctx.t, 'words', 'unhandled');

export async function exportDayCsv(ctx: ServiceContext, day: string, res: Response, headers?: CsvHeaders): Promise<void> {
  const close = await readDay(ctx, day);
  const { sales, cutoff, timezone, snapshot } = await daySales(ctx, day);
  const sees = seesCost(ctx);
  const costly = <T>(...cells: T[]): T[] => (sees ? cells : []);
  const dealers = new Map<number, string>();
  const ids = [...new Set(sales.map((s) => Number(s.dealer_id)))];
  if (ids.length) for (const u of await ctx.db('users').whereIn('id', ids).select('id', 'name')) dealers.set(Number(u.id), u.name);
  const bySale = new Map<number, DailyCloseDifference[]>();
  for (const d of close.differences) if (d.recharge_id !== null) bySale.set(d.recharge_id, [...(bySale.get(d.recharge_id) ?? []), d]);
  const header = csvColumns(ctx.t, [
    'reference',
    'created_at',
    'dealer',
    'provider',
    'bundle',
    'phone',
    'status',
    'payment_state',
    'delivery_state',
    'amount',
    ...costly('cost', 'profit'),
    'currency',
    'gateway',
    'payment_reference',
    'gateway_state',
    'gateway_amount',
    'aggregator',
    'delivery_id',
    'aggregator_state',
    'aggregator_amount',
    'match',
    'evidence',
    'handling',
    'after_cutoff',
    'now',
  ]);
  const word = (group: string, code: unknown) => csvWord(ctx.t, group, code);
  const compared = close.refreshed_at !== null;
  const rows: unknown[][] = sales.map((s) => {
    const diffs = bySale.get(Number(s.id)) ?? [];
    const gateway = diffs.find((d) => d.source === 'gateway');
    const aggregator = diffs.find((d) => d.source === 'aggregator');
    // Closed: the frozen figures (none for a sale after the cutoff); open: the live ones.
    const f = snapshot ? snapshot[String(s.id)] : undefined;
    const fig = (live: unknown, frozen: number | undefined) => (snapshot ? (frozen === undefined ? '' : formatMinor(frozen)) : formatMinor(Number(live)));
    const status = snapshot ? (f?.status ?? '') : s.status;
    const settled = ['completed', 'failed', 'refunded', 'needs_review'].includes(status);
    const match = diffs.length ? csvWords(diffs.map((d) => word('match', d.kind))) : word('match', compared && settled ? 'matched' : 'not_compared');
    return [
      s.reference,
      s.created_at ? `${String(s.created_at).replace(' ', 'T')}Z` : '',
      dealers.get(Number(s.dealer_id)) ?? '',
      s.provider_name,
      s.bundle_name,
      s.phone,
      word('statuses', status),
      word('payment_states', snapshot ? (f?.payment_state ?? '') : s.payment_state),
      word('delivery_states', snapshot ? (f?.delivery_state ?? '') : s.delivery_state),
      fig(s.amount, f?.amount),
      ...costly(fig(s.cost, f?.cost), fig(s.profit, f?.profit)),
      s.currency,
      s.payment_adapter ?? '',
      s.payment_reference ?? '',
      gateway ? view(gateway, 'state') : '',
      gateway ? view(gateway, 'amount') : '',
      s.operator_adapter ?? '',
      s.delivery_id ?? '',
      aggregator ? view(aggregator, 'state') : '',
      aggregator ? view(aggregator, 'amount') : '',
      match,
      diffs.map((d) => d.evidence).join(' | '),
      diffs.map((d) => handling(ctx, d)).join(' | '),
      (snapshot && !f) || (cutoff && String(s.created_at) >= String(cutoff)) ? word('words', 'yes') : '',
      snapshot ? word('statuses', s.status) : '',
    ];
  });
  // The vendors' records that are no sale of ours.
  for (const d of close.differences.filter((x) => x.recharge_id === null)) {
    const theirs = d.theirs ?? {};
    rows.push([
      d.reference ?? '',
      theirs.at ?? '',
      '',
      '',
      '',
      theirs.phone ?? '',
      '',
      '',
      '',
      theirs.amount ?? '',
      ...costly('', ''),
      theirs.currency ?? '',
      '',
      '',
      '',
      '',
      d.vendor,
      theirs.vendor_id ?? '',
      theirs.state ?? '',
      theirs.amount ?? '',
      word('match', d.kind),
      d.evidence,
      handling(ctx, d),
      '',
      '',
    ]);
  }
  sendCsv(res, `daily-close-${day}.csv`, header, rows, { timeZone: timezone, headers });
}

export async function exportDayPdf(ctx: ServiceContext, day: string, res: Response): Promise<void> {
  const close = await readDay(ctx, day);
  const { company } = await daySales(ctx, day);
  const t = (key: string, vars?: Record<string, unknown>) => String(ctx.t(`api:daily_close.pdf.${key}`, vars ?? {}));
  const at = (iso: string | null) => (iso ? zonedIsoTime(iso, close.time_zone).replace('T', ' ').slice(0, 19) : '—');
  const cur = close.currency;
  const totals = close.totals;
  const sees = seesCost(ctx);
  const costly = (...rows: string[][]) => (sees ? rows : []);
  const sections: PdfSection[] = [
    {
      title: t('totals'),
      columns: [
        { label: t('figure'), width: 3 },
        { label: t('value'), align: 'right', width: 2 },
      ],
      rows: [
        [t('sales_count'), String(totals.sales.count)],
        [t('sales_amount'), `${totals.sales.amount} ${cur}`],
        ...costly(
          [t('sales_cost'), `${totals.sales.cost} ${cur}`],
          [t('dealer_profit'), `${totals.sales.profit} ${cur}`],
          [t('gateway_charges'), `${totals.sales.gateway_charges} ${cur}`],
        ),
        ...costly([t('aggregator_cost'), `${totals.sales.aggregator_cost} ${cur}`], [t('margin'), `${totals.sales.margin} ${cur}`]),
        ...(totals.sales.unknown_cost ? [[t('unknown_cost'), String(totals.sales.unknown_cost)]] : []),
        [
          t('by_status'),
          `${t('completed')} ${totals.by_status.completed}, ${t('failed')} ${totals.by_status.failed}, ${t('refunded')} ${totals.by_status.refunded}, ${t('needs_review')} ${totals.by_status.needs_review}, ${t('in_flight')} ${totals.by_status.in_flight}`,
        ],
        [t('ledger'), `${t('credits')} ${totals.ledger.credits}, ${t('debits')} ${totals.ledger.debits}, ${t('net')} ${totals.ledger.net} ${cur}`],
      ],
    },
    {
      title: t('vendors'),
      columns: [
        { label: t('vendor'), width: 2 },
        { label: t('kind') },
        { label: t('records'), align: 'right' },
        { label: t('matched'), align: 'right' },
        { label: t('amount'), align: 'right' },
        { label: t('error'), width: 3 },
      ],
      rows: totals.vendors.map((v) => [v.vendor, t(`kind_${v.kind}`), String(v.records), String(v.matched), v.amount, v.error ?? '']),
      empty: t('none'),
    },
    {
      title: t('differences'),
      columns: [
        { label: t('kind') },
        { label: t('vendor') },
        { label: t('reference'), width: 1.5 },
        { label: t('evidence'), width: 4 },
        { label: t('handling'), width: 3 },
      ],
      rows: close.differences.map((d) => [
        t(`difference_${d.kind}`),
        d.vendor,
        d.reference ?? String(d.theirs?.vendor_id ?? ''),
        d.evidence,
        d.handled ? `${t(`action_${d.action}`)}: ${d.note ?? ''} (${d.handled_by?.name ?? ''}, ${at(d.handled_at)})` : t('unhandled'),
      ]),
      empty: t('none'),
    },
    {
      title: t('corrections'),
      columns: [
        { label: t('closed_day') },
        { label: t('reference'), width: 1.5 },
        { label: t('what'), width: 3 },
        { label: t('amount'), align: 'right' },
        ...(sees ? [{ label: t('dealer_profit'), align: 'right' as const }] : []),
      ],
      rows: close.corrections.map((c) => [c.day, c.reference ?? '', c.what, c.amount, ...(sees ? [c.profit ?? ''] : [])]),
      totals: close.corrections.length ? [t('total'), '', '', totals.corrections.amount, ...(sees ? [totals.corrections.profit ?? ''] : [])] : undefined,
      empty: t('none'),
    },
  ];
  const pdf = await renderPdf({
    title: t('title', { day }),
    subtitle: company.company_name,
    rtl: ctx.language === 'ae',
    meta: [
      [t('status'), t(`status_${close.status}`)],
      [t('day'), `${day} (${at(close.starts_at)} – ${at(close.ends_at)}, ${close.time_zone})`],
      [t('closed'), close.closed_at ? `${at(close.closed_at)} — ${close.closed_by?.name ?? ''}` : '—'],
      [t('cutoff'), at(close.cutoff_at)],
      [t('refreshed'), at(close.refreshed_at)],
    ],
    sections,
    footer: t('generated', { at: at(new Date().toISOString()) }),
  });
  sendPdf(res, `daily-close-${day}.pdf`, pdf);
}
