/**
 * The gateway's HTTP/1.1 client to the services: pooled keep-alive TCP connections and an
 * incremental response parser, written for the one thing the proxy does (forward a request, relay
 * the answer) instead of node's `http.request`, `Agent` and `IncomingMessage`.
 *
 * Why: with node's client every proxied request built a ClientRequest, an IncomingMessage stream,
 * went through the Agent's bookkeeping and registered a handful of listeners; that was a third of
 * the gateway's CPU next to the two loopback writes a proxy cannot avoid. Here a connection keeps
 * its listeners for its whole life, the request head is one latin1 string written once (with a
 * small body, one `writev`), and the answer is parsed from the socket's own buffers: the head as
 * one latin1 slice, bodies passed on as sub-buffers (no copy), chunked bodies decoded in place.
 *
 * What it speaks: `Content-Length`, `Transfer-Encoding: chunked` (trailers dropped) and
 * close-delimited bodies; no body for HEAD, 204, 304; informational answers (1xx) skipped; a
 * `Connection: close` answer or an HTTP/1.0 one without keep-alive ends the connection. Anything
 * else malformed ends the connection and fails the request (503 before the answer started).
 *
 * Pool: per service, LIFO idle connections (the warmest first), at most `maxSockets` open (further
 * requests wait in order), at most `maxFreeSockets` idle. A connection the service closes while
 * idle leaves the pool at once; one that fails before any byte of an answer after serving earlier
 * requests is reported retryable (stale keep-alive), as node's agent does.
 */
import net, { type Socket } from 'node:net';

/** Hop-by-hop headers (RFC 9110 §7.6.1, and the legacy ones): never passed on, either way. */
export const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
] as const;

/** Response headers never copied back to the client (hop-by-hop, or set by the gateway). */
const DROP_RESPONSE = new Set<string>([...HOP_BY_HOP, 'x-request-id']);

/** A parsed final response head. */
export interface ResponseHead {
  status: number;
  /** The client response's headers as one flat list: the gateway's (`first`), then the service's end-to-end ones (names lowercased). */
  headers: (string | number)[];
  /** Content-Length (-1 when absent or when the body is chunked). */
  length: number;
  chunked: boolean;
  /** The service keeps the connection after this answer. */
  keepAlive: boolean;
}

/** A response the service sent that cannot be relayed. */
export class BadResponse extends Error {}

const HTTP_VERSION = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/;
const DIGITS = /^\d{1,15}$/;

/**
 * Parse a response head (`text`: status line and header lines, latin1, without the blank line).
 * Throws BadResponse. Exported for unit tests.
 */
export function parseResponseHead(text: string, first: readonly (string | number)[]): ResponseHead {
  const m = HTTP_VERSION.exec(text);
  if (m === null) throw new BadResponse('bad status line');
  const status = Number(m[2]);
  let keepAlive = m[1] === '1';
  const headers = first.slice();
  let length = -1;
  let chunked = false;
  let te = false;
  let extra: string[] | undefined;
  let at = text.indexOf('\r\n');
  while (at !== -1) {
    const start = at + 2;
    let end = text.indexOf('\r\n', start);
    at = end;
    if (end === -1) end = text.length;
    const colon = text.indexOf(':', start);
    // No colon, an empty name, or an obsolete line folding (a line starting with white space).
    if (colon === -1 || colon >= end || colon === start || text.charCodeAt(start) <= 32) throw new BadResponse('bad header line');
    const name = text.slice(start, colon).toLowerCase();
    const value = text.slice(colon + 1, end).trim();
    if (name === 'content-length') {
      if (!DIGITS.test(value) || (length !== -1 && length !== Number(value))) throw new BadResponse('bad content-length');
      if (length === -1) headers.push(name, value);
      length = Number(value);
    } else if (name === 'transfer-encoding') {
      te = true;
      chunked = value.toLowerCase().endsWith('chunked');
    } else if (name === 'connection') {
      for (const raw of value.split(',')) {
        const t = raw.trim().toLowerCase();
        if (t === 'close') keepAlive = false;
        else if (t === 'keep-alive') keepAlive = keepAlive || m[1] === '0';
        else if (t !== '') {
          extra ??= [];
          extra.push(t);
        }
      }
    } else if (!DROP_RESPONSE.has(name)) headers.push(name, value);
  }
  if (te) {
    // RFC 9112 §6.3: Transfer-Encoding wins over Content-Length; without chunked last, the body
    // runs to the end of the connection.
    if (length !== -1) extra = [...(extra ?? []), 'content-length'];
    length = -1;
    if (!chunked) keepAlive = false;
  }
  if (extra !== undefined) {
    // Headers named by Connection are hop-by-hop too.
    for (let i = headers.length - 2; i >= first.length; i -= 2) if (extra.includes(headers[i] as string)) headers.splice(i, 2);
  }
  return { status, headers, length, chunked, keepAlive };
}

