/**
 * The pieces of the communities service that main.ts assembles: logo storage from the
 * configuration, the optional search indices (communities, member lists), the RPC clients and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own storage and index).
 */
import {
  createObjectStorage,
  type IndexerHandle,
  type Knex,
  type Logger,
  type NatsHandle,
  type ObjectStorage,
  openServiceIndexes,
  reindexCommand,
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
  const opened = await openServiceIndexes(config, db, logger, [CommunitySearchIndex, MemberSearchIndex]);
  if (!opened) return undefined;
  const [search, memberSearch] = opened.indexes;
  return { search, memberSearch, indexers: (nats) => opened.indexers(nats, logger), close: opened.close };
}

/** `tsx src/main.ts reindex`: rebuild the communities and member-lists indices from PostgreSQL and swap their aliases. */
export const reindexCommunities = reindexCommand([CommunitySearchIndex, MemberSearchIndex]);

/** The NATS clients of the other services communities calls (users, vocabularies, requests, records' usage totals). */
export function communitiesClients(nc: NatsHandle['nc'], timeoutMs: number) {
  return {
    users: new RpcUsersClient(nc, timeoutMs),
    vocabularies: new RpcVocabulariesClient(nc, timeoutMs),
    requests: new RpcRequestsClient(nc, timeoutMs),
    usage: new RpcRecordsUsageClient(nc, timeoutMs),
  };
}
