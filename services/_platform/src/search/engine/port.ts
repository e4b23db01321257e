/**
 * The search port: what a service needs from a search engine (OpenSearch, Elasticsearch) to keep an
 * index of its entities and answer searches with the shared `q` AST. Use it through
 * `createSearchEngine(config)`; services whose `SEARCH_ENGINE` is `postgres` keep their SQL path
 * (`compileToSql`) and never build one.
 *
 * Consistency: every document carries an external version (the entity's `revision_id`); an index or
 * delete with a version not above the stored one is ignored, so a late event never overwrites a
 * newer document. Index names are versioned (`<alias>-v<N>`) behind an alias; `reindex` builds a new
 * version and swaps the alias atomically.
 */
import type { QueryAst } from '../ast.js';

/** How one query field is searched in the index (the DSL counterpart of the SQL `FieldSpec`). */
export interface DslFieldSpec {
  kind: 'text' | 'keyword' | 'keyword_array' | 'date' | 'number';
  /** Document path of the field in the index. */
  path: string;
  /** keyword: compare case-sensitively. Default false (the mapping should use the `lowercase` normalizer). */
  caseSensitive?: boolean;
  /** date: path of the inclusive range end (a document interval matched by intersection). */
  endPath?: string;
  /** date: `date` compares whole days (as the SQL `type: 'date'`). Default `timestamptz`. */
  type?: 'timestamptz' | 'date';
  /**
   * Only for the service's own filters (`SearchRequest.filters`/`postFilters`, `guard`): a user's
   * `q` can neither name it nor reach it through a field glob (permission data such as owners and
   * grants stays unsearchable).
   */
  filterOnly?: boolean;
  /**
   * A condition (on `filterOnly` or other fields) every clause on this field is ANDed with: the
   * field "does not exist" on documents outside it, also under NOT (as a SQL expression that is
   * NULL there). Used for data only some callers may search (file names of restricted files).
   */
  guard?: QueryAst;
}

/** Query field name → spec, or → another field name (an alias). */
export type DslFieldMap = Readonly<Record<string, DslFieldSpec | string>>;

/** Options of the DSL builder. */
export interface DslOptions {
  /** Path of the full-text field unfielded terms search (default `search_text`), unless `defaultFields` is set. */
  fullTextPath?: string;
  /** Unfielded terms are OR-ed over these field names instead of the full-text field. */
  defaultFields?: readonly string[];
  /** Clock for `now` in date values (tests). */
  now?: Date;
}

/** A document to write: its id, external version (revision id) and source. */
export interface IndexDoc {
  id: string;
  version: number;
  source: Record<string, unknown>;
  /** A tombstone (reindex sources only): delete the document with this version instead. */
  deleted?: boolean;
}

/** One bulk operation. */
export type BulkOp = ({ op: 'index' } & IndexDoc) | { op: 'delete'; id: string; version: number };

/** Refresh policy of a write: `wait_for` on the writer's path (read-your-writes), `false` for bulk indexing. */
export type RefreshPolicy = false | 'wait_for' | true;

/** Outcome of a bulk call: counts, and the ids skipped because a newer version is stored. */
export interface BulkResult {
  written: number;
  /** Operations ignored as stale (external version not above the stored one). */
  stale: number;
  /** Operations that failed for another reason (with the engine's reason). */
  failed: Array<{ id: string; status: number; reason: string }>;
}

/** The definition of one index the service owns, kept in the repo. */
export interface IndexDefinition {
  /** The alias every read and write goes through, e.g. `communities-communities`. */
  alias: string;
  /** Current version of the mapping: the index is named `<alias>-v<version>`. */
  version: number;
  /** Mappings (`properties`, `dynamic`, …). */
  mappings: Record<string, unknown>;
  /** Extra index settings merged over the shared analysis (`baseIndexSettings`). */
  settings?: Record<string, unknown>;
}

/** Batches of documents from the database: all of them, or those changed since `since`. */
export type ReindexSource = (since?: Date) => AsyncIterable<IndexDoc[]>;

