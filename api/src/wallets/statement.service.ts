import type { Knex } from 'knex';
import type { Response } from 'express';
import { formatMinor, STATEMENT_MAX_DAYS, STATEMENT_MAX_PER_PAGE, TRANSACTION_KINDS, type TransactionKind, type WalletStatementResponse } from '@app/contracts';
import { decodeId } from '../http/ids.ts';
import { fieldError, forbidden, notFound, validationFailed, type FieldErrors } from '../http/errors.ts';
import { csvField, zonedIsoTime } from '../http/csv.ts';
import { renderPdf, sendPdf } from '../http/pdf.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { walletQuery } from './wallet.service.ts';
import type { WalletListRow } from './wallet-rows.ts';

/**
 * A wallet's statement: what a dealer or an auditor keeps for a period of company days. Opening
 * and closing balances are read from the ledger's own `balance_after` (never recomputed), and the
 * totals cover the whole period whatever page of lines is asked for. Lines are ordered as the
 * ledger's index reads them (created_at, then id), oldest first.
 */
type Db = Knex | Knex.Transaction;

export interface StatementQuery {
  from?: string;
  to?: string;
  page?: string;
  per_page?: string;
}

export interface StatementPeriod {
  from: string;
  to: string;
  /** UTC bounds as stored: from <= created_at < until. */
  since: string;
  until: string;
  /**
   * The wallet's last ledger row when the statement began to be read: every query stops there, so
   * the totals, the balances and the lines (read by several statements, the CSV's in batches) all
   * describe the same ledger even while sales post to it.
   */
  lastId?: number;
}

/** The statement's period pinned to the ledger as it is now (StatementPeriod.lastId). */
async function pinned(db: Db, walletId: number, p: StatementPeriod): Promise<StatementPeriod> {
  const row = (await db('wallet_transactions').where('wallet_id', walletId).max({ last: 'id' }).first()) as { last: number | string | null } | undefined;
  return { ...p, lastId: Number(row?.last ?? 0) };
}

interface LineRow {
  id: number;
  type: 'credit' | 'debit';
  kind: TransactionKind;
  amount: number | string;
  balance_after: number | string;
  reference: string | null;
  recharge_id: number | null;
  recharge_reference: string | null;
  note: string | null;
  created_at: string;
}

type Line = WalletStatementResponse['lines'][number];
type Meta = { current_page: number; per_page: number; total: number; last_page: number };

const DEFAULT_PER_PAGE = 100;
/** A PDF of more lines would take seconds of CPU and hundreds of pages: such a period is a CSV. */
export const PDF_MAX_LINES = 20_000;
const BATCH = 1_000;

const DAY_MS = 86_400_000;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/** The period asked for, in company days; 422 (every problem at once) for one backwards or over 366 days. */
export function statementPeriod(q: StatementQuery, timeZone: string): StatementPeriod {
  const to = q.to || zonedDay(new Date(), timeZone);
  const from = q.from || `${to.slice(0, 8)}01`;
  const errors: FieldErrors = {};
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days < 1) errors.from = ['validation:statement_from_after_to'];
  else if (days > STATEMENT_MAX_DAYS) errors.to = ['validation:statement_period_too_long'];
  if (Object.keys(errors).length) throw validationFailed(errors);
  return { from, to, since: toDbTime(startOfZonedDay(from, timeZone)), until: toDbTime(startOfZonedDay(nextDay(to), timeZone)) };
}

/**
 * The wallet a statement is asked for: a dealer only its own (another's is the same 404 as none),
 * staff with "view wallets" any; staff without it have no wallet to read.
 */
export async function statementWallet(ctx: ServiceContext, rawId: string | number): Promise<WalletListRow> {
  const id = decodeId(rawId);
  if (!isDealer(ctx.actor) && !ctx.actor.permissions.has('view wallets')) throw forbidden();
  const qb = walletQuery(ctx.db).where('wallets.id', id ?? 0);
  if (isDealer(ctx.actor)) qb.where('wallets.dealer_id', ctx.actor.id!);
  const row: WalletListRow | undefined = id ? await qb.first() : undefined;
  if (!row) throw notFound();
  return row;
}

