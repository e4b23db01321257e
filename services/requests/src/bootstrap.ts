/**
 * The pieces of the requests service that main.ts assembles: the communities client, the optional
 * search index with its indexer, and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own client and index).
 */
import { type Knex, type Logger, type NatsHandle, openServiceIndexes, reindexCommand } from '@rdm/platform';
import type { RequestsConfig } from './config.js';
import { NatsCommunitiesClient } from './rpc/communities.client.js';
import { RequestSearchIndex } from './search/request-index.js';

/** The communities client (roles and summaries, cached), started. */
export async function communitiesClient(config: RequestsConfig, nc: NatsHandle['nc'], logger: Logger): Promise<NatsCommunitiesClient> {
  const communities = new NatsCommunitiesClient(nc, { ttlMs: config.COMMUNITIES_CACHE_TTL_MS, timeoutMs: config.RPC_TIMEOUT_MS, logger });
  await communities.start();
  return communities;
}

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the index (created when missing; an engine that is down
 * is retried on the next write), its durable indexer (a consumer) and the engine's closer;
 * postgres (default): no index, the SQL path serves searches.
 */
export async function requestsSearch(config: RequestsConfig, db: Knex, nats: NatsHandle, logger: Logger) {
  const opened = await openServiceIndexes(config, db, logger, [RequestSearchIndex]);
  if (!opened) return { search: undefined, consumers: [], closers: [] };
  return { search: opened.indexes[0], consumers: opened.indexers(nats, logger), closers: [opened.close] };
}

/** `tsx src/main.ts reindex`: rebuild the requests index from PostgreSQL and swap the alias. */
export const reindexRequests = reindexCommand([RequestSearchIndex]);
