/**
 * The pieces of the vocabularies service that main.ts assembles: fixture loading after `migrate`,
 * the optional search engine index of the large vocabularies and the `reindex` command.
 *
 * When to use: only from main.ts (tests build their own index).
 */
import { createSearchEngine, type Knex, type Logger } from '@rdm/platform';
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
 * is retried on the next write) and a closer; postgres (default): undefined, SQL serves searches.
 */
export async function vocabulariesSearch(
  config: Config,
  db: Knex,
  logger: Logger,
): Promise<{ search: VocabularySearchIndex; close: () => Promise<void> } | undefined> {
  const engine = await createSearchEngine(config);
  if (!engine) return undefined;
  const search = new VocabularySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX);
  await search.ensureIndex().catch((err) => logger.warn({ err }, 'search index not ensured yet (engine down?); retried on the next write'));
  return { search, close: () => engine.close() };
}

/** `tsx src/main.ts reindex`: rebuild the entries index from PostgreSQL and swap the alias. */
export async function reindexVocabularies({ config, db, logger }: { config: Config; db: Knex; logger: Logger }): Promise<void> {
  const engine = await createSearchEngine(config);
  if (!engine) {
    logger.info('SEARCH_ENGINE=postgres: search documents live in PostgreSQL, nothing to reindex');
    return;
  }
  const t0 = performance.now();
  const res = await new VocabularySearchIndex(engine, db, logger, config.SEARCH_INDEX_PREFIX).reindex();
  const seconds = (performance.now() - t0) / 1000;
  logger.info(
    { ...res, seconds: Number(seconds.toFixed(2)), docsPerSecond: Math.round(res.count / seconds) },
    'vocabularies index rebuilt and swapped',
  );
  await engine.close();
}
