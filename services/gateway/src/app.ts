/**
 * The gateway app: the platform's base app (request id, access log, errors, metrics, /healthz,
 * /readyz, /metrics) plus, per request: CORS → authentication → rate limit → invalid token (401,
 * unless AUTH_INVALID_TOKEN=anonymous) → route (404/405) → body limit → proxy. No domain logic,
 * and no identity is ever read from clients.
 */
import { AppError, Errors, type Health, type Identity, type Logger, createHttpApp, natsHealthCheck } from '@rdm/platform';
import type { Context } from 'koa';
import type Koa from 'koa';
import { type NatsConnection, type Principal, TokenCache, type TokenVerifier, extractToken } from './auth.js';
import type { GatewayConfig } from './config.js';
import { corsMiddleware, parseOrigins } from './cors.js';
import { answerEarly, type DrainLimits } from './early-answer.js';
import { OPENAPI_PATH, OpenApiAssembler, buildBaseDocument } from './openapi.js';
import { UpstreamProxy, type Upstream, parseUpstream } from './proxy.js';
import { RateLimiter, rateLimitHeaders } from './rate-limit.js';
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
}

/** The 401 for an invalid or revoked token under AUTH_INVALID_TOKEN=reject (the default). */
export const invalidToken = () =>
  new AppError('invalid_token', 401, 'The access token is invalid or has been revoked.', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  });

const URL_KEYS: Record<ServiceName, keyof GatewayConfig> = {
  users: 'USERS_URL',
  vocabularies: 'VOCABULARIES_URL',
  records: 'RECORDS_URL',
  files: 'FILES_URL',
  requests: 'REQUESTS_URL',
  communities: 'COMMUNITIES_URL',
};

/** Build the gateway app (no listen). */
export function createApp(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  const { app, health } = createHttpApp({ name: 'gateway', logger, proxy: config.TRUST_PROXY });
  // Why 1: behind one ingress, only the hop it appended to X-Forwarded-For can be trusted.
  app.maxIpsCount = 1;

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
  const rateLimits: RateLimitStore = sharedLimits ?? limiter;
  const drain: DrainLimits = { maxBytes: config.EARLY_ANSWER_DRAIN_BYTES, timeoutMs: config.EARLY_ANSWER_DRAIN_MS };
  const proxy = new UpstreamProxy({
    identitySecret: config.IDENTITY_SECRET,
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
    maxSockets: config.UPSTREAM_MAX_SOCKETS,
    maxFreeSockets: config.UPSTREAM_MAX_FREE_SOCKETS,
    trustProxy: config.TRUST_PROXY,
    drain,
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

  app.use(
    corsMiddleware({
      origins: parseOrigins(config.CORS_ORIGINS),
      credentials: config.CORS_ALLOW_CREDENTIALS,
      maxAgeSeconds: config.CORS_MAX_AGE_SECONDS,
    }),
  );

  const rejectInvalid = config.AUTH_INVALID_TOKEN === 'reject';
  const rateLimited = config.RATE_LIMIT_ENABLED;
  const limitAuth = config.RATE_LIMIT_AUTHENTICATED;
  const limitAnon = config.RATE_LIMIT_ANONYMOUS;
  const bodyLimit = config.BODY_LIMIT;

  app.use(async (ctx: Context) => {
    // 1. Who is calling. A users outage throws RpcError (503) from here.
    const token = extractToken(ctx.req.headers.authorization, ctx.querystring);
    const principal: Principal | null = token === undefined ? null : await tokens.resolve(token);
    const identity: Identity | null = principal ? principal.identity : null;
    if (identity) ctx.state.identity = identity;

    // 2. Rate limit: per token, else (no token or an invalid one) per client address.
    if (rateLimited) {
      const taken = principal ? rateLimits.take(`t:${principal.tokenId}`, limitAuth) : rateLimits.take(`a:${ctx.ip}`, limitAnon);
      // Why not always await: the in-process limiter and a refusal at the limit answer synchronously.
      const d = taken instanceof Promise ? await taken : taken;
      const h = rateLimitHeaders(d);
      ctx.set(h);
      if (!d.allowed) throw Errors.tooManyRequests(h);
    }

    // Default `reject`: a presented but invalid token is refused clearly (unlike InvenioRDM, which
    // ignores it); `anonymous` lets the caller go on without an identity. Why after the rate
    // limit: rejected tokens count against the caller's address, so guessing tokens is throttled.
    if (token !== undefined && !principal && rejectInvalid) throw invalidToken();

    // 3. Route.
    const path = ctx.path;
    if (path === OPENAPI_PATH) return serveOpenApi(ctx, openapi);
    const method = ctx.method;
    if (method === 'OPTIONS') {
      const matches = matcher.match(path);
      if (matches.length === 0) throw Errors.routeNotFound();
      ctx.set('Allow', allowedMethods(matches).join(', '));
      ctx.status = 204;
      return;
    }
    const r = matcher.resolve(method, path);
    if (r.kind === 'not_found') throw Errors.routeNotFound();
    if (r.kind === 'method_not_allowed') throw Errors.methodNotAllowed(r.allow);
    const route = r.route;

    // 4. Body limit (uploads are limited by the files service).
    if (!route.upload) {
      const len = ctx.req.headers['content-length'];
      if (len !== undefined && Number(len) > bodyLimit) {
        // The body is refused unread: discard it within bounds (or close) so the client gets the 413.
        answerEarly(ctx.req, ctx.res, drain);
        throw Errors.payloadTooLarge();
      }
    }

    // 5. Forward.
    await proxy.forward(ctx, upstreams[route.service], {
      identity,
      upload: route.upload,
      bodyLimit: route.upload ? undefined : bodyLimit,
    });
  });

  return { app, health, tokens, limiter, rateLimits, sharedLimits, proxy, matcher, openapi, upstreams };
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
