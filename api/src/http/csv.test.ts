import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { csvColumns, csvField, csvWord, csvWords, sendCsv, zonedIsoTime } from './csv.ts';

describe('CSV times', () => {
  it('writes an instant in the company zone with its offset, to the second', () => {
    expect(zonedIsoTime('2026-11-23T23:05:00.000Z', 'Africa/Mogadishu')).toBe('2026-11-24T02:05:00+03:00');
    expect(zonedIsoTime(new Date('2026-11-24T02:05:09.999Z'), 'UTC')).toBe('2026-11-24T02:05:09+00:00');
    // Behind UTC, and a half-hour zone.
    expect(zonedIsoTime('2026-07-01T12:00:00.000Z', 'America/New_York')).toBe('2026-07-01T08:00:00-04:00');
    expect(zonedIsoTime('2026-11-24T00:00:00.000Z', 'Asia/Kolkata')).toBe('2026-11-24T05:30:00+05:30');
    expect(zonedIsoTime(null, 'Africa/Mogadishu')).toBe('');
    expect(zonedIsoTime('not a time', 'Africa/Mogadishu')).toBe('not a time');
    expect(zonedIsoTime('2026-11-23T23:05:00.000Z', 'Not/AZone')).toBe('2026-11-23T23:05:00.000Z');
  });

  it('converts the *_at columns only, and only when given a zone', () => {
    const sent: { body?: string } = {};
    const res = { setHeader: () => res, status: () => res, send: (b: string) => ((sent.body = b), res) } as unknown as Response;
    const rows = [[1, '2026-11-23T23:05:00.000Z', '2026-11-23T23:05:00.000Z', null]];
    sendCsv(res, 'x.csv', ['id', 'created_at', 'note', 'reviewed_at'], rows, { timeZone: 'Africa/Mogadishu' });
    expect(sent.body).toBe('\uFEFFid,created_at,note,reviewed_at\r\n1,2026-11-24T02:05:00+03:00,2026-11-23T23:05:00.000Z,\r\n');
    sendCsv(res, 'x.csv', ['id', 'created_at'], [[1, '2026-11-23T23:05:00.000Z']]);
    expect(sent.body).toBe('\uFEFFid,created_at\r\n1,2026-11-23T23:05:00.000Z\r\n');
    expect(csvField('-2026')).toBe('-2026');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
  });

  it('keys the time columns on the column key, whatever the header the reader sees', () => {
    const sent: { body?: string } = {};
    const res = { setHeader: () => res, status: () => res, send: (b: string) => ((sent.body = b), res) } as unknown as Response;
    const words: Record<string, string> = {
      'api:csv.columns.created_at': 'تاريخ الإنشاء',
      'api:csv.columns.note': '=note, said',
      'api:csv.statuses.failed': 'فاشلة',
    };
    const t = (key: string, opts?: Record<string, unknown>) => words[key] ?? opts?.defaultValue;
    const columns = csvColumns(t, ['id', 'created_at', 'note']);
    expect(columns).toEqual([
      { key: 'id', label: 'id' },
      { key: 'created_at', label: 'تاريخ الإنشاء' },
      { key: 'note', label: '=note, said' },
    ]);
    sendCsv(res, 'x.csv', columns, [[1, '2026-11-23T23:05:00.000Z', csvWord(t, 'statuses', 'failed')]], { timeZone: 'Africa/Mogadishu' });
    // A header is a field like any other: quoted, never a formula.
    expect(sent.body).toBe(`\uFEFFid,تاريخ الإنشاء,"'=note, said"\r\n1,2026-11-24T02:05:00+03:00,فاشلة\r\n`);
    // An unknown code is written as itself; nothing stays nothing.
    expect([csvWord(t, 'statuses', 'lost'), csvWord(t, 'statuses', null), csvWord(t, 'statuses', '')].map(String)).toEqual(['lost', '', '']);
  });

  it("with headers 'keys' writes the column keys and the codes, times still in the zone", () => {
    const sent: { body?: string } = {};
    const res = { setHeader: () => res, status: () => res, send: (b: string) => ((sent.body = b), res) } as unknown as Response;
    const words: Record<string, string> = {
      'api:csv.columns.created_at': 'تاريخ الإنشاء',
      'api:csv.statuses.failed': 'فاشلة',
      'api:csv.match.missing': 'مفقودة',
      'api:statements.kinds.top_up': 'شحن',
    };
    const t = (key: string, opts?: Record<string, unknown>) => words[key] ?? opts?.defaultValue;
    // Kinds (and types) are the statement's words: one source for both.
    expect(String(csvWord(t, 'kinds', 'top_up'))).toBe('شحن');
    const row = [
      1,
      '2026-11-23T23:05:00.000Z',
      csvWord(t, 'statuses', 'failed'),
      csvWord(t, 'kinds', 'top_up'),
      csvWords([csvWord(t, 'match', 'missing'), csvWord(t, 'match', 'amount')]),
    ];
    const columns = csvColumns(t, ['id', 'created_at', 'status', 'kind', 'match']);
    sendCsv(res, 'x.csv', columns, [row], { timeZone: 'Africa/Mogadishu', headers: 'keys' });
    expect(sent.body).toBe('\uFEFFid,created_at,status,kind,match\r\n1,2026-11-24T02:05:00+03:00,failed,top_up,missing | amount\r\n');
    sendCsv(res, 'x.csv', columns, [row], { timeZone: 'Africa/Mogadishu', headers: 'labels' });
    expect(sent.body).toBe('\uFEFFid,تاريخ الإنشاء,status,kind,match\r\n1,2026-11-24T02:05:00+03:00,فاشلة,شحن,مفقودة | amount\r\n');
  });
});
