/**
 * Time bounds of a service's HTTP server, so that slow clients cannot hold its connections (and,
 * behind the gateway, its upstream pool): `createBoundedServer(handler, bounds)`.
 *
 * - headers: the whole head must arrive within `headersTimeoutMs` (node's `headersTimeout`);
 * - body: while the service waits for body bytes, none for `bodyIdleTimeoutMs`, or fewer than
 *   `bodyMinBytesPerSecond` over a window of `bodyRateWindowMs`, cuts the request (a body trickling
 *   a byte every 5 s is cut after one window). A rate rule, not a total time: a 1 GiB upload at any
 *   ordinary rate passes. Time the service itself is not reading (its buffer full: a handler still
 *   checking permissions, storage applying backpressure) is not counted against the client;
 * - the whole request: `requestTimeoutMs` (node's `requestTimeout`, 0 = none), a last resort set
 *   long enough for the largest upload at a modest rate;
 * - idle keep-alive connections close after `keepAliveTimeoutMs` (above the gateway pool's idle
 *   time, so the gateway never sends on a connection the service is closing).
 *
 * A cut answers 408 with InvenioRDM's JSON error body and `Connection: close` when the answer has
 * not started, and closes the connection in every case. Node's own answers to a broken or timed-out
 * request head (400, 408, 413, 431) get the same JSON body.
 *
 * Early answers (issue 19, item 1): a handler that answers before it read the whole body (an upload
 * refused at once with 403/404/415, a JSON body over its limit, a storage refusal mid-body) gets
 * the rest of the body read and discarded, bounded by `drainMaxBytes` and `drainTimeoutMs`, before
 * the connection is closed or reused. Closing while the peer still sends makes the kernel answer
 * its bytes with a reset, and a reset can destroy the answer before the peer reads it: behind the
 * gateway, undici then failed its write (EPIPE/ECONNRESET) before it parsed the answer, and the
 * client got a 503 instead of the service's refusal. A declared body larger than `drainMaxBytes`
 * gets `Connection: close`; the socket then lingers half-closed, still discarding, until the body
 * ends, the peer closes or a bound runs out. Node's own handling was unbounded (it reads an unread
 * body to its end, however large) or a close mid-body (`Connection: close`).
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The bounds (milliseconds, bytes per second); 0 turns a body rule or the request timeout off. */
export interface HttpServerBounds {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  bodyMinBytesPerSecond: number;
  bodyRateWindowMs: number;
  /** How often bodies in flight are checked (default: a tenth of the shortest body bound, 100 ms to 1 s). */
  checkIntervalMs?: number;
  /** Most bytes of an unread body discarded after an early answer (default DEFAULT_DRAIN.maxBytes). */
  drainMaxBytes?: number;
  /** Longest time spent discarding an unread body after an early answer (default DEFAULT_DRAIN.timeoutMs). */
  drainTimeoutMs?: number;
}

/**
 * Bounds on discarding an unread body after an early answer: the gateway's own (EARLY_ANSWER_DRAIN_*
 * defaults), enough for the usual refused upload, small next to a real one.
 */
export const DEFAULT_DRAIN = { maxBytes: 64 * 1024 * 1024, timeoutMs: 15_000 } as const;

/** The defaults of the base configuration (`HTTP_*` variables). */
export const DEFAULT_HTTP_SERVER_BOUNDS: HttpServerBounds = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 3_600_000,
  keepAliveTimeoutMs: 65_000,
  // Why more lenient than the gateway's (idle 20 s, 500 bytes/s over 20 s): a body the gateway
  // forwards arrives at the client's pace, so the gateway's refusal is the one clients see; these
  // hold for whatever reaches a service otherwise.
  bodyIdleTimeoutMs: 30_000,
  bodyMinBytesPerSecond: 256,
  bodyRateWindowMs: 20_000,
};

/** The bounds from a configuration holding the `HTTP_*` keys (defaults for absent ones). */
export function httpServerBounds(c: Partial<Record<HttpBoundsKey, number>>): HttpServerBounds {
  const d = DEFAULT_HTTP_SERVER_BOUNDS;
  return {
    headersTimeoutMs: c.HTTP_HEADERS_TIMEOUT_MS ?? d.headersTimeoutMs,
    requestTimeoutMs: c.HTTP_REQUEST_TIMEOUT_MS ?? d.requestTimeoutMs,
    keepAliveTimeoutMs: c.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? d.keepAliveTimeoutMs,
    bodyIdleTimeoutMs: c.HTTP_BODY_IDLE_TIMEOUT_MS ?? d.bodyIdleTimeoutMs,
    bodyMinBytesPerSecond: c.HTTP_BODY_MIN_BYTES_PER_SECOND ?? d.bodyMinBytesPerSecond,
    bodyRateWindowMs: c.HTTP_BODY_RATE_WINDOW_MS ?? d.bodyRateWindowMs,
  };
}

