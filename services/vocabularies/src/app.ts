/** The koa app of the vocabularies service (no listen: main.ts and supertest tests wrap it); health: database, NATS, search engine. */
import { addSearchHealth, addStandardHealth, createHttpApp, type Knex, type Logger, mountRouter, type NatsHandle } from '@rdm/platform';
import { type Config, importDirOf } from './config.js';
import { EntryCache } from './domain/entry-cache.js';
import { JobsService } from './domain/jobs.service.js';
import { VocabulariesService } from './domain/vocabularies.service.js';
import { jobsRouter } from './http/jobs.routes.js';
import { vocabulariesRouter } from './http/vocabularies.routes.js';
import type { VocabularySearchIndex } from './search/entry-index.js';

/** What createApp needs. */
export interface AppDeps {
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'IDENTITY_SECRET' | 'ENTRY_CACHE_SIZE' | 'ENTRY_CACHE_TTL_MS'> &
    Partial<Pick<Config, 'VOCABULARIES_IMPORT_DIR'>>;
  logger: Logger;
  db: Knex;
  /** When given, readiness also checks the NATS connection. */
  nc?: NatsHandle['nc'];
  /** Search engine index of the large vocabularies (SEARCH_ENGINE opensearch/elasticsearch); absent: postgres. */
  search?: VocabularySearchIndex;
  /** Called when a job run was queued (the in-process jobs worker looks at once). */
  wakeJobs?: () => void;
}

/** Build the app, its health checks and the service behind it. */
export function createApp(deps: AppDeps) {
  const { app, health } = createHttpApp({ name: 'vocabularies', logger: deps.logger, identitySecret: deps.config.IDENTITY_SECRET });
  addStandardHealth(health, { db: deps.db, nc: deps.nc });
  const cache = new EntryCache(deps.config.ENTRY_CACHE_SIZE, deps.config.ENTRY_CACHE_TTL_MS);
  const service = new VocabulariesService({
    db: deps.db,
    baseUrl: deps.config.PUBLIC_BASE_URL,
    cache,
    typesTtlMs: deps.config.ENTRY_CACHE_TTL_MS,
    search: deps.search,
  });
  // A search engine outage answers 503 on the searches of the large vocabularies only.
  addSearchHealth(health, deps.search?.engine);
  const jobs = new JobsService({
    db: deps.db,
    baseUrl: deps.config.PUBLIC_BASE_URL,
    importDir: importDirOf({ VOCABULARIES_IMPORT_DIR: deps.config.VOCABULARIES_IMPORT_DIR ?? '' }),
    wake: deps.wakeJobs,
  });
  mountRouter(app, jobsRouter(jobs));
  mountRouter(app, vocabulariesRouter(service));
  return { app, health, service, jobs };
}
