/**
 * The reverse proxy: forwards one koa request to a service with node's `http` over a keep-alive
 * agent, streaming both bodies (nothing is buffered: a 1 GiB upload passes chunk by chunk, with
 * back-pressure).
 *
 * Headers: hop-by-hop headers are dropped both ways; a client's `x-rdm-identity` is always
 * dropped (only the gateway signs identities); the gateway adds `x-request-id`,
 * `x-forwarded-for/proto/host`, W3C `traceparent` and, for authenticated callers, the signed
 * identity. Failures before the service answers are bounded: connection refused → 503 at once,
 * connect timeout (2 s) → 503, no response headers within the route's timeout → 503. A request
 * without a body that hits a stale keep-alive socket is retried once. A service answering before
 * it read the whole body (an upload refused at once, its own 413) is relayed at once; the rest of
 * the client's body is discarded within bounds or the connection closed (early-answer.ts), and
 * the half-sent upstream request is dropped.
 *
 * Why one file over 400 lines: the gateway's one hot path, kept in one file so that a request can
 * be followed from the client's socket to the service's and back; early answers (early-answer.ts)
 * and routing (route-matcher.ts) are apart.
 */
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, Errors, IDENTITY_HEADER, injectTraceHeaders, isTelemetryEnabled } from '@rdm/platform';
import { DEFAULT_DRAIN_LIMITS, type DrainLimits, answerEarly } from './early-answer.js';

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
const DROP_REQUEST = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
  IDENTITY_HEADER,
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);

/** Response headers never copied back (hop-by-hop, or set by the gateway). */
const DROP_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'x-request-id',
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
  // Why keep chunked framing explicitly: node only chunks a body of its own accord for some
  // methods; an explicit header makes it frame a streamed body of any method correctly.
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

/**
 * The client response's headers: the gateway's (`first`) then the service's minus hop-by-hop
 * ones, as one flat list for `writeHead`. Exported for unit tests.
 */
export function responseHeaders(from: IncomingHttpHeaders, first: readonly (string | number)[]): (string | number | string[])[] {
  const out: (string | number | string[])[] = first.slice();
  const extra = connectionTokens(from.connection);
  for (const name in from) {
    if (DROP_RESPONSE.has(name)) continue;
    if (extra.length > 0 && extra.includes(name)) continue;
    const v = from[name];
    if (v !== undefined) out.push(name, v);
  }
  return out;
}

/** True when a request carries a body (Content-Length > 0 or Transfer-Encoding). */
export function hasRequestBody(h: IncomingHttpHeaders): boolean {
  if (h['transfer-encoding'] !== undefined) return true;
  const len = h['content-length'];
  return len !== undefined && len !== '0';
}

const unavailable = (reason: string, cause?: unknown): AppError => {
  const e = Errors.serviceUnavailable();
  (e as { reason?: string }).reason = reason;
  if (cause !== undefined) (e as { cause?: unknown }).cause = cause;
  return e;
};

/** Rendered when the client went away mid-request (nobody reads it; the log does). */
const clientClosed = () => new AppError('client_closed_request', 499, 'Client closed request.');

interface Attempt {
  res?: IncomingMessage;
  /** The request that got `res`. */
  upReq?: ClientRequest;
  error?: AppError;
  /** A stale keep-alive socket failed before any byte of answer: safe to retry a bodiless request. */
  retryable?: boolean;
}

/** Bodies up to this size with a known length are collected and written in one go. */
export const SMALL_BODY_BYTES = 64 * 1024;

// Hot-path note: listeners below are module-level functions that find their state through a
// symbol on the emitter, and timers get their state as an argument. Per-request closures are
// avoided on purpose: under tsx every closure also costs a `__name` property definition. Events
// a per-request emitter fires once ('response', 'socket', 'finish', 'end', 'close') are listened
// to with `on`: `once` would allocate a wrapper per listener and request.
const CALL = Symbol('gateway.call');
const RELAY = Symbol('gateway.relay');

type WithCall<T> = T & { [CALL]: Call };
type WithRelay<T> = T & { [RELAY]: Relay };

/** One attempt to get a service's response headers. */
class Call {
  settled = false;
  timer: NodeJS.Timeout | undefined;
  connectTimer: NodeJS.Timeout | undefined;
  received = 0;
  upReq!: WithCall<ClientRequest>;

  constructor(
    readonly ex: Exchange,
    readonly upstream: Upstream,
    readonly headersTimeoutMs: number,
    readonly connectTimeoutMs: number,
    readonly limit: number | undefined,
    readonly drain: DrainLimits,
    readonly resolve: (a: Attempt) => void,
  ) {}

