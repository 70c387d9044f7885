import type { Knex } from 'knex';
import { formatMinor } from '@app/contracts';
import { fromDbTime } from '../database/time.ts';

/**
 * The floats as route choice reads them (routing/route-choice.ts): each aggregator's last balance
 * read, kept 5 seconds per process so a busy worker asks the database once, not once per sale.
 */
export interface KnownFloat {
  balance: number;
  currency: string | null;
  checkedAt: Date;
}

/** A balance older than this is not trusted to skip a route: the aggregator is asked by the sale itself. */
export const FLOAT_FRESH_MS = 60 * 60_000;

export class FloatView {
  private kept: { at: number; floats: Promise<Map<string, KnownFloat>> } | null = null;

  constructor(
    private readonly db: Knex,
    private readonly ttlMs = 5_000,
  ) {}

  private all(): Promise<Map<string, KnownFloat>> {
    if (this.kept && Date.now() - this.kept.at < this.ttlMs) return this.kept.floats;
    const entry = {
      at: Date.now(),
      floats: (async () => {
        const rows: { aggregator: string; balance: number | string; currency: string | null; checked_at: string }[] = await this.db('aggregator_floats')
          .whereNotNull('balance')
          .whereNotNull('checked_at')
          .select('aggregator', 'balance', 'currency', 'checked_at');
        return new Map(rows.map((r) => [r.aggregator, { balance: Number(r.balance), currency: r.currency, checkedAt: new Date(fromDbTime(r.checked_at)!) }]));
      })(),
    };
    this.kept = entry;
    entry.floats.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return entry.floats;
  }

  /**
   * Why a route's float cannot pay a sale of `cost` cents, or null when it can or nobody knows
   * (never read, read over an hour ago, in another currency than the sale's, or the floats
   * unreadable: the sale is never held up by this).
   */
  async tooLow(aggregator: string, cost: number, currency?: string): Promise<string | null> {
    let known: KnownFloat | undefined;
    try {
      known = (await this.all()).get(aggregator);
    } catch {
      return null;
    }
    if (!known || Date.now() - known.checkedAt.getTime() > FLOAT_FRESH_MS || known.balance >= cost) return null;
    // Cents of another currency cannot be compared with the cost: nobody knows, so no skip.
    if (currency && known.currency && known.currency !== currency) return null;
    return `Float too low: its last balance read (${formatMinor(known.balance)}${known.currency ? ` ${known.currency}` : ''} at ${known.checkedAt.toISOString()}) cannot pay this sale's cost (${formatMinor(cost)}).`;
  }
}
