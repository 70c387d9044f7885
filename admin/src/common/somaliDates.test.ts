import { describe, expect, it } from 'vitest';
import { somaliDateTime } from './useCompanyFormat';

/** Somali dates in the console: a Somali month name, the company's time zone (Intl has no Somali months). */
describe('Somali dates', () => {
  it('reads "27 Nofeembar 2026, 23:16" in Mogadishu time, not "2026 M11 27" or English', () => {
    expect(somaliDateTime('2026-11-27T20:16:05.000Z', 'Africa/Mogadishu', false)).toBe('27 Nofeembar 2026, 23:16');
    expect(somaliDateTime('2026-11-27T20:16:05.000Z', 'Africa/Mogadishu', true)).toBe('27 Nofeembar 2026, 23:16:05');
    // Past midnight in Mogadishu: the company's day, not UTC's.
    expect(somaliDateTime('2026-12-31T22:30:00.000Z', 'Africa/Mogadishu', false)).toBe('1 Jannaayo 2027, 01:30');
  });
});
