/**
 * The search index of records: one interface, one implementation per engine, picked by
 * `SEARCH_ENGINE`. `postgres` (pg-indexer.ts: `search_docs` with a tsvector and GIN indexes,
 * the default) and `opensearch`/`elasticsearch` (engine-index.ts: `search_docs` stays the source of
 * every document, written in the transaction; the engine's index is fed from the outbox and
 * answers the searches) give the same answers (the differential suite checks it).
 *
 * When to use: the records domain writes through the `SearchIndexPort` half (domain/ports.ts),
 * inside the transaction of each change; the search service reads through `search`. Nothing
 * else touches the index: its SQL lives in search.repo.ts only. A new searchable field: its text
 * in search-doc.ts (`searchTexts`) when unfielded search should find it, its `q` name and SQL in
 * fields.ts (`RECORD_SEARCH_FIELDS`), its engine twin in engine-fields.ts.
 */
import type { Identity } from '@rdm/platform';
import type { SearchIndexPort } from '../domain/ports.js';
import type { ItemDoc } from '../model/rows.js';
import type { FacetFilters } from './facet-params.js';

/** Which documents a search may return (each engine turns it into its own filter). */
export type ScopeSpec =
  /** `/api/records` and `/api/communities/<id>/records`: published, readable records. */
  | {
      kind: 'published';
      identity: Identity;
      allVersions: boolean;
      communityId?: string;
      member?: boolean;
      /** Communities the caller is a member of (they read those communities' restricted records). */
      memberOf?: readonly string[];
    }
  /** `/api/user/records`: the caller's drafts and records (`sharedWithMe`: through grants). */
  | { kind: 'user'; identity: Identity; allVersions: boolean; sharedWithMe?: boolean };

/** An engine-neutral search: scope, raw `q`, facet filters (post-filters), sort and page. */
export interface SearchPlan {
  scope: ScopeSpec;
  q: string;
  filters: FacetFilters;
  /** One of `RECORD_SORTS` (search.service.ts). */
  sort: string;
  limit: number;
  offset: number;
  /** Whether the `is_published` facet is counted (the caller's records). */
  isPublished?: boolean;
  /** Clock of date math in `q`. */
  now?: Date;
}

/**
 * One row of facet counts, the form every engine returns: `f` names the facet — `a` access
 * status (`k`), `r` resource type (`k` type, `s` subtype), `f` file types (`a` the document's
 * array), `y` publication years (`ys`..`ye`), `p` is_published (`k`) — and `n` counts documents.
 * Rows of several parts of a scope may be concatenated: the renderer sums them.
 */
export interface AggRow {
  f: string;
  k: string | null;
  s: string | null;
  a: string[] | null;
  ys: number | null;
  ye: number | null;
  n: number;
}

/** One hit: the stored document and its kind. */
export interface SearchHit {
  kind: 'draft' | 'record';
  doc: ItemDoc;
}

/** What a search finds: the page, the exact total and the facet counts (facet filters ignored). */
export interface SearchPage {
  hits: SearchHit[];
  total: number;
  rows: AggRow[];
}

/** The search index: the domain's writes plus the reads of search. */
export interface Indexer extends SearchIndexPort {
  /** Run a search (400 on a `q` syntax error). */
  search(plan: SearchPlan): Promise<SearchPage>;
  /** Resource type titles stored in the documents (`metadata.resource_type.title.en`), by id. */
  resourceTypeTitles(ids: string[]): Promise<Map<string, string>>;
}
