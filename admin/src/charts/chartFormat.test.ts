import { describe, expect, it } from 'vitest';
import { fillPeriods, formatKey, formatMoney, formatTick, intlLang, keyToDate, labelEvery, valueDomain } from './chartFormat';

describe('chart formatting', () => {
  it('formats company days, weeks and months as calendar dates in the user language, whatever the browser zone', () => {
    expect(intlLang('ae')).toBe('ar');
    expect(keyToDate('2026-11-24')?.toISOString()).toBe('2026-11-24T00:00:00.000Z');
    expect(keyToDate('2026-11')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(keyToDate('Hormuud')).toBeNull();
    // The tests run in Africa/Mogadishu (UTC+3): the day must not move.
    expect(formatKey('2026-11-24', 'day', 'en', 'tick')).toBe('Nov 24');
    expect(formatKey('2026-11-24', 'day', 'en', 'tooltip')).toBe('Tue, Nov 24, 2026');
    expect(formatKey('2026-11-23', 'week', 'en', 'tooltip')).toBe('Nov 23, 2026');
    expect(formatKey('2026-11', 'month', 'en', 'tick')).toBe('Nov 2026');
    expect(formatKey('2026-11', 'month', 'en', 'tooltip')).toBe('November 2026');
    expect(formatKey('2026-11-24', 'day', 'ar', 'tick')).toMatch(/نوفمبر/);
    expect(formatKey('2026-11-24', 'day', 'so', 'tick')).toMatch(/24/);
    expect(formatKey('Hormuud', 'category', 'en', 'tick')).toBe('Hormuud');
  });

  it('writes a few short amounts on the value axis and full amounts in tooltips', () => {
    expect(formatTick(20, 'en')).toBe('20');
    expect(formatTick(2.5, 'en')).toBe('2.5');
    expect(formatTick(12_500, 'en')).toBe('13K');
    expect(formatMoney(5.1, 'USD')).toBe('5.10 USD');
    expect(formatMoney(-150, 'USD')).toBe('-150.00 USD');
    expect(formatMoney(null, 'USD')).toBe('');
  });

  it('fills the days, weeks and months without sales with 0, and keeps names as they are', () => {
    expect(fillPeriods([{ key: '2026-11-02', value: 3 }], 'day', { from: '2026-11-01', to: '2026-11-03' })).toEqual([
      { key: '2026-11-01', value: 0 },
      { key: '2026-11-02', value: 3 },
      { key: '2026-11-03', value: 0 },
    ]);
    expect(fillPeriods([], 'day', { from: '2026-11-01', to: '2026-11-02' })).toHaveLength(2);
    expect(
      fillPeriods(
        [
          { key: '2026-11-02', value: 1 },
          { key: '2026-11-16', value: 2 },
        ],
        'week',
      ).map((p) => p.key),
    ).toEqual(['2026-11-02', '2026-11-09', '2026-11-16']);
    expect(
      fillPeriods(
        [
          { key: '2026-10', value: 1 },
          { key: '2027-01', value: 2 },
        ],
        'month',
      ).map((p) => `${p.key}:${p.value}`),
    ).toEqual(['2026-10:1', '2026-11:0', '2026-12:0', '2027-01:2']);
    const names = [{ key: 'Hormuud', value: 2 }];
    expect(fillPeriods(names, 'category')).toBe(names);
    // A range too long to draw day by day: the rows as they are.
    const rows = [{ key: '2020-01-01', value: 1 }];
    expect(fillPeriods(rows, 'day', { from: '2020-01-01', to: '2026-01-01' })).toBe(rows);
  });

  it('labels fewer days on a phone, and the value axis always holds 0 and every value', () => {
    expect(labelEvery(30, 960, 58)).toBe(2);
    expect(labelEvery(30, 266, 58)).toBe(8);
    expect(labelEvery(5, 960, 58)).toBe(1);
    expect(valueDomain([0, 0])).toEqual([0, 1]);
    expect(valueDomain([3, 12])).toEqual([0, 12]);
    expect(valueDomain([-150, 0, 20])).toEqual([-150, 20]);
    expect(valueDomain([-150, -150])).toEqual([-150, 0]);
  });
});