/** A terms aggregation (facet), optionally with sub-aggregations; buckets ordered by count desc, key asc. */
export interface TermsAgg {
  type: 'terms';
  /** Document path (a keyword field). */
  path: string;
  size?: number;
  /** Only documents matching this filter are counted. */
  filter?: QueryAst;
  aggs?: Record<string, AggSpec>;
  /** A nested aggregation: `path` lies inside this nested object path. */
  nested?: string;
}

/** A date histogram by year (InvenioRDM's `publication_date` facet shape). */
export interface YearHistogramAgg {
  type: 'year_histogram';
  path: string;
  filter?: QueryAst;
}

/** An aggregation. */
export type AggSpec = TermsAgg | YearHistogramAgg;

/** A facet bucket. */
export interface AggBucket {
  key: string;
  count: number;
  /** Sub-aggregations' buckets. */
  aggs?: Record<string, AggBucket[]>;
}

/** A sort key; `_score` = relevance. `missing` defaults to `_last`. */
export interface SortKey {
  path: string | '_score';
  order: 'asc' | 'desc';
}

/** A search request in engine-neutral terms. */
export interface SearchRequest {
  /** The `q` AST (`{type:'all'}` when empty). */
  query: QueryAst;
  fields: DslFieldMap;
  dsl?: DslOptions;
  /** Filters on hits and aggregations (permissions, scope): ASTs on keyword/date fields of `fields`. */
  filters?: QueryAst[];
  /** Filters on hits only (facet selections): InvenioRDM's post_filter semantics. */
  postFilters?: QueryAst[];
  sort: SortKey[];
  from: number;
  size: number;
  aggs?: Record<string, AggSpec>;
  /** Source paths to return (default: the whole source). */
  sourceIncludes?: string[];
  /**
   * Count every hit (default true). False when the caller knows the total already: the engine may
   * then skip hits that cannot reach the page (a sort on a date or number), and `total` is only the
   * number of hits returned.
   */
  trackTotalHits?: boolean;
  /**
   * Extra score for hits matching a filter (e.g. an exact acronym match first); scores only, never
   * filters. Weights add up, over the query's relevance.
   */
  boosts?: Array<{ filter: QueryAst; weight: number }>;
}

/** A hit. */
export interface SearchHit {
  id: string;
  score: number | null;
  source: Record<string, unknown>;
}

/** A search answer. */
export interface SearchResult {
  /** Exact number of matches (with `trackTotalHits: false`: the hits returned). */
  total: number;
  hits: SearchHit[];
  aggregations: Record<string, AggBucket[]>;
}

/** The search port. Implementations: `OpenSearchEngine`, `ElasticsearchEngine`. */
export interface SearchEngine {
  /** `opensearch` or `elasticsearch`. */
  readonly kind: 'opensearch' | 'elasticsearch';
  /** Creates `<alias>-v<version>` with its mappings and points the alias at it, when missing. */
  ensureIndex(def: IndexDefinition): Promise<void>;
  /** Indexes one document with external versioning; `false` when a newer version is stored. */
  index(alias: string, doc: IndexDoc, opts?: { refresh?: RefreshPolicy }): Promise<boolean>;
  /** Deletes a document (external version); missing or newer counts as done. */
  delete(alias: string, id: string, version: number, opts?: { refresh?: RefreshPolicy }): Promise<void>;
  /** Writes many operations in one request. */
  bulk(alias: string, ops: BulkOp[], opts?: { refresh?: RefreshPolicy }): Promise<BulkResult>;
  /** Runs a search through the alias. Throws `QuerySyntaxError` on a value a field rejects. */
  search(alias: string, req: SearchRequest): Promise<SearchResult>;
  /** Makes every write so far visible to searches. */
  refresh(alias: string): Promise<void>;
  /**
   * Builds `<alias>-v<version>-<timestamp>` from `source()` (batches of documents), catches up with
   * `source(start)` (documents changed since the build started), swaps the alias to it atomically,
   * catches up once more and deletes the old index. Searches keep answering from the old index
   * meanwhile; external versions make the catch-up passes idempotent.
   */
  reindex(def: IndexDefinition, source: ReindexSource): Promise<{ index: string; count: number }>;
  /** Deletes the alias and every index behind it (tests). */
  dropIndex(alias: string): Promise<void>;
  /** True when the cluster answers (for `/readyz`). */
  ping(): Promise<boolean>;
  /** Closes connections. */
  close(): Promise<void>;
}
