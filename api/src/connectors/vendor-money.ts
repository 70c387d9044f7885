/**
 * Reading the money a vendor's answer states (what a gateway took and charged, what an aggregator
 * cost), for the sale's record and the daily close. Vendors write amounts as JSON numbers or
 * numeric strings in major units with any number of decimals; these readers turn them into whole
 * cents through the decimal text (never float arithmetic) and answer null for anything odd, so a
 * missing or strange field is left unknown and never fails a sale.
 */

const DECIMAL = /^(\d{1,13})(?:\.(\d+))?$/;

/** The decimal text of a JSON number or numeric string ("5", "5.125"); null when it is not a non-negative amount. */
function decimalText(value: unknown): string | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    // Tiny or huge numbers print with an exponent: written out (to more decimals than any vendor uses).
    const text = String(value);
    return text.includes('e') ? value.toFixed(10) : text;
  }
  if (typeof value === 'string') return value.trim() || null;
  return null;
}

/**
 * Major units as whole cents. `down` truncates further decimals (WaafiPay's rule for amounts),
 * `up` never counts a cost below what the vendor takes, `nearest` rounds half up.
 */
export function vendorCents(value: unknown, rounding: 'down' | 'up' | 'nearest' = 'nearest'): number | null {
  const text = decimalText(value);
  const m = text === null ? null : DECIMAL.exec(text);
  if (!m) return null;
  const decimals = m[2] ?? '';
  const whole = Number(m[1]) * 100 + Number(decimals.slice(0, 2).padEnd(2, '0'));
  const rest = decimals.slice(2).replace(/0+$/, '');
  if (!rest) return whole;
  if (rounding === 'down') return whole;
  if (rounding === 'up') return whole + 1;
  return Number(rest[0]) >= 5 ? whole + 1 : whole;
}

/** An ISO 4217 code ("USD"), upper-cased; null otherwise. */
export function currencyCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) ? code : null;
}

/** A rate as the vendor wrote it ("1", "0.0017"), at most 32 characters; null when it is not a positive decimal. */
export function rateText(value: unknown): string | null {
  const text = decimalText(value);
  if (text === null || text.length > 32 || !/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) return null;
  return text;
}

/** An instant the vendor wrote (ISO 8601, or "yyyy-MM-dd HH:mm:ss" which vendors' reports mean as UTC) as ISO 8601 UTC; null when unreadable. */
export function vendorInstant(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  const plain = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/.exec(text);
  const at = new Date(plain ? `${plain[1]}T${plain[2]}Z` : text);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** Only the fields that have a value: an answer's facts spread into a result without `undefined` keys. */
export function known<T extends Record<string, unknown>>(facts: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> };
}
