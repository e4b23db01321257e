/**
 * How often each kill point of the fault trials was hit, and whether the run may end.
 *
 * A trial HITS its kill point when the fault (kill -9, NATS stop) lands once the committed state
 * has reached the point and before the accept call has answered. A trial that misses — the
 * state was never reached within the wait, or the saga finished and answered before the kill —
 * still counts for the saga invariants but proves nothing about the point, so the trials try the
 * point again (a fresh saga) until it was hit `min` times, at most `maxAttempts` times in all;
 * `shortfalls()` then names every point hit fewer than `min` times, and the run fails on them.
 */
export class KillPointTally {
  private readonly counts = new Map<string, { attempts: number; hits: number }>();

  constructor(
    /** Hits each point needs (FAULT_MIN_HITS; the number of trials per point by default). */
    readonly min: number,
    /** Attempts at most per point, hits and misses together. */
    readonly maxAttempts: number,
  ) {
    if (!(min >= 1)) throw new Error(`a kill point needs at least 1 hit (got ${min})`);
    if (!(maxAttempts >= min)) throw new Error(`maxAttempts ${maxAttempts} < min ${min}: the bar could never be met`);
  }

  private of(point: string): { attempts: number; hits: number } {
    let c = this.counts.get(point);
    if (!c) {
      c = { attempts: 0, hits: 0 };
      this.counts.set(point, c);
    }
    return c;
  }

  /** Record one attempt at `point`. */
  record(point: string, hit: boolean): void {
    const c = this.of(point);
    c.attempts++;
    if (hit) c.hits++;
  }

  hits(point: string): number {
    return this.of(point).hits;
  }

  attempts(point: string): number {
    return this.of(point).attempts;
  }

  /** Whether `point` needs another attempt: fewer than `min` hits and attempts left. */
  more(point: string): boolean {
    const c = this.of(point);
    return c.hits < this.min && c.attempts < this.maxAttempts;
  }

  /** `hits/attempts` of a point, for the report. */
  summary(point: string): string {
    const c = this.of(point);
    return `hit ${c.hits} of ${c.attempts} attempt(s) (needs ${this.min})`;
  }

  /** Every point of `points` hit fewer than `min` times (empty = the bar is met everywhere). */
  shortfalls(points: string[]): string[] {
    return points.filter((p) => this.of(p).hits < this.min).map((p) => `${p}: ${this.summary(p)}`);
  }
}
