/**
 * The per-request steps every HTTP answer takes, written once: the request id, the identity check,
 * the error body, the access log line and the request duration histogram.
 *
 * When to use: the koa middlewares of `createHttpApp` (http.ts, errors.ts, metrics.ts) call them,
 * and so does every fast path a service registers with `HttpApp.fastPath` (the gateway's edge.ts,
 * records' record-read-lean.ts), which answers on node's own request and response without koa.
 * A fast path that skips one of these steps answers differently from koa: call them, never copy them.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { AppError, Errors, INTERNAL_MESSAGE, toAppError } from './errors.js';
import { IDENTITY_REFUSAL_MESSAGES, type Identity, identityOf } from './identity.js';
import { type Logger, redactUrl } from './logger.js';
import { requestHistogram } from './metrics.js';

/** The request id of a request: its `X-Request-Id` (at most 128 characters), else a new UUID. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && given !== '' ? given.slice(0, 128) : randomUUID();
}

/**
 * The verified identity of a request a service received (identity.ts `identityOf`: checked once
 * per request); a refused header throws the 401 `invalid_identity` — never anonymous instead.
 */
export function requestIdentity(req: IncomingMessage, secret: string): Identity {
  const identity = identityOf(req, secret);
  if (typeof identity === 'string') throw new AppError('invalid_identity', 401, IDENTITY_REFUSAL_MESSAGES[identity]);
  return identity;
}

/** An error as it is answered: its AppError (status, headers) and the `{status, message, errors?}` body (5xx: a generic message). */
export function errorAnswer(err: unknown): { error: AppError; body: Record<string, unknown> } {
  const error = toAppError(err);
  const body = error.toBody();
  if (error.status >= 500 && error.code === 'internal_error') body.message = INTERNAL_MESSAGE;
  return { error, body };
}

/** Log an error answered with a 5xx: the real cause goes to the log only. */
export function logUnhandled(logger: Logger, err: unknown, url: string | undefined): void {
  logger.error({ err, url: url === undefined ? undefined : redactUrl(url) }, 'unhandled error');
}

/** One access log line (`request`), built only when `info` is enabled. `started` is a `performance.now()`. */
export function logRequest(
  logger: Logger,
  reqId: string,
  traceId: string | undefined,
  method: string,
  url: string,
  status: number,
  started: number,
): void {
  if (!logger.isLevelEnabled('info')) return;
  const ms = performance.now() - started;
  logger.info({ reqId, traceId, method, url: redactUrl(url), status, ms: Math.round(ms * 10) / 10 }, 'request');
}

type Observer = { observe(v: number): void };
/** Label children of the histogram by method, route and status (built once each: labels() hashes its arguments). */
const observers = new Map<string, Map<string, Map<number, Observer>>>();

/**
 * Observe one request in `http_request_duration_seconds` (metrics.ts; nothing before `initMetrics`):
 * `route` is the matched route pattern, never the raw URL (`unmatched` when none). `started` is a `performance.now()`.
 */
export function observeRequest(method: string, route: string, status: number, started: number): void {
  let byRoute = observers.get(method);
  if (byRoute === undefined) {
    byRoute = new Map();
    observers.set(method, byRoute);
  }
  let byStatus = byRoute.get(route);
  if (byStatus === undefined) {
    byStatus = new Map();
    byRoute.set(route, byStatus);
  }
  let o = byStatus.get(status);
  if (o === undefined) {
    const hist = requestHistogram();
    if (hist === undefined) return;
    o = hist.labels(method, route, String(status));
    byStatus.set(status, o);
  }
  o.observe((performance.now() - started) / 1000);
}

/** Koa middleware rendering every error as the InvenioRDM JSON body (`errorAnswer`). Place it first. */
export function errorMiddleware(): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw Errors.routeNotFound();
    } catch (err) {
      const { error, body } = errorAnswer(err);
      // Why: the real cause only goes to the log (the app's `error` listener: `logUnhandled`); the client sees a generic body.
      if (error.status >= 500) ctx.app.emit('error', err, ctx);
      ctx.status = error.status;
      ctx.type = 'application/json';
      if (error.headers) ctx.set(error.headers);
      ctx.body = body;
    }
  };
}

/** Koa middleware observing every request (`observeRequest`; route = the matched router path, never the raw URL). */
export function metricsMiddleware(): Middleware {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observeRequest(ctx.method, (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', ctx.status, started);
    }
  };
}