/** The configuration keys of the bounds. */
export type HttpBoundsKey =
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_REQUEST_TIMEOUT_MS'
  | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'
  | 'HTTP_BODY_IDLE_TIMEOUT_MS'
  | 'HTTP_BODY_MIN_BYTES_PER_SECOND'
  | 'HTTP_BODY_RATE_WINDOW_MS';

/** Message of a request cut for a body that came too slowly. */
export const BODY_TIMEOUT_MESSAGE = 'Request timeout: the request body was not received in time.';

/** An HTTP server running `handler` within `bounds` (not listening yet). */
export function createBoundedServer(handler: RequestListener, bounds: HttpServerBounds): Server {
  const checks = [bounds.headersTimeoutMs, bounds.requestTimeoutMs].filter((t) => t > 0);
  const drain: Drain = {
    maxBytes: bounds.drainMaxBytes ?? DEFAULT_DRAIN.maxBytes,
    timeoutMs: bounds.drainTimeoutMs ?? DEFAULT_DRAIN.timeoutMs,
  };
  const server = createServer(
    {
      // Why: node checks these timeouts every 30 s by default, so a 20 s bound would be 20-50 s.
      connectionsCheckingInterval: Math.max(250, Math.min(1000, ...checks.map((t) => Math.floor(t / 4)))),
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
    },
    // Why before the handler: a handler may answer synchronously.
    (req: IncomingMessage, res: ServerResponse) => {
      if (hasBody(req) && !req.complete) guardEarlyAnswer(req as Guarded, res as GuardedRes, drain);
      handler(req, res);
    },
  );
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  watchBodies(server, bounds);
  return server;
}

/** Bounds of one drain. */
interface Drain {
  maxBytes: number;
  timeoutMs: number;
}

const EARLY = Symbol('http-bounds.early');

/** State of an early answer, reached from listeners through a symbol. */
interface EarlyState {
  req: IncomingMessage;
  socket: Socket;
  drain: Drain;
  read: number;
  /** The answer said `Connection: close`: the socket lingers until the body ends. */
  lingering: boolean;
  timer?: NodeJS.Timeout;
}
type Guarded = IncomingMessage & { [EARLY]?: EarlyState };
type GuardedRes = ServerResponse & { [EARLY]?: EarlyState };

/**
 * Watch for an answer whose head goes out before the request body arrived: then `Connection:
 * close` when the declared body exceeds the drain bound, and once the answer is written, the
 * rest of the body discarded within bounds (drainUnread).
 */
