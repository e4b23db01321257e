/**
 * The koa app every service starts from: request id, trace context, access log, error rendering,
 * signed identity, metrics and health routes. Services add their routers with `mountRouter`,
 * which also turns "wrong method" into a 405 JSON body.
 *
 * Fast paths: `app.fastPath(path)` lets a service answer some requests on node's own request and
 * response before koa builds a context (the gateway's API traffic, records' read-cache hits). Use
 * one only where a profile shows koa costing as much as the answer; it must take the per-request
 * steps of request-steps.ts (request id, identity, error body, access log, metrics) so both ways
 * answer alike, and hand anything it does not finish to koa. While OpenTelemetry is on every
 * request goes through koa (its server span).
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import Router from '@koa/router';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import getRawBody from 'raw-body';
import { type AppError, Errors } from './errors.js';
import { Health } from './health.js';
import { ANONYMOUS, type Identity } from './identity.js';
import type { Logger } from './logger.js';
import { initMetrics, renderMetrics } from './metrics.js';
import { requestScope } from './request-scope.js';
import { errorMiddleware, logRequest, logUnhandled, metricsMiddleware, requestIdOf, requestIdentity } from './request-steps.js';
import { currentTraceId, extractTraceContext, isTelemetryEnabled, tracer } from './telemetry.js';

/** State every request carries. */
export interface AppState {
  identity: Identity;
  requestId: string;
  log: Logger;
}

/** A koa context with our state. */
export type AppContext = Context & { state: AppState };

/** Options of createHttpApp. */
export interface HttpAppOptions {
  name: string;
  logger: Logger;
  /** HMAC secret of the identity header; undefined disables identity parsing (gateway). */
  identitySecret?: string;
  health?: Health;
  /** Trust proxy headers (X-Forwarded-For). */
  proxy?: boolean;
  /** Error for a path holding NUL or an unpaired surrogate (default 404 `The persistent identifier does not exist.`). */
  unstorablePathError?: () => AppError;
  /**
   * Keep the request in scope for `clientGoneSignal()` (request-scope.ts), so searches stop when their
   * client goes away. Default: on for services (an `identitySecret` is given), off for the gateway,
   * which runs no search: the AsyncLocalStorage costs every request ~10 % CPU on node 20 (measured:
   * a vocabulary entry read 0.52 → 0.58 ms of CPU, a search ~8 %).
   */
  requestScope?: boolean;
}

/** A node request handler (HTTP/1.1). */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A way in before koa: true when it took the request (it answers, or hands it to `viaKoa` later),
 * false to let koa have it. Decide synchronously and cheaply: it runs on every request.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse, viaKoa: NodeHandler) => boolean;

const DONE = Promise.resolve();

/** The platform's koa app: koa plus the fast paths tried first (`fastPath`). */
export class HttpApp<S = AppState> extends Koa<S> {
  private readonly fastPaths: FastPath[] = [];

  /** Try `path` before koa on every HTTP/1.1 request (in registration order); register before `callback()`/`listen`. */
  fastPath(path: FastPath): void {
    this.fastPaths.push(path);
  }

  /** Koa's handler, behind the fast paths (none, or OpenTelemetry on: koa's own handler). */
  override callback(): (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => Promise<void> {
    const viaKoa = super.callback();
    const paths = this.fastPaths;
    if (paths.length === 0) return viaKoa;
    const koa: NodeHandler = (req, res) => void viaKoa(req, res);
    return (req, res) => {
      if (res instanceof ServerResponse && !isTelemetryEnabled()) {
        for (let i = 0; i < paths.length; i++) if ((paths[i] as FastPath)(req as IncomingMessage, res, koa)) return DONE;
      }
      return viaKoa(req, res);
    };
  }
}

/** A service's app and its health checks (what `createHttpApp` returns and every `createApp` extends). */
export interface ServiceHttp {
  app: HttpApp<AppState>;
  health: Health;
}

/** Build the base app. Routes are added by the caller with `mountRouter`. */
export function createHttpApp(opts: HttpAppOptions): ServiceHttp {
  const app = new HttpApp<AppState>();
  app.proxy = opts.proxy ?? true;
  const health = opts.health ?? new Health();
  initMetrics(opts.name);
  const t = tracer(opts.name);

  app.on('error', (err: Error, ctx?: Context) => {
    logUnhandled((ctx?.state as AppState | undefined)?.log ?? opts.logger, err, ctx?.url);
  });

  // Request id, trace span and access log. Why so frugal: this runs on every request of every
  // service (and twice through the gateway), so the child logger is created only when a handler
  // asks for it and spans only exist when OpenTelemetry is enabled.
  app.use(async (ctx: Context, next: Next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.set('X-Request-Id', requestId);
    const parent = extractTraceContext(ctx.headers);
    const run = async (span?: Span) => {
      const traceId = span ? currentTraceId(span) : trace.getSpanContext(parent)?.traceId;
      ctx.state.requestId = requestId;
      let child: Logger | undefined;
      Object.defineProperty(ctx.state, 'log', {
        get: () => {
          child ??= opts.logger.child({ reqId: requestId, ...(traceId ? { traceId } : {}) });
          return child;
        },
        configurable: true,
        enumerable: false,
      });
      try {
        await next();
      } finally {
        if (span) {
          if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
        // Why the level check first: the log object (and the URL redaction) would be built for nothing.
        if (opts.logger.isLevelEnabled('info') && ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/metrics') {
          logRequest(opts.logger, requestId, traceId, ctx.method, ctx.url, ctx.status, started);
        }
      }
    };
    if (!isTelemetryEnabled()) return run();
    await context.with(parent, () => t.startActiveSpan(`${ctx.method} ${ctx.path}`, { kind: SpanKind.SERVER }, (span) => run(span)));
  });
  app.use(errorMiddleware());
  app.use(metricsMiddleware());
  // Why: searches deep in a service learn that their client went away and stop (request-scope.ts).
  if (opts.requestScope ?? opts.identitySecret !== undefined) app.use(requestScope());

  // Health, readiness and metrics answer before identity checks.
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      if (ctx.path === '/healthz') return health.live(ctx);
      if (ctx.path === '/readyz') return health.ready(ctx);
      if (ctx.path === '/metrics') return renderMetrics(ctx);
    }
    return next();
  });

  // Why: a NUL or unpaired surrogate in a path id or query value cannot reach PostgreSQL (500).
  app.use(async (ctx: Context, next: Next) => {
    let path: string;
    try {
      path = decodeURIComponent(ctx.path);
    } catch {
      throw Errors.badRequest('Invalid URL encoding.', undefined, 'invalid_url');
    }
    if (isUnstorableString(path)) throw (opts.unstorablePathError ?? Errors.pidDoesNotExist)();
    for (const [key, value] of Object.entries(ctx.query)) {
      for (const one of Array.isArray(value) ? value : [value ?? '']) {
        if (isUnstorableString(key) || isUnstorableString(one)) {
          const nul = key.includes('\u0000') || one.includes('\u0000');
          throw Errors.invalidQuerystring([{ field: key, messages: [nul ? 'Must not contain NUL characters.' : UNSTORABLE_MESSAGE] }]);
        }
      }
    }
    return next();
  });

  if (opts.identitySecret) {
    const secret = opts.identitySecret;
    app.use(async (ctx: Context, next: Next) => {
      // Why a throw: a bad, expired, unbound or replayed header means the caller bypassed the gateway or
      // replays a captured header; never fall back to anonymous.
      ctx.state.identity = requestIdentity(ctx.req, secret);
      return next();
    });
  } else {
    app.use(async (ctx: Context, next: Next) => {
      ctx.state.identity = ANONYMOUS;
      return next();
    });
  }
  return { app, health };
}

