/**
 * The reverse proxy: forwards one request to a service through undici (upstream.ts: a pool of
 * keep-alive connections per service behind a bounded queue), streaming both bodies (nothing
 * large is buffered: a 1 GiB upload passes chunk by chunk, with back-pressure).
 *
 * What is sent is computed only from what the gateway itself sends (issue 18, finding 1):
 * - framing: undici frames the body the gateway hands it (a collected body: its length; a
 *   streamed body of known length: the length node's parser read it with, which undici enforces
 *   byte for byte; otherwise chunked). The client's `Content-Length` and `Transfer-Encoding`
 *   are never copied, so a client naming them in `Connection` changes nothing;
 * - headers: hop-by-hop headers and those the client's `Connection` names are dropped, and so,
 *   always, are the client's credentials (`Authorization`, `Cookie`, `Proxy-Authorization`:
 *   services get the signed identity only) and every header the gateway sets itself (`Host`,
 *   `x-rdm-identity`, `x-request-id`, `X-Forwarded-*`, `Forwarded`): `Connection` can remove a
 *   client's header, never one of the gateway's, and never smuggle one in;
 * - added: `x-request-id`, `x-forwarded-for` (the client address established once,
 *   client-address.ts, then the trusted hops), `x-forwarded-proto/host`, W3C `traceparent`, and
 *   the signed identity (edge.ts; every request, anonymous ones too).
 *
 * Failures before the answer starts are bounded and rendered by the edge: no place in the pool
 * within the queue timeout → 503 with `Retry-After`; connection refused, connect timeout, no
 * response headers in time, an answer undici refuses → 503; on upload routes (no headers
 * timeout: the body may take hours) a service that stops reading the body, or has it all and does
 * not answer, for `uploadIdleMs` → 503 and the upstream request aborted; a body over the limit → 413; a body
 * too slow (body-timeouts.ts) → 408 and the connection closed. A GET or HEAD that meets a
 * connection the service closed is retried once; nothing with a body is replayed. A client that
 * leaves at any point aborts the service's request (queued: gives up its turn). After the
 * answer started, a failure cuts the client's connection (never a truncated "complete" answer).
 * A service answering before it read the whole body (an upload refused at once, its own 413) is
 * relayed at once; the rest of the client's body is discarded within bounds or the connection
 * closed (early-answer.ts), and undici drops the half-sent upstream connection.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { AppError, Errors, IDENTITY_HEADER, injectTraceHeaders, isTelemetryEnabled } from '@rdm/platform';
import type { Dispatcher } from 'undici';
import { BodyClock, type BodyTimeoutReason, type BodyTimeouts, DEFAULT_BODY_TIMEOUTS } from './body-timeouts.js';
import { DEFAULT_DRAIN_LIMITS, type DrainLimits, answerEarly } from './early-answer.js';
import { HOP_BY_HOP, UpstreamPool, type Waiter } from './upstream.js';

/** One service the gateway forwards to. */
export interface Upstream {
  name: string;
  hostname: string;
  port: number;
  /** `http://host:port`, for the pool, logs and the OpenAPI fetch. */
  origin: string;
}

/** Parse a base URL (`http://127.0.0.1:5101`) into an Upstream. */
export function parseUpstream(name: string, baseUrl: string): Upstream {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:') throw new Error(`${name}: only http:// upstreams are supported (got ${baseUrl})`);
  return { name, hostname: u.hostname, port: Number(u.port || 80), origin: u.origin };
}

/**
 * One request at the edge, as the proxy needs it: the raw node request and response, the request
 * id, the client address, and the response headers the gateway adds (request id, CORS, rate
 * limits), kept as a flat name/value list and written once with the answer (`writeHead`).
 */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** Flat `[name, value, name, value, …]`; written before the service's own headers. */
  headers: (string | number)[];
  /** Scheme and host the client used (`x-forwarded-proto/host` upstream). */
  proto: string;
  host: string;
  /** The client address (client-address.ts): rate limits, the signed identity. */
  clientIp: string;
  /** `X-Forwarded-For` sent upstream: the client address, then the trusted hops. */
  forwardedFor: string;
  /** Signed identity header value (edge.ts). */
  identityHeader?: string;
  /** The client key counted in flight (edge.ts), until the exchange is done. */
  rateKey?: string;
}

