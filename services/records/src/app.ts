/**
 * The koa app of the records service (no listen: main.ts and supertest tests wrap it).
 *
 * Requests that never reach koa: read-cache hits of `GET /api/records/<id>` (no query, Accept
 * absent or JSON, no `traceparent`, a valid identity), answered by the lean path
 * (record-read-lean.ts, a fast path of the platform app: http.ts `fastPath`) while OpenTelemetry
 * is off and `leanReads` is not false. A miss there is handed to koa.
 */
import { addStandardHealth, type AppState, createHttpApp, mountRouter, type NatsHandle, openapiRouter, Router } from '@rdm/platform';
import { linkTokenMiddleware, registerAccessRoutes } from './http/access.routes.js';
import { registerAbuseRoutes } from './http/abuse.routes.js';
import { registerAccessRequestRoutes } from './http/access-request.routes.js';
import { registerDeletionRoutes, tombstoneMiddleware } from './http/deletion.routes.js';
import { LeanRecordReads } from './http/record-read-lean.js';
import { registerRecordsRoutes } from './http/records.routes.js';
import { registerReviewRoutes } from './http/review.routes.js';
import { API } from './http/routes.decl.js';
import { registerSearchRoutes } from './http/search.routes.js';
import { statsEdge, statsMiddleware } from './http/stats.middleware.js';
import { registerInteropRoutes } from './interop/interop.routes.js';
import { buildRecordsParts, type PartsDeps } from './parts.js';
import type { CitationPool } from './export/citation-pool.js';
import type { StatsPublisher } from './stats/publisher.js';

/** What createApp needs: the parts' dependencies (parts.ts) and the HTTP-only ones. */
export interface AppDeps extends PartsDeps {
  /** When given, readiness also checks the NATS connection. */
  nc?: NatsHandle['nc'];
  /** Publisher of view events (statistics); without it views are not counted, counters still shown. */
  statsPublisher?: StatsPublisher;
  /** Read-cache hits of `GET /api/records/<id>` answered without koa (default true; record-read-lean.ts). */
  leanReads?: boolean;
  /** Where formatted citations are rendered (tests: a pool of their own); default the process's pool. */
  citations?: CitationPool;
}

export type { ReviewParts } from './parts.js';

/** Build the app and its health checks around the parts (parts.ts): middleware, routes, the lean read path. */
export function createApp(deps: AppDeps) {
  const { app, health } = createHttpApp({ name: 'records', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  // Conditional reads: a 200 GET whose ETag the client already has (`If-None-Match`) answers 304
  // without a body (the web service's page cache checks a record's revision so; the lean path does the same).
  app.use(async (ctx, next) => {
    await next();
    if (
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      ctx.status === 200 &&
      ctx.get('If-None-Match') &&
      ctx.response.get('ETag') &&
      ctx.fresh
    )
      ctx.status = 304;
  });
  const parts = buildRecordsParts(deps);
  const { service, search, deletion, stats } = parts;
  if (deps.engineIndex) {
    const engine = deps.engineIndex.engine;
    // Why degraded: /readyz reports the search engine, but its outage must not take writes out of
    // rotation (searches answer 503 meanwhile; the outbox indexer catches up when it is back).
    health.add(
      'search',
      async () => {
        if (!(await engine.ping())) throw new Error(`${engine.kind} unreachable`);
      },
      { degraded: true },
    );
    app.use(deps.engineIndex.readYourWrites());
  }
  const router = new Router<AppState>();
  const { signposting, citations } = registerInteropRoutes(router, { ...deps, service }); // exports + /oai2d, before the records routes (content negotiation)
  const urls = { baseUrl: deps.config.PUBLIC_BASE_URL, doiResolverUrl: deps.config.DOI_RESOLVER_URL };
  registerSearchRoutes(router, { search, ...urls });
  if (parts.review && parts.recordCommunities && parts.communityRecords) {
    const { review, recordCommunities: communities, communityRecords } = parts;
    registerReviewRoutes(router, { review, communities, communityRecords, baseUrl: deps.config.PUBLIC_BASE_URL });
  }
  registerDeletionRoutes(router, deletion, parts.deletionRequests, parts.quotaRequests, parts.fileModificationRequests);
  registerAbuseRoutes(router, parts.abuse, {
    max: deps.config.ABUSE_REPORTS_PER_WINDOW ?? 5,
    windowMs: (deps.config.ABUSE_REPORTS_WINDOW_SECONDS ?? 600) * 1000,
  });
  const records = registerRecordsRoutes(router, { service, review: parts.review, signposting, ...urls });
  registerAccessRoutes(router, parts.accessLinks, parts.grants);
  if (parts.accessRequests) registerAccessRequestRoutes(router, parts.accessRequests);
  app.use(linkTokenMiddleware(deps.db));
  app.use(tombstoneMiddleware(deletion));
  // Why a switch: counting costs a publish per view and a spliced body (scripts/bench/stats.bench.ts).
  const statsSteps =
    deps.config.STATS_ENABLED !== false
      ? statsEdge({ stats, publisher: deps.statsPublisher, secret: deps.config.IDENTITY_SECRET })
      : undefined;
  if (statsSteps) app.use(statsMiddleware(statsSteps));
  mountRouter(app, openapiRouter(API)); // the internal `GET /openapi.json` (no other route matches it)
  mountRouter(app, router);
  let leanReads: LeanRecordReads | undefined;
  if (deps.leanReads !== false) {
    // The lean way in for read-cache hits, chosen per request before koa (see the header).
    leanReads = new LeanRecordReads({
      logger: deps.logger,
      identitySecret: deps.config.IDENTITY_SECRET,
      cachedRead: records.cachedRead,
      stats: statsSteps,
    });
    app.fastPath(leanReads.take);
  }
  return { app, health, leanReads, citations, ...parts };
}
