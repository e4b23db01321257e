/**
 * The pieces of the users service that main.ts (and the CLI) assemble: the optional search index
 * with its indexer, and the `reindex` command.
 *
 * When to use: only from main.ts and cli.ts (tests build their own index).
 */
import { type Knex, type Logger, openServiceIndexes, reindexCommand } from '@rdm/platform';
import type { UsersConfig } from './config.js';
import { UserSearchIndex } from './search/user-index.js';

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the index (created when missing; an engine that is down
 * is retried on the next write), its indexer and the engine's closer; postgres (default): no
 * index, the SQL path serves searches.
 */
export async function usersSearch(config: UsersConfig, db: Knex, logger: Logger) {
  const opened = await openServiceIndexes(config, db, logger, [UserSearchIndex]);
  return { index: opened?.indexes[0], indexers: opened?.indexers ?? (() => []), closers: opened ? [opened.close] : [] };
}

/** `tsx src/main.ts reindex`: rebuild the users index from PostgreSQL and swap the alias. */
export const reindexUsers = reindexCommand([UserSearchIndex]);
