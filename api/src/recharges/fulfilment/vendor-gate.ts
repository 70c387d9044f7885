import type { Knex } from 'knex';
import { toDbTime } from '../../database/time.ts';

/**
 * How hard the product may ask a vendor that stopped answering (docs/architecture.md,
 * "Reconciliation"). A vendor is down after `downAfter` calls in a row got no answer (a timeout, a
 * reset, a 5xx), seen by this process, or when another process marked it down in vendor_health.
 * While it is down, its lookups come out of one budget per minute shared by every process (a
 * conditional UPDATE of its vendor_health row takes one); an answer of any kind brings it back up.
 * Charges and top-ups are never held back: a payer waiting for a prompt is always tried.
 */
export interface VendorGateOptions {
  /** Lookups a minute to a vendor that is down, by all processes together. */
  lookupsPerMinute?: number;
  /** Calls in a row without an answer before a vendor counts as down. */
  downAfter?: number;
  /** How long this process trusts what it read of vendor_health. */
  refreshMs?: number;
}

interface Local {
  lostInRow: number;
  /** Seen down by this process. */
  down: boolean;
  /** Marked down in vendor_health (by any process), as last read. */
  markedDown: boolean;
  readAt: number;
}

export class VendorGate {
  private readonly lookupsPerMinute: number;
  private readonly downAfter: number;
  private readonly refreshMs: number;
  private readonly vendors = new Map<string, Local>();

  constructor(
    private readonly db: Knex,
    opts: VendorGateOptions = {},
  ) {
    this.lookupsPerMinute = opts.lookupsPerMinute ?? 30;
    this.downAfter = opts.downAfter ?? 3;
    this.refreshMs = opts.refreshMs ?? 2000;
  }

  private local(system: string): Local {
    let v = this.vendors.get(system);
    if (!v) this.vendors.set(system, (v = { lostInRow: 0, down: false, markedDown: false, readAt: 0 }));
    return v;
  }

  /** What a remote call got: an answer of any kind, or none (remote-call.ts tells every call here). */
  noteCall(system: string, answered: boolean): void {
    const v = this.local(system);
    if (answered) {
      v.lostInRow = 0;
      if (v.down || v.markedDown) {
        v.down = false;
        v.markedDown = false;
        void this.mark(system, null);
      }
      return;
    }
    v.lostInRow += 1;
    if (!v.down && v.lostInRow >= this.downAfter) {
      v.down = true;
      void this.mark(system, toDbTime());
    }
  }

  /** True when the vendor answers, or a lookup is left in this minute's budget (and taken). */
  async mayLookUp(system: string): Promise<boolean> {
    if (!(await this.isDown(system))) return true;
    // The budget's row (its first mark may not have landed yet).
    await this.db('vendor_health')
      .insert({ system, down_since: toDbTime(), failures: this.local(system).lostInRow, window_lookups: 0, updated_at: toDbTime() })
      .onConflict('system')
      .ignore();
    const now = Date.now();
    const minuteAgo = toDbTime(new Date(now - 60_000));
    const at = toDbTime(new Date(now));
    const fresh = (qb: Knex.QueryBuilder) => qb.whereNull('window_started_at').orWhere('window_started_at', '<', minuteAgo);
    // A new minute starts a new budget; otherwise one more lookup while some are left.
    const restarted = await this.db('vendor_health')
      .where({ system })
      .where((w) => fresh(w))
      .update({ window_started_at: at, window_lookups: 1, updated_at: at });
    if (restarted) return true;
    const taken = await this.db('vendor_health')
      .where({ system })
      .where('window_lookups', '<', this.lookupsPerMinute)
      .where('window_started_at', '>=', minuteAgo)
      .update({ window_lookups: this.db.raw('window_lookups + 1'), updated_at: at });
    return taken > 0;
  }

  /** Down, as this process saw it or as vendor_health says (read at most every refreshMs). */
  async isDown(system: string): Promise<boolean> {
    const v = this.local(system);
    if (Date.now() - v.readAt >= this.refreshMs) {
      v.readAt = Date.now();
      const row: { down_since: string | null } | undefined = await this.db('vendor_health').where({ system }).first('down_since');
      v.markedDown = Boolean(row?.down_since);
    }
    return v.down || v.markedDown;
  }

  private async mark(system: string, downSince: string | null): Promise<void> {
    const now = toDbTime();
    try {
      await this.db('vendor_health')
        .insert({ system, down_since: downSince, failures: this.local(system).lostInRow, window_lookups: 0, updated_at: now })
        .onConflict('system')
        .merge({ down_since: downSince, failures: this.local(system).lostInRow, updated_at: now });
    } catch {
      // Health is advice: a database hiccup here changes no sale.
    }
  }
}