/** Options of UpstreamProxy. */
export interface ProxyOptions {
  connectTimeoutMs: number;
  /** Response-headers timeout of normal routes (0 = none). */
  headersTimeoutMs: number;
  /** Longest gap between two chunks of an answer's body (0 = none). */
  bodyTimeoutMs: number;
  /** Connections per service. */
  maxSockets: number;
  /** Longest wait for a connection when all are busy; then 503 with Retry-After. */
  queueTimeoutMs: number;
  /** Bounds on discarding a client body after an early answer (default DEFAULT_DRAIN_LIMITS). */
  drain?: DrainLimits;
  /** Bounds on reading a request body (default DEFAULT_BODY_TIMEOUTS). */
  body?: BodyTimeouts;
  /**
   * Upload routes: longest time a service may go without reading the body or, once it has all of
   * it, without answering (0 = none); then 503. Default DEFAULT_UPLOAD_IDLE_MS.
   */
  uploadIdleMs?: number;
}

/** Default of `ProxyOptions.uploadIdleMs`: far above a service finishing an upload (its checksum, the object store's commit). */
export const DEFAULT_UPLOAD_IDLE_MS = 120_000;

/** Per-request forwarding options. */
export interface ForwardOptions {
  /** Byte limit of a streamed body (undefined = unlimited). */
  bodyLimit?: number;
  /** Upload route: no response-headers timeout, no bound on the whole body's time. */
  upload: boolean;
}

/**
 * Request headers of the client never forwarded: hop-by-hop, credentials, framing (undici frames
 * what the gateway sends), and everything the gateway sets itself.
 */
const DROP_REQUEST = new Set<string>([
  ...HOP_BY_HOP,
  'authorization',
  'cookie',
  'content-length',
  'expect',
  'host',
  IDENTITY_HEADER,
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
]);

/** Response headers of the service never relayed (hop-by-hop). */
const DROP_RESPONSE = new Set<string>(HOP_BY_HOP);

/** Names listed in a `Connection` header, lowercased (hop-by-hop too). */
function connectionTokens(value: string | string[] | undefined): string[] {
  if (!value) return [];
  const v = Array.isArray(value) ? value.join(',') : value;
  if (v === 'keep-alive' || v === 'close' || v === 'Keep-Alive' || v === 'Close') return [];
  return v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== 'keep-alive' && s !== 'close');
}

/** Context values the forwarded headers need. */
export interface ForwardedInfo {
  requestId: string;
  /** `X-Forwarded-For` to send (client-address.ts). */
  forwardedFor: string;
  proto: string;
  host: string;
  identityHeader?: string;
}

/**
 * The headers sent to a service, as one flat `[name, value, …]` list handed to undici: the
 * client's minus DROP_REQUEST, `proxy-*` and what its `Connection` names, then the gateway's own.
 * No `Host` (undici sends the service's) and no framing (undici frames the body it is given).
 * Exported for unit tests.
 */
export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, info: ForwardedInfo): string[] {
  const out: string[] = [];
  const extra = connectionTokens(incoming.connection);
  // With OpenTelemetry on, the active span's context replaces the client's.
  const trace = isTelemetryEnabled() ? injectTraceHeaders({}) : undefined;
  for (const name in incoming) {
    if (DROP_REQUEST.has(name) || name.startsWith('proxy-')) continue;
    if (extra.length > 0 && extra.includes(name)) continue;
    if (trace !== undefined && name in trace) continue;
    const v = incoming[name];
    if (typeof v === 'string') out.push(name, v);
    else if (v !== undefined) for (const one of v) out.push(name, one);
  }
  out.push(
    'x-request-id',
    info.requestId,
    'x-forwarded-for',
    info.forwardedFor,
    'x-forwarded-proto',
    info.proto,
    'x-forwarded-host',
    info.host,
  );
  if (info.identityHeader) out.push(IDENTITY_HEADER, info.identityHeader);
  if (trace !== undefined) for (const k in trace) out.push(k, trace[k] as string);
  return out;
}

/** True when a request carries a body (Content-Length > 0 or Transfer-Encoding). */
export function hasRequestBody(h: IncomingHttpHeaders): boolean {
  if (h['transfer-encoding'] !== undefined) return true;
  const len = h['content-length'];
  return len !== undefined && len !== '0';
}

