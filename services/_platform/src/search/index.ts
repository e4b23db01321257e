/** Barrel of the shared search module: the `q` parser, its AST, the postgres compiler and the engine port (OpenSearch/Elasticsearch). */
export * from './ast.js';
export { MAX_COSTLY_TERMS, MAX_QUERY_DEPTH, MAX_QUERY_LENGTH, type ParseOptions, parseQuery, parseQueryLenient } from './parser.js';
export { MAX_REGEX_LENGTH, MAX_REGEX_QUANTIFIERS, MAX_REGEX_REPEAT_TOTAL } from './regex.js';
export { foldText, searchVectorSql } from './fold.js';
export { luceneRegexToPostgres } from './regex.js';
export {
  type CompileOptions,
  type DateFieldSpec,
  type FieldMap,
  type FieldSpec,
  type FullTextTarget,
  type JsonbContainment,
  type KeywordArrayFieldSpec,
  type KeywordFieldSpec,
  type NumberFieldSpec,
  type SqlFragment,
  type TextFieldSpec,
  compileToSql,
  containmentDoc,
  parseDatePeriod,
  rankSql,
  wildcardToLike,
} from './sql.js';
export * from './engine/index.js';
export {
  clientClosedRequest,
  DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS,
  type OnSearch,
  type Runnable,
  type SearchReadOptions,
  searchQuery,
  searchRead,
  searchStatementTimeout,
  searchTooLong,
  setSearchStatementTimeout,
} from './pg-read.js';
export { type SearchField, type SearchFields, engineFields, sqlFields } from './search-fields.js';
export {
  defineServiceIndex,
  type GoneDoc,
  inHitOrder,
  openServiceIndexes,
  queryFilters,
  reindexCommand,
  ServiceIndex,
  type ServiceIndexClass,
  type ServiceIndexConfig,
  type ServiceIndexSpec,
  type OwnedIndex,
} from './service-index.js';