  finish(a: Attempt): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.resolve(a);
  }

  fail(error: AppError, retryable = false): void {
    if (this.settled) return;
    this.finish({ error, retryable });
    this.upReq.destroy();
  }

  startHeadersTimer(): void {
    if (this.headersTimeoutMs > 0 && !this.settled) this.timer = setTimeout(onHeadersTimeout, this.headersTimeoutMs, this);
  }
}

function onHeadersTimeout(call: Call): void {
  call.fail(unavailable(`${call.upstream.name}: no response in ${call.headersTimeoutMs} ms`));
}
function onConnectTimeout(call: Call): void {
  call.fail(unavailable(`${call.upstream.name}: connect timeout`));
}
function onUpResponse(this: WithCall<ClientRequest>, res: IncomingMessage): void {
  this[CALL].finish({ res, upReq: this });
}
function onUpError(this: WithCall<ClientRequest>, err: NodeJS.ErrnoException): void {
  const call = this[CALL];
  if (call.settled) return;
  const req = call.ex.req;
  if (!req.complete && req.destroyed) {
    call.fail(clientClosed());
    return;
  }
  const stale = this.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
  call.fail(unavailable(`${call.upstream.name}: ${err.code ?? err.message}`, err), stale);
}
function onUpSocket(this: WithCall<ClientRequest>, sock: WithCall<Socket>): void {
  const call = this[CALL];
  if (!sock.connecting) return;
  if (call.headersTimeoutMs > 0 && call.headersTimeoutMs <= call.connectTimeoutMs) return;
  call.connectTimer = setTimeout(onConnectTimeout, call.connectTimeoutMs, call);
  sock[CALL] = call;
  sock.once('connect', onSocketConnect);
}
function onSocketConnect(this: WithCall<Socket>): void {
  const call = this[CALL];
  if (call.connectTimer) clearTimeout(call.connectTimer);
  call.connectTimer = undefined;
}
function onUpFinish(this: WithCall<ClientRequest>): void {
  // Why after 'finish': the timeout bounds the service's answer, not the client's upload speed.
  this[CALL].startHeadersTimer();
}
function onClientData(this: WithCall<IncomingMessage>, chunk: Buffer): void {
  const call = this[CALL];
  call.received += chunk.length;
  if (call.received <= (call.limit as number)) return;
  this.unpipe(call.upReq);
  this.removeListener('data', onClientData);
  if (!call.settled) {
    // Over the limit: the rest is not wanted, by the service or here.
    answerEarly(this, call.ex.res, call.drain, { close: true });
    call.fail(Errors.payloadTooLarge());
  } else {
    // The service already answered; stop both sides.
    call.upReq.destroy();
    this.socket.destroy();
  }
}
function onClientClose(this: WithCall<IncomingMessage>): void {
  if (this.complete) return;
  const call = this[CALL];
  if (!call.settled) call.fail(clientClosed());
  else call.upReq.destroy();
}

/** Copying of one response body. */
class Relay {
  finished = false;
  chunks: Buffer[] | undefined;
  constructor(
    readonly upRes: WithRelay<IncomingMessage>,
    readonly res: WithRelay<ServerResponse>,
    readonly resolve: () => void,
  ) {}
  done(): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve();
  }
}

function onUpResClose(this: WithRelay<IncomingMessage>): void {
  // A response cut mid-body must not look complete to the client.
  const res = this[RELAY].res;
  if (!this.complete && !res.destroyed) res.destroy();
}
function ignore(): void {}
function onResClose(this: WithRelay<ServerResponse>): void {
  const r = this[RELAY];
  if (!r.upRes.complete) r.upRes.destroy();
  r.done();
}
function onUpResData(this: WithRelay<IncomingMessage>, c: Buffer): void {
  (this[RELAY].chunks as Buffer[]).push(c);
}
function onUpResEnd(this: WithRelay<IncomingMessage>): void {
  const r = this[RELAY];
  if (r.res.destroyed) {
    r.done();
    return;
  }
  const chunks = r.chunks as Buffer[];
  r.res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/**
 * Stream a service's response body to the client, resolving when done (or cut).
 *
 * Why not stream.pipeline: it allocates an AbortController per call and aborts it on completion
 * (a DOMException with a stack each time), measurable on small JSON answers. Why collect small
 * bodies: a known length up to SMALL_BODY_BYTES is at most a few chunks; writing it with one
 * `end()` saves a syscall and the pipe machinery. Anything larger or of unknown length streams.
 */
export function relay(upRes: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const r = new Relay(upRes as WithRelay<IncomingMessage>, res as WithRelay<ServerResponse>, resolve);
    r.upRes[RELAY] = r;
    r.res[RELAY] = r;
    upRes.on('close', onUpResClose);
    upRes.on('error', ignore);
    res.on('close', onResClose);
    const len = Number(upRes.headers['content-length']);
    if (len >= 0 && len <= SMALL_BODY_BYTES) {
      r.chunks = [];
      upRes.on('data', onUpResData);
      upRes.on('end', onUpResEnd);
      return;
    }
    upRes.pipe(res);
  });
}

