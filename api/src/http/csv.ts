import type { Response } from 'express';
import { zoneOffsetMinutes } from '../database/time.ts';

/** One CSV field: quoted when needed, and never read as a formula by a spreadsheet (=, +, -, @ prefixed with '). */
export function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * An instant as ISO 8601 in a time zone, with its offset and to the second:
 * 2026-11-23T23:05:00.000Z in Africa/Mogadishu is 2026-11-24T02:05:00+03:00 (the company's clock,
 * still one exact instant for a spreadsheet or a script). Empty stays empty; an unreadable value
 * or an unknown zone is returned as given.
 */
export function zonedIsoTime(value: unknown, timeZone: string): string {
  if (value === null || value === undefined || value === '') return '';
  const at = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(at.getTime())) return String(value);
  let minutes: number;
  try {
    minutes = zoneOffsetMinutes(at, timeZone);
  } catch {
    return at.toISOString();
  }
  const local = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(minutes);
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A CSV column: `key` names it for the code (a header key ending in `_at` is a time), `label` is the header the reader sees. */
export interface CsvColumn {
  key: string;
  label: string;
}

type Translate = (key: string, opts?: Record<string, unknown>) => unknown;

/** Columns whose headers are in the request's language (api:csv.columns.<key>); a key without a translation is its own header. */
export const csvColumns = (t: Translate, keys: string[]): CsvColumn[] =>
  keys.map((key) => ({ key, label: String(t(`api:csv.columns.${key}`, { defaultValue: key })) }));

/** An enumerated value of a CSV cell: written as its word, or as its code with `headers=keys` (sendCsv). */
export class CsvWord {
  constructor(
    readonly code: string,
    readonly word: string,
  ) {}
  toString(): string {
    return this.word;
  }
}

/** Groups whose words are the wallet statement's (api:statements.<group>), written once for both. */
const WORDS_ELSEWHERE: Record<string, string> = { kinds: 'api:statements.kinds', types: 'api:statements.types' };

/**
 * A code written as a word in the request's language (api:csv.<group>.<code>: statuses, pricing ...;
 * kinds and types are the statement's words). Empty stays empty; an unknown code is written as
 * itself, never as an empty cell.
 */
export const csvWord = (t: Translate, group: string, code: unknown): CsvWord | '' =>
  code === null || code === undefined || code === ''
    ? ''
    : new CsvWord(String(code), String(t(`${WORDS_ELSEWHERE[group] ?? `api:csv.${group}`}.${String(code)}`, { defaultValue: String(code) })));

/** Several values in one cell (a sale's differences: "Amount differs | Missing"), still codes with `headers=keys`. */
export const csvWords = (words: (CsvWord | '')[], separator = ' | '): CsvWord =>
  new CsvWord(words.map((w) => (w === '' ? '' : w.code)).join(separator), words.map(String).join(separator));

/**
 * What a CSV's header row and enumerated cells are (the exports' `headers` query parameter): labels
 * in the request's language and words (default, for people), or the columns' keys and the values'
 * codes (`keys`, for scripts: the same file whatever the language).
 */
export type CsvHeaders = 'labels' | 'keys';

/**
 * Sends rows as a UTF-8 CSV download (with a BOM so spreadsheets read Arabic and Somali names right).
 * The header row is the columns' labels (the request's language: csvColumns) and enumerated cells
 * their words (csvWord); with `headers: 'keys'` (the request's `headers=keys`, passed by the route)
 * the columns' keys and the cells' codes instead. With a time zone, every column whose key ends in
 * `_at` (created_at ...) is written in that zone with its offset (zonedIsoTime): every export shows
 * the company's clock, not UTC. A bare string is a column whose key is its label.
 */
export function sendCsv(
  res: Response,
  filename: string,
  columns: (CsvColumn | string)[],
  rows: unknown[][],
  opts: { timeZone?: string; headers?: CsvHeaders } = {},
): void {
  const keys = opts.headers === 'keys';
  const cols = columns.map((c) => (typeof c === 'string' ? { key: c, label: c } : c));
  const times = opts.timeZone ? cols.map((c, i) => (c.key.endsWith('_at') ? i : -1)).filter((i) => i >= 0) : [];
  const cell = (v: unknown, i: number) => (times.includes(i) ? zonedIsoTime(v, opts.timeZone!) : keys && v instanceof CsvWord ? v.code : v);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  const header = cols.map((c) => csvField(keys ? c.key : c.label)).join(',');
  res.status(200).send(`\uFEFF${[header, ...rows.map((r) => r.map(cell).map(csvField).join(','))].join('\r\n')}\r\n`);
}