/** Add a router's routes and map 405/501 to JSON errors. */
export function mountRouter(app: Koa<AppState>, router: Router<AppState>): void {
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => Errors.methodNotAllowed([]),
      notImplemented: () => Errors.methodNotAllowed([]),
    }),
  );
}

/** Options of jsonBody. */
export interface JsonBodyOptions {
  /** Byte limit (default 1 MiB). */
  limit?: number | string;
  /** Body required (default false: empty body → undefined). */
  required?: boolean;
}

/**
 * Read and parse a JSON body. An empty body gives `undefined`; bad JSON or invalid UTF-8 is 400
 * "Unable to decode JSON data in request body."; too large is 413. A non-JSON Content-Type is accepted like
 * InvenioRDM does for `application/json` defaults, except obvious binary uploads (415).
 */
export async function jsonBody<T = unknown>(ctx: Context, opts: JsonBodyOptions = {}): Promise<T | undefined> {
  const type = ctx.get('content-type');
  if (type && !/json/i.test(type) && !/^text\/plain/i.test(type) && !/x-www-form-urlencoded/i.test(type)) {
    throw Errors.unsupportedMediaType(['application/json']);
  }
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit: opts.limit ?? '1mb', length: ctx.get('content-length') || undefined });
  } catch (e) {
    const err = e as { type?: string; status?: number };
    if (err.type === 'entity.too.large' || err.status === 413) throw Errors.payloadTooLarge();
    throw Errors.badRequest('Unable to read request body.');
  }
  let raw: string;
  try {
    // Why fatal: a lenient decode silently turns invalid UTF-8 into U+FFFD and stores altered data.
    raw = utf8.decode(bytes);
  } catch {
    throw Errors.invalidJson();
  }
  if (raw.trim() === '') {
    if (opts.required) throw Errors.invalidJson();
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw Errors.invalidJson();
  }
  // Why: PostgreSQL refuses NUL and unpaired surrogates in text and jsonb (a 500 otherwise).
  const bad = findUnstorableString(parsed, '');
  if (bad !== undefined) {
    throw Errors.validation([{ field: bad || '_schema', messages: [UNSTORABLE_MESSAGE] }]);
  }
  return parsed as T;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Field message for strings PostgreSQL cannot store. */
export const UNSTORABLE_MESSAGE = 'Must not contain NUL characters or unpaired surrogates.';

/** True for strings PostgreSQL cannot store: NUL or unpaired UTF-16 surrogates. */
export function isUnstorableString(s: string): boolean {
  return s.includes('\u0000') || !(s as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Dotted path of the first unstorable string (key or value) in a JSON value, or undefined. */
function findUnstorableString(v: unknown, path: string, depth = 0): string | undefined {
  if (typeof v === 'string') return isUnstorableString(v) ? path : undefined;
  if (v === null || typeof v !== 'object' || depth > 64) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = findUnstorableString(v[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  for (const [k, val] of Object.entries(v)) {
    const p = path ? `${path}.${k}` : k;
    if (isUnstorableString(k)) return p;
    const r = findUnstorableString(val, p, depth + 1);
    if (r !== undefined) return r;
  }
  return undefined;
}

export { Router };