/** Forwards koa requests to services over keep-alive sockets. */
export class UpstreamProxy {
  /** The shared keep-alive agent (one pool per upstream host:port). */
  readonly agent: http.Agent;

  constructor(private readonly opts: ProxyOptions) {
    this.agent = new http.Agent({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: opts.maxSockets,
      maxFreeSockets: opts.maxFreeSockets,
      scheduling: 'lifo',
    });
  }

  /**
   * Forward one exchange to `upstream` and stream the answer back (written here, status and
   * headers in one `writeHead`). Throws AppError (503/413) before the answer starts; never after.
   */
  async forward(ex: Exchange, upstream: Upstream, fo: ForwardOptions): Promise<void> {
    const req = ex.req;
    const withBody = hasRequestBody(req.headers);
    const headers = upstreamRequestHeaders(req.headers, {
      requestId: ex.requestId,
      remoteAddress: req.socket.remoteAddress,
      proto: ex.proto,
      host: ex.host,
      trustProxy: this.opts.trustProxy,
      identityHeader: ex.identityHeader,
      upstreamHost: upstream.hostHeader ?? `${upstream.hostname}:${upstream.port}`,
      emptyBody: !withBody && !BODILESS_BY_DEFAULT.has(req.method ?? 'GET'),
    });

    let attempt = await this.send(ex, upstream, headers, withBody, fo);
    if (attempt.retryable && !withBody) attempt = await this.send(ex, upstream, headers, withBody, fo);
    if (attempt.error) throw attempt.error;
    const upRes = attempt.res as IncomingMessage;
    const upReq = attempt.upReq as ClientRequest;
    const res = ex.res;

    // The service answered before it had the whole body (an upload refused at once, its own
    // 413): relay the answer now; stop forwarding the body, and let the client finish sending
    // into a bounded drain (or close its connection), never leave it half-read.
    const early = withBody && !req.complete;
    if (early) {
      req.unpipe(upReq);
      req.removeListener('data', onClientData);
      answerEarly(req, res, this.opts.drain ?? DEFAULT_DRAIN_LIMITS);
    }

    res.writeHead(upRes.statusCode ?? 502, responseHeaders(upRes.headers, ex.headers) as string[]);
    await relay(upRes, res);
    // A half-sent request leaves its upstream socket unusable (the agent would wait for the
    // rest of the body for ever): drop it.
    if (early) upReq.destroy();
  }

  private send(ex: Exchange, upstream: Upstream, headers: (string | string[])[], withBody: boolean, fo: ForwardOptions): Promise<Attempt> {
    return new Promise<Attempt>((resolve) => {
      const call = new Call(
        ex,
        upstream,
        fo.upload ? 0 : this.opts.headersTimeoutMs,
        this.opts.connectTimeoutMs,
        fo.bodyLimit,
        this.opts.drain ?? DEFAULT_DRAIN_LIMITS,
        resolve,
      );
      const req = ex.req as WithCall<IncomingMessage>;
      const upReq = http.request({
        agent: this.agent,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        // A flat list: node stores it as the header block at once (see upstreamRequestHeaders).
        headers: headers as unknown as http.OutgoingHttpHeaders,
      }) as WithCall<ClientRequest>;
      call.upReq = upReq;
      upReq[CALL] = call;
      upReq.on('response', onUpResponse);
      upReq.on('error', onUpError);
      upReq.on('socket', onUpSocket);

      if (!withBody) {
        call.startHeadersTimer();
        upReq.end();
        return;
      }
      req[CALL] = call;
      upReq.on('finish', onUpFinish);
      if (call.limit !== undefined) req.on('data', onClientData);
      req.on('close', onClientClose);
      req.pipe(upReq);
    });
  }

  /** Close idle sockets. */
  close(): void {
    this.agent.destroy();
  }
}
