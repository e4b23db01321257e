/**
 * The gateway's request path: CORS → authentication → rate limit → invalid token (401) → route
 * (404/405) → body limit → proxy, written once and run two ways:
 *
 * - **lean** (`EdgeHandler.handle`, every `/api/*` request except the OpenAPI document, `OPTIONS`,
 *   and everything while OpenTelemetry is on): straight on node's request and response, without
 *   koa (a fast path of the platform's app: http.ts `fastPath`). The platform's per-request steps
 *   are its own (request-steps.ts: the request id, the error body, the access log line, the request
 *   duration histogram), plus the path/query check for NUL and unpaired surrogates (only when the
 *   URL holds a `%`). The token cache is hit without a promise,
 *   and a keep-alive connection remembers its token's hash and its rate-limit key, so a repeated
 *   caller costs no hashing and no string building.
 * - **koa** (`admit` from a koa middleware, see app.ts): the same steps for what goes through koa.
 *
 * Why not koa for API traffic: koa's context, delegates, compose and the platform's middlewares
 * cost about as much as the proxying itself (see the profile in the README); the gateway's own
 * routes (openapi, health, readiness, metrics) keep them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import {
  ANONYMOUS,
  AppError,
  Errors,
  type Logger,
  errorAnswer,
  isUnstorableString,
  logRequest,
  logUnhandled,
  observeRequest,
  requestIdOf,
  signIdentity,
} from '@rdm/platform';
import { type Principal, type TokenCache, extractToken, tokenKey } from './auth.js';
import type { ClientAddress, TrustedProxies } from './client-address.js';
import { answerEarly, type DrainLimits } from './early-answer.js';
import type { Exchange, Upstream, UpstreamProxy } from './proxy.js';
import type { RateDecision } from './rate-limit.js';
import type { RouteMatcher } from './route-matcher.js';
import type { ServiceName } from './routes.js';
import type { RateLimitStore } from './shared-rate-limit.js';

/** What the request path needs. */
export interface EdgeParts {
  logger: Logger;
  tokens: TokenCache;
  rateLimits: RateLimitStore;
  matcher: RouteMatcher;
  proxy: UpstreamProxy;
  upstreams: Record<ServiceName, Upstream>;
  drain: DrainLimits;
  identitySecret: string;
  rateLimited: boolean;
  limitAuthenticated: number;
  limitAnonymous: number;
  rejectInvalid: boolean;
  bodyLimit: number;
  /** Who may set `X-Forwarded-*` (client-address.ts). */
  proxies: TrustedProxies;
  /** Requests one client (token, else address) may have in flight at once (0 = no cap). */
  maxConcurrent: number;
  /** CORS headers for an Origin (cors.ts `corsHeaders`). */
  cors: (origin: string | undefined) => readonly string[];
}

/** The 401 for an invalid or revoked token under AUTH_INVALID_TOKEN=reject (the default). */
export const invalidToken = () =>
  new AppError('invalid_token', 401, 'The access token is invalid or has been revoked.', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  });

/** Per-connection memo (keep-alive: one client, usually one token). */
interface ConnectionMemo {
  /** Last Authorization header / access_token seen on this connection, and its cache key. */
  token?: string;
  tokenKey?: string;
  /** The address of this connection's peer, and its `a:<address>` key (without trusted proxies, every request's). */
  address?: ClientAddress;
  anonKey?: string;
}
const MEMO = Symbol('gateway.connection');
type WithMemo<T> = T & { [MEMO]?: ConnectionMemo };

/** The request path, for both the lean handler and koa. */
export class Edge {
  /** Requests in flight per client key (the concurrency cap; the shared limiter reserves slots for busy clients). */
  private readonly inFlight = new Map<string, number>();
  private readonly counted: boolean;

  constructor(private readonly p: EdgeParts) {
    this.counted = p.rateLimited || p.maxConcurrent > 0;
  }

  /**
   * The client address of a request (client-address.ts), established once: without trusted
   * proxies the connection's peer (remembered per connection), else from `X-Forwarded-For`.
   */
  address(req: IncomingMessage): ClientAddress {
    const proxies = this.p.proxies;
    if (proxies.enabled) return proxies.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const m = memo(req);
    m.address ??= proxies.resolve(req.socket.remoteAddress, undefined);
    return m.address;
  }

  /** Scheme and host the client used: `X-Forwarded-Proto/Host` when the peer is a trusted proxy. */
  origin(req: IncomingMessage): { proto: string; host: string } {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    if (this.p.proxies.enabled && this.p.proxies.trustsPeer(req.socket.remoteAddress)) {
      return {
        proto: encrypted ? 'https' : first(req.headers['x-forwarded-proto']) || 'http',
        host: first(req.headers['x-forwarded-host']) || first(req.headers.host),
      };
    }
    return { proto: encrypted ? 'https' : 'http', host: req.headers.host ?? '' };
  }

