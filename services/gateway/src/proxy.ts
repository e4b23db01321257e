/**
 * The reverse proxy: forwards one request to a service over a pooled keep-alive TCP connection
 * with a small HTTP/1.1 client of its own (upstream.ts), streaming both bodies (nothing large is
 * buffered: a 1 GiB upload passes chunk by chunk, with back-pressure, no copy).
 *
 * Headers: hop-by-hop headers are dropped both ways; a client's `x-rdm-identity` is always
 * dropped (only the gateway signs identities); the gateway adds `x-request-id`,
 * `x-forwarded-for/proto/host`, W3C `traceparent` and, for authenticated callers, the signed
 * identity. Failures before the service answers are bounded: connection refused → 503 at once,
 * connect timeout (2 s) → 503, no response headers within the route's timeout → 503. A request
 * without a body that hits a stale keep-alive connection is retried once. A service answering
 * before it read the whole body (an upload refused at once, its own 413) is relayed at once; the
 * rest of the client's body is discarded within bounds or the connection closed
 * (early-answer.ts), and the half-sent upstream connection is dropped.
 *
 * This file: what is sent (request head, header hygiene) and the per-request glue between the
 * client's request/response and an upstream connection; upstream.ts: connections, the pool and
 * the response parser.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AppError, Errors, IDENTITY_HEADER, injectTraceHeaders, isTelemetryEnabled } from '@rdm/platform';
import { DEFAULT_DRAIN_LIMITS, type DrainLimits, answerEarly } from './early-answer.js';
import { type Conn, HOP_BY_HOP, type ResponseHead, type Sink, UpstreamPool } from './upstream.js';

/** One service the gateway forwards to. */
export interface Upstream {
  name: string;
  hostname: string;
  port: number;
  /** `http://host:port`, for logs and the OpenAPI fetch. */
  origin: string;
  /** The `Host` header sent to it (what node would add: the port unless it is 80). */
  hostHeader?: string;
}

/** Parse a base URL (`http://127.0.0.1:5101`) into an Upstream. */
export function parseUpstream(name: string, baseUrl: string): Upstream {
  const u = new URL(baseUrl);
  if (u.protocol !== 'http:') throw new Error(`${name}: only http:// upstreams are supported (got ${baseUrl})`);
  return { name, hostname: u.hostname, port: Number(u.port || 80), origin: u.origin, hostHeader: u.host };
}

/**
 * One request at the edge, as the proxy needs it: the raw node request and response, the request
 * id, and the response headers the gateway adds (request id, CORS, rate limits), kept as a flat
 * name/value list and written once with the answer (`writeHead`), never one `setHeader` each.
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
  /** Signed identity header value for an authenticated caller. */
  identityHeader?: string;
  /** The rate-limit key counted in flight (edge.ts), until the exchange is done. */
  rateKey?: string;
}

/** Options of UpstreamProxy. */
export interface ProxyOptions {
  identitySecret: string;
  connectTimeoutMs: number;
  /** Response-headers timeout of normal routes (0 = none). */
  headersTimeoutMs: number;
  maxSockets: number;
  maxFreeSockets: number;
  /** Trust X-Forwarded-* of the previous hop (append to them) instead of replacing them. */
  trustProxy: boolean;
  /** Bounds on discarding a client body after an early answer (default DEFAULT_DRAIN_LIMITS). */
  drain?: DrainLimits;
}

/** Per-request forwarding options. */
export interface ForwardOptions {
  /** Byte limit of a streamed body (undefined = unlimited). */
  bodyLimit?: number;
  /** Upload route: no response-headers timeout. */
  upload: boolean;
}

/** Request headers never forwarded (hop-by-hop, or replaced by the gateway). */
const DROP_REQUEST = new Set<string>([
  ...HOP_BY_HOP,
  'host',
  'expect',
  IDENTITY_HEADER,
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);

/** Names listed in a `Connection` header (they are hop-by-hop too), lowercased. */
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
  remoteAddress: string | undefined;
  proto: string;
  host: string;
  trustProxy: boolean;
  identityHeader?: string;
  /** The `Host` header for the service (none when absent: tests). */
  upstreamHost?: string;
  /** Add `content-length: 0` (a bodiless request of a method node would otherwise frame as chunked). */
  emptyBody?: boolean;
}

/** Methods node sends without a body framing of its own (no chunked encoding by default). */
const BODILESS_BY_DEFAULT = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The headers sent to a service, as one flat `[name, value, …]` list handed to `http.request`
 * as is (node then writes it in one go, without a `setHeader` per header): the client's minus
 * hop-by-hop, identity and forwarding headers, plus the gateway's own. Exported for unit tests.
 */
