/**
 * The requests koa app (no listen, so tests drive it with supertest) and the domain services
 * main.ts also hands to the RPC server, the consumers and the expiry job. Health: database, NATS
 * and (when given) the search engine, as `degraded` only.
 */
import { addSearchHealth, addStandardHealth, createHttpApp, mountRouter } from '@rdm/platform';
import type { Knex, Logger, NatsHandle, ServiceHttp } from '@rdm/platform';
import type { RequestsConfig } from './config.js';
import { ActionsService } from './domain/actions.service.js';
import { CommentsService } from './domain/comments.service.js';
import { EffectWaiter } from './domain/effects.js';
import { RequestLinks } from './domain/links.js';
import type { CommunitiesPort, RecordsPort } from './domain/ports.js';
import { RequestsService } from './domain/requests.service.js';
import { effectSubjects } from './domain/types/registry.js';
import { requestsRouter } from './http/requests.routes.js';
import type { RequestSearchIndex } from './search/request-index.js';

/** Dependencies of the app. */
export interface AppDeps {
  config: Pick<
    RequestsConfig,
    'IDENTITY_SECRET' | 'PUBLIC_BASE_URL' | 'REQUEST_EFFECT_WAIT_MS' | 'REQUESTS_LOCKING_ENABLED' | 'REQUESTS_COMMENT_MAX_LENGTH'
  >;
  logger: Logger;
  db: Knex;
  communities: CommunitiesPort;
  /** The records service (a record's requests re-authorize their record there). */
  records: RecordsPort;
  /** NATS connection: readiness and the effect waiter (without it accepts never wait). */
  nc?: NatsHandle['nc'];
  /** Search engine index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  search?: RequestSearchIndex;
}

/** The composed app and its services. */
export interface RequestsApp extends ServiceHttp {
  requests: RequestsService;
  actions: ActionsService;
  comments: CommentsService;
  /** Start it (subscriptions) before serving; stop it on shutdown. */
  waiter: EffectWaiter;
}

/** Build the app and the services. */
export function createApp(deps: AppDeps): RequestsApp {
  const { app, health } = createHttpApp({ name: 'requests', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  const requests = new RequestsService({
    db: deps.db,
    communities: deps.communities,
    records: deps.records,
    links: new RequestLinks(deps.config.PUBLIC_BASE_URL),
    logger: deps.logger,
    config: {
      lockingEnabled: deps.config.REQUESTS_LOCKING_ENABLED,
      commentMaxLength: deps.config.REQUESTS_COMMENT_MAX_LENGTH,
      effectWaitMs: deps.config.REQUEST_EFFECT_WAIT_MS,
    },
    search: deps.search,
  });
  addSearchHealth(health, deps.search?.engine);
  const waiter = new EffectWaiter({ nc: deps.nc, db: deps.db, subjects: effectSubjects(), logger: deps.logger });
  const actions = new ActionsService(requests, waiter);
  const comments = new CommentsService(requests);
  mountRouter(app, requestsRouter({ requests, actions, comments }));
  return { app, health, requests, actions, comments, waiter };
}
