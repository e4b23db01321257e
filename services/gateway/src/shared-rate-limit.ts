/**
 * Rate limits shared by every gateway replica: fixed-window counters in a NATS JetStream KV
 * bucket, one key per client and window (`<client>.<window index>`), written with atomic
 * create/update (the revision is checked, so two replicas never lose each other's counts) and
 * expired by the bucket's TTL (two windows). Fixed windows are what Flask-Limiter, which
 * InvenioRDM uses, does by default: `X-RateLimit-Reset` is the end of the current window.
 *
 * When to use: the gateway's `RATE_LIMIT_STORE=nats` (the default) with any number of replicas on
 * one NATS. Not for: a gateway without NATS (`local`: the in-process GCRA of rate-limit.ts).
 *
 * Hot path: per client, at most one KV write is in flight per process; requests arriving meanwhile
 * join the next write (one update adds the whole batch), so 50 concurrent requests of one token
 * cost a few round trips, not 50 conflicting ones. When the client is busy here (b > 1 of its
 * requests queued behind the write or in flight in this process), the write also reserves spare
 * slots for its next requests in this process (8 × (b − 1), at most 256, and never more than an
 * eighth of what is left below the limit), handed out without a round trip: a busy client costs a
 * KV write per few dozen requests, and near the limit reservations shrink to nothing, so exactly
 * `limit` requests pass. A client calling one request at a time reserves nothing, and sees the
 * exact shared count on every replica. The price under load: another replica's
 * `X-RateLimit-Remaining` counts slots reserved here and not used yet (at most an eighth of the
 * allowance left). Once a window's count
 * reaches the limit, later requests are refused without any round trip (counts only grow within a
 * window).
 *
 * Fallback: while NATS is unreachable (disconnected, the bucket not open yet, or a KV call failed
 * or timed out), decisions come from the in-process limiter, so each replica enforces the limit
 * on its own (N replicas → up to N × limit) until NATS answers again; nothing is refused for the
 * outage itself.
 */
import { type KV, type KvOptions, Kvm } from '@nats-io/kv';
import type { NatsConnection } from './auth.js';
import type { Logger } from '@rdm/platform';
import type { RateDecision, RateLimiter } from './rate-limit.js';

/** Anything the gateway can count a request against: the in-process limiter or the shared one. */
export interface RateLimitStore {
  /**
   * Count one request of `key` against `limit` per window. `concurrent`: how many requests of
   * this client this process has in flight, this one included (a hint for reservations).
   */
  take(key: string, limit: number, concurrent?: number): RateDecision | Promise<RateDecision>;
}

/** Options of SharedRateLimiter. */
export interface SharedRateLimiterOptions {
  nc: NatsConnection;
  windowMs: number;
  /** Decides while NATS is unreachable. */
  fallback: RateLimiter;
  /** KV bucket name (default `rdm_rate_limits`). */
  bucket?: string;
  /** Longest wait for one KV call before falling back (default 250 ms). */
  timeoutMs?: number;
  /** After a failed KV call, how long decisions stay local before NATS is tried again (default 1000 ms). */
  retryMs?: number;
  /**
   * Revision conflicts tolerated for one batch before it is decided locally (default 64). Each
   * conflict means another replica's write went through and the count grew, and a count at the
   * limit needs no write, so conflicts are bounded by the limit anyway; this only caps latency.
   */
  maxConflicts?: number;
  logger?: Logger;
}

interface Waiter {
  limit: number;
  resolve: (d: RateDecision) => void;
  /** The caller's `concurrent` hint. */
  concurrent: number;
}

/** What this process knows of one client's current window. */
interface Counter {
  window: number;
  /** Shared count as of `revision` (0 = the key was never seen by this process). */
  count: number;
  /** The shared count before this process's last write (positions of its batch start after it). */
  before: number;
  /** Slots this process reserved (the last ones up to `count`) and has not handed out yet. */
  free: number;
  revision: number;
  waiting: Waiter[];
  busy: boolean;
}