  /**
   * Steps 1–2 for one exchange: who calls (the signed identity goes into `ex`), the concurrency
   * cap and rate limit, and the invalid token's 401. Throws AppError; the gateway's headers go
   * into `ex.headers`. `query` is the URL's query string.
   */
  async caller(ex: Exchange, query: string): Promise<void> {
    const p = this.p;
    const req = ex.req;
    const h = req.headers;
    const ip = ex.clientIp;

    // 1. Who is calling. A users outage throws RpcError (503) from here.
    const token = extractToken(h.authorization, query);
    let principal: Principal | null = null;
    if (token !== undefined) {
      const key = this.keyOf(req, token);
      const hit = p.tokens.peek(key);
      principal = hit !== undefined ? hit : await p.tokens.resolveKey(token, key);
    }

    // 2. Concurrency cap and rate limit: per token, else (no token or an invalid one) per client address.
    if (this.counted) {
      const key = principal ? principal.rateKey : this.anonKey(req, ip);
      const concurrent = (this.inFlight.get(key) ?? 0) + 1;
      this.inFlight.set(key, concurrent);
      ex.rateKey = key;
      // Why a cap besides the rate: slow requests (a slow body, a slow service) are few per minute
      // yet can hold every connection to a service; one client gets at most this many at once.
      if (p.maxConcurrent > 0 && concurrent > p.maxConcurrent) throw Errors.tooManyRequests({ 'Retry-After': '1' });
    }
    if (p.rateLimited) {
      const key = ex.rateKey as string;
      const concurrent = this.inFlight.get(key) as number;
      const taken = p.rateLimits.take(key, principal ? p.limitAuthenticated : p.limitAnonymous, concurrent);
      // Why not always await: the in-process limiter and a refusal at the limit answer synchronously.
      const d: RateDecision = taken instanceof Promise ? await taken : taken;
      ex.headers.push('X-RateLimit-Limit', d.limit, 'X-RateLimit-Remaining', d.remaining, 'X-RateLimit-Reset', d.reset);
      if (!d.allowed) throw Errors.tooManyRequests({ 'Retry-After': String(d.retryAfter) });
    }

    // Default `reject`: a presented but invalid token is refused clearly (unlike InvenioRDM, which
    // ignores it); `anonymous` lets the caller go on without an identity. Why after the rate
    // limit: rejected tokens count against the caller's address, so guessing tokens is throttled.
    if (token !== undefined && !principal && p.rejectInvalid) throw invalidToken();
    // Every request gets a signed identity (anonymous ones too: it carries the client address the
    // services' limiters key on), bound to this request and valid for seconds (identity.ts).
    const identity = principal ? principal.identity : ANONYMOUS;
    ex.identityHeader = signIdentity(ip === '' ? identity : { ...identity, clientIp: ip }, p.identitySecret, {
      method: req.method ?? 'GET',
      target: req.url ?? '',
      requestId: ex.requestId,
    });
  }

  /** Steps 3–5: route (404/405), body limit (413), forward. Throws AppError before the answer starts. */
  async route(ex: Exchange, path: string): Promise<void> {
    const p = this.p;
    const req = ex.req;
    const h = req.headers;

    // 3. Route.
    const r = p.matcher.resolve(req.method ?? 'GET', path);
    if (r.kind === 'not_found') throw Errors.routeNotFound();
    if (r.kind === 'method_not_allowed') throw Errors.methodNotAllowed(r.allow);
    const route = r.route;

    // 4. Body limit (uploads are limited by the files service).
    if (!route.upload) {
      const len = h['content-length'];
      if (len !== undefined && Number(len) > p.bodyLimit) {
        // The body is refused unread: discard it within bounds (or close) so the client gets the 413.
        answerEarly(req, ex.res, p.drain);
        throw Errors.payloadTooLarge();
      }
    }

    // 5. Forward.
    await p.proxy.forward(ex, p.upstreams[route.service], {
      upload: route.upload,
      bodyLimit: route.upload ? undefined : p.bodyLimit,
    });
  }

