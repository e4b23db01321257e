/**
 * The gateway app: the platform's base app (request id, access log, errors, metrics, /healthz,
 * /readyz, /metrics) plus, per request: CORS → authentication → rate limit → invalid token (401,
 * unless AUTH_INVALID_TOKEN=anonymous) → route (404/405) → body limit → proxy. No domain logic,
 * and no identity is ever read from clients.
 *
 * Two ways in (edge.ts). Requests that never reach koa: every `/api/*` request but `OPTIONS` and
 * the OpenAPI document (`/api/openapi.json`), while OpenTelemetry is off — the lean path on node's
 * request and response (the platform app's `fastPath`, http.ts). Through koa, which runs the same
 * steps: the gateway's own routes (/healthz, /readyz, /metrics, the OpenAPI document), `OPTIONS`
 * (preflights and `Allow`), other paths, and everything while OpenTelemetry is on (its server span).
 */
import { Errors, type Health, type Logger, createHttpApp, natsHealthCheck } from '@rdm/platform';
import type { Context } from 'koa';
import type Koa from 'koa';
import { type NatsConnection, TokenCache, type TokenVerifier } from './auth.js';
import type { GatewayConfig } from './config.js';
import { trustFromConfig } from './client-address.js';
import { corsHeaders, corsMiddleware, parseOrigins } from './cors.js';
import { type DrainLimits, answerEarly } from './early-answer.js';
import { Edge, invalidToken } from './edge.js';
import { OPENAPI_PATH, OpenApiAssembler, buildBaseDocument } from './openapi.js';
import { type Exchange, UpstreamProxy, type Upstream, parseUpstream } from './proxy.js';
import { RateLimiter } from './rate-limit.js';
import { upstreamsCheck } from './readiness.js';
import { type RateLimitStore, SharedRateLimiter } from './shared-rate-limit.js';
import { RouteMatcher, allowedMethods } from './route-matcher.js';
import { ROUTES, type RouteSpec, SERVICES, type ServiceName } from './routes.js';

/** Dependencies of createApp. */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** Token verification (users RPC in production, a stub in unit tests). */
  verifyToken: TokenVerifier;
  /** NATS connection, for /readyz. */
  nc?: NatsConnection;
  /** Routing table (default: ROUTES). */
  routes?: readonly RouteSpec[];
}

/** The assembled gateway, with its parts exposed for wiring and tests. */
export interface Gateway {
  app: Koa<any>;
  health: Health;
  tokens: TokenCache;
  /** The in-process limiter (RATE_LIMIT_STORE=local, and the fallback of the shared one). */
  limiter: RateLimiter;
  /** What requests are counted against: the shared limiter when there is NATS and RATE_LIMIT_STORE=nats, else `limiter`. */
  rateLimits: RateLimitStore;
  /** The shared limiter, to `start()` (open its bucket) and `stop()` with the process. */
  sharedLimits?: SharedRateLimiter;
  proxy: UpstreamProxy;
  matcher: RouteMatcher;
  openapi: OpenApiAssembler;
  upstreams: Record<ServiceName, Upstream>;
  edge: Edge;
}

export { invalidToken };

const URL_KEYS: Record<ServiceName, keyof GatewayConfig> = {
  users: 'USERS_URL',
  vocabularies: 'VOCABULARIES_URL',
  records: 'RECORDS_URL',
  files: 'FILES_URL',
  requests: 'REQUESTS_URL',
  communities: 'COMMUNITIES_URL',
  web: 'WEB_URL',
  webhooks: 'WEBHOOKS_URL',
};

