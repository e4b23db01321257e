/**
 * The pieces of the vocabularies service that main.ts assembles: fixture loading after `migrate`,
 * the optional search engine index of the large vocabularies and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own index).
 */
import { type Knex, type Logger, openServiceIndexes, reindexCommand } from '@rdm/platform';
import type { Config } from './config.js';
import { readFixtures } from './domain/fixtures.js';
import { loadVocabularies } from './domain/loader.service.js';
import { VocabularySearchIndex } from './search/entry-index.js';

/** `migrate`: load the shipped fixtures (idempotently) unless LOAD_FIXTURES=false. */
export async function loadFixtures(db: Knex, config: Config, logger: Logger): Promise<void> {
  if (!config.LOAD_FIXTURES) return;
  const { vocabularies, problems } = readFixtures();
  for (const p of problems) logger.warn(p, 'fixture row skipped');
  for (const r of await loadVocabularies(db, vocabularies)) logger.info(r, 'vocabulary loaded');
}

/**
 * SEARCH_ENGINE=opensearch|elasticsearch: the index (created when missing; an engine that is down
 * is retried on the next write), its indexer and a closer; postgres (default): undefined, SQL
 * serves searches.
 */
export async function vocabulariesSearch(config: Config, db: Knex, logger: Logger) {
  const opened = await openServiceIndexes(config, db, logger, [VocabularySearchIndex]);
  return opened && { search: opened.indexes[0], indexers: opened.indexers, close: opened.close };
}

/** `tsx src/main.ts reindex`: rebuild the entries index from PostgreSQL and swap the alias. */
export const reindexVocabularies = reindexCommand([VocabularySearchIndex]);
