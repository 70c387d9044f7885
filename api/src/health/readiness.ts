/**
 * What `/api/v1/health/ready` knows beyond the database: whether this process is draining (a
 * SIGTERM arrived: it takes no new traffic and no new sales), and the background loops it runs
 * (the recharge worker), each alive when it went round recently. One per app (server.ts passes
 * its own; an app made without one, as in tests, makes its own).
 */
export interface WatchedLoop {
  /** When the loop last went round (Date.now()). */
  lastTickAt: () => number;
  /** Older than this, the loop is called stuck. */
  staleAfterMs: number;
}

export class Readiness {
  private drainingSince: number | null = null;
  private readonly loops = new Map<string, WatchedLoop>();

  /** From now on the process answers not ready ("draining"); it never becomes ready again. */
  startDraining(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** A background loop this process runs; readiness needs it alive. Returns the way to stop watching it. */
  watchLoop(name: string, loop: WatchedLoop): () => void {
    this.loops.set(name, loop);
    return () => this.loops.delete(name);
  }

  /** Why the process should not get traffic, apart from the database (empty: nothing). */
  problems(now = Date.now()): string[] {
    const reasons: string[] = [];
    if (this.draining) reasons.push('draining');
    for (const [name, loop] of this.loops) if (now - loop.lastTickAt() > loop.staleAfterMs) reasons.push(`${name} stalled`);
    return reasons;
  }

  /** The loops watched, for the answer: name -> ok or stalled. */
  loopStates(now = Date.now()): Record<string, 'ok' | 'stalled'> {
    return Object.fromEntries([...this.loops].map(([name, loop]) => [name, now - loop.lastTickAt() > loop.staleAfterMs ? 'stalled' : 'ok']));
  }
}
