import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { csvField, sendCsv, zonedIsoTime } from './csv.ts';

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
});
