import type { Knex } from 'knex';
import { zoneOffsetMinutes } from '../database/time.ts';

/**
 * Grouping UTC times into the company's days, weeks (Monday first) and months, in SQL on both
 * engines. The zone's offset is taken at the start of the range: exact for zones without daylight
 * saving (Africa/Mogadishu, Nairobi, Djibouti ...), an hour off around a change elsewhere.
 */
export type TimeGroup = 'day' | 'week' | 'month';

export function timeBucket(db: Knex | Knex.Transaction, column: string, group: TimeGroup, timeZone: string, at: Date): Knex.Raw {
  const minutes = zoneOffsetMinutes(at, timeZone);
  const sqlite = db.client.config.client !== 'mysql2';
  if (sqlite) {
    const local = `datetime(${column}, '${minutes >= 0 ? '+' : ''}${minutes} minutes')`;
    if (group === 'day') return db.raw(`strftime('%Y-%m-%d', ${local})`);
    if (group === 'month') return db.raw(`strftime('%Y-%m', ${local})`);
    return db.raw(`date(${local}, '-6 days', 'weekday 1')`);
  }
  const local = `(${column} + INTERVAL ${minutes} MINUTE)`;
  if (group === 'day') return db.raw(`DATE_FORMAT(${local}, '%Y-%m-%d')`);
  if (group === 'month') return db.raw(`DATE_FORMAT(${local}, '%Y-%m')`);
  return db.raw(`DATE_FORMAT(DATE_SUB(DATE(${local}), INTERVAL WEEKDAY(${local}) DAY), '%Y-%m-%d')`);
}

/** The same days, weeks and months from a company day 'YYYY-MM-DD' (the day totals' `day`). */
export function totalsBucket(db: Knex | Knex.Transaction, column: string, group: TimeGroup): Knex.Raw {
  if (group === 'day') return db.raw(column);
  if (group === 'month') return db.raw(`substr(${column}, 1, 7)`);
  if (db.client.config.client !== 'mysql2') return db.raw(`date(${column}, '-6 days', 'weekday 1')`);
  return db.raw(`DATE_FORMAT(DATE_SUB(${column}, INTERVAL WEEKDAY(${column}) DAY), '%Y-%m-%d')`);
}