function guardEarlyAnswer(req: Guarded, res: GuardedRes, drain: Drain): void {
  const writeHead = res.writeHead;
  // Why an own property over writeHead: node calls it for every answer (koa's too, implicitly),
  // and it is the last moment a `Connection` header can be set.
  res.writeHead = function earlyWriteHead(this: GuardedRes, ...args: unknown[]) {
    res.writeHead = writeHead;
    if (!req.complete && !req.socket.destroyed) {
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > drain.maxBytes) this.setHeader('Connection', 'close');
      this[EARLY] = { req, socket: req.socket, drain, read: 0, lingering: false };
      // Why 'finish' (registered after node's own): node has dumped or left the body by then, and
      // queued the close of a `Connection: close` answer, which drainUnread replaces.
      this.once('finish', drainUnread);
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** The answer is written: discard the rest of the body within bounds, then close or reuse the connection. */
function drainUnread(this: GuardedRes): void {
  const d = this[EARLY] as EarlyState;
  const { req, socket } = d;
  if (req.complete || socket.destroyed) return;
  (req as Guarded)[EARLY] = d;
  if (socket.writableEnded) {
    // A `Connection: close` answer: node's destroySoon() (from its own 'finish' listener, just
    // before) ended the socket and queued `destroy` for its 'finish'; a close with body bytes
    // unread would be a reset.
    socket.removeListener('finish', socket.destroy);
    d.lingering = true;
    socket.once('end', destroyOnEnd);
  }
  d.timer = setTimeout(destroySocket, d.drain.timeoutMs, socket);
  d.timer.unref();
  // The handler may have stopped reading mid-body (a storage refusal): its listeners are left as
  // they are, the body flows into the count here.
  req.on('data', onDrainData);
  req.once('end', onDrainEnd);
  req.once('close', onDrainClose);
  req.resume();
}

function onDrainData(this: Guarded, chunk: Buffer): void {
  const d = this[EARLY] as EarlyState;
  d.read += chunk.length;
  if (d.read > d.drain.maxBytes) d.socket.destroy();
}
function onDrainEnd(this: Guarded): void {
  const d = this[EARLY] as EarlyState;
  clearTimeout(d.timer);
  // Every byte the peer sent is read: closing now is clean (no reset).
  if (d.lingering) d.socket.destroy();
}
function onDrainClose(this: Guarded): void {
  clearTimeout((this[EARLY] as EarlyState).timer);
}
function destroySocket(socket: Socket): void {
  socket.destroy();
}
function destroyOnEnd(this: Socket): void {
  this.destroy();
}

/** One request whose body has not fully arrived. */
interface BodyWatch {
  req: IncomingMessage;
  res: ServerResponse;
  socket: Socket;
  /** When the counters were last advanced. */
  at: number;
  lastBytes: number;
  idleMs: number;
  windowMs: number;
  windowBytes: number;
}

function watchBodies(server: Server, b: HttpServerBounds): void {
  if (b.bodyIdleTimeoutMs <= 0 && (b.bodyMinBytesPerSecond <= 0 || b.bodyRateWindowMs <= 0)) return;
  const bounds = [b.bodyIdleTimeoutMs, b.bodyMinBytesPerSecond > 0 ? b.bodyRateWindowMs : 0].filter((t) => t > 0);
  const every = b.checkIntervalMs ?? Math.max(100, Math.min(1000, Math.floor(Math.min(...bounds) / 10)));
  const watches = new Set<BodyWatch>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete || !hasBody(req)) return;
    watches.add({ req, res, socket: req.socket, at: Date.now(), lastBytes: req.socket.bytesRead, idleMs: 0, windowMs: 0, windowBytes: 0 });
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const w of watches) {
      const dt = now - w.at;
      w.at = now;
      if (w.req.complete || w.socket.destroyed) {
        watches.delete(w);
        continue;
      }
      const bytes = w.socket.bytesRead;
      const got = bytes - w.lastBytes;
      w.lastBytes = bytes;
      // Why: with its buffer full the service is the slow side (socket reads are paused); not the client's time.
      if (w.req.readableLength >= w.req.readableHighWaterMark) continue;
      w.idleMs = got > 0 ? 0 : w.idleMs + dt;
      w.windowMs += dt;
      w.windowBytes += got;
      let slow = b.bodyIdleTimeoutMs > 0 && w.idleMs >= b.bodyIdleTimeoutMs;
      if (b.bodyMinBytesPerSecond > 0 && b.bodyRateWindowMs > 0 && w.windowMs >= b.bodyRateWindowMs) {
        slow ||= w.windowBytes < (b.bodyMinBytesPerSecond * w.windowMs) / 1000;
        w.windowMs = 0;
        w.windowBytes = 0;
      }
      if (slow) {
        watches.delete(w);
        cut(w);
      }
    }
  }, every);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}

/** True when the request announces a body (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** 408 (when the answer has not started) and close the connection. */
function cut(w: BodyWatch): void {
  const { res, socket } = w;
  if (res.headersSent || res.writableEnded) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ status: 408, message: BODY_TIMEOUT_MESSAGE });
  res.writeHead(408, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body, () => socket.destroy());
  // The handler reading the body sees it fail once the socket closes; its answer is dropped (the 408 went first).
  // Why a deadline: a client that does not read its answer must not keep the socket either.
  setTimeout(() => socket.destroy(), 1000).unref();
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request timeout: the request was not received in time.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request header fields too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'Request chunk extensions too large.'],
};

/**
 * Node's answer to a request it could not parse or did not receive in time (its default, with
 * InvenioRDM's JSON body instead of an empty one): only while no answer has started, then close.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  const message = socket as Socket & { _httpMessage?: ServerResponse | null };
  if (socket.writable && !message._httpMessage?.headersSent) {
    const [status, reason, text] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'Bad request.'];
    const body = JSON.stringify({ status, message: text });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
