/**
 * Bounded request bodies (issue 18, finding 4): a client that sends its body too slowly is cut,
 * so that slow bodies cannot hold the upstream connections a service has (260 bodies sending a
 * byte every 5 s held all of records' connections).
 *
 * While the gateway reads a body (collecting it, or streaming it to a service) a `BodyClock`
 * watches three bounds: the longest gap between two chunks (`idleMs`), a minimum rate averaged
 * over windows of `windowMs` (`minRate` bytes per second: a byte every few seconds keeps no idle
 * timer from firing, the rate catches it), and on routes other than uploads the whole body's time
 * (`totalMs`). Time the gateway itself holds the client back (back-pressure from the service)
 * does not count. One timer per body, re-armed only when it fires: a chunk costs a counter and a
 * clock read.
 *
 * When not to use: for the time to receive request headers (node's `server.headersTimeout`),
 * or for a service's answer (undici's headers and body timeouts, proxy.ts).
 */

/** Bounds on reading one request body (0 switches a bound off). */
export interface BodyTimeouts {
  /** Longest gap between two chunks. */
  idleMs: number;
  /** Minimum bytes per second, averaged over each window of `windowMs`. */
  minRate: number;
  windowMs: number;
  /** Longest time for the whole body (not applied on upload routes). */
  totalMs: number;
}

/** Defaults: far below any real client's speed, far above what a slow body may hold. */
export const DEFAULT_BODY_TIMEOUTS: BodyTimeouts = { idleMs: 20_000, minRate: 500, windowMs: 20_000, totalMs: 60_000 };

/** Why a body was cut. */
export type BodyTimeoutReason = 'idle' | 'rate' | 'total';

/** Watches one body; `onTimeout` is called once, when a bound is broken. */
export class BodyClock {
  private startedAt: number;
  private lastAt: number;
  private windowAt: number;
  private windowBytes = 0;
  /** When the gateway stopped reading (NaN: it reads). */
  private pausedAt = Number.NaN;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly t: BodyTimeouts,
    private readonly onTimeout: (reason: BodyTimeoutReason) => void,
    /** Upload route: no bound on the whole body's time. */
    private readonly upload: boolean,
  ) {
    const now = performance.now();
    this.startedAt = now;
    this.lastAt = now;
    this.windowAt = now;
    this.arm(now);
  }

  /** `n` body bytes arrived. */
  bytes(n: number): void {
    this.lastAt = performance.now();
    this.windowBytes += n;
  }

  /** The gateway stopped reading (back-pressure): the client is not to blame for the wait. */
  pause(): void {
    if (Number.isNaN(this.pausedAt)) this.pausedAt = performance.now();
  }

  /** The gateway reads again. */
  resume(): void {
    if (Number.isNaN(this.pausedAt)) return;
    const held = performance.now() - this.pausedAt;
    this.pausedAt = Number.NaN;
    this.startedAt += held;
    this.lastAt += held;
    this.windowAt += held;
  }

  /** The body is complete, or nobody reads it any more. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(now: number): void {
    const t = this.t;
    let next = Number.POSITIVE_INFINITY;
    if (t.idleMs > 0) next = Math.min(next, this.lastAt + t.idleMs);
    if (t.minRate > 0 && t.windowMs > 0) next = Math.min(next, this.windowAt + t.windowMs);
    if (t.totalMs > 0 && !this.upload) next = Math.min(next, this.startedAt + t.totalMs);
    if (next === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(onClockTimer, Math.max(1, Math.ceil(next - now)), this);
  }

  /** The timer fired: check every bound, then re-arm. */
  check(): void {
    this.timer = undefined;
    const now = performance.now();
    const t = this.t;
    if (!Number.isNaN(this.pausedAt)) {
      // Held back by the gateway: nothing is due; look again later.
      this.timer = setTimeout(onClockTimer, Math.max(1, t.idleMs || t.windowMs || 1000), this);
      return;
    }
    let broken: BodyTimeoutReason | undefined;
    if (t.totalMs > 0 && !this.upload && now - this.startedAt >= t.totalMs) broken = 'total';
    else if (t.idleMs > 0 && now - this.lastAt >= t.idleMs) broken = 'idle';
    else if (t.minRate > 0 && t.windowMs > 0 && now - this.windowAt >= t.windowMs) {
      if (this.windowBytes < (t.minRate * t.windowMs) / 1000) broken = 'rate';
      else {
        this.windowAt = now;
        this.windowBytes = 0;
      }
    }
    if (broken !== undefined) {
      this.onTimeout(broken);
      return;
    }
    this.arm(now);
  }
}

function onClockTimer(c: BodyClock): void {
  c.check();
}
