/** The koa app of the records service (no listen: main.ts and supertest tests wrap it). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  addStandardHealth,
  type AppState,
  createHttpApp,
  isTelemetryEnabled,
  type Knex,
  type Logger,
  mountRouter,
  type NatsHandle,
  Router,
} from '@rdm/platform';
import { managedDoiPrefix, oaiPrefix, type RecordsConfig } from './config.js';
import { CommunitiesComponent } from './domain/communities.component.js';
import { parseCustomFields } from './domain/custom-fields.js';
import { CommunityRecordsComponent } from './domain/community-records.component.js';
import { DeletionComponent } from './domain/deletion.component.js';
import type { CommunitiesPort, FilesPort, RequestsPort, VocabulariesPort } from './domain/ports.js';
import { RecordsService } from './domain/records.service.js';
import { ReviewComponent } from './domain/review.component.js';
import { ReviewSagaComponent } from './domain/review-saga.component.js';
import { registerInteropRoutes } from './export/index.js';
import { AccessLinksComponent } from './domain/access-links.component.js';
import { GrantsComponent } from './domain/grants.component.js';
import { AccessRequestComponent } from './domain/access-request.component.js';
import { AccessRequestEffectsComponent } from './domain/access-request-effects.component.js';
import { registerAccessRequestRoutes } from './http/access-request.routes.js';
import { linkTokenMiddleware, registerAccessRoutes } from './http/access.routes.js';
import { registerDeletionRoutes, tombstoneMiddleware } from './http/deletion.routes.js';
import { AbuseComponent } from './domain/abuse.component.js';
import { registerAbuseRoutes } from './http/abuse.routes.js';
import { StatsComponent } from './domain/stats.component.js';
import { statsEdge, statsMiddleware } from './http/stats.middleware.js';
import { LeanRecordReads } from './http/record-read-lean.js';
import type { StatsPublisher } from './stats/publisher.js';
import { registerOpenApiRoute } from './http/openapi.js';
import { registerRecordsRoutes } from './http/records.routes.js';
import { registerReviewRoutes } from './http/review.routes.js';
import { registerSearchRoutes } from './http/search.routes.js';
import type { EngineIndexer } from './search/engine-index.js';
import { PostgresIndexer } from './search/pg-indexer.js';
import { RecordSearchService } from './search/search.service.js';

/** What createApp needs. */
export interface AppDeps {
  config: Pick<RecordsConfig, 'PUBLIC_BASE_URL' | 'IDENTITY_SECRET' | 'DOI_PREFIX' | 'DOI_RESOLVER_URL' | 'OAI_ID_PREFIX' | 'SITE_NAME'> &
    Partial<
      Pick<
        RecordsConfig,
        | 'RESTRICTION_GRACE_PERIOD_DAYS'
        | 'ALLOW_RESTRICTION_AFTER_GRACE_PERIOD'
        | 'ABUSE_REPORTS_PER_WINDOW'
        | 'ABUSE_REPORTS_WINDOW_SECONDS'
        | 'DOI_PROVIDER'
        | 'DATACITE_PREFIX'
        | 'STATS_ENABLED'
        | 'ALLOW_RESTRICTED_RECORDS'
        | 'RDM_CUSTOM_FIELDS'
        | 'CUSTOM_FIELDS_MAX_BYTES'
      >
    >;
  logger: Logger;
  db: Knex;
  files: FilesPort;
  vocabularies: VocabulariesPort;
  /** The requests service (reviews, inclusions); without it and `communities` those routes are absent. */
  requests?: RequestsPort;
  /** The communities service (summaries, roles). */
  communities?: CommunitiesPort;
  /** When given, readiness also checks the NATS connection. */
  nc?: NatsHandle['nc'];
  /** Publisher of view events (statistics); without it views are not counted, counters still shown. */
  statsPublisher?: StatsPublisher;
  /** SEARCH_ENGINE=opensearch|elasticsearch: the engine indexer (search/engine-index.ts); else postgres. */
  engineIndex?: EngineIndexer;
  /** Read-cache hits of `GET /api/records/<id>` answered without koa (default true; record-read-lean.ts). */
  leanReads?: boolean;
}

/** The review and communities components (present when `requests` and `communities` are given). */
export interface ReviewParts {
  review: ReviewComponent;
  recordCommunities: CommunitiesComponent;
  communityRecords: CommunityRecordsComponent;
  saga: ReviewSagaComponent;
}

