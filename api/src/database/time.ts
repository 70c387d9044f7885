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
