/** Barrel of the search engine port: types, the DSL builder, index analysis helpers and the engine factory. */
export * from './port.js';
export { type Dsl, buildFilter, buildQuery, buildSearchBody, buildSort, REGEX_MAX_DETERMINIZED_STATES } from './dsl.js';
export {
  baseIndexSettings,
  dateField,
  fullTextField,
  keywordField,
  longField,
  mapping,
  nanosField,
  searchTextOf,
  storedObject,
  textField,
} from './analysis.js';
export { isEngineDown, isSearchTimeout, searchUnavailable } from './engine.js';
export type { EngineOptions } from './options.js';
export { type SearchConfig, createEngine, createSearchEngine, engineOptions } from './factory.js';
export { type AggregateRef, type IndexerHandle, type IndexerOptions, runSearchIndexer } from './indexer.js';