export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, info: ForwardedInfo): (string | string[])[] {
  const out: (string | string[])[] = [];
  if (info.upstreamHost) out.push('host', info.upstreamHost);
  const extra = connectionTokens(incoming.connection);
  // With OpenTelemetry on, the active span's context replaces the client's.
  const trace = isTelemetryEnabled() ? injectTraceHeaders({}) : undefined;
  for (const name in incoming) {
    if (DROP_REQUEST.has(name)) continue;
    if (extra.length > 0 && extra.includes(name)) continue;
    if (trace !== undefined && name in trace) continue;
    const v = incoming[name];
    if (v !== undefined) out.push(name, v);
  }
  // A streamed body of unknown length goes on chunked (the proxy frames it: Forward.onReqData).
  if (incoming['transfer-encoding'] !== undefined && incoming['content-length'] === undefined) out.push('transfer-encoding', 'chunked');
  if (info.emptyBody && incoming['content-length'] === undefined) out.push('content-length', '0');
  const prior = incoming['x-forwarded-for'];
  const addr = info.remoteAddress ?? '';
  out.push(
    'x-request-id',
    info.requestId,
    'x-forwarded-for',
    info.trustProxy && prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${addr}` : addr,
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

/** The request head as written upstream: request line, headers, blank line (latin1, as node's parser decoded them). */
export function requestHead(method: string, url: string, list: readonly (string | string[])[]): string {
  let s = `${method} ${url} HTTP/1.1\r\n`;
  for (let i = 0; i < list.length; i += 2) {
    const v = list[i + 1] as string | string[];
    if (typeof v === 'string') s += `${list[i]}: ${v}\r\n`;
    else for (const one of v) s += `${list[i]}: ${one}\r\n`;
  }
  return `${s}\r\n`;
}

const unavailable = (reason: string, cause?: unknown): AppError => {
  const e = Errors.serviceUnavailable();
  (e as { reason?: string }).reason = reason;
  if (cause !== undefined) (e as { cause?: unknown }).cause = cause;
  return e;
};

/** Rendered when the client went away mid-request (nobody reads it; the log does). */
const clientClosed = () => new AppError('client_closed_request', 499, 'Client closed request.');

/** Request bodies with a known length up to this size are collected and sent with the head in one write; answers up to it are written to the client with one `end()`. */
export const SMALL_BODY_BYTES = 64 * 1024;

// How the request body goes upstream.
const BODY_NONE = 0;
const BODY_COLLECT = 1;
const BODY_STREAM = 2;

// Hot-path note: the client request's and response's listeners are module-level functions that
// find their Forward through a symbol (no per-request closures); the upstream connection's
// listeners are installed once per connection (upstream.ts).
const FWD = Symbol('gateway.forward');
type WithFwd<T> = T & { [FWD]: Forward };

/** One request on its way to a service and its answer on the way back. */
class Forward implements Sink {
  conn: Conn | undefined;
  /** The answer's head arrived, or the request failed: no 503 any more. */
  settled = false;
  /** Everything is over (promise settled). */
  finished = false;
  /** The whole request (head and body) was written upstream. */
  sent = false;
  retried = false;
  /** The answer came before the whole body was sent. */
  early = false;
  /** The answer is streamed to the client (large or of unknown length), not collected. */
  streaming = false;
  /** The upstream socket is paused until the client response drains. */
  paused = false;
  timer: NodeJS.Timeout | undefined;
  /** Body bytes received from the client (limit on streamed bodies). */
  received = 0;
  /** A collected request body, or a collected small answer body. */
  body: Buffer | undefined;
  bodyAt = 0;
  /** Content-Length of a small answer being collected. */
  expected = 0;
  readonly first: readonly (string | number)[];
  readonly headRequest: boolean;
  resolve!: () => void;
  reject!: (e: AppError) => void;

  constructor(
    readonly ex: Exchange,
    readonly pool: UpstreamPool,
    readonly name: string,
    readonly head: string,
    readonly mode: number,
    /** Upstream body framing: chunked. */
    readonly chunked: boolean,
    readonly headersTimeoutMs: number,
    readonly limit: number | undefined,
    readonly drain: DrainLimits,
  ) {
    this.first = ex.headers;
    this.headRequest = ex.req.method === 'HEAD';
  }

  begin(): void {
    const req = this.ex.req as WithFwd<IncomingMessage>;
    if (this.mode === BODY_NONE) {
      this.pool.acquire(this);
      return;
    }
    req[FWD] = this;
    req.on('close', onReqClose);
    if (this.mode === BODY_COLLECT) {
      this.body = Buffer.allocUnsafe(Number(req.headers['content-length']));
      req.on('data', onReqCollect);
      req.on('end', onReqCollected);
      return;
    }
    this.pool.acquire(this);
  }

  onConn(conn: Conn): void {
    this.conn = conn;
    const socket = conn.socket;
    if (this.mode === BODY_NONE) {
      socket.write(this.head, 'latin1');
      this.requestSent();
    } else if (this.mode === BODY_COLLECT) {
      // Head and body in one writev.
      socket.cork();
      socket.write(this.head, 'latin1');
      socket.write(this.body as Buffer);
      socket.uncork();
      this.body = undefined;
      this.requestSent();
    } else {
      socket.write(this.head, 'latin1');
      const req = this.ex.req;
      req.on('data', onReqData);
      req.on('end', onReqEnd);
    }
  }

  onDrain(): void {
    if (this.mode === BODY_STREAM && !this.sent && !this.early) this.ex.req.resume();
  }

  requestSent(): void {
    this.sent = true;
    if (!this.settled && this.headersTimeoutMs > 0) this.timer = setTimeout(onHeadersTimeout, this.headersTimeoutMs, this);
  }

  /** Fail before the answer started: 503/413/499 to the edge (or retry a stale bodiless request). */
  fail(error: AppError, retryable = false): void {
    if (this.settled) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const conn = this.conn;
    this.conn = undefined;
    conn?.destroy();
    if (retryable && this.mode === BODY_NONE && !this.retried) {
      this.retried = true;
      this.pool.acquire(this);
      return;
    }
    this.settled = true;
    this.pool.cancel(this);
    this.stopBody();
    this.finished = true;
    this.reject(error);
  }

  /** Stop reading the client's body for the service. */
  stopBody(): void {
    if (this.mode === BODY_NONE) return;
    const req = this.ex.req;
    req.removeListener('data', onReqData);
    req.removeListener('data', onReqCollect);
    req.removeListener('end', onReqEnd);
    req.removeListener('end', onReqCollected);
  }

  onError(reason: string, cause: Error | undefined, retryable: boolean): void {
    this.conn = undefined;
    if (!this.settled) {
      this.fail(unavailable(`${this.name}: ${reason}`, cause), retryable);
      return;
    }
    // Cut mid-answer: the client must not see it as complete.
    this.end(true);
  }

  onHead(head: ResponseHead, bodyless: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.settled = true;
    const ex = this.ex;
    const res = ex.res as WithFwd<ServerResponse>;
    if (!this.sent && this.mode === BODY_STREAM) {
      // The service answered before it had the whole body (an upload refused at once, its own
      // 413): relay the answer now; stop forwarding the body, and let the client finish sending
      // into a bounded drain (or close its connection), never leave it half-read.
      this.early = true;
      this.stopBody();
      answerEarly(ex.req, res, this.drain);
    }
    try {
      res.writeHead(head.status, head.headers as string[]);
    } catch (err) {
      // A header node refuses to write (never sent by our services).
      this.settled = false;
      this.fail(unavailable(`${this.name}: bad response header`, err));
      return;
    }
    if (bodyless) return;
    if (head.length >= 0 && head.length <= SMALL_BODY_BYTES) {
      this.expected = head.length;
      return;
    }
    this.streaming = true;
    res[FWD] = this;
    res.on('close', onResClose);
  }

  onBody(chunk: Buffer): void {
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
      chunk.copy(this.body, this.bodyAt);
      this.bodyAt += chunk.length;
      return;
    }
    const res = this.ex.res;
    if (res.destroyed) return;
    if (!res.write(chunk) && !this.paused) {
      this.paused = true;
      this.conn?.socket.pause();
      res.once('drain', onResDrain);
    }
  }

  onEnd(): void {
    const conn = this.conn;
    this.conn = undefined;
    if (conn !== undefined) {
      // A half-sent request leaves the connection unusable (the service would wait for the rest).
      if (this.sent && !this.early) conn.release();
      else conn.destroy();
    }
    this.end(false);
  }

  /** The answer is over (`cut`: incomplete). */
  end(cut: boolean): void {
    if (this.finished) return;
    this.finished = true;
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

function onHeadersTimeout(f: Forward): void {
  f.timer = undefined;
  f.fail(unavailable(`${f.name}: no response in ${f.headersTimeoutMs} ms`));
}
function onReqCollect(this: WithFwd<IncomingMessage>, chunk: Buffer): void {
  const f = this[FWD];
  const body = f.body as Buffer;
  chunk.copy(body, f.bodyAt);
  f.bodyAt += chunk.length;
}
function onReqCollected(this: WithFwd<IncomingMessage>): void {
  this[FWD].pool.acquire(this[FWD]);
}
function onReqData(this: WithFwd<IncomingMessage>, chunk: Buffer): void {
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
      f.conn?.destroy();
      this.socket.destroy();
    }
    return;
  }
  const socket = (f.conn as Conn).socket;
  let ok: boolean;
  if (f.chunked) {
    socket.cork();
    socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
    socket.write(chunk);
    ok = socket.write('\r\n', 'latin1');
    socket.uncork();
  } else ok = socket.write(chunk);
  if (!ok) this.pause();
}
function onReqEnd(this: WithFwd<IncomingMessage>): void {
  const f = this[FWD];
  if (f.chunked) f.conn?.socket.write('0\r\n\r\n', 'latin1');
  f.requestSent();
}
function onReqClose(this: WithFwd<IncomingMessage>): void {
  if (this.complete) return;
  const f = this[FWD];
  if (!f.settled) f.fail(clientClosed());
  else if (!f.finished) {
    // The client left mid-upload after the answer started: abort the upstream request.
    const conn = f.conn;
    f.conn = undefined;
    conn?.destroy();
    f.end(true);
  }
}
function onResClose(this: WithFwd<ServerResponse>): void {
  const f = this[FWD];
  if (f.finished) return;
  // The client left mid-answer: the rest of it is not wanted, the connection cannot be reused.
  const conn = f.conn;
  f.conn = undefined;
  conn?.destroy();
  f.end(true);
}
function onResDrain(this: WithFwd<ServerResponse>): void {
  const f = this[FWD];
  f.paused = false;
  f.conn?.socket.resume();
}

/** Forwards requests to services over pooled keep-alive connections (upstream.ts). */
export class UpstreamProxy {
  private readonly pools = new Map<Upstream, UpstreamPool>();

  constructor(private readonly opts: ProxyOptions) {}

  private pool(u: Upstream): UpstreamPool {
    let p = this.pools.get(u);
    if (p === undefined) {
      p = new UpstreamPool({
        host: u.hostname,
        port: u.port,
        connectTimeoutMs: this.opts.connectTimeoutMs,
        maxSockets: this.opts.maxSockets,
        maxFreeSockets: this.opts.maxFreeSockets,
      });
      this.pools.set(u, p);
    }
    return p;
  }

  /**
   * Forward one exchange to `upstream` and stream the answer back (written here, status and
   * headers in one `writeHead`). Rejects with AppError (503/413/499) before the answer starts;
   * never after (a failure then cuts the client's connection).
   */
  forward(ex: Exchange, upstream: Upstream, fo: ForwardOptions): Promise<void> {
    const req = ex.req;
    const h = req.headers;
    const method = req.method ?? 'GET';
    const withBody = hasRequestBody(h);
    const list = upstreamRequestHeaders(h, {
      requestId: ex.requestId,
      remoteAddress: req.socket.remoteAddress,
      proto: ex.proto,
      host: ex.host,
      trustProxy: this.opts.trustProxy,
      identityHeader: ex.identityHeader,
      upstreamHost: upstream.hostHeader ?? `${upstream.hostname}:${upstream.port}`,
      emptyBody: !withBody && !BODILESS_BY_DEFAULT.has(method),
    });
    const length = h['content-length'] === undefined ? -1 : Number(h['content-length']);
    const chunked = withBody && length === -1;
    const mode = !withBody ? BODY_NONE : length >= 0 && length <= SMALL_BODY_BYTES && !fo.upload ? BODY_COLLECT : BODY_STREAM;
    const f = new Forward(
      ex,
      this.pool(upstream),
      upstream.name,
      requestHead(method, req.url as string, list),
      mode,
      chunked,
      fo.upload ? 0 : this.opts.headersTimeoutMs,
      fo.bodyLimit,
      this.opts.drain ?? DEFAULT_DRAIN_LIMITS,
    );
    return new Promise<void>((resolve, reject) => {
      f.resolve = resolve;
      f.reject = reject;
      f.begin();
    });
  }

  /** Open connections to a service (tests). */
  connections(u: Upstream): number {
    return this.pools.get(u)?.size ?? 0;
  }

  /** Close every connection. */
  close(): void {
    for (const p of this.pools.values()) p.close();
  }
}