/** 503 with `Retry-After` (a full pool: its queue timeout; anything else: the platform's default). */
const unavailable = (reason: string, cause?: unknown, retryAfterSeconds?: number): AppError => {
  const e = Errors.serviceUnavailable(undefined, retryAfterSeconds);
  (e as { reason?: string }).reason = reason;
  if (cause !== undefined) (e as { cause?: unknown }).cause = cause;
  return e;
};

/** Rendered when the client went away mid-request (nobody reads it; the log does). */
const clientClosed = () => new AppError('client_closed_request', 499, 'Client closed request.');

/** A body too slow (werkzeug's RequestTimeout text, as InvenioRDM renders a 408). */
export const requestTimeout = () =>
  new AppError(
    'request_timeout',
    408,
    "The server closed the network connection because the browser didn't finish the request within the specified time.",
    { headers: { Connection: 'close' } },
  );

/** Request bodies with a known length up to this size are collected and sent with the head in one write; answers up to it are written to the client with one `end()`. */
export const SMALL_BODY_BYTES = 64 * 1024;

// How the request body goes upstream.
const BODY_NONE = 0;
const BODY_COLLECT = 1;
const BODY_STREAM = 2;

/** undici error codes of a connection the service closed (a GET/HEAD is retried once on another). */
const RETRYABLE = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

// Hot-path note: the client request's and response's listeners are module-level functions that
// find their Forward through a symbol (no per-request closures).
const FWD = Symbol('gateway.forward');
type WithFwd<T> = T & { [FWD]: Forward };

/** One request on its way to a service and its answer on the way back; undici's handler for it. */
class Forward implements Dispatcher.DispatchHandler, Waiter {
  controller: Dispatcher.DispatchController | undefined;
  /** The answer's head was relayed, or the request failed: no error answer any more. */
  settled = false;
  /** Everything is over (promise settled). */
  finished = false;
  /** Holds a place in the pool (upstream.ts) until the answer is over. */
  admittedToPool = false;
  released = false;
  retried = false;
  /** The client's body was read to its end. */
  bodyDone = false;
  /** The answer is streamed to the client (large or of unknown length), not collected. */
  streaming = false;
  /** The client request is paused by the gateway (the service reads slower). */
  reqPaused = false;
  feed: BodyFeed | undefined;
  clock: BodyClock | undefined;
  /** Body bytes received from the client (limit on streamed bodies). */
  received = 0;
  /** A collected request body, or a collected small answer body. */
  body: Buffer | undefined;
  /** A chunked request body collected so far (sent as one buffer if it stays small, else first in the stream). */
  parts: Buffer[] | undefined;
  bodyAt = 0;
  /** Content-Length of a small answer being collected. */
  expected = 0;
  /** Upload routes: armed while the service holds the body back or owes the answer (uploadIdleMs). */
  idleTimer: NodeJS.Timeout | undefined;
  resolve!: () => void;
  reject!: (e: AppError) => void;

  constructor(
    readonly ex: Exchange,
    readonly pool: UpstreamPool,
    readonly name: string,
    readonly method: string,
    readonly headers: string[],
    /** BODY_*; a chunked body being collected turns BODY_STREAM once it is no longer small. */
    public mode: number,
    /** Content-Length of the client's body as node's parser read it (-1: chunked). */
    readonly length: number,
    readonly headersTimeoutMs: number,
    readonly bodyTimeoutMs: number,
    readonly limit: number | undefined,
    readonly drain: DrainLimits,
    readonly timeouts: BodyTimeouts,
    readonly upload: boolean,
    readonly retryAfter: number,
    /** Upload routes: see ProxyOptions.uploadIdleMs (0 = none). */
    readonly uploadIdleMs: number,
  ) {}

  begin(): void {
    const req = this.ex.req as WithFwd<IncomingMessage>;
    // The client may leave at any time (queued, waiting for the answer, mid-answer): the service's
    // request is then aborted, so that it can stop its work (a search statement is cancelled).
    const res = this.ex.res as WithFwd<ServerResponse>;
    res[FWD] = this;
    res.once('close', onResClose);
    if (this.mode !== BODY_NONE) {
      req[FWD] = this;
      req.on('close', onReqClose);
    }
    if (this.mode === BODY_COLLECT) {
      // Collected before a connection is taken: a slow client holds none of the service's.
      if (this.length >= 0) this.body = Buffer.allocUnsafe(this.length);
      else this.parts = [];
      this.clock = new BodyClock(this.timeouts, onBodyTimeout.bind(this), this.upload);
      req.on('data', onReqCollect);
      req.on('end', onReqCollected);
      return;
    }
    this.acquire();
  }

