/**
 * A request pacer towards the source (issue 26: "rate-limited towards the source so that the old
 * instance keeps serving"): at most `perSecond` request starts per second, spread evenly. One per
 * source client; `wait()` before every request.
 */

/** Evenly spaced request starts. */
export class Pacer {
  private next = 0;
  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Resolve when the next request may start. */
  async wait(): Promise<void> {
    if (!(this.perSecond > 0)) return;
    const interval = 1000 / this.perSecond;
    const t = this.now();
    const at = Math.max(t, this.next);
    this.next = at + interval;
    if (at > t) await this.sleep(at - t);
  }
}
