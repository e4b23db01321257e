/**
 * The pieces of the requests service that main.ts assembles: the communities client, the optional
 * search index with its indexer, and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own client and index).
 */
import { createSearchEngine, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
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
  const engine = await createSearchEngine(config);
  if (!engine) return { search: undefined, consumers: [], closers: [] };
  const search = new RequestSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX);
  await search.ensureIndex().catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
  return { search, consumers: [search.startIndexer(nats, logger)], closers: [() => engine.close()] };
}

/** `tsx src/main.ts reindex`: rebuild the requests index from PostgreSQL and swap the alias. */
export async function reindexRequests({ config, db, logger }: { config: RequestsConfig; db: Knex; logger: Logger }): Promise<void> {
  const engine = await createSearchEngine(config);
  if (!engine) {
    logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
    return;
  }
  const res = await new RequestSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
  logger.info(res, 'requests index rebuilt and swapped');
  await engine.close();
}