/** What a connection reports to the request it serves (proxy.ts `Forward`). */
export interface Sink {
  /** The gateway's response headers, put first in `ResponseHead.headers`. */
  readonly first: readonly (string | number)[];
  /** The request was HEAD: the answer has no body whatever its headers say. */
  readonly headRequest: boolean;
  /** The connection is this request's: send it. */
  onConn(conn: Conn): void;
  /** The final response head. Body bytes follow unless `bodyless`. */
  onHead(head: ResponseHead, bodyless: boolean): void;
  /** Body bytes (a view of the socket's buffer, valid as long as the caller keeps it). */
  onBody(chunk: Buffer): void;
  /** The answer is complete; the sink calls `conn.release` or `conn.destroy`. */
  onEnd(): void;
  /** The connection failed or closed before the answer was complete. */
  onError(reason: string, cause: Error | undefined, retryable: boolean): void;
  /** The socket's write buffer drained (request body back-pressure). */
  onDrain(): void;
}

/** Largest response head accepted. */
const MAX_HEAD = 64 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

// Parser states.
const HEAD = 0;
const LENGTH = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_CRLF = 4;
const TRAILERS = 5;
const UNTIL_CLOSE = 6;
const IDLE = 7;

const CONN = Symbol('gateway.conn');
type WithConn = Socket & { [CONN]: Conn };