  /** Ask the pool for a place; while waiting, a client that leaves gives up its turn. */
  acquire(): void {
    this.pool.acquire(this);
  }

  /** A place in the pool: send the request. */
  admitted(): void {
    this.admittedToPool = true;
    if (this.finished) {
      this.releasePlace();
      return;
    }
    let body: Buffer | Readable | null = null;
    const headers = this.headers;
    if (this.mode === BODY_COLLECT) {
      body = this.body as Buffer;
      this.body = undefined;
    } else if (this.mode === BODY_STREAM) {
      // The length node's parser framed the client's body with; undici checks the bytes sent match it.
      if (this.length >= 0) headers.push('content-length', String(this.length));
      if (this.clock === undefined) this.clock = new BodyClock(this.timeouts, onBodyTimeout.bind(this), this.upload);
      else this.clock.resume();
      this.feed = new BodyFeed(this);
      body = this.feed;
    }
    this.dispatch(body);
  }

  dispatch(body: Buffer | Readable | null): void {
    this.pool.dispatcher.dispatch(
      {
        path: this.ex.req.url as string,
        method: this.method as Dispatcher.HttpMethod,
        headers: this.headers,
        body,
        headersTimeout: this.headersTimeoutMs,
        bodyTimeout: this.bodyTimeoutMs,
        // undici closes a connection after HEAD (for servers that send a body anyway); a body
        // after HEAD would be bytes nobody asked for, and those destroy the connection anyway.
        ...(this.method === 'HEAD' ? { reset: false } : {}),
      },
      this,
    );
  }

  /** No place came free within the queue timeout. */
  timedOut(): void {
    if (this.finished) return;
    // The body was not read: discard it within bounds so the client gets the 503.
    answerEarly(this.ex.req, this.ex.res, this.drain);
    this.fail(unavailable(`${this.name}: no connection free in time`, undefined, this.retryAfter));
  }

  /** The service holds the upload back, or has it all and owes the answer: start its clock. */
  armIdle(): void {
    if (!this.upload || this.uploadIdleMs <= 0 || this.settled) return;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(onUploadIdle, this.uploadIdleMs, this);
  }

