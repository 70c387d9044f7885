import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { amountSchema, formatMinor, toMinor } from './money.ts';

describe('money helpers', () => {
  it('turns "12.50", "12.5", 12.5 and "12" into minor units without float error', () => {
    expect(toMinor('12.50')).toBe(1250);
    expect(toMinor('12.5')).toBe(1250);
    expect(toMinor(12.5)).toBe(1250);
    expect(toMinor('12')).toBe(1200);
    expect(toMinor(0.1 + 0.2)).toBeNull(); // 0.30000000000000004 is not an amount
    expect(toMinor('1.005')).toBeNull();
    expect(toMinor('abc')).toBeNull();
  });

  it('formats minor units with two decimals, and the round trip is exact', () => {
    expect(formatMinor(5)).toBe('0.05');
    expect(formatMinor(-1250)).toBe('-12.50');
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), (minor) => toMinor(formatMinor(minor)) === minor));
  });

  it('accepts positive amounts only, with a translated message otherwise', () => {
    expect(amountSchema.parse('7.25')).toBe(725);
    for (const bad of ['0', '-1', '1.234', '', 'ten', Number.NaN]) {
      const r = amountSchema.safeParse(bad);
      expect(r.success).toBe(false);
      if (!r.success) expect(r.error.issues[0].message).toBe('validation:amount_invalid');
    }
  });
});