const inPeriod = (db: Db, walletId: number, p: StatementPeriod) =>
  db('wallet_transactions')
    .where('wallet_transactions.wallet_id', walletId)
    .where('wallet_transactions.created_at', '>=', p.since)
    .where('wallet_transactions.created_at', '<', p.until)
    .where('wallet_transactions.id', '<=', p.lastId ?? Number.MAX_SAFE_INTEGER);

/** Balance after the last line before `before` (0 when the wallet had none yet). */
async function balanceBefore(db: Db, walletId: number, before: string, lastId = Number.MAX_SAFE_INTEGER): Promise<number> {
  const row = await db('wallet_transactions')
    .where('wallet_id', walletId)
    .where('created_at', '<', before)
    .where('id', '<=', lastId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .first('balance_after');
  return row ? Number(row.balance_after) : 0;
}

interface Summary {
  opening: number;
  closing: number;
  credits: number;
  debits: number;
  count: number;
  byKind: { kind: TransactionKind; type: 'credit' | 'debit'; count: number; amount: number }[];
}

async function summarize(db: Db, walletId: number, p: StatementPeriod): Promise<Summary> {
  const [opening, last, groups] = await Promise.all([
    balanceBefore(db, walletId, p.since, p.lastId),
    inPeriod(db, walletId, p).orderBy('created_at', 'desc').orderBy('id', 'desc').first('balance_after'),
    inPeriod(db, walletId, p).groupBy('type', 'kind').select('type', 'kind', db.raw('COUNT(*) as n'), db.raw('SUM(amount) as total')) as Promise<
      { type: 'credit' | 'debit'; kind: TransactionKind; n: number | string; total: number | string }[]
    >,
  ]);
  const byKind = groups
    .map((g) => ({ kind: g.kind, type: g.type, count: Number(g.n), amount: Number(g.total) }))
    // The catalogue's order of kinds (top-ups first), credits before debits within one.
    .sort((a, b) => TRANSACTION_KINDS.indexOf(a.kind) - TRANSACTION_KINDS.indexOf(b.kind) || a.type.localeCompare(b.type));
  const sum = (type: string) => byKind.filter((k) => k.type === type).reduce((s, k) => s + k.amount, 0);
  return {
    opening,
    closing: last ? Number(last.balance_after) : opening,
    credits: sum('credit'),
    debits: sum('debit'),
    count: byKind.reduce((s, k) => s + k.count, 0),
    byKind,
  };
}

const lineQuery = (db: Db, walletId: number, p: StatementPeriod) =>
  inPeriod(db, walletId, p)
    .leftJoin('recharges', 'recharges.id', 'wallet_transactions.recharge_id')
    .select(
      'wallet_transactions.id',
      'wallet_transactions.type',
      'wallet_transactions.kind',
      'wallet_transactions.amount',
      'wallet_transactions.balance_after',
      'wallet_transactions.reference',
      'wallet_transactions.recharge_id',
      'wallet_transactions.note',
      'wallet_transactions.created_at',
      'recharges.reference as recharge_reference',
    )
    .orderBy('wallet_transactions.created_at', 'asc')
    .orderBy('wallet_transactions.id', 'asc');

function presentLine(r: LineRow): Line {
  return {
    id: Number(r.id),
    at: fromDbTime(r.created_at)!,
    type: r.type,
    kind: r.kind,
    amount: formatMinor(Number(r.amount)),
    balance_after: formatMinor(Number(r.balance_after)),
    reference: r.reference ?? null,
    recharge: r.recharge_id ? { id: Number(r.recharge_id), reference: r.recharge_reference ?? null } : null,
    note: r.note ?? null,
  };
}

/** Every line of the period, oldest first, read a batch at a time (keyset on the index's order). */
async function* allLines(db: Db, walletId: number, p: StatementPeriod): AsyncGenerator<Line[]> {
  let after: { at: string; id: number } | null = null;
  for (;;) {
    const qb = lineQuery(db, walletId, p).limit(BATCH);
    if (after) {
      const { at, id } = after;
      qb.where((w) =>
        w
          .where('wallet_transactions.created_at', '>', at)
          .orWhere((x) => x.where('wallet_transactions.created_at', at).where('wallet_transactions.id', '>', id)),
      );
    }
    const rows: LineRow[] = await qb;
    if (!rows.length) return;
    yield rows.map(presentLine);
    if (rows.length < BATCH) return;
    const last = rows[rows.length - 1];
    after = { at: last.created_at, id: Number(last.id) };
  }
}

function head(wallet: WalletListRow, p: StatementPeriod, s: Summary): Omit<WalletStatementResponse, 'lines'> {
  return {
    wallet: { id: wallet.id, dealer: { id: wallet.dealer_id, name: wallet.dealer_name, dealer_code: wallet.dealer_code ?? null } },
    currency: wallet.currency,
    from: p.from,
    to: p.to,
    opening_balance: formatMinor(s.opening),
    closing_balance: formatMinor(s.closing),
    totals: {
      credits: formatMinor(s.credits),
      debits: formatMinor(s.debits),
      by_kind: s.byKind.map((k) => ({ kind: k.kind, type: k.type, count: k.count, amount: formatMinor(k.amount) })),
    },
  };
}

/** The JSON statement: the whole period's figures and one page of its lines. */
export async function statementPage(ctx: ServiceContext, wallet: WalletListRow, q: StatementQuery): Promise<{ data: WalletStatementResponse; meta: Meta }> {
  const { timezone } = await readCompanySettings(ctx.db);
  const p = await pinned(ctx.db, wallet.id, statementPeriod(q, timezone));
  const perPage = Math.min(STATEMENT_MAX_PER_PAGE, Math.max(1, Math.floor(Number(q.per_page)) || DEFAULT_PER_PAGE));
  const page = Math.min(1_000_000, Math.max(1, Math.floor(Number(q.page)) || 1));
  const s = await summarize(ctx.db, wallet.id, p);
  const rows: LineRow[] =
    s.count && (page - 1) * perPage < s.count
      ? await lineQuery(ctx.db, wallet.id, p)
          .limit(perPage)
          .offset((page - 1) * perPage)
      : [];
  return {
    data: { ...head(wallet, p, s), lines: rows.map(presentLine) },
    meta: { current_page: page, per_page: perPage, total: s.count, last_page: Math.max(1, Math.ceil(s.count / perPage)) },
  };
}

const fileName = (wallet: WalletListRow, p: StatementPeriod, ext: string) =>
  `statement-${(wallet.dealer_code || `wallet-${wallet.id}`).replace(/[^A-Za-z0-9_-]/g, '')}-${p.from}-${p.to}.${ext}`;

/** Labels of the CSV and the PDF, in the request's language. */
function labels(ctx: ServiceContext) {
  const t = (key: string, vars?: Record<string, unknown>) => ctx.t(`api:statements.${key}`, vars ?? {});
  return {
    t,
    // An unknown code is written as itself, never as an empty or a key-shaped cell.
    kind: (kind: string) => t(`kinds.${kind}`, { defaultValue: kind }),
    type: (type: string) => t(`types.${type}`, { defaultValue: type }),
  };
}

/**
 * The CSV: a header block (company, dealer, period, currency, opening balance), every line of the
 * period written as it is read (batches of 1,000), the totals per kind and the closing balance.
 */
export async function sendStatementCsv(ctx: ServiceContext, res: Response, wallet: WalletListRow, q: StatementQuery): Promise<void> {
  const company = await readCompanySettings(ctx.db);
  const p = await pinned(ctx.db, wallet.id, statementPeriod(q, company.timezone));
  const s = await summarize(ctx.db, wallet.id, p);
  const { t, kind, type } = labels(ctx);
  const row = (cells: unknown[]) => `${cells.map(csvField).join(',')}\r\n`;
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${fileName(wallet, p, 'csv')}"`);
  res.status(200);
  res.write(
    '\uFEFF' +
      row([t('title')]) +
      row([t('company'), company.company_name]) +
      row([t('dealer'), wallet.dealer_name, wallet.dealer_code ?? '']) +
      row([t('period'), p.from, p.to]) +
      row([t('currency'), wallet.currency]) +
      row([t('opening_balance'), formatMinor(s.opening)]) +
      row([t('generated_at'), zonedIsoTime(new Date(), company.timezone)]) +
      '\r\n' +
      row([t('col_id'), t('col_at'), t('col_type'), t('col_kind'), t('col_amount'), t('col_balance'), t('col_reference'), t('col_recharge'), t('col_note')]),
  );
  for await (const batch of allLines(ctx.db, wallet.id, p)) {
    const chunk = batch
      .map((l) =>
        row([
          l.id,
          zonedIsoTime(l.at, company.timezone),
          type(l.type),
          kind(l.kind),
          l.type === 'debit' ? `-${l.amount}` : l.amount,
          l.balance_after,
          l.reference,
          l.recharge?.reference ?? '',
          l.note,
        ]),
      )
      .join('');
    // Respect back-pressure: a slow download must not pile the whole year up in memory.
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end(
    '\r\n' +
      row([t('by_kind')]) +
      row([t('col_kind'), t('col_type'), t('col_count'), t('col_amount')]) +
      s.byKind.map((k) => row([kind(k.kind), type(k.type), k.count, formatMinor(k.amount)])).join('') +
      '\r\n' +
      row([t('credits'), formatMinor(s.credits)]) +
      row([t('debits'), formatMinor(s.debits)]) +
      row([t('closing_balance'), formatMinor(s.closing)]),
  );
}

/** A day-and-time in the company's zone for print: 2026-11-24 14:05. */
const printedTime = (at: string | Date, timeZone: string) => zonedIsoTime(at, timeZone).slice(0, 16).replace('T', ' ');

/** The PDF: a statement to keep (company, dealer, period, balances, every line, totals per kind, when it was made). */
export async function sendStatementPdf(ctx: ServiceContext, res: Response, wallet: WalletListRow, q: StatementQuery): Promise<void> {
  const company = await readCompanySettings(ctx.db);
  const p = await pinned(ctx.db, wallet.id, statementPeriod(q, company.timezone));
  const s = await summarize(ctx.db, wallet.id, p);
  if (s.count > PDF_MAX_LINES) throw fieldError('format', 'validation:statement_pdf_too_long', { max: PDF_MAX_LINES });
  const { t, kind, type } = labels(ctx);
  const lines: string[][] = [];
  for await (const batch of allLines(ctx.db, wallet.id, p))
    for (const l of batch)
      lines.push([
        printedTime(l.at, company.timezone),
        kind(l.kind),
        [l.reference, l.recharge?.reference && l.recharge.reference !== l.reference ? l.recharge.reference : null, l.note].filter(Boolean).join(' · '),
        l.type === 'debit' ? l.amount : '',
        l.type === 'credit' ? l.amount : '',
        l.balance_after,
      ]);
  const money = (minor: number) => `${formatMinor(minor)} ${wallet.currency}`;
  const pdf = await renderPdf({
    title: t('title'),
    subtitle: company.company_name,
    rtl: ctx.language === 'ae',
    meta: [
      [t('dealer'), wallet.dealer_code ? `${wallet.dealer_name} (${wallet.dealer_code})` : wallet.dealer_name],
      [t('period'), `${p.from} – ${p.to}`],
      [t('currency'), wallet.currency],
      [t('opening_balance'), money(s.opening)],
      [t('closing_balance'), money(s.closing)],
    ],
    sections: [
      {
        title: t('lines'),
        columns: [
          { label: t('col_at'), width: 1.25 },
          { label: t('col_kind'), width: 1.3 },
          { label: t('col_details'), width: 2.6 },
          { label: t('debits'), align: 'right', width: 0.95 },
          { label: t('credits'), align: 'right', width: 0.95 },
          { label: t('col_balance'), align: 'right', width: 1 },
        ],
        rows: lines,
        totals: ['', t('totals'), '', formatMinor(s.debits), formatMinor(s.credits), formatMinor(s.closing)],
        empty: t('no_lines'),
      },
      {
        title: t('by_kind'),
        columns: [
          { label: t('col_kind'), width: 2 },
          { label: t('col_type') },
          { label: t('col_count'), align: 'right' },
          { label: t('col_amount'), align: 'right' },
        ],
        rows: s.byKind.map((k) => [kind(k.kind), type(k.type), String(k.count), formatMinor(k.amount)]),
        empty: t('no_lines'),
      },
      {
        title: t('summary'),
        columns: [
          { label: '', width: 2 },
          { label: t('col_amount'), align: 'right' },
        ],
        rows: [
          [t('opening_balance'), money(s.opening)],
          [t('credits'), `+${formatMinor(s.credits)}`],
          [t('debits'), s.debits ? `-${formatMinor(s.debits)}` : formatMinor(0)],
        ],
        totals: [t('closing_balance'), money(s.closing)],
      },
    ],
    footer: t('generated_at_line', { at: printedTime(new Date(), company.timezone), timezone: company.timezone }),
  });
  sendPdf(res, fileName(wallet, p, 'pdf'), pdf);
}