  /** The service reads again, answered, or the exchange is over. */
  disarmIdle(): void {
    if (this.idleTimer === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** The service neither read the upload nor answered for uploadIdleMs. */
  uploadIdle(): void {
    this.idleTimer = undefined;
    if (this.settled) return;
    // The rest of the client's body is not wanted: discard it within bounds, or close, so the 503 reaches it.
    if (!this.bodyDone) answerEarly(this.ex.req, this.ex.res, this.drain);
    this.fail(unavailable(`${this.name}: no progress on the upload for ${this.uploadIdleMs} ms`));
  }

  releasePlace(): void {
    if (this.admittedToPool && !this.released) {
      this.released = true;
      this.pool.release();
    }
  }

  /** Fail before the answer started: an error answer from the edge (503/413/408/499/400). */
  fail(error: AppError): void {
    if (this.settled) return;
    this.settled = true;
    this.finished = true;
    this.disarmIdle();
    this.stopBody();
    if (!this.admittedToPool) this.pool.cancel(this);
    const c = this.controller;
    if (c !== undefined && !c.aborted) c.abort(error);
    // Destroyed without the error: undici may have let go of the body (a refused connection),
    // and an 'error' on a stream nobody listens to would be an uncaught exception, the process's end.
    else this.feed?.destroy();
    this.reject(error);
  }

  /** Stop reading the client's body for the service. */
  stopBody(): void {
    this.clock?.stop();
    if (this.mode === BODY_NONE) return;
    const req = this.ex.req;
    req.removeListener('data', onReqCollect);
    req.removeListener('end', onReqCollected);
    req.removeListener('data', onFeedData);
    req.removeListener('end', onFeedEnd);
    if (this.reqPaused) {
      this.reqPaused = false;
      req.resume();
    }
  }

  /** The body broke a bound of body-timeouts.ts. */
  bodyTimedOut(reason: BodyTimeoutReason): void {
    if (this.finished) return;
    const req = this.ex.req;
    const socket = req.socket;
    (this.ex as { timeoutReason?: string }).timeoutReason = reason;
    if (!this.settled) {
      // The 408 goes out with `Connection: close`; node closes the connection once it is written.
      // Why a timer too: a client that does not read could otherwise keep it.
      setTimeout(destroySocket, 1000, socket).unref();
      this.fail(requestTimeout());
      return;
    }
    // The service already answered: nothing more can be said, cut both sides.
    this.stopBody();
    const c = this.controller;
    if (c !== undefined && !c.aborted) c.abort(requestTimeout());
    socket.destroy();
    this.end(true);
  }

  // undici's handler (Dispatcher.DispatchHandler).

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The client left (or the body failed) while the request waited for its connection.
    if (this.finished) controller.abort(clientClosed());
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx informational answers (103 Early Hints) are not relayed; undici refuses a 100 it did not ask for.
    if (status < 200 || this.finished) return;
    this.disarmIdle();
    const ex = this.ex;
    const res = ex.res as WithFwd<ServerResponse>;
    if (this.mode === BODY_STREAM && !this.bodyDone) {
      // The service answered before it had the whole body (an upload refused at once, its own
      // 413): relay the answer now; stop forwarding the body, and let the client finish sending
      // into a bounded drain (or close its connection), never leave it half-read.
      // (The feed is left open, not ended: undici drops the half-sent connection once the answer
      // is complete; an ended feed would be a shorter body, another request than the client's.)
      this.stopBody();
      answerEarly(ex.req, res, this.drain);
    }
    const out = ex.headers;
    const mark = out.length;
    const extra = connectionTokens(headers.connection);
    for (const name in headers) {
      if (DROP_RESPONSE.has(name) || (extra.length > 0 && extra.includes(name))) continue;
      const v = headers[name];
      if (typeof v === 'string') out.push(name, v);
      else if (v !== undefined) for (const one of v) out.push(name, one);
    }
    try {
      res.writeHead(status, out as string[]);
    } catch (err) {
      // A header node refuses to write (never sent by our services).
      out.length = mark;
      this.fail(unavailable(`${this.name}: bad response header`, err));
      return;
    }
    this.settled = true;
    if (this.method === 'HEAD' || status === 204 || status === 304) return;
    const cl = headers['content-length'];
    const length = typeof cl === 'string' ? Number(cl) : -1;
    if (length >= 0 && length <= SMALL_BODY_BYTES) {
      this.expected = length;
      return;
    }
    this.streaming = true;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.finished) return;
    if (!this.streaming) {
      // A small answer: collected, written with the head in one end() (one writev).
      if (this.body === undefined) {
        const len = this.expected;
        if (chunk.length === len) {
          this.body = chunk;
          this.bodyAt = len;
          return;
        }
        this.body = Buffer.allocUnsafe(len);
        this.bodyAt = 0;
      }
      // undici checked the length: never more than `expected` bytes arrive.
      chunk.copy(this.body, this.bodyAt);
      this.bodyAt += chunk.length;
      return;
    }
    const res = this.ex.res;
    if (res.destroyed) return;
    if (!res.write(chunk) && !controller.paused) {
      controller.pause();
      res.once('drain', onResDrain);
    }
  }

  onResponseEnd(): void {
    this.releasePlace();
    this.end(false);
  }

  onResponseError(controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.finished) {
      // Aborted by the gateway (client gone, limit, timeout): already answered.
      this.releasePlace();
      return;
    }
    const code = (err as { code?: string }).code ?? '';
    if (!this.settled) {
      if (this.mode === BODY_NONE && !this.retried && RETRYABLE.has(code) && (this.method === 'GET' || this.method === 'HEAD')) {
        // The service closed a kept-alive connection as the request went out: once more, on another.
        this.retried = true;
        this.controller = undefined;
        this.dispatch(null);
        return;
      }
      this.releasePlace();
      if (controller === undefined && code === 'UND_ERR_INVALID_ARG') {
        // A request undici refuses to write (a header or target it will not send): the client's.
        this.fail(Errors.badRequest('The request cannot be forwarded.'));
        return;
      }
      this.fail(unavailable(`${this.name}: ${code || err.message}`, err));
      return;
    }
    // Cut mid-answer: the client must not see it as complete.
    this.releasePlace();
    this.stopBody();
    this.end(true);
  }

  /** The answer is over (`cut`: incomplete). */
  end(cut: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.clock?.stop();
    this.disarmIdle();
    const res = this.ex.res;
    if (cut) {
      if (!res.destroyed) res.destroy();
    } else if (!res.destroyed && !res.writableEnded) {
      const body = this.body;
      this.body = undefined;
      if (body === undefined) res.end();
      else res.end(body.length === this.bodyAt ? body : body.subarray(0, this.bodyAt));
    }
    this.resolve();
  }
}