/** One keep-alive connection to a service. */
export class Conn {
  readonly socket: WithConn;
  sink: Sink | undefined;
  /** Answers completed on this connection (a failure after some may be a stale keep-alive). */
  served = 0;
  dead = false;
  /** Bytes of the current answer received (none: a stale connection may be retried). */
  got = 0;
  private state = IDLE;
  private remaining = 0;
  private keepAlive = true;
  /** An incomplete head or chunk-size/trailer line. */
  private pending: Buffer | undefined;
  private error: Error | undefined;
  private connectTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly pool: UpstreamPool,
    sink: Sink,
  ) {
    const s = net.connect({ host: pool.host, port: pool.port, noDelay: true }) as WithConn;
    this.socket = s;
    s[CONN] = this;
    s.on('data', onData);
    s.on('error', onError);
    s.on('close', onClose);
    s.on('drain', onDrain);
    s.once('connect', onConnect);
    this.connectTimer = setTimeout(onConnectTimeout, pool.connectTimeoutMs, this);
    this.attach(sink);
  }

  /** Serve `sink` (a new request) on this connection. */
  attach(sink: Sink): void {
    this.sink = sink;
    this.state = HEAD;
    this.got = 0;
    sink.onConn(this);
  }

  /** The answer is complete and the connection clean: back to the pool. */
  release(): void {
    this.sink = undefined;
    this.served++;
    if (this.dead || !this.keepAlive || this.state !== IDLE) this.destroy();
    else {
      // Paused for the client's back-pressure when the answer ended: the next one must be read.
      if (this.socket.isPaused()) this.socket.resume();
      this.pool.release(this);
    }
  }

  destroy(): void {
    this.sink = undefined;
    this.socket.destroy();
  }

  /** Bytes from the service. */
  read(buf: Buffer): void {
    let at = 0;
    const len = buf.length;
    while (at < len) {
      const sink = this.sink;
      if (sink === undefined) {
        // Bytes nobody asked for (after a complete answer): the connection cannot be trusted.
        this.destroy();
        return;
      }
      switch (this.state) {
        case HEAD: {
          if (this.pending !== undefined) {
            const joined = Buffer.concat([this.pending, buf.subarray(at)]);
            this.pending = undefined;
            this.read(joined);
            return;
          }
          const end = buf.indexOf(CRLFCRLF, at);
          if (end === -1) {
            if (len - at > MAX_HEAD) {
              this.fail('response head too large');
              return;
            }
            this.pending = buf.subarray(at);
            return;
          }
          let head: ResponseHead;
          try {
            head = parseResponseHead(buf.toString('latin1', at, end), sink.first);
          } catch (err) {
            this.fail((err as Error).message);
            return;
          }
          at = end + 4;
          if (head.status < 200) {
            // 101 would switch protocols: never asked for (Upgrade is not forwarded).
            if (head.status === 101) {
              this.fail('unexpected 101');
              return;
            }
            continue;
          }
          this.keepAlive = head.keepAlive;
          const bodyless = sink.headRequest || head.status === 204 || head.status === 304 || head.length === 0;
          if (bodyless) this.state = IDLE;
          else if (head.chunked) this.state = CHUNK_SIZE;
          else if (head.length > 0) {
            this.state = LENGTH;
            this.remaining = head.length;
          } else {
            this.state = UNTIL_CLOSE;
            this.keepAlive = false;
          }
          sink.onHead(head, bodyless);
          if (bodyless) this.complete(at < len);
          break;
        }
        case LENGTH:
        case CHUNK_DATA: {
          const n = Math.min(this.remaining, len - at);
          this.remaining -= n;
          const chunk = at === 0 && n === len ? buf : buf.subarray(at, at + n);
          at += n;
          if (this.remaining > 0) {
            sink.onBody(chunk);
          } else if (this.state === LENGTH) {
            this.state = IDLE;
            sink.onBody(chunk);
            this.complete(at < len);
          } else {
            this.state = CHUNK_CRLF;
            this.remaining = 2;
            sink.onBody(chunk);
          }
          break;
        }
        case CHUNK_CRLF: {
          const n = Math.min(this.remaining, len - at);
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = CHUNK_SIZE;
          break;
        }
        case CHUNK_SIZE:
        case TRAILERS: {
          if (this.pending !== undefined) {
            const joined = Buffer.concat([this.pending, buf.subarray(at)]);
            this.pending = undefined;
            this.read(joined);
            return;
          }
          const eol = buf.indexOf(10, at);
          if (eol === -1) {
            if (len - at > 4096) {
              this.fail('chunk line too long');
              return;
            }
            this.pending = buf.subarray(at);
            return;
          }
          const line = buf.toString('latin1', at, eol > at && buf[eol - 1] === 13 ? eol - 1 : eol);
          at = eol + 1;
          if (this.state === TRAILERS) {
            if (line === '') {
              this.state = IDLE;
              this.complete(at < len);
            }
            break;
          }
          const semi = line.indexOf(';');
          const hex = (semi === -1 ? line : line.slice(0, semi)).trim();
          const size = hex.length > 0 && hex.length <= 12 ? Number.parseInt(hex, 16) : Number.NaN;
          if (!Number.isInteger(size) || size < 0 || !/^[0-9a-fA-F]+$/.test(hex)) {
            this.fail('bad chunk size');
            return;
          }
          if (size === 0) this.state = TRAILERS;
          else {
            this.state = CHUNK_DATA;
            this.remaining = size;
          }
          break;
        }
        case UNTIL_CLOSE: {
          sink.onBody(at === 0 ? buf : buf.subarray(at));
          return;
        }
        default:
          this.destroy();
          return;
      }
    }
  }

  /** The answer ended; `extra`: bytes followed it (nobody asked for them). */
  private complete(extra: boolean): void {
    if (extra) this.keepAlive = false;
    const sink = this.sink;
    if (sink === undefined) this.destroy();
    else sink.onEnd();
  }

  private fail(reason: string): void {
    const sink = this.sink;
    this.destroy();
    sink?.onError(`bad response: ${reason}`, undefined, false);
  }

  /** The socket is gone. */
  closed(): void {
    this.dead = true;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = undefined;
    this.pool.gone(this);
    const sink = this.sink;
    this.sink = undefined;
    if (sink === undefined) return;
    if (this.state === UNTIL_CLOSE && this.error === undefined) {
      this.state = IDLE;
      sink.onEnd();
      return;
    }
    const code = (this.error as NodeJS.ErrnoException | undefined)?.code;
    // A reused connection that fails before any byte of the answer: the service closed it while
    // it was idle (keep-alive race), the request never reached a handler.
    const stale = this.served > 0 && this.got === 0 && (code === undefined || code === 'ECONNRESET' || code === 'EPIPE');
    sink.onError(code ?? this.error?.message ?? 'connection closed', this.error, stale);
  }

  connected(): void {
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = undefined;
    this.socket.setKeepAlive(true, 1000);
  }

  connectTimedOut(): void {
    this.connectTimer = undefined;
    const sink = this.sink;
    this.destroy();
    sink?.onError('connect timeout', undefined, false);
  }

  failed(err: Error): void {
    this.error = err;
  }
}

