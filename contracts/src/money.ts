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

/** A markup percentage: 0 to 9999 with at most 2 decimals ("12.5", 12.5, "12.50"). */
const PERCENT = /^(\d{1,4})(?:\.(\d{1,2}))?$/;

/** "12.5" | 12.5 -> 1250 hundredths of a percent (basis points), through the text, never float arithmetic. Null for anything else. */
export function toBasisPoints(value: string | number): number | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = PERCENT.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/**
 * The price at cost plus a percentage markup, in minor units: cost + cost × basisPoints / 10000
 * rounded half up (0.70 + 12.5% = 0.7875 -> 0.79). Integer arithmetic (BigInt, no overflow for any
 * cost), so the console's preview and the API's saved price are the same number. Null when the price
 * is not a safe integer (above 2^53 - 1 minor units: a number would no longer hold it exactly).
 */
export function applyMarkup(costMinor: number, basisPoints: number): number | null {
  const price = BigInt(costMinor) + (BigInt(costMinor) * BigInt(basisPoints) + 5000n) / 10000n;
  return price <= BigInt(Number.MAX_SAFE_INTEGER) && Number.isSafeInteger(Number(price)) ? Number(price) : null;
}

/** The most a markup may add: ten times the cost. */
export const MAX_MARKUP_BASIS_POINTS = 100_000;

/** A request markup: a percentage above 0 and at most 1000, at most 2 decimals; parsed to the number (12.5). */
export const markupPercentSchema = z.union([z.string(), z.number()], { message: 'validation:markup_invalid' }).transform((v, ctx) => {
  const basisPoints = toBasisPoints(v);
  if (basisPoints === null || basisPoints <= 0 || basisPoints > MAX_MARKUP_BASIS_POINTS) {
    ctx.addIssue({ code: 'custom', message: 'validation:markup_invalid' });
    return z.NEVER;
  }
  return basisPoints / 100;
});
