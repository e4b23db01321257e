/**
 * Drops repeat usage events at the edge: the same visitor and record within COUNTER's
 * double-click window (30 s) would not be counted by the aggregating consumer anyway
 * (stats/stats.service.ts), so publishing it only costs an event, a consumer transaction and
 * CPU on the read path. The consumer stays the judge: this filter only removes events it would
 * discard. Exact for one replica; with several, each replica filters its own traffic and the
 * consumer's window still applies across them (a repeat first seen by another replica is
 * published and discarded there).
 *
 * When to use: in front of `StatsPublisher.publish` on hot read paths (record views).
 */

/** Remembers when each (visitor, item) pair was last published, for `windowMs`, in bounded memory. */
export class RepeatFilter {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    /** Pairs remembered at most (oldest forgotten first: a forgotten pair is merely published). */
    private readonly maxEntries = 100_000,
  ) {}

  /** True when the event should be published (first time, or the window has passed); records it. */
  admit(visitor: string, item: string, now = Date.now()): boolean {
    const key = `${visitor}\u0000${item}`;
    const seen = this.last.get(key);
    if (seen !== undefined && now - seen < this.windowMs) return false;
    // Re-insert so that Map order stays oldest-first.
    this.last.delete(key);
    this.last.set(key, now);
    if (this.last.size > this.maxEntries) {
      const oldest = this.last.keys().next().value;
      if (oldest !== undefined) this.last.delete(oldest);
    }
    return true;
  }

  /** Pairs currently remembered. */
  get size(): number {
    return this.last.size;
  }
}
