import { z } from 'zod';

/**
 * Money is integer minor units (cents) everywhere inside the product; in API answers an amount
 * is a string with two decimals ("12.50"), and requests accept such a string or a number
 * (docs/api-conventions.md, "Money and times in answers"). Conversions go through strings, never through float arithmetic.
 */
const AMOUNT = /^(-)?(\d{1,13})(?:\.(\d{1,2}))?$/;

/** "12.5" | "12.50" | 12.5 -> 1250. Null for anything that is not an amount with at most 2 decimals. */
export function toMinor(value: string | number): number | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = AMOUNT.exec(text);
  if (!m) return null;
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  return m[1] ? -minor : minor;
}

/** 1250 -> "12.50"; -5 -> "-0.05". */
export function formatMinor(minor: number | bigint): string {
  const n = BigInt(minor);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** A request amount: "12.50" or 12.5, positive, at most 2 decimals; parsed to minor units. */
export const amountSchema = z.union([z.string(), z.number()], { message: 'validation:amount_invalid' }).transform((v, ctx) => {
  const minor = toMinor(v);
  if (minor === null || minor <= 0 || !Number.isSafeInteger(minor)) {
    ctx.addIssue({ code: 'custom', message: 'validation:amount_invalid' });
    return z.NEVER;
  }
  return minor;
});

/** A price: like an amount, but zero is allowed (a free bundle, a zero cost). */
export const priceSchema = z.union([z.string(), z.number()], { message: 'validation:price_invalid' }).transform((v, ctx) => {
  const minor = toMinor(v);
  if (minor === null || minor < 0 || !Number.isSafeInteger(minor)) {
    ctx.addIssue({ code: 'custom', message: 'validation:price_invalid' });
    return z.NEVER;
  }
  return minor;
});
