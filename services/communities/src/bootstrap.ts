/**
 * The pieces of the communities service that main.ts assembles: logo storage from the
 * configuration, the optional search indices (communities, member lists), the RPC clients and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own storage and index).
 */
import {
  createObjectStorage,
  createSearchEngine,
  type IndexerHandle,
  type Knex,
  type Logger,
  type NatsHandle,
  type ObjectStorage,
} from '@rdm/platform';
import type { CommunitiesConfig } from './config.js';
import { RpcRecordsUsageClient, RpcRequestsClient, RpcUsersClient, RpcVocabulariesClient } from './rpc/clients.js';
import { CommunitySearchIndex } from './search/community-index.js';
import { MemberSearchIndex } from './search/member-index.js';

/** The logo storage (`COMMUNITIES_STORAGE`: local folder or S3), initialised. */
export async function communitiesStorage(config: CommunitiesConfig): Promise<ObjectStorage> {
  const storage = await createObjectStorage({
    engine: config.COMMUNITIES_STORAGE === 's3' ? 's3' : 'local',
    path: config.COMMUNITIES_STORAGE_PATH,
    s3: {
      endpoint: config.S3_ENDPOINT,
      accessKey: config.S3_ACCESS_KEY,
      secretKey: config.S3_SECRET_KEY,
      bucket: config.COMMUNITIES_S3_BUCKET,
      region: config.S3_REGION,
      partSize: 5 * 1024 * 1024,
    },
  });
  await storage.init();
  return storage;
}

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the communities and member-lists indices (created when
 * missing; an engine that is down is retried on the next write), their durable indexers and a closer;
 * postgres (default): undefined, the SQL path serves searches.
 */
export async function communitiesSearch(
  config: CommunitiesConfig,
  db: Knex,
  logger: Logger,
): Promise<
  | {
      search: CommunitySearchIndex;
      memberSearch: MemberSearchIndex;
      indexers: (nats: NatsHandle) => IndexerHandle[];
      close: () => Promise<void>;
    }
  | undefined
> {
  const engine = await createSearchEngine(config);
  if (!engine) return undefined;
  const search = new CommunitySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX);
  const memberSearch = new MemberSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX);
  for (const index of [search, memberSearch]) {
    await index
      .ensureIndex()
      .catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
  }
  return {
    search,
    memberSearch,
    indexers: (nats) => [search.startIndexer(nats, logger), memberSearch.startIndexer(nats, logger)],
    close: () => engine.close(),
  };
}

/** `tsx src/main.ts reindex`: rebuild the communities and member-lists indices from PostgreSQL and swap their aliases. */
export async function reindexCommunities({ config, db, logger }: { config: CommunitiesConfig; db: Knex; logger: Logger }): Promise<void> {
  const engine = await createSearchEngine(config);
  if (!engine) {
    logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
    return;
  }
  try {
    const communities = await new CommunitySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
    logger.info(communities, 'communities index rebuilt and swapped');
    const members = await new MemberSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
    logger.info(members, 'member-lists index rebuilt and swapped');
  } finally {
    await engine.close();
  }
}

/** The NATS clients of the other services communities calls (users, vocabularies, requests, records' usage totals). */
export function communitiesClients(nc: NatsHandle['nc'], timeoutMs: number) {
  return {
    users: new RpcUsersClient(nc, timeoutMs),
    vocabularies: new RpcVocabulariesClient(nc, timeoutMs),
    requests: new RpcRequestsClient(nc, timeoutMs),
    usage: new RpcRecordsUsageClient(nc, timeoutMs),
  };
}