/**
 * The client's body as undici reads it: a Readable of the gateway's own between the client
 * request and undici, so that undici destroying its body (a connection reset, an early answer)
 * never destroys the client's request, and so the gateway counts, limits and times every chunk.
 */
class BodyFeed extends Readable {
  constructor(readonly f: Forward) {
    super({ highWaterMark: SMALL_BODY_BYTES });
    // A chunked body that outgrew collecting: what was collected goes first.
    if (f.parts !== undefined) for (const part of f.parts) this.push(part);
    f.parts = undefined;
    const req = f.ex.req as WithFwd<IncomingMessage>;
    req.on('data', onFeedData);
    req.on('end', onFeedEnd);
  }

  override _read(): void {
    const f = this.f;
    if (f.reqPaused) {
      f.reqPaused = false;
      f.disarmIdle();
      f.clock?.resume();
      f.ex.req.resume();
    }
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // undici is done with the body (sent, or the request failed): stop reading it for the service.
    if (!this.f.bodyDone) this.f.stopBody();
    cb(err);
  }
}

function onUploadIdle(f: Forward): void {
  f.uploadIdle();
}
function onBodyTimeout(this: Forward, reason: BodyTimeoutReason): void {
  this.bodyTimedOut(reason);
}
function destroySocket(socket: IncomingMessage['socket']): void {
  socket.destroy();
}
function onReqCollect(this: WithFwd<IncomingMessage>, chunk: Buffer): void {
  const f = this[FWD];
  f.clock?.bytes(chunk.length);
  const parts = f.parts;
  if (parts === undefined) {
    chunk.copy(f.body as Buffer, f.bodyAt);
    f.bodyAt += chunk.length;
    return;
  }
  parts.push(chunk);
  f.bodyAt += chunk.length;
  f.received = f.bodyAt;
  if (f.limit !== undefined && f.received > f.limit) {
    f.stopBody();
    answerEarly(this, f.ex.res, f.drain, { close: true });
    f.fail(Errors.payloadTooLarge());
    return;
  }
  if (f.bodyAt <= SMALL_BODY_BYTES) return;
  // No longer small: streamed, what came so far first. Not read further until a connection is free.
  this.removeListener('data', onReqCollect);
  this.removeListener('end', onReqCollected);
  f.mode = BODY_STREAM;
  f.reqPaused = true;
  f.clock?.pause();
  this.pause();
  f.acquire();
}
function onReqCollected(this: WithFwd<IncomingMessage>): void {
  const f = this[FWD];
  f.bodyDone = true;
  f.clock?.stop();
  const parts = f.parts;
  if (parts !== undefined) {
    f.body = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, f.bodyAt);
    f.parts = undefined;
  }
  f.acquire();
}
function onFeedData(this: WithFwd<IncomingMessage>, chunk: Buffer): void {
  const f = this[FWD];
  f.received += chunk.length;
  if (f.limit !== undefined && f.received > f.limit) {
    f.stopBody();
    if (!f.settled) {
      // Over the limit: the rest is not wanted, by the service or here.
      answerEarly(this, f.ex.res, f.drain, { close: true });
      f.fail(Errors.payloadTooLarge());
    } else {
      // The service already answered; stop both sides.
      f.controller?.abort(Errors.payloadTooLarge());
      this.socket.destroy();
    }
    return;
  }
  f.clock?.bytes(chunk.length);
  if (!(f.feed as BodyFeed).push(chunk)) {
    f.reqPaused = true;
    f.clock?.pause();
    f.armIdle();
    this.pause();
  }
}
function onFeedEnd(this: WithFwd<IncomingMessage>): void {
  const f = this[FWD];
  f.bodyDone = true;
  f.clock?.stop();
  f.feed?.push(null);
  // The whole body is the service's: from now on it owes the answer.
  f.armIdle();
}
function onReqClose(this: WithFwd<IncomingMessage>): void {
  if (this.complete) return;
  const f = this[FWD];
  if (!f.settled) f.fail(clientClosed());
  else if (!f.finished) {
    // The client left mid-upload after the answer started: abort the upstream request.
    f.controller?.abort(clientClosed());
    f.end(true);
  }
}
function onResClose(this: WithFwd<ServerResponse>): void {
  const f = this[FWD];
  if (f.finished) return;
  // Before the answer: a queued request gives up its turn, a sent one is aborted at the service.
  if (!f.settled) {
    f.fail(clientClosed());
    return;
  }
  // The client left mid-answer: the rest of it is not wanted, the connection cannot be reused.
  f.controller?.abort(clientClosed());
  f.end(true);
}
function onResDrain(this: WithFwd<ServerResponse>): void {
  this[FWD].controller?.resume();
}

