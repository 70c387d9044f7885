import type { Knex } from 'knex';
import { DAY_TOTALS_LEASE_MS, DAY_TOTALS_STATE, IN_FLIGHT_STATUSES, rebuildDayTotals } from '../../../db/migrations/20261125A-recharge-day-totals.ts';
import { fromDbTime, startOfZonedDay, zoneOffsetMinutes } from '../database/time.ts';
import { rootKnex } from '../database/unit-of-work.ts';
import { serviceLog } from '../platform/logger.ts';

/**
 * When the reports may read `recharge_day_totals` instead of counting `recharges`
 * (docs/data-model.md, "Report totals"; the table and its triggers: db/migrations/20261125A).
 * The totals hold settled sales per company day at one UTC offset; a report reads them only when
 * its answer would be the same as the live count's, else it counts `recharges` as before.
 */
export { IN_FLIGHT_STATUSES };
export const isInFlight = (status: string) => (IN_FLIGHT_STATUSES as readonly string[]).includes(status);

export interface DayTotalsState {
  offset: number;
  ready: boolean;
  buildingSince: string | null;
}

export async function readDayTotalsState(db: Knex | Knex.Transaction): Promise<DayTotalsState | null> {
  const row = await db(DAY_TOTALS_STATE).where({ id: 1 }).first('offset_minutes', 'ready', 'building_since');
  if (!row) return null;
  return { offset: Number(row.offset_minutes), ready: Boolean(Number(row.ready)), buildingSince: fromDbTime(row.building_since) };
}

/**
 * The live count of company days `from`..`to` keeps the recharges from startOfZonedDay(from) to
 * startOfZonedDay(to) + 24 h, and puts each in the day (week, month) of its time plus the zone's
 * offset at the range's first instant. When all three offsets are the totals' offset, that is
 * exactly the totals' days `from`..`to`. (Zones without daylight saving: always, once the totals
 * follow the zone.)
 */
export function totalsCover(state: DayTotalsState | null, from: string, to: string, timeZone: string): state is DayTotalsState {
  if (!state?.ready) return false;
  const midnight = (day: string) => new Date(`${day}T00:00:00.000Z`);
  return (
    zoneOffsetMinutes(midnight(from), timeZone) === state.offset &&
    zoneOffsetMinutes(midnight(to), timeZone) === state.offset &&
    zoneOffsetMinutes(startOfZonedDay(from, timeZone), timeZone) === state.offset
  );
}

let rebuilding: Promise<boolean> | null = null;
let lastAttempt = 0;
const ATTEMPT_EVERY_MS = 30_000;

/**
 * The company's zone is now at another offset than the totals (its setting changed, or daylight
 * saving began or ended): rebuild them in the background, one rebuild at a time across processes
 * (the state's lease). Until it is done the reports count `recharges`.
 */
export function followZone(state: DayTotalsState | null, timeZone: string): void {
  if (!state) return;
  let wanted: number;
  try {
    wanted = zoneOffsetMinutes(new Date(), timeZone);
  } catch {
    return;
  }
  if (state.offset === wanted && state.ready) return;
  const leased = state.buildingSince !== null && Date.parse(state.buildingSince) > Date.now() - DAY_TOTALS_LEASE_MS;
  if ((leased && state.offset === wanted) || rebuilding || Date.now() - lastAttempt < ATTEMPT_EVERY_MS) return;
  rebuilding = rebuildDayTotals(rootKnex(), wanted)
    .catch((err) => {
      serviceLog.warn({ err, offset: wanted }, 'report totals not rebuilt (the reports count the recharges meanwhile)');
      return false;
    })
    .then((done) => {
      // Claimed by another process, overtaken or failed: not asked again for a while.
      lastAttempt = done ? 0 : Date.now();
      rebuilding = null;
      return done;
    });
}

/** The rebuild under way in this process, if any (tests wait for it). */
export const dayTotalsRebuild = (): Promise<boolean> | null => rebuilding;