  /**
   * The lean path: one API request on node's own request/response (see the header). Never
   * rejects: failures are rendered as JSON errors (or, once the answer started, cut by the proxy).
   */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const p = this.p;
    const h = req.headers;
    const url = req.url as string;
    const requestId = requestIdOf(h['x-request-id']);
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q + 1);
    const address = this.address(req);
    const origin = this.origin(req);
    const ex: Exchange = {
      req,
      res,
      requestId,
      headers: ['X-Request-Id', requestId],
      proto: origin.proto,
      host: origin.host,
      clientIp: address.ip,
      forwardedFor: address.forwardedFor,
    };
    const cors = p.cors(h.origin);
    for (let i = 0; i < cors.length; i++) ex.headers.push(cors[i] as string);
    try {
      if (url.includes('%')) checkStorable(path, query);
      await this.caller(ex, query);
      await this.route(ex, path);
    } catch (err) {
      this.fail(ex, err);
    }
    this.finish(ex, started);
  }

  /** Render an error as koa and the platform's errorMiddleware do (request-steps.ts `errorAnswer`). */
  private fail(ex: Exchange, err: unknown): void {
    const res = ex.res;
    const { error: e, body } = errorAnswer(err);
    if (e.status >= 500) logUnhandled(this.p.logger, err, ex.req.url ?? '');
    if (res.headersSent || res.destroyed) {
      // Too late for an answer (the proxy already cut what it had to).
      if (!res.writableEnded) res.destroy();
      return;
    }
    // A refused request's unread body (a 401, 429, 503 before it was read) is discarded within
    // bounds (EARLY_ANSWER_DRAIN_*), else the connection is closed: a slow client keeps no
    // connection by being refused.
    answerEarly(ex.req, res, this.p.drain);
    const json = JSON.stringify(body);
    const headers: (string | number)[] = ex.headers;
    if (e.headers) for (const k in e.headers) headers.push(k, e.headers[k] as string);
    headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', Buffer.byteLength(json));
    res.writeHead(e.status, headers as string[]);
    res.end(ex.req.method === 'HEAD' ? undefined : json);
  }

  /** The exchange is over: in-flight count, access log line (only when `info` is on), histogram. */
  private finish(ex: Exchange, started: number): void {
    this.done(ex);
    const status = ex.res.statusCode;
    const method = ex.req.method ?? 'GET';
    observeRequest(method, 'unmatched', status, started);
    const log = this.p.logger;
    if (log.isLevelEnabled('info'))
      logRequest(log, ex.requestId, traceIdOf(ex.req.headers.traceparent), method, ex.req.url ?? '', status, started);
  }

  /** Forget the exchange in the in-flight counts (once; both ways in call it when done). */
  done(ex: Exchange): void {
    const key = ex.rateKey;
    if (key === undefined) return;
    ex.rateKey = undefined;
    const n = (this.inFlight.get(key) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(key);
    else this.inFlight.set(key, n);
  }

  /** The token cache key of `token`, remembered per connection. */
  private keyOf(req: IncomingMessage, token: string): string {
    const m = memo(req);
    if (m.token === token) return m.tokenKey as string;
    const key = tokenKey(token);
    m.token = token;
    m.tokenKey = key;
    return key;
  }

  private anonKey(req: IncomingMessage, ip: string): string {
    if (this.p.proxies.enabled) return `a:${ip}`;
    const m = memo(req);
    m.anonKey ??= `a:${ip}`;
    return m.anonKey;
  }
}

function memo(req: IncomingMessage): ConnectionMemo {
  const sock = req.socket as WithMemo<typeof req.socket>;
  let m = sock[MEMO];
  if (m === undefined) {
    m = {};
    sock[MEMO] = m;
  }
  return m;
}

/** The platform's check: a NUL or unpaired surrogate in a path id or query value cannot reach PostgreSQL. */
export function checkStorable(path: string, query: string): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw Errors.badRequest('Invalid URL encoding.', undefined, 'invalid_url');
  }
  if (isUnstorableString(decoded)) throw Errors.pidDoesNotExist();
  if (query === '') return;
  const parsed = parseQuery(query);
  for (const key in parsed) {
    const value = parsed[key];
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      if (isUnstorableString(key) || isUnstorableString(one)) {
        const nul = key.includes('\u0000') || one.includes('\u0000');
        throw Errors.invalidQuerystring([{ field: key, messages: [nul ? 'Must not contain NUL characters.' : UNSTORABLE] }]);
      }
    }
  }
}
const UNSTORABLE = 'Must not contain NUL characters or unpaired surrogates.';

const TRACEPARENT = /^[ \t]*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?[ \t]*$/;
const ZERO_TRACE = '0'.repeat(32);

/** The trace id of a valid W3C `traceparent` (what the platform logs while OpenTelemetry is off). */
export function traceIdOf(tp: string | string[] | undefined): string | undefined {
  if (typeof tp !== 'string') return undefined;
  const m = TRACEPARENT.exec(tp);
  if (!m || m[1] === 'ff' || m[2] === ZERO_TRACE || m[3] === '0000000000000000') return undefined;
  return m[2];
}

const first = (v: string | string[] | undefined): string => {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? (s.split(',')[0] as string).trim() : '';
};
