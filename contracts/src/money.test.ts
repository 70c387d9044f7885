import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { amountSchema, applyMarkup, formatMinor, markupPercentSchema, toBasisPoints, toMinor } from './money.ts';

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

  it('reads a markup percentage into hundredths of a percent through its text', () => {
    expect(toBasisPoints(12.5)).toBe(1250);
    expect(toBasisPoints('12.50')).toBe(1250);
    expect(toBasisPoints(0.07)).toBe(7);
    expect(toBasisPoints('1000')).toBe(100_000);
    for (const bad of ['12.345', '-1', 'abc', '', '1e3', Number.POSITIVE_INFINITY]) expect(toBasisPoints(bad)).toBeNull();
  });

  it('adds a markup rounded half up to the cent, never below the cost, whatever the size', () => {
    expect(applyMarkup(70, 1250)).toBe(79); // 0.7875
    expect(applyMarkup(100, 1000)).toBe(110);
    expect(applyMarkup(1, 5000)).toBe(2); // 0.015 rounds up
    expect(applyMarkup(1, 4999)).toBe(1);
    expect(applyMarkup(0, 100_000)).toBe(0);
    // A price a number cannot hold exactly is null, never a rounded number.
    expect(applyMarkup(800_000_000_000_000, 100_000)).toBe(8_800_000_000_000_000);
    expect(applyMarkup(900_000_000_000_000, 100_000)).toBeNull();
    expect(applyMarkup(Number.MAX_SAFE_INTEGER, 1)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 100_000 }), (cost, bp) => {
        const price = applyMarkup(cost, bp);
        const exact = (BigInt(cost) * BigInt(bp)) / 10000n; // the markup truncated
        const rest = (BigInt(cost) * BigInt(bp)) % 10000n;
        return price !== null && price >= cost && BigInt(price - cost) === exact + (rest >= 5000n ? 1n : 0n);
      }),
    );
  });

  it('accepts a markup above 0 and at most 1000 percent with at most 2 decimals', () => {
    expect(markupPercentSchema.parse('12.5')).toBe(12.5);
    expect(markupPercentSchema.parse(1000)).toBe(1000);
    expect(markupPercentSchema.parse('0.01')).toBe(0.01);
    for (const bad of [0, '0.00', -5, 1000.5, 12.345, 'abc', '', true, null]) {
      const r = markupPercentSchema.safeParse(bad);
      expect(r.success, String(bad)).toBe(false);
      if (!r.success) expect(r.error.issues[0].message).toBe('validation:markup_invalid');
    }
  });
});
