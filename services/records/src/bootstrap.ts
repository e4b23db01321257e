/**
 * How the records service is assembled from its parts, so that main.ts stays a declaration: the
 * configuration check, the streams it needs, the NATS clients of the other services, and the
 * background workers (consumers, jobs, mailers, the DataCite registration).
 *
 * When to use: only from main.ts (and tests that need the same assembly).
 */
import { STREAMS } from '@rdm/contracts';
import {
  ConfigError,
  ensureStream,
  type Knex,
  type Logger,
  loadConfig,
  type NatsHandle,
  openServiceIndexes,
  reindexCommand,
  type SearchEngine,
} from '@rdm/platform';
import type { createApp } from './app.js';
import { configProperties, dataciteConfigErrors, mailAddresses, type RecordsConfig } from './config.js';
import { DataCiteClient } from './datacite/client.js';
import { dataciteWorkers } from './datacite/doi.consumer.js';
import { DoiSync } from './datacite/doi-sync.js';
import { EmbargoLifter } from './jobs/embargo.job.js';
import { accessRequestWorkers } from './events/access-requests.consumer.js';
import { deletionRequestWorkers } from './events/deletion-requests.consumer.js';
import { fileModificationWorkers } from './events/file-modification-requests.consumer.js';
import { filesCommittedWorker } from './events/files-committed.consumer.js';
import { quotaRequestWorkers } from './events/quota-requests.consumer.js';
import { mailerWorker } from './events/mailer.consumer.js';
import { requestConsumerWorkers } from './events/requests-accepted.consumer.js';
import { statsWorkers } from './events/stats.consumer.js';
import { VocabPropsCache } from './export/vocab-props.js';
import { smtpSender } from './mail/mailer.js';
import { communityOwnerEmails } from './mail/owner-recipients.js';
import { smtpUrlOrDevSink } from './mail/smtp-url.js';
import { RpcCommunitiesClient } from './rpc/communities.client.js';
import { RpcFilesClient } from './rpc/files.client.js';
import { RpcRequestsClient } from './rpc/requests.client.js';
import { RpcUsersClient } from './rpc/users.client.js';
import { RpcVocabulariesClient } from './rpc/vocabularies.client.js';
import { EngineIndexer } from './search/engine-index.js';
import { STATS_STREAM } from './stats/publisher.js';

