/**
 * The communities koa app (no listen, so tests drive it with supertest): platform base app plus
 * the community, member and schema-extension routes. Health: database, storage and (when given)
 * the NATS connection.
 */
import {
  addSearchHealth,
  addStandardHealth,
  createHttpApp,
  type Knex,
  type Logger,
  MAX_BYTES,
  mountRouter,
  openapiRouter,
  type NatsHandle,
  type ObjectStorage,
  type ServiceHttp,
} from '@rdm/platform';
import type { CommunitiesConfig } from './config.js';
import { CommunitiesService } from './domain/communities.service.js';
import { CommunityCustomFields } from './domain/custom-fields.js';
import { ExtensionsService } from './domain/extensions.service.js';
import { CommunityLinks } from './domain/links.js';
import { LogoService } from './domain/logo.service.js';
import { MembersService } from './domain/members.service.js';
import type { RecordsUsagePort, RequestsPort, UsersPort, VocabulariesPort } from './domain/ports.js';
import { communitiesRouter } from './http/communities.routes.js';
import { extensionsRouter } from './http/extensions.routes.js';
import { API } from './http/routes.decl.js';
import { membersRouter } from './http/members.routes.js';
import type { CommunitySearchIndex } from './search/community-index.js';
import type { MemberSearchIndex } from './search/member-index.js';

/** Dependencies of createApp. */
export interface AppDeps {
  config: Pick<
    CommunitiesConfig,
    'IDENTITY_SECRET' | 'PUBLIC_BASE_URL' | 'COMMUNITY_CREATORS' | 'COMMUNITIES_LOGO_MAX_BYTES' | 'COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS'
  > &
    Partial<Pick<CommunitiesConfig, 'COMMUNITIES_CUSTOM_FIELDS' | 'COMMUNITIES_CUSTOM_FIELDS_MAX_BYTES'>>;
  logger: Logger;
  db: Knex;
  storage: ObjectStorage;
  users: UsersPort;
  vocabularies: VocabulariesPort;
  requests: RequestsPort;
  /** Records' usage totals (statistics.record_views / record_downloads); absent: zeros. */
  usage?: RecordsUsagePort;
  /** NATS connection, for readiness. */
  nc?: NatsHandle['nc'];
  /** Search engine index (SEARCH_ENGINE opensearch/elasticsearch); absent: the postgres engine. */
  search?: CommunitySearchIndex;
  /** Member-lists index (same engine as `search`); absent: the postgres engine. */
  memberSearch?: MemberSearchIndex;
}

/** The composed app and the domain services main.ts wires to RPC and consumers. */
export interface CommunitiesApp extends ServiceHttp {
  communities: CommunitiesService;
  members: MembersService;
  extensions: ExtensionsService;
}

/** Build the app and the domain services. */
export function createApp(deps: AppDeps): CommunitiesApp {
  const { config, logger, db, storage } = deps;
  const { app, health } = createHttpApp({ name: 'communities', logger, identitySecret: config.IDENTITY_SECRET });
  const links = new CommunityLinks(config.PUBLIC_BASE_URL);
  const communities = new CommunitiesService({
    db,
    users: deps.users,
    vocabularies: deps.vocabularies,
    requests: deps.requests,
    usage: deps.usage,
    creators: config.COMMUNITY_CREATORS === 'users' ? 'users' : 'admins',
    logger,
    search: deps.search,
    memberSearch: deps.memberSearch,
    // Why here: a bad definition throws, so the service refuses to start (as records' RDM_CUSTOM_FIELDS).
    customFields: CommunityCustomFields.fromConfig(
      config.COMMUNITIES_CUSTOM_FIELDS,
      config.COMMUNITIES_CUSTOM_FIELDS_MAX_BYTES ?? MAX_BYTES,
    ),
  });
  const members = new MembersService({
    db,
    communities,
    users: deps.users,
    requests: deps.requests,
    allowMembershipRequests: config.COMMUNITIES_ALLOW_MEMBERSHIP_REQUESTS,
    search: deps.memberSearch,
  });
  const logos = new LogoService({ db, storage, communities, maxBytes: config.COMMUNITIES_LOGO_MAX_BYTES, logger });
  const extensions = new ExtensionsService(db, communities);
  addStandardHealth(health, { db, nc: deps.nc });
  health.add('storage', () => storage.check());
  addSearchHealth(health, deps.search?.engine ?? deps.memberSearch?.engine);
  // Internal (the gateway merges it into /api/openapi.json; never routed publicly).
  mountRouter(app, openapiRouter(API));
  mountRouter(app, extensionsRouter({ extensions, links }));
  mountRouter(app, membersRouter({ members, links }));
  mountRouter(app, communitiesRouter({ communities, logos, links }));
  return { app, health, communities, members, extensions };
}
