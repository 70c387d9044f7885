/**
 * Formatting for the console's charts, kept apart from the chart library so it is tested without
 * it and costs nothing on the initial path.
 *
 * The charts' keys are the company's calendar days ('2026-11-24'), weeks (their Monday) and months
 * ('2026-11'), already counted in the company's time zone by the API: they are formatted as
 * calendar dates (at UTC midnight, in UTC), so no browser zone can move them to another day.
 */
export type Period = 'day' | 'week' | 'month' | 'category';

/** The Intl language of a console locale ('ae' is Arabic). */
export const intlLang = (locale: string) => (locale === 'ae' ? 'ar' : locale);

/** '2026-11-24' or '2026-11' as the instant of that calendar day (month: its first day) at UTC midnight. */
export function keyToDate(key: string): Date | null {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(key);
  if (!m) return null;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : 1));
}

const dateKey = (d: Date) => d.toISOString().slice(0, 10);
const monthKey = (d: Date) => d.toISOString().slice(0, 7);

function format(lang: string, date: Date, options: Intl.DateTimeFormatOptions): string {
  try {
    return new Intl.DateTimeFormat(lang, { ...options, timeZone: 'UTC' }).format(date);
  } catch {
    return new Intl.DateTimeFormat('en', { ...options, timeZone: 'UTC' }).format(date);
  }
}

/** A key on an axis (short: '24 Nov', 'Nov 2026') or in a tooltip (long: 'Tue, 24 Nov 2026', 'week of 23 Nov 2026'). */
export function formatKey(key: string, period: Period, lang: string, where: 'tick' | 'tooltip'): string {
  if (period === 'category') return key;
  const date = keyToDate(key);
  if (!date) return key;
  if (period === 'month') return format(lang, date, where === 'tick' ? { month: 'short', year: 'numeric' } : { month: 'long', year: 'numeric' });
  if (where === 'tick') return format(lang, date, { day: 'numeric', month: 'short' });
  return format(
    lang,
    date,
    period === 'week' ? { day: 'numeric', month: 'short', year: 'numeric' } : { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' },
  );
}

/** A value-axis label: few digits ('1.5K', '120', '0.5'). */
export function formatTick(value: number, lang: string): string {
  try {
    return new Intl.NumberFormat(lang, {
      notation: Math.abs(value) >= 10_000 ? 'compact' : 'standard',
      maximumFractionDigits: Math.abs(value) >= 10 ? 0 : 2,
    }).format(value);
  } catch {
    return String(value);
  }
}

/** An amount as the console writes money elsewhere: '12.30 USD' (two decimals, Latin digits). */
export const formatMoney = (value: number | null, currency: string) => (value === null ? '' : `${value.toFixed(2)} ${currency}`);

/**
 * Every day, week or month from the first to the last key (day: from `from` to `to` when given),
 * with 0 where the report has no row: a date axis has no holes. At most `max` points (a range too
 * long is returned as it is).
 */
export function fillPeriods(
  rows: { key: string; value: number }[],
  period: Period,
  range: { from?: string; to?: string } = {},
  max = 400,
): { key: string; value: number }[] {
  if (period === 'category' || (!rows.length && !(period === 'day' && range.from && range.to))) return rows;
  const byKey = new Map(rows.map((r) => [r.key, r.value]));
  const keys = rows.map((r) => r.key).sort();
  const first = keyToDate(period === 'day' && range.from ? range.from : keys[0]);
  const last = keyToDate(period === 'day' && range.to ? range.to : keys[keys.length - 1]);
  if (!first || !last || first > last) return rows;
  const out: { key: string; value: number }[] = [];
  for (let d = first; d <= last && out.length <= max;) {
    const key = period === 'month' ? monthKey(d) : dateKey(d);
    out.push({ key, value: byKey.get(key) ?? 0 });
    d = period === 'month' ? new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) : new Date(d.getTime() + (period === 'week' ? 7 : 1) * 86_400_000);
  }
  // A key the steps did not reach (not a Monday, say): the rows as they are, nothing lost.
  return out.length > max || rows.some((r) => !out.some((o) => o.key === r.key)) ? rows : out;
}

/** Label every n-th of `count` points so that labels `labelWidth` px wide fit in `width` px. */
export function labelEvery(count: number, width: number, labelWidth: number): number {
  const fit = Math.max(2, Math.floor(Math.max(0, width) / labelWidth));
  return Math.max(1, Math.ceil(count / fit));
}

/** The value axis: from 0 (or the lowest value below it) to the highest value (or 0), never empty. */
export function valueDomain(values: number[]): [number, number] {
  const min = Math.min(0, ...values.filter(Number.isFinite));
  const max = Math.max(0, ...values.filter(Number.isFinite));
  return [min, max === min ? min + 1 : max];
}