/** Build the app, its health checks and the service behind it. */
export function createApp(deps: AppDeps) {
  const { app, health } = createHttpApp({ name: 'records', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  const index = deps.engineIndex ?? new PostgresIndexer(deps.db);
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
  const service = new RecordsService({
    db: deps.db,
    index,
    files: deps.files,
    vocabularies: deps.vocabularies,
    logger: deps.logger,
    config: {
      baseUrl: deps.config.PUBLIC_BASE_URL,
      doiPrefix: managedDoiPrefix(deps.config),
      doiProvider: deps.config.DOI_PROVIDER === 'datacite' ? 'datacite' : 'local',
      oaiPrefix: oaiPrefix(deps.config),
      siteName: deps.config.SITE_NAME,
      restrictionGraceDays: deps.config.ALLOW_RESTRICTION_AFTER_GRACE_PERIOD ? null : (deps.config.RESTRICTION_GRACE_PERIOD_DAYS ?? 30),
      allowRestrictedRecords: deps.config.ALLOW_RESTRICTED_RECORDS !== false,
      // A malformed definition throws here: the service does not start with fields it cannot check.
      customFields: parseCustomFields(deps.config.RDM_CUSTOM_FIELDS, deps.config.CUSTOM_FIELDS_MAX_BYTES),
    },
  });
  let parts: ReviewParts | undefined;
  if (deps.requests && deps.communities) {
    const common = { db: deps.db, records: service, index, requests: deps.requests, communities: deps.communities, logger: deps.logger };
    const recordCommunities = new CommunitiesComponent(common);
    parts = {
      review: new ReviewComponent({ ...common, baseUrl: deps.config.PUBLIC_BASE_URL }),
      recordCommunities,
      communityRecords: new CommunityRecordsComponent({ db: deps.db, communities: deps.communities, inclusions: recordCommunities }),
      saga: new ReviewSagaComponent(common),
    };
    service.useHooks({ ...parts.review.hooks(), ...parts.recordCommunities.hooks() });
  }
  const router = new Router<AppState>();
  registerOpenApiRoute(router);
  const { signposting } = registerInteropRoutes(router, { ...deps, service }); // exports + /oai2d, before the records routes (content negotiation)
  const communities = parts?.recordCommunities;
  const search = new RecordSearchService({
    index,
    vocabularies: deps.vocabularies,
    logger: deps.logger,
    resolveCommunity: communities ? (identity, idOrSlug) => communities.resolveForSearch(identity, idOrSlug) : undefined,
    // Members of a record's communities may read it: the user's communities (roles RPC, cached).
    memberships: deps.communities ? async (userId) => Object.keys(await (deps.communities as CommunitiesPort).roles(userId)) : undefined,
  });
  const urls = { baseUrl: deps.config.PUBLIC_BASE_URL, doiResolverUrl: deps.config.DOI_RESOLVER_URL };
  registerSearchRoutes(router, { search, ...urls });
  if (parts) {
    const { review, recordCommunities: communities, communityRecords } = parts;
    registerReviewRoutes(router, { review, communities, communityRecords, baseUrl: deps.config.PUBLIC_BASE_URL });
  }
  const deletion = new DeletionComponent({ db: deps.db, index, vocabularies: deps.vocabularies });
  registerDeletionRoutes(router, deletion);
  registerAbuseRoutes(router, new AbuseComponent({ db: deps.db }), {
    max: deps.config.ABUSE_REPORTS_PER_WINDOW ?? 5,
    windowMs: (deps.config.ABUSE_REPORTS_WINDOW_SECONDS ?? 600) * 1000,
  });
  const records = registerRecordsRoutes(router, { service, review: parts?.review, signposting, ...urls });
  const accessLinks = new AccessLinksComponent({
    db: deps.db,
    secret: deps.config.IDENTITY_SECRET,
    require: (...a) => service.requireWith(...a),
  });
  const grants = new GrantsComponent({ db: deps.db, index, require: (...a) => service.requireWith(...a) });
  registerAccessRoutes(router, accessLinks, grants);
  if (deps.requests) {
    const accessRequests = new AccessRequestComponent({
      db: deps.db,
      requests: deps.requests,
      secret: deps.config.IDENTITY_SECRET,
      require: (...a) => service.requireWith(...a),
    });
    registerAccessRequestRoutes(router, accessRequests);
  }
  const accessEffects = new AccessRequestEffectsComponent({ index, links: accessLinks, logger: deps.logger });
  app.use(linkTokenMiddleware(deps.db));
  app.use(tombstoneMiddleware(deletion));
  const stats = new StatsComponent({ db: deps.db, index });
  // Why a switch: counting costs a publish per view and a spliced body (scripts/bench/stats.bench.ts).
  const statsSteps =
    deps.config.STATS_ENABLED !== false
      ? statsEdge({ stats, publisher: deps.statsPublisher, secret: deps.config.IDENTITY_SECRET })
      : undefined;
  if (statsSteps) app.use(statsMiddleware(statsSteps));
  mountRouter(app, router);
  let leanReads: LeanRecordReads | undefined;
  if (deps.leanReads !== false) {
    // The lean way in for read-cache hits, chosen per request; koa's own handler for the rest.
    const viaKoa = app.callback();
    const lean = new LeanRecordReads(
      { logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET, cachedRead: records.cachedRead, stats: statsSteps },
      viaKoa,
    );
    leanReads = lean;
    const dispatch = (req: IncomingMessage, res: ServerResponse) => (isTelemetryEnabled() ? viaKoa(req, res) : lean.handle(req, res));
    // Why a cast: koa types its handler for HTTP/2 requests too; records serves HTTP/1.1.
    app.callback = (() => dispatch) as unknown as typeof app.callback;
  }
  return { app, health, service, search, index, deletion, stats, accessLinks, accessEffects, leanReads, ...parts };
}
