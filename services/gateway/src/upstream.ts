/**
 * The gateway's connections to one service: an undici `Pool` (HTTP/1.1 keep-alive, one request
 * per connection at a time) behind an admission gate of the gateway's own.
 *
 * Why undici: the upstream hop writes requests and parses answers with a client whose framing is
 * maintained and tested against smuggling (llhttp, strict Content-Length, a connection that
 * receives bytes nobody asked for is destroyed). The hand-written client it replaces dropped the
 * request's Content-Length when a client named it in `Connection` and still wrote the body, which
 * the service read as the next caller's request (issue 18, finding 1).
 *
 * Why a gate in front of the pool: undici queues requests beyond its connections without a bound
 * on the wait. Here at most `connections` requests are handed to the pool at a time (each finds a
 * connection at once); the others wait in order, at most `queueTimeoutMs`, then fail (503 with
 * `Retry-After`, proxy.ts), and a waiter whose client left is dropped from the queue.
 *
 * When not to use: the gateway's other outbound calls (readiness, OpenAPI fragments) are rare and
 * use fetch; this is for proxied traffic.
 */
import { Pool } from 'undici';

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded, in either direction. */
export const HOP_BY_HOP: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
];

/** A request waiting for, or holding, one of the pool's places. */
export interface Waiter {
  /** The request may go: dispatch it to `pool.dispatcher` now. */
  admitted(): void;
  /** No place came free in time. */
  timedOut(): void;
}

/** Options of one service's pool. */
export interface PoolOptions {
  /** `http://host:port` */
  origin: string;
  /** Connections (and requests handed to them at a time). */
  connections: number;
  connectTimeoutMs: number;
  /** Longest wait for a place; then `Waiter.timedOut`. */
  queueTimeoutMs: number;
}

/** The connections to one service, and the queue in front of them. */
export class UpstreamPool {
  readonly dispatcher: Pool;
  private busy = 0;
  private readonly waiting: (Waiter | undefined)[] = [];
  private head = 0;
  private readonly timers = new Map<Waiter, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly o: PoolOptions) {
    this.dispatcher = new Pool(o.origin, {
      connections: o.connections,
      pipelining: 1,
      connectTimeout: o.connectTimeoutMs,
      // The timeouts of an answer are per request (proxy.ts); these are only the pool's defaults.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Admit `w` now (a place is free) or when one is, within the queue timeout. */
  acquire(w: Waiter): void {
    if (this.closed) {
      w.timedOut();
      return;
    }
    if (this.busy < this.o.connections) {
      this.busy++;
      w.admitted();
      return;
    }
    this.waiting.push(w);
    this.timers.set(w, setTimeout(onQueueTimeout, this.o.queueTimeoutMs, this, w));
  }

  /** A request admitted earlier is over: its place goes to the next waiter. */
  release(): void {
    while (this.head < this.waiting.length) {
      const next = this.waiting[this.head];
      this.waiting[this.head++] = undefined;
      if (next === undefined) continue;
      this.compact();
      clearTimeout(this.timers.get(next));
      this.timers.delete(next);
      next.admitted();
      return;
    }
    this.compact();
    this.busy--;
  }

  /** Forget a waiter (its client left, or it timed out). False when it was not waiting. */
  cancel(w: Waiter): boolean {
    const timer = this.timers.get(w);
    if (timer === undefined) return false;
    clearTimeout(timer);
    this.timers.delete(w);
    const i = this.waiting.indexOf(w, this.head);
    if (i !== -1) this.waiting[i] = undefined;
    return true;
  }

  /** Requests admitted and not over yet. */
  get inFlight(): number {
    return this.busy;
  }

  /** Requests waiting for a place. */
  get queued(): number {
    return this.timers.size;
  }

  /** Close every connection; waiting requests time out at once. */
  close(): Promise<void> {
    this.closed = true;
    for (const w of [...this.timers.keys()]) {
      this.cancel(w);
      w.timedOut();
    }
    return this.dispatcher.destroy();
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    } else if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    }
  }

  /** The queue timer of `w` fired. */
  expire(w: Waiter): void {
    if (this.cancel(w)) w.timedOut();
  }
}

function onQueueTimeout(p: UpstreamPool, w: Waiter): void {
  p.expire(w);
}