/** The configuration, with the DataCite settings checked together. */
export function loadRecordsConfig(): RecordsConfig {
  const config = loadConfig(configProperties, process.env);
  const problems = dataciteConfigErrors(config);
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** The streams records consumes besides its own. */
export async function ensureRecordsStreams(jsm: NatsHandle['jsm']): Promise<void> {
  // Usage events (views here, downloads from files) are not outboxed: see stats/publisher.ts.
  await ensureStream(jsm, STATS_STREAM);
  // Why: the consumers need the REQUESTS stream; whoever starts first creates it, with exactly the
  // requests service's subjects (proto/services.json) so neither rewrites it.
  await ensureStream(jsm, STREAMS.REQUESTS);
}

/** The NATS clients of the services records calls. */
export function recordsClients(nc: NatsHandle['nc'], config: RecordsConfig) {
  return {
    communities: new RpcCommunitiesClient(nc, config.RPC_TIMEOUT_MS),
    vocabularies: new RpcVocabulariesClient(nc, config.RPC_TIMEOUT_MS),
    files: new RpcFilesClient(nc, config.FILES_RPC_TIMEOUT_MS),
    requests: new RpcRequestsClient(nc, config.REQUESTS_RPC_TIMEOUT_MS, config.REQUESTS_ACTION_TIMEOUT_MS),
    users: new RpcUsersClient(nc, config.RPC_TIMEOUT_MS),
  };
}

/** Everything the workers need. */
export interface WorkersDeps {
  config: RecordsConfig;
  logger: Logger;
  db: Knex;
  nats: NatsHandle;
  parts: ReturnType<typeof createApp>;
  clients: ReturnType<typeof recordsClients>;
}

/** The background workers: consumers, embargo job, mailers, DataCite. */
export async function recordsWorkers(d: WorkersDeps) {
  const { config, logger, db, nats, parts, clients } = d;
  const { service, review, saga, index, stats, accessLinks, accessEffects } = parts;
  const smtpUrl = await smtpUrlOrDevSink(config, logger);
  const { from, to } = mailAddresses(config);
  return [
    filesCommittedWorker({ db, nats, service, logger }),
    new EmbargoLifter({ db, index, logger }).worker(config.EMBARGO_LIFT_INTERVAL_MS),
    mailerWorker({
      ...{ db, nats, logger, from, to, baseUrl: config.PUBLIC_BASE_URL },
      sender: smtpSender(smtpUrl),
      recipientsOf: communityOwnerEmails({ db, communities: clients.communities, users: clients.users }),
    }),
    ...statsWorkers({ db, nats, stats, logger }),
    ...requestConsumerWorkers({ db, nats, saga: saga!, review: review!, logger }),
    ...accessRequestWorkers({
      ...{ db, nats, logger, from, baseUrl: config.PUBLIC_BASE_URL, secret: config.IDENTITY_SECRET },
      ...{ effects: accessEffects, links: accessLinks, sender: smtpSender(smtpUrl) },
    }),
    ...deletionRequestWorkers({
      ...{ db, nats, logger, from, admins: to, baseUrl: config.PUBLIC_BASE_URL },
      ...{ deletion: parts.deletion, users: clients.users, sender: smtpSender(smtpUrl) },
    }),
    ...fileModificationWorkers({
      ...{ db, nats, logger, from, admins: to, baseUrl: config.PUBLIC_BASE_URL },
      ...{ users: clients.users, sender: smtpSender(smtpUrl) },
    }),
    ...quotaRequestWorkers({
      ...{ db, nats, logger, from, admins: to, baseUrl: config.PUBLIC_BASE_URL },
      ...{ users: clients.users, sender: smtpSender(smtpUrl) },
    }),
    // DOI_PROVIDER=datacite: DOIs are registered at DataCite by consumers of the outbox events.
    ...(config.DOI_PROVIDER === 'datacite' ? dataciteWorkers({ db, nats, logger, sync: doiSync(d) }) : []),
  ];
}

function doiSync({ config, logger, db, parts, clients }: WorkersDeps): DoiSync {
  return new DoiSync({
    db,
    index: parts.index,
    client: new DataCiteClient({
      url: config.DATACITE_URL,
      username: config.DATACITE_USERNAME,
      password: config.DATACITE_PASSWORD,
      timeoutMs: config.DATACITE_TIMEOUT_MS,
    }),
    props: new VocabPropsCache(clients.vocabularies, { logger }),
    baseUrl: config.PUBLIC_BASE_URL,
    siteName: config.SITE_NAME,
    doiResolverUrl: config.DOI_RESOLVER_URL,
    logger,
  });
}

/** The records index on a search engine, as the platform's start-up and `reindex` command build it. */
const recordsIndex = (engine: SearchEngine, db: Knex, logger: Logger, prefix?: string) => new EngineIndexer({ db, engine, logger, prefix });

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the engine indexer (its index created when missing; an
 * engine that is down is retried on the next write), its durable indexer and a closer; postgres
 * (default): undefined.
 */
export async function recordsSearchEngine(config: RecordsConfig, db: Knex, logger: Logger) {
  const opened = await openServiceIndexes(config, db, logger, [recordsIndex]);
  return opened && { engineIndex: opened.indexes[0], indexers: opened.indexers, close: opened.close };
}

/** `tsx src/main.ts reindex`: rebuild the records index from `search_docs` and swap the alias. */
export const reindexRecords = reindexCommand([recordsIndex]);