function onData(this: WithConn, buf: Buffer): void {
  const c = this[CONN];
  c.got += buf.length;
  c.read(buf);
}
function onError(this: WithConn, err: Error): void {
  this[CONN].failed(err);
}
function onClose(this: WithConn): void {
  this[CONN].closed();
}
function onDrain(this: WithConn): void {
  this[CONN].sink?.onDrain();
}
function onConnect(this: WithConn): void {
  this[CONN].connected();
}
function onConnectTimeout(c: Conn): void {
  c.connectTimedOut();
}

/** Options of one service's pool. */
export interface PoolOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  maxSockets: number;
  maxFreeSockets: number;
}

/** The connections to one service. */
export class UpstreamPool {
  readonly host: string;
  readonly port: number;
  readonly connectTimeoutMs: number;
  private readonly idle: Conn[] = [];
  private readonly waiting: Sink[] = [];
  private readonly all = new Set<Conn>();
  private closed = false;

  constructor(private readonly o: PoolOptions) {
    this.host = o.host;
    this.port = o.port;
    this.connectTimeoutMs = o.connectTimeoutMs;
  }

  /** Give `sink` a connection now (an idle one, else a new one) or when one is free. */
  acquire(sink: Sink): void {
    if (this.closed) {
      sink.onError('gateway closing', undefined, false);
      return;
    }
    const c = this.idle.pop();
    if (c !== undefined) {
      c.attach(sink);
      return;
    }
    if (this.all.size < this.o.maxSockets) {
      this.all.add(new Conn(this, sink));
      return;
    }
    this.waiting.push(sink);
  }

  /** Forget a waiting request (its client left, or it failed). */
  cancel(sink: Sink): void {
    const i = this.waiting.indexOf(sink);
    if (i !== -1) this.waiting.splice(i, 1);
  }

  /** A connection is free again. */
  release(c: Conn): void {
    const next = this.waiting.shift();
    if (next !== undefined) c.attach(next);
    else if (this.idle.length < this.o.maxFreeSockets && !this.closed) this.idle.push(c);
    else c.destroy();
  }

  /** A connection closed. */
  gone(c: Conn): void {
    if (!this.all.delete(c)) return;
    const i = this.idle.lastIndexOf(c);
    if (i !== -1) this.idle.splice(i, 1);
    const next = this.closed ? undefined : this.waiting.shift();
    if (next !== undefined) this.all.add(new Conn(this, next));
  }

  /** Connections open (idle or busy). */
  get size(): number {
    return this.all.size;
  }

  /** Close every connection; waiting requests fail. */
  close(): void {
    this.closed = true;
    for (const s of this.waiting.splice(0)) s.onError('gateway closing', undefined, false);
    for (const c of [...this.all]) c.destroy();
    this.idle.length = 0;
  }
}