/** Forwards requests to services over pooled keep-alive connections (upstream.ts). */
export class UpstreamProxy {
  private readonly pools = new Map<Upstream, UpstreamPool>();
  private readonly retryAfter: number;

  constructor(private readonly opts: ProxyOptions) {
    // Retry-After of a full pool: the queue timeout, at least a second.
    this.retryAfter = Math.max(1, Math.ceil(opts.queueTimeoutMs / 1000));
  }

  /** The pool of a service (created on first use). */
  pool(u: Upstream): UpstreamPool {
    let p = this.pools.get(u);
    if (p === undefined) {
      p = new UpstreamPool({
        origin: u.origin,
        connections: this.opts.maxSockets,
        connectTimeoutMs: this.opts.connectTimeoutMs,
        queueTimeoutMs: this.opts.queueTimeoutMs,
      });
      this.pools.set(u, p);
    }
    return p;
  }

  /**
   * Forward one exchange to `upstream` and stream the answer back (written here, status and
   * headers in one `writeHead`). Rejects with AppError (503/413/408/499/400) before the answer
   * starts; never after (a failure then cuts the client's connection).
   */
  forward(ex: Exchange, upstream: Upstream, fo: ForwardOptions): Promise<void> {
    const req = ex.req;
    const h = req.headers;
    const method = req.method ?? 'GET';
    // Only origin-form targets (`/path?query`) go upstream: the one form the identity is bound to.
    if ((req.url as string).charCodeAt(0) !== 47 /* / */) return Promise.reject(Errors.badRequest('The request target must be a path.'));
    const withBody = hasRequestBody(h);
    const headers = upstreamRequestHeaders(h, {
      requestId: ex.requestId,
      forwardedFor: ex.forwardedFor,
      proto: ex.proto,
      host: ex.host,
      identityHeader: ex.identityHeader,
    });
    // node's parser framed the client's body: a length it read, or chunked (no length).
    const length = withBody && h['transfer-encoding'] === undefined ? Number(h['content-length']) : -1;
    // Small bodies and chunked ones (until they are no longer small) are collected before a
    // connection is taken, so that a body sent slowly holds none of the service's connections.
    const mode = !withBody ? BODY_NONE : length <= SMALL_BODY_BYTES && !fo.upload ? BODY_COLLECT : BODY_STREAM;
    const o = this.opts;
    const f = new Forward(
      ex,
      this.pool(upstream),
      upstream.name,
      method,
      headers,
      mode,
      length,
      fo.upload ? 0 : o.headersTimeoutMs,
      o.bodyTimeoutMs,
      fo.bodyLimit,
      o.drain ?? DEFAULT_DRAIN_LIMITS,
      o.body ?? DEFAULT_BODY_TIMEOUTS,
      fo.upload,
      this.retryAfter,
      o.uploadIdleMs ?? DEFAULT_UPLOAD_IDLE_MS,
    );
    return new Promise<void>((resolve, reject) => {
      f.resolve = resolve;
      f.reject = reject;
      f.begin();
    });
  }

  /** Requests in flight to a service (tests). */
  inFlight(u: Upstream): number {
    return this.pools.get(u)?.inFlight ?? 0;
  }

  /** Close every connection. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}
