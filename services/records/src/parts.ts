/**
 * The ONE factory of the records service's parts: the search index, the lifecycle components in
 * their order (`recordComponents`), the records service, the sub-services of the features with
 * routes of their own (review, record communities, access, deletion, abuse, statistics, search)
 * and the effect handlers of events (the review saga, access-request effects).
 *
 * When to use: app.ts builds the parts here and only wires HTTP around them; a new part (a
 * component, a sub-service, an effect handler) is constructed here and nowhere else.
 */
import { AccessLinksService } from './access/access-links.service.js';
import { AccessRequestService } from './access/access-request.service.js';
import { GrantsService } from './access/grants.service.js';
import { AbuseService } from './abuse/abuse.service.js';
import { CommunitiesComponent } from './communities/communities.component.js';
import { CommunityRecordsService } from './communities/community-records.service.js';
import { RecordCommunitiesService } from './communities/record-communities.service.js';
import type { Knex, Logger } from '@rdm/platform';
import { managedDoiPrefix, oaiPrefix, type RecordsConfig } from './config.js';
import type { RecordsServiceConfig } from './domain/component.js';
import { parseCustomFields } from './domain/custom-fields.js';
import type { CommunitiesPort, FilesPort, RequestsPort, SearchIndexPort, VocabulariesPort } from './domain/ports.js';
import { recordComponents, RecordsService } from './domain/records.service.js';
import { RecordImportService } from './import/import.service.js';
import { DeletionRequestService } from './deletion/deletion-request.service.js';
import { DeletionService } from './deletion/deletion.service.js';
import { FileModificationRequestService } from './file-modification/file-modification-request.service.js';
import { QuotaRequestService } from './quota/quota-request.service.js';
import { AccessRequestEffects } from './events/access-request-effects.js';
import { ReviewSaga } from './events/review-saga.js';
import { ReviewComponent } from './review/review.component.js';
import { ReviewService } from './review/review.service.js';
import type { EngineIndexer } from './search/engine-index.js';
import { PostgresIndexer } from './search/pg-indexer.js';
import { RecordSearchService } from './search/search.service.js';
import { StatsService } from './stats/stats.service.js';

/** What the parts need (app.ts adds the HTTP-only dependencies). */
export interface PartsDeps {
  config: Pick<RecordsConfig, 'PUBLIC_BASE_URL' | 'IDENTITY_SECRET' | 'DOI_PREFIX' | 'DOI_RESOLVER_URL' | 'OAI_ID_PREFIX' | 'SITE_NAME'> &
    Partial<
      Pick<
        RecordsConfig,
        | 'RESTRICTION_GRACE_PERIOD_DAYS'
        | 'RECORDS_DELETION_GRACE_PERIOD_DAYS'
        | 'RECORDS_FILE_MODIFICATION_GRACE_PERIOD_DAYS'
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
  /** SEARCH_ENGINE=opensearch|elasticsearch: the engine indexer (search/engine-index.ts); else postgres. */
  engineIndex?: EngineIndexer;
}

/** The review and communities parts (present when `requests` and `communities` are given). */
export interface ReviewParts {
  review: ReviewService;
  recordCommunities: RecordCommunitiesService;
  communityRecords: CommunityRecordsService;
  saga: ReviewSaga;
}

/** The configuration of the records domain, from the service's settings. */
export function domainConfig(c: PartsDeps['config']): RecordsServiceConfig {
  return {
    baseUrl: c.PUBLIC_BASE_URL,
    doiPrefix: managedDoiPrefix(c),
    doiProvider: c.DOI_PROVIDER === 'datacite' ? 'datacite' : 'local',
    oaiPrefix: oaiPrefix(c),
    siteName: c.SITE_NAME,
    restrictionGraceDays: c.ALLOW_RESTRICTION_AFTER_GRACE_PERIOD ? null : (c.RESTRICTION_GRACE_PERIOD_DAYS ?? 30),
    allowRestrictedRecords: c.ALLOW_RESTRICTED_RECORDS !== false,
    // A malformed definition throws here: the service does not start with fields it cannot check.
    customFields: parseCustomFields(c.RDM_CUSTOM_FIELDS, c.CUSTOM_FIELDS_MAX_BYTES),
  };
}

/** Build every part of the records service (no HTTP). */
export function buildRecordsParts(deps: PartsDeps) {
  const { db, logger, config } = deps;
  const index: SearchIndexPort & (PostgresIndexer | EngineIndexer) = deps.engineIndex ?? new PostgresIndexer(db);
  const serviceDeps = { db, index, files: deps.files, vocabularies: deps.vocabularies, logger, config: domainConfig(config) };
  const withReview = deps.requests && deps.communities ? { requests: deps.requests, communities: deps.communities } : undefined;
  const components = recordComponents(serviceDeps, {
    review: withReview && new ReviewComponent({ requests: withReview.requests, logger }),
    communities: withReview && new CommunitiesComponent({ communities: withReview.communities }),
  });
  const service = new RecordsService(serviceDeps, components);
  const require: RecordsService['requireWith'] = (...a) => service.requireWith(...a);
  let parts: ReviewParts | undefined;
  if (withReview) {
    const common = { db, records: service, index, ...withReview, logger };
    const recordCommunities = new RecordCommunitiesService(common);
    parts = {
      review: new ReviewService({ ...common, baseUrl: config.PUBLIC_BASE_URL }),
      recordCommunities,
      communityRecords: new CommunityRecordsService({ db, communities: withReview.communities, inclusions: recordCommunities }),
      saga: new ReviewSaga(common),
    };
  }
  const communities = parts?.recordCommunities;
  const search = new RecordSearchService({
    index,
    vocabularies: deps.vocabularies,
    logger,
    resolveCommunity: communities ? (identity, idOrSlug) => communities.resolveForSearch(identity, idOrSlug) : undefined,
    // Members of a record's communities may read it: the user's communities (roles RPC, cached).
    memberships: deps.communities ? async (userId) => Object.keys(await (deps.communities as CommunitiesPort).roles(userId)) : undefined,
  });
  const accessLinks = new AccessLinksService({ db, secret: config.IDENTITY_SECRET, require });
  return {
    index,
    service,
    search,
    deletion: new DeletionService({ db, index, vocabularies: deps.vocabularies }),
    deletionRequests:
      deps.requests &&
      new DeletionRequestService({
        db,
        requests: deps.requests,
        vocabularies: deps.vocabularies,
        gracePeriodDays: config.RECORDS_DELETION_GRACE_PERIOD_DAYS ?? 30,
      }),
    quotaRequests: deps.requests && new QuotaRequestService({ db, requests: deps.requests }),
    fileModificationRequests:
      deps.requests &&
      new FileModificationRequestService({
        db,
        requests: deps.requests,
        gracePeriodDays: config.RECORDS_FILE_MODIFICATION_GRACE_PERIOD_DAYS ?? 30,
      }),
    abuse: new AbuseService({ db }),
    imports: new RecordImportService({
      db,
      index,
      files: deps.files,
      metadata: service.metadata,
      customFields: serviceDeps.config.customFields,
      logger,
    }),
    accessLinks,
    grants: new GrantsService({ db, index, require }),
    accessRequests: deps.requests && new AccessRequestService({ db, requests: deps.requests, secret: config.IDENTITY_SECRET, require }),
    accessEffects: new AccessRequestEffects({ index, links: accessLinks, logger }),
    stats: new StatsService({ db, index }),
    ...parts,
  };
}

/** Every part of the records service. */
export type RecordsParts = ReturnType<typeof buildRecordsParts>;
