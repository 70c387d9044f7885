import type { Knex } from 'knex';
import { fromDbTime, toDbTime } from '../database/time.ts';

/**
 * A route's health, shared by every process through the database (docs/integrations.md, "Routes").
 * Definite refusals and unanswered sends on a route are counted in a window (a delivery through it
 * clears the count, so these are failures in a row); at `threshold` the
 * route is skipped for `skipMs` (sales take the next route that sells their bundle), then tried
 * again: the next send on it either brings it back (a success clears the count) or counts anew.
 *
 * Reads are kept in process for a second or two (every sale asks); a success writes only when
 * there was something to clear, so a healthy route costs the database nothing per sale.
 */
export interface RouteHealthOptions {
  /** Refusals or timeouts within the window that mark a route unhealthy. */
  threshold: number;
  windowMs: number;
  /** How long an unhealthy route is skipped before it is tried again. */
  skipMs: number;
}

export interface RouteHealthRow {
  provider_id: number;
  aggregator: string;
  failures: number;
  window_started_at: string | null;
  skipped_until: string | null;
  last_failure: string | null;
  last_failure_at: string | null;
}

/**
 * A delivery clears the count, so what rests a route is failures in a row: at field rates (a few
 * percent of answers lost) ten in a row do not happen on a route that works.
 */
export const DEFAULT_ROUTE_HEALTH: RouteHealthOptions = { threshold: 10, windowMs: 5 * 60_000, skipMs: 2 * 60_000 };

const key = (providerId: number, aggregator: string) => `${providerId}:${aggregator}`;
const time = (v: string | null | undefined) => (v ? new Date(fromDbTime(v)!).getTime() : 0);

/** How a route stands now, for the console. */
export function healthState(row: RouteHealthRow | undefined, now = Date.now()) {
  if (!row) return { state: 'healthy' as const, failures: 0, skipped_until: null, last_failure: null, last_failure_at: null };
  const skipped = time(row.skipped_until) > now;
  const counting = Number(row.failures) > 0 && time(row.window_started_at) > 0;
  return {
    state: skipped ? ('skipped' as const) : counting ? ('failing' as const) : ('healthy' as const),
    failures: Number(row.failures),
    skipped_until: skipped ? fromDbTime(row.skipped_until) : null,
    last_failure: row.last_failure ?? null,
    last_failure_at: fromDbTime(row.last_failure_at),
  };
}

export class RouteHealth {
  private kept: { at: number; rows: Promise<Map<string, RouteHealthRow>> } | null = null;

  constructor(
    private readonly db: Knex,
    readonly options: RouteHealthOptions = DEFAULT_ROUTE_HEALTH,
    private readonly keepMs = 1_000,
  ) {}

  private rows(): Promise<Map<string, RouteHealthRow>> {
    if (this.kept && Date.now() - this.kept.at < this.keepMs) return this.kept.rows;
    const entry = {
      at: Date.now(),
      rows: this.db('route_health')
        .select('*')
        .then((rows: RouteHealthRow[]) => new Map(rows.map((r) => [key(Number(r.provider_id), r.aggregator), r]))),
    };
    this.kept = entry;
    entry.rows.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return entry.rows;
  }

  /** The time until which a route is skipped, or null when it is not. */
  async skippedUntil(providerId: number, aggregator: string): Promise<Date | null> {
    const row = (await this.rows()).get(key(providerId, aggregator));
    const until = time(row?.skipped_until);
    return until > Date.now() ? new Date(until) : null;
  }

  /** A definite refusal or an unanswered send on this route. */
  async failed(providerId: number, aggregator: string, reason: string): Promise<void> {
    const now = new Date();
    const nowDb = toDbTime(now);
    const windowStart = toDbTime(new Date(now.getTime() - this.options.windowMs));
    await this.db('route_health')
      .insert({ provider_id: providerId, aggregator, failures: 0, updated_at: nowDb })
      .onConflict(['provider_id', 'aggregator'])
      .ignore();
    // One statement, so two processes counting at once both count: a window that ran out starts again at 1.
    // Both CASEs read the row's old window_started_at: MariaDB assigns SET clauses left to right, so
    // `failures` must stay before `window_started_at` here.
    await this.db('route_health')
      .where({ provider_id: providerId, aggregator })
      .update({
        failures: this.db.raw('CASE WHEN window_started_at IS NULL OR window_started_at < ? THEN 1 ELSE failures + 1 END', [windowStart]),
        window_started_at: this.db.raw('CASE WHEN window_started_at IS NULL OR window_started_at < ? THEN ? ELSE window_started_at END', [windowStart, nowDb]),
        last_failure: reason.slice(0, 500),
        last_failure_at: nowDb,
        updated_at: nowDb,
      });
    // At the threshold: skipped for a while, and counted anew when it is tried again.
    const skipUntil = toDbTime(new Date(now.getTime() + this.options.skipMs));
    await this.db('route_health')
      .where({ provider_id: providerId, aggregator })
      .where('failures', '>=', this.options.threshold)
      .update({ skipped_until: skipUntil, failures: 0, window_started_at: null, updated_at: nowDb });
    this.kept = null;
  }

  /** A delivered (or accepted) send: the count starts again and any skip ends. */
  async succeeded(providerId: number, aggregator: string): Promise<void> {
    const row = (await this.rows()).get(key(providerId, aggregator));
    if (!row || (Number(row.failures) === 0 && !row.skipped_until)) return;
    await this.db('route_health')
      .where({ provider_id: providerId, aggregator })
      .update({ failures: 0, window_started_at: null, skipped_until: null, updated_at: toDbTime() });
    this.kept = null;
  }

  /** Every route's row (the console). */
  async all(providerId: number): Promise<Map<string, RouteHealthRow>> {
    const rows: RouteHealthRow[] = await this.db('route_health').where({ provider_id: providerId }).select('*');
    return new Map(rows.map((r) => [r.aggregator, r]));
  }
}
