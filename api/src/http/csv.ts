import type { Response } from 'express';

/** One CSV field: quoted when needed, and never read as a formula by a spreadsheet (=, +, -, @ prefixed with '). */
export function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Sends rows as a UTF-8 CSV download (with a BOM so spreadsheets read Arabic and Somali names right). */
export function sendCsv(res: Response, filename: string, header: string[], rows: unknown[][]): void {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.status(200).send(`\uFEFF${[header.join(','), ...rows.map((r) => r.map(csvField).join(','))].join('\r\n')}\r\n`);
}