/** Build the gateway app (no listen). */
export function createApp(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  // The client address is established once, by the edge (client-address.ts); koa's own
  // `X-Forwarded-*` reading is only for its `ctx.protocol`/`ctx.host` behind a trusted proxy.
  const proxies = trustFromConfig(config);
  const { app, health } = createHttpApp({ name: 'gateway', logger, proxy: proxies.enabled });

  const upstreams = Object.fromEntries(SERVICES.map((s) => [s, parseUpstream(s, String(config[URL_KEYS[s]]))])) as Record<
    ServiceName,
    Upstream
  >;
  const routes = deps.routes ?? ROUTES;
  const matcher = new RouteMatcher(routes);
  const tokens = new TokenCache({
    verify: deps.verifyToken,
    ttlMs: config.TOKEN_CACHE_TTL_MS,
    negativeTtlMs: config.TOKEN_CACHE_NEGATIVE_TTL_MS,
    max: config.TOKEN_CACHE_MAX,
  });
  const limiter = new RateLimiter({ windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000, maxKeys: config.RATE_LIMIT_MAX_KEYS });
  const sharedLimits =
    deps.nc && config.RATE_LIMIT_STORE === 'nats'
      ? new SharedRateLimiter({
          nc: deps.nc,
          windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
          fallback: limiter,
          bucket: config.RATE_LIMIT_BUCKET,
          timeoutMs: config.RATE_LIMIT_STORE_TIMEOUT_MS,
          logger,
        })
      : undefined;
  // Why a wrapper for the in-process limiter: its third parameter is the clock, not the hint.
  const rateLimits: RateLimitStore = sharedLimits ?? { take: (key, limit) => limiter.take(key, limit) };
  const drain: DrainLimits = { maxBytes: config.EARLY_ANSWER_DRAIN_BYTES, timeoutMs: config.EARLY_ANSWER_DRAIN_MS };
  const proxy = new UpstreamProxy({
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
    uploadIdleMs: config.UPSTREAM_UPLOAD_IDLE_TIMEOUT_MS,
    maxSockets: config.UPSTREAM_MAX_SOCKETS,
    queueTimeoutMs: config.UPSTREAM_QUEUE_TIMEOUT_MS,
    drain,
    body: {
      idleMs: config.BODY_IDLE_TIMEOUT_MS,
      minRate: config.BODY_MIN_RATE,
      windowMs: config.BODY_RATE_WINDOW_MS,
      totalMs: config.BODY_TIMEOUT_MS,
    },
  });
  const openapi = new OpenApiAssembler({
    base: buildBaseDocument(routes, { serverUrl: config.PUBLIC_BASE_URL }),
    upstreams: SERVICES.map((name) => ({ name, origin: upstreams[name].origin })),
    attempts: config.OPENAPI_FETCH_ATTEMPTS,
    logger,
  });

  // Readiness: NATS (token checks need it; a disconnection beyond a short grace fails it) and the
  // services' own readiness (readiness.ts: by default, not ready only when none is).
  if (deps.nc) health.add('nats', natsHealthCheck(deps.nc));
  const readyUpstreams = parseServiceList(config.READY_UPSTREAMS).map((s) => upstreams[s]);
  if (readyUpstreams.length > 0) {
    health.add(
      'upstreams',
      upstreamsCheck({
        upstreams: readyUpstreams,
        mode: config.READY_UPSTREAMS_MODE === 'all' ? 'all' : 'any',
        cacheMs: config.READY_UPSTREAMS_CACHE_MS,
      }),
    );
  }

  const corsOptions = {
    origins: parseOrigins(config.CORS_ORIGINS),
    credentials: config.CORS_ALLOW_CREDENTIALS,
    maxAgeSeconds: config.CORS_MAX_AGE_SECONDS,
  };
  app.use(corsMiddleware(corsOptions));

  const edge = new Edge({
    logger,
    tokens,
    rateLimits,
    matcher,
    proxy,
    upstreams,
    drain,
    identitySecret: config.IDENTITY_SECRET,
    rateLimited: config.RATE_LIMIT_ENABLED,
    limitAuthenticated: config.RATE_LIMIT_AUTHENTICATED,
    limitAnonymous: config.RATE_LIMIT_ANONYMOUS,
    rejectInvalid: config.AUTH_INVALID_TOKEN === 'reject',
    bodyLimit: config.BODY_LIMIT,
    proxies,
    maxConcurrent: config.CLIENT_MAX_CONCURRENT,
    cors: corsHeaders(corsOptions),
  });

  // The koa way in: the gateway's own routes, OPTIONS, and API traffic while OpenTelemetry is on.
  app.use(async (ctx: Context) => {
    const ex = koaExchange(ctx, edge);
    try {
      await onKoa(ctx, ex, edge.caller(ex, ctx.querystring));
      const path = ctx.path;
      if (path === OPENAPI_PATH) return serveOpenApi(ctx, openapi);
      if (ctx.method === 'OPTIONS') {
        const matches = matcher.match(path);
        if (matches.length === 0) throw Errors.routeNotFound();
        ctx.set('Allow', allowedMethods(matches).join(', '));
        ctx.status = 204;
        return;
      }
      await onKoa(ctx, ex, edge.route(ex, path));
    } catch (err) {
      // As on the lean path: a refused request's unread body is discarded within bounds.
      answerEarly(ctx.req, ctx.res, drain);
      throw err;
    } finally {
      edge.done(ex);
    }
  });

  // The lean way in (edge.ts), chosen per request before koa (see the header).
  app.fastPath((req, res) => {
    const url = req.url as string;
    if (!url.startsWith('/api/') || req.method === 'OPTIONS' || isOpenApiUrl(url)) return false;
    void edge.handle(req, res);
    return true;
  });

  return { app, health, tokens, limiter, rateLimits, sharedLimits, proxy, matcher, openapi, upstreams, edge };
}

/** An exchange over koa's request and response (request id and CORS are already on `ctx`). */
function koaExchange(ctx: Context, edge: Edge): Exchange {
  const address = edge.address(ctx.req);
  const origin = edge.origin(ctx.req);
  // koa's own `ctx.ip` (the access log) says the same as the edge.
  ctx.request.ip = address.ip;
  return {
    req: ctx.req,
    res: ctx.res,
    requestId: (ctx.state as { requestId?: string }).requestId ?? '',
    headers: [],
    proto: origin.proto,
    host: origin.host,
    clientIp: address.ip,
    forwardedFor: address.forwardedFor,
  };
}

/**
 * Await one step of the request path under koa: the gateway's headers it added land on `ctx`
 * (errors are rendered by the platform's middleware with them), and once the proxy wrote the
 * answer itself koa leaves the response alone.
 */
async function onKoa(ctx: Context, ex: Exchange, step: Promise<void>): Promise<void> {
  try {
    await step;
  } finally {
    if (ctx.res.headersSent) ctx.respond = false;
    else for (let i = 0; i < ex.headers.length; i += 2) ctx.set(ex.headers[i] as string, String(ex.headers[i + 1]));
    ex.headers.length = 0;
  }
}

function isOpenApiUrl(url: string): boolean {
  return url.startsWith(OPENAPI_PATH) && (url.length === OPENAPI_PATH.length || url.charCodeAt(OPENAPI_PATH.length) === 63) /* ? */;
}

/** `users,records` → the known service names it lists (config validation has refused unknown ones). */
function parseServiceList(value: string): ServiceName[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is ServiceName => (SERVICES as readonly string[]).includes(s));
}

function serveOpenApi(ctx: Context, openapi: OpenApiAssembler): void {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', 'GET, HEAD, OPTIONS');
      ctx.status = 204;
      return;
    }
    throw Errors.methodNotAllowed(['GET', 'HEAD', 'OPTIONS']);
  }
  ctx.type = 'application/json';
  ctx.body = openapi.json();
}
