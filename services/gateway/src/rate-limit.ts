/**
 * Per-client rate limiting: GCRA (the generic cell-rate algorithm, a token bucket kept as one
 * number per client). A client may burst `limit` requests, then gets one more every
 * `window / limit` (a token bucket of `limit` tokens refilled at `limit` per window).
 *
 * When to use: the gateway applies it to every routed request, keyed by token (authenticated) or
 * client address (anonymous). It is **per process**: with N gateway replicas a client gets up to
 * N × limit. A shared store (e.g. NATS KV or Redis) comes with scale-out; the headers stay the same.
 *
 * Headers (as Flask-Limiter, which InvenioRDM uses): `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 * `X-RateLimit-Reset` (Unix time in seconds at which the allowance is full again) and, on 429,
 * `Retry-After` (seconds).
 */

/** Result of one `take`. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Unix time (seconds) at which the client's allowance is full again. */
  reset: number;
  /** Seconds to wait before the next request can pass (only when refused). */
  retryAfter?: number;
}

/** Options of RateLimiter. */
export interface RateLimiterOptions {
  windowMs: number;
  /** Bound on tracked clients; the oldest entries are dropped beyond it. */
  maxKeys?: number;
}

/** In-process GCRA limiter: `take(key, limit)` counts one request. */
export class RateLimiter {
  private readonly tat = new Map<string, number>();
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private lastSweep = 0;

  constructor(opts: RateLimiterOptions) {
    this.windowMs = opts.windowMs;
    this.maxKeys = opts.maxKeys ?? 100_000;
  }

  /** Number of clients currently tracked. */
  get size(): number {
    return this.tat.size;
  }

  /** Count one request of `key` against `limit` per window. */
  take(key: string, limit: number, now = Date.now()): RateDecision {
    if (now - this.lastSweep >= this.windowMs) this.sweep(now);
    const w = this.windowMs;
    const interval = w / limit;
    const stored = this.tat.get(key);
    const tat = stored !== undefined && stored > now ? stored : now;
    const next = tat + interval;
    const allowAt = next - w;
    if (now < allowAt) {
      return {
        allowed: false,
        limit,
        remaining: 0,
        reset: Math.ceil(tat / 1000),
        retryAfter: Math.max(1, Math.ceil((allowAt - now) / 1000)),
      };
    }
    if (stored === undefined && this.tat.size >= this.maxKeys) this.evict();
    this.tat.set(key, next);
    // Why the epsilon: w / limit is fractional, and 59.99999 must count as 60.
    const remaining = Math.max(0, Math.floor((w - (next - now)) / interval + 1e-9));
    return { allowed: true, limit, remaining, reset: Math.ceil(next / 1000) };
  }

  /** Forget clients whose allowance is full again (they behave as new). */
  sweep(now = Date.now()): void {
    this.lastSweep = now;
    for (const [k, t] of this.tat) if (t <= now) this.tat.delete(k);
  }

  private evict(): void {
    // Map iteration is insertion order: drop the oldest tenth.
    let n = Math.max(1, Math.floor(this.maxKeys / 10));
    for (const k of this.tat.keys()) {
      this.tat.delete(k);
      if (--n === 0) break;
    }
  }
}

/** The response headers of a decision. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.reset),
  };
  if (d.retryAfter !== undefined) h['Retry-After'] = String(d.retryAfter);
  return h;
}
