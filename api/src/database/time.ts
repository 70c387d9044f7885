/**
 * Times are stored as UTC 'YYYY-MM-DD HH:MM:SS.mmm' strings on both databases (mysql2 runs with
 * dateStrings and time_zone +00:00) and leave the API as ISO 8601 with Z. Never hand a JS Date
 * to knex: SQLite would store epoch milliseconds and MySQL would shift it by the local zone.
 */
export function toDbTime(date: Date = new Date()): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

export function fromDbTime(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return new Date(value).toISOString();
  const s = String(value);
  if (s.includes('T')) return new Date(s.endsWith('Z') ? s : `${s}Z`).toISOString();
  return new Date(`${s.replace(' ', 'T')}Z`).toISOString();
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

/** Minutes a time zone is ahead of UTC at an instant (Africa/Mogadishu: 180). */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - at.getTime()) / 60_000);
}

/** The UTC instant a calendar day (YYYY-MM-DD) starts in a time zone: where "from 2026-11-01" begins. */
export function startOfZonedDay(day: string, timeZone: string): Date {
  const guess = new Date(`${day}T00:00:00.000Z`);
  return new Date(guess.getTime() - zoneOffsetMinutes(guess, timeZone) * 60_000);
}

/** The calendar day (YYYY-MM-DD) of an instant in a time zone. */
export function zonedDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * Keeps the rows of `column` (UTC) that fall on the company days `from`..`to` (YYYY-MM-DD, both
 * included, either optional): the date-range filter of every list and report.
 */
export function whereInZonedDays(
  qb: { where: (...args: any[]) => unknown },
  column: string,
  from: string | undefined,
  to: string | undefined,
  timeZone: string,
): void {
  if (from) qb.where(column, '>=', toDbTime(startOfZonedDay(from, timeZone)));
  if (to) qb.where(column, '<', toDbTime(new Date(startOfZonedDay(to, timeZone).getTime() + 86_400_000)));
}
