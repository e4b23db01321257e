/**
 * The pieces of the users service that main.ts (and the CLI) assemble: the optional search index
 * with its indexer, and the `reindex` command.
 *
 * When to use: only from main.ts and cli.ts (tests build their own index).
 */
import { createSearchEngine, type Knex, type Logger, type NatsHandle } from '@rdm/platform';
import type { UsersConfig } from './config.js';
import { UserSearchIndex } from './search/user-index.js';

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the index (created when missing; an engine that is down
 * is retried on the next write) and the engine's closer; postgres (default): no index, the SQL
 * path serves searches.
 */
export async function usersSearch(config: UsersConfig, db: Knex, logger: Pick<Logger, 'warn'>) {
  const engine = await createSearchEngine(config);
  if (!engine) return { index: undefined, closers: [] };
  const index = new UserSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX);
  await index.ensureIndex().catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
  return { index, closers: [() => engine.close()] };
}

/** The durable indexer of the users index (none on postgres). */
export function usersIndexers(index: UserSearchIndex | undefined, nats: NatsHandle, logger: Logger) {
  return index ? [index.startIndexer(nats, logger)] : [];
}

/** `tsx src/main.ts reindex`: rebuild the users index from PostgreSQL and swap the alias. */
export async function reindexUsers({ config, db, logger }: { config: UsersConfig; db: Knex; logger: Logger }): Promise<void> {
  const engine = await createSearchEngine(config);
  if (!engine) {
    logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
    return;
  }
  const res = await new UserSearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
  logger.info(res, 'users index rebuilt and swapped');
  await engine.close();
}