/** JetStream's "wrong last sequence" (and its "unknown" variant): the revision check failed. */
const WRONG_LAST_SEQUENCE = new Set([10071, 10164]);

/** Shared fixed-window limiter on a NATS KV bucket, with the in-process limiter as fallback. */
export class SharedRateLimiter implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private readonly windowMs: number;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly maxConflicts: number;
  private readonly bucketName: string;
  private kv: KV | undefined;
  private downUntil = 0;
  private disconnected = false;
  private opening: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: SharedRateLimiterOptions) {
    this.windowMs = opts.windowMs;
    this.timeoutMs = opts.timeoutMs ?? 250;
    this.retryMs = opts.retryMs ?? 1000;
    this.maxConflicts = opts.maxConflicts ?? 64;
    this.bucketName = opts.bucket ?? 'rdm_rate_limits';
    void this.watchStatus();
  }

  /** True while decisions are shared (the bucket is open and NATS answers). */
  get shared(): boolean {
    return this.kv !== undefined && !this.disconnected && Date.now() >= this.downUntil;
  }

  /** Open (creating when absent) the bucket; retried in the background until it succeeds. */
  start(): Promise<void> {
    this.opening ??= this.open();
    return this.opening;
  }

  /** Stop retrying to open the bucket. */
  stop(): void {
    this.stopped = true;
  }

  /** Count one request of `key` against `limit` per window (see RateLimitStore). */
  take(key: string, limit: number, concurrent = 1): RateDecision | Promise<RateDecision> {
    const now = Date.now();
    if (!this.shared) return this.opts.fallback.take(key, limit, now);
    const window = Math.floor(now / this.windowMs);
    let c = this.counters.get(key);
    if (!c || c.window !== window) {
      if (this.counters.size > 0 && (!c || c.window < window)) this.sweep(window);
      c = { window, count: 0, before: 0, free: 0, revision: 0, waiting: [], busy: false };
      this.counters.set(key, c);
    }
    // A slot reserved by an earlier write: no round trip.
    if (c.free > 0) return this.decide(c, c.count - c.free-- + 1, limit, now);
    // Counts only grow within a window: once at the limit, refuse without asking NATS.
    if (c.count >= limit && !c.busy) return this.decide(c, c.count + 1, limit, now);
    return new Promise<RateDecision>((resolve) => {
      c.waiting.push({ limit, resolve, concurrent });
      if (!c.busy) void this.flush(key, c);
    });
  }

  private decide(c: Counter, position: number, limit: number, now: number): RateDecision {
    const end = (c.window + 1) * this.windowMs;
    const reset = Math.ceil(end / 1000);
    if (position > limit) {
      return { allowed: false, limit, remaining: 0, reset, retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
    }
    return { allowed: true, limit, remaining: limit - position, reset };
  }

  /** Write the waiting batch of one counter (one KV write in flight per counter), then the next. */
  private async flush(key: string, c: Counter): Promise<void> {
    c.busy = true;
    try {
      while (c.waiting.length > 0) {
        // Slots reserved by the last write go to those who waited for it first.
        while (c.free > 0 && c.waiting.length > 0) {
          const w = c.waiting.shift() as Waiter;
          w.resolve(this.decide(c, c.count - c.free-- + 1, w.limit, Date.now()));
        }
        if (c.waiting.length === 0) break;
        const batch = c.waiting.splice(0);
        const limit = batch[0].limit;
        let busy = batch.length;
        for (const w of batch) if (w.concurrent > busy) busy = w.concurrent;
        const ok = await this.add(key, c, batch.length, limit, busy);
        const now = Date.now();
        if (!ok) {
          for (const w of batch) w.resolve(this.opts.fallback.take(key, w.limit, now));
          continue;
        }
        // Positions in the window: the batch took the slots after c.before (a write capped at the
        // limit took fewer: the rest fall beyond it and are refused).
        let position = c.before + 1;
        for (const w of batch) w.resolve(this.decide(c, position++, w.limit, now));
        // What the write took beyond the batch is reserved for the next requests.
        c.free = Math.max(0, c.count - (c.before + batch.length));
      }
    } finally {
      c.busy = false;
    }
  }

  /**
   * Add up to `n` hits to the shared count (never beyond `limit`: refused requests need no
   * write). Sets c.before/c.count/c.revision. False when NATS failed (the caller falls back).
   */
  private async add(key: string, c: Counter, n: number, limit: number, busy: number): Promise<boolean> {
    const kv = this.kv;
    if (!kv) return false;
    const k = `${encodeKey(key)}.${c.window}`;
    try {
      for (let conflicts = 0; conflicts <= this.maxConflicts; conflicts++) {
        if (c.count >= limit) {
          c.before = c.count;
          return true;
        }
        // Spare slots for later requests (see the header): none near the limit.
        const spare = Math.min(Math.floor((limit - c.count - n) / 8), 8 * (busy - 1), 256);
        const next = Math.min(limit, c.count + n + Math.max(0, spare));
        try {
          const revision =
            c.revision === 0
              ? await withTimeout(kv.create(k, String(next)), this.timeoutMs)
              : await withTimeout(kv.update(k, String(next), c.revision, this.timeoutMs), this.timeoutMs);
          c.before = c.count;
          c.count = next;
          c.revision = revision;
          return true;
        } catch (err) {
          if (!isWrongRevision(err)) throw err;
          // Another replica wrote first: read its count and retry on top of it.
          const e = await withTimeout(kv.get(k), this.timeoutMs);
          c.count = e && e.operation === 'PUT' ? Number(e.string()) || 0 : 0;
          c.revision = e ? e.revision : 0;
        }
      }
      this.opts.logger?.warn({ key: k }, 'rate limit: too many revision conflicts; deciding locally');
      return false;
    } catch (err) {
      this.downUntil = Date.now() + this.retryMs;
      this.opts.logger?.warn({ err: (err as Error).message }, 'rate limit store unreachable; in-process limits for now');
      // Reopen (re-creating if needed): a restarted NATS has lost the memory bucket, and writes to
      // a bucket that is gone never succeed. Until it is open again, decisions are local.
      if (this.kv === kv) {
        this.kv = undefined;
        this.opening = undefined;
        void this.start();
      }
      return false;
    }
  }

  private sweep(window: number): void {
    for (const [k, c] of this.counters) if (c.window < window && !c.busy) this.counters.delete(k);
  }

  private async open(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        this.kv = await new Kvm(this.opts.nc).create(this.bucketName, {
          history: 1,
          // Two windows: the current one and the previous one, whose key may still be written
          // by a request that started just before the window turned.
          ttl: 2 * this.windowMs,
          storage: 'memory' as KvOptions['storage'],
        });
        return;
      } catch (err) {
        if (attempt === 0) this.opts.logger?.warn({ err: (err as Error).message }, 'rate limit bucket not open yet; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** Math.min(attempt, 5))).unref());
      }
    }
  }

  private async watchStatus(): Promise<void> {
    try {
      for await (const s of this.opts.nc.status()) {
        if (s.type === 'disconnect') this.disconnected = true;
        else if (s.type === 'reconnect') this.disconnected = false;
      }
    } catch {
      // The connection closed: shared() stays as it was; calls fail and fall back.
    }
  }
}

/** KV keys allow `[-/_=.a-zA-Z0-9]`: client keys (tokens ids, IPv6 addresses) are base64url-encoded. */
function encodeKey(key: string): string {
  return Buffer.from(key).toString('base64url');
}

function isWrongRevision(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown };
  return e?.name === 'JetStreamApiError' && typeof e.code === 'number' && WRONG_LAST_SEQUENCE.has(e.code);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`rate limit store: no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
