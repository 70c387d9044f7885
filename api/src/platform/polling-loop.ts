import { serviceLog } from './logger.ts';

/**
 * A background loop over an outbox (webhook events, SMS receipts): runs `round` now when woken,
 * else every `pollMs`; never two rounds at once (a wake during a round runs another right after);
 * its timer never keeps the process alive. A failed round is logged and the loop goes on.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private stopped = true;

  constructor(private readonly opts: { round: () => Promise<unknown>; pollMs: () => number; what: string }) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** No more rounds (one under way finishes). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Something was just committed: look now rather than at the next poll. */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      await this.opts.round();
    } catch (err) {
      serviceLog.warn({ err }, `${this.opts.what} failed`);
    } finally {
      this.running = false;
      if (!this.stopped) this.schedule(this.again ? 0 : this.opts.pollMs());
      this.again = false;
    }
  }
}
