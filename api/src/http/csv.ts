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

/**
 * Sends rows as a UTF-8 CSV download (with a BOM so spreadsheets read Arabic and Somali names right).
 * With a time zone, every column whose header ends in `_at` (created_at ...) is written in that
 * zone with its offset (zonedIsoTime): every export shows the company's clock, not UTC.
 */
export function sendCsv(res: Response, filename: string, header: string[], rows: unknown[][], opts: { timeZone?: string } = {}): void {
  const times = opts.timeZone ? header.map((h, i) => (h.endsWith('_at') ? i : -1)).filter((i) => i >= 0) : [];
  const cells = (r: unknown[]) => (times.length ? r.map((v, i) => (times.includes(i) ? zonedIsoTime(v, opts.timeZone!) : v)) : r);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.status(200).send(`\uFEFF${[header.join(','), ...rows.map((r) => cells(r).map(csvField).join(','))].join('\r\n')}\r\n`);
}
