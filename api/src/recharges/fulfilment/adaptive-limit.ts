/**
 * How many pending sales the worker claims at a time (docs/architecture.md, "Fulfilment at field
 * scale"). Sales already in flight wait on payers and aggregators and load no database, so they are
 * bounded by memory only; what this limit follows is the database: when the worker's grouped writes
 * take longer than `targetMs` (plus a millisecond a write in the group), or fail as a sick database, the limit shrinks (multiplicatively),
 * and it grows back a little with every write answered in time (additive increase, multiplicative
 * decrease, as TCP does with a congested link).
 */
export class AdaptiveLimit {
  private current: number;

  constructor(private readonly opts: { min: number; max: number; targetMs: number }) {
    this.current = opts.max;
  }

  get value(): number {
    return Math.floor(this.current);
  }

  /** A group of `size` writes of the worker took `ms` (a bigger group may take longer: a millisecond a write). */
  observe(ms: number, size = 1): void {
    if (ms > this.opts.targetMs + size) this.current = Math.max(this.opts.min, this.current * 0.9);
    else this.current = Math.min(this.opts.max, this.current + Math.max(1, this.current * 0.05));
  }

  /** The database is in trouble: half as many. */
  backOff(): void {
    this.current = Math.max(this.opts.min, this.current / 2);
  }
}
