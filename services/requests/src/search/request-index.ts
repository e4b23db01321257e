/**
 * Requests on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the index
 * this service owns (`requests-requests-v1` behind the alias `requests-requests`), its documents, the
 * search that mirrors `repo.searchRequests` (same q fields, scopes, filters, facets and sorts).
 * Inline indexing after commit, the outbox-driven indexer and `reindex` are the platform's
 * (`defineServiceIndex`).
 *
 * Permissions: who may see which request is resolved at query time, as on postgres: the caller's
 * community roles (from the communities service, per request type) become filters on the creator /
 * receiver references of the documents, so membership changes never touch the index. Hits are loaded
 * from PostgreSQL by id in the engine's order: responses are never staler than the database.
 *
 * Versions: `index_version` (it rises with every change of the row, comment activity included), so a
 * late event never overwrites a newer document. Timestamps are indexed as `date_nanos` with the
 * database's microseconds, so date sorts order exactly as SQL does.
 */
import type { IndexDoc, Knex, QueryAst, SearchEngine, SortKey } from '@rdm/platform';
import { defineServiceIndex, engineFields, inHitOrder, mapping, queryFilters, searchTextOf } from '@rdm/platform';
import type { Ref } from '../domain/model.js';
import { encodeNumber } from '../domain/number.js';
import {
  findRequests,
  type IndexRow,
  REQUEST_FIELDS,
  type RequestSearch,
  requestsForIndex,
  type SearchScope,
} from '../repo/requests.repo.js';

/**
 * The `q` fields of `REQUEST_FIELDS` on the index, and the `scope.*` names: the reference filters of
 * permissions and `created_by=`/`receiver=`/`topic=` (exact `type:id` values).
 */
export const REQUEST_DSL_FIELDS = engineFields({
  ...REQUEST_FIELDS,
  'scope.created_by': { kind: 'keyword', path: 'created_by_ref', caseSensitive: true, filterOnly: true },
  'scope.receiver': { kind: 'keyword', path: 'receiver_ref', caseSensitive: true, filterOnly: true },
  'scope.topic': { kind: 'keyword', path: 'topic_ref', caseSensitive: true, filterOnly: true },
  'scope.type': { kind: 'keyword', path: 'type', caseSensitive: true, filterOnly: true },
  'scope.status': { kind: 'keyword', path: 'status', caseSensitive: true, filterOnly: true },
});

const refOf = (type: string | null, id: string | null) => (type && id !== null ? `${type}:${id}` : null);

/** The index document of a request (version = `index_version`). */
export function requestDoc(r: IndexRow): IndexDoc {
  const when = (t: string | null, kind: string, id: string | null) => (t === kind ? id : null);
  return {
    id: r.id,
    version: r.index_version,
    source: {
      id: r.id,
      number: r.number,
      type: r.type,
      status: r.shown_status,
      is_open: String(r.shown_status === 'submitted'),
      title: r.title ?? '',
      description: r.description ?? '',
      created_by_ref: refOf(r.created_by_type, r.created_by_id),
      receiver_ref: refOf(r.receiver_type, r.receiver_id),
      topic_ref: refOf(r.topic_type, r.topic_id),
      created_by_user: when(r.created_by_type, 'user', r.created_by_id),
      created_by_community: when(r.created_by_type, 'community', r.created_by_id),
      receiver_user: when(r.receiver_type, 'user', r.receiver_id),
      receiver_community: when(r.receiver_type, 'community', r.receiver_id),
      topic_record: when(r.topic_type, 'record', r.topic_id),
      topic_community: when(r.topic_type, 'community', r.topic_id),
      expires_at: r.expires_at,
      created: r.created,
      updated: r.updated,
      last_activity_at: r.last_activity_at,
      // The texts of the postgres search vector (requests.repo `searchVector`).
      search_text: searchTextOf([r.title, r.description ?? '', encodeNumber(r.number)]),
    },
  };
}

const SORT_PATHS: Record<string, [string, 'asc' | 'desc']> = {
  newest: ['created', 'desc'],
  oldest: ['created', 'asc'],
  newestactivity: ['last_activity_at', 'desc'],
  oldestactivity: ['last_activity_at', 'asc'],
  bestmatch: ['created', 'desc'],
};

/** The sort of `repo.searchRequests`: relevance first for bestmatch with a query, then the date, then the number. */
function sortOf(sort: string, hasQuery: boolean): SortKey[] {
  const [path, order] = SORT_PATHS[sort] ?? SORT_PATHS.newest;
  const keys: SortKey[] = [
    { path, order },
    { path: 'number', order },
  ];
  return sort === 'bestmatch' && hasQuery ? [{ path: '_score', order: 'desc' }, ...keys] : keys;
}

const { term, anyOf, and, or, not } = queryFilters;
const refs = (field: string, rs: Ref[]) =>
  anyOf(
    field,
    rs.map((r) => `${r.type}:${r.id}`),
  );

/** The scope of `repo.searchRequests` (`applyScope`) as filters. */
function scopeFilters(scope: SearchScope): QueryAst[] {
  const live = not(term('scope.status', 'deleted'));
  const notCreated = not(term('scope.status', 'created'));
  switch (scope.kind) {
    case 'all':
      return [live];
    case 'user': {
      const me = `user:${scope.userId}`;
      return [live, notCreated, or(term('scope.created_by', me), term('scope.receiver', me))];
    }
    case 'community': {
      const f = [live, notCreated, term('scope.receiver', `community:${scope.communityId}`)];
      if (scope.excludeTypes.length) f.push(not(anyOf('scope.type', scope.excludeTypes)));
      return f;
    }
    case 'readable': {
      const me = `user:${scope.userId}`;
      const community = (ids: string[]) => ids.map((id) => `community:${id}`);
      const created = scope.grants
        .filter((g) => g.creatorCommunities.length)
        .map((g) => and(term('scope.type', g.type), anyOf('scope.created_by', community(g.creatorCommunities))));
      const received = scope.grants
        .filter((g) => g.receiverCommunities.length)
        .map((g) => and(term('scope.type', g.type), anyOf('scope.receiver', community(g.receiverCommunities))));
      return [live, or(term('scope.created_by', me), ...created, and(notCreated, or(term('scope.receiver', me), ...received)))];
    }
  }
}

/** Options of the engine search: `repo.RequestSearch` with the parsed `q` instead of SQL. */
export type EngineRequestSearch = Omit<RequestSearch, 'where' | 'rank'> & { ast?: QueryAst };

/** `repo.searchRequests` on a search engine: same hits, totals and type/status counts. */
export async function searchRequestsOnEngine(engine: SearchEngine, alias: string, db: Knex, s: EngineRequestSearch) {
  const filters = scopeFilters(s.scope);
  if (s.filters.is_open !== undefined) {
    const open = term('scope.status', 'submitted');
    filters.push(s.filters.is_open ? open : not(open));
  }
  if (s.filters.created_by) filters.push(refs('scope.created_by', s.filters.created_by));
  if (s.filters.receiver) filters.push(refs('scope.receiver', s.filters.receiver));
  if (s.filters.topic) filters.push(refs('scope.topic', s.filters.topic));
  if (s.topics) filters.push(refs('scope.topic', s.topics));
  // InvenioRDM's post_filter: the facet selections narrow the hits, never the counts.
  const postFilters: QueryAst[] = [];
  if (s.facets.type.length) postFilters.push(anyOf('scope.type', s.facets.type));
  if (s.facets.status.length) postFilters.push(anyOf('scope.status', s.facets.status));
  const res = await engine.search(alias, {
    query: s.ast ?? { type: 'all' },
    fields: REQUEST_DSL_FIELDS,
    filters,
    postFilters,
    sort: sortOf(s.sort, !!s.ast),
    from: s.offset,
    size: s.limit,
    sourceIncludes: ['id'],
    aggs: { type: { type: 'terms', path: 'type' }, status: { type: 'terms', path: 'status' } },
  });
  const ids = res.hits.map((h) => h.id);
  const counts = (name: string) => new Map((res.aggregations[name] ?? []).map((b) => [b.key, b.count]));
  return {
    hits: inHitOrder(ids, await findRequests(db, ids), (r) => r.id),
    total: res.total,
    counts: { type: counts('type'), status: counts('status') },
  };
}

/** The requests index: inline writes after commit (read-your-writes), the outbox indexer, reindex, and the search. */
export class RequestSearchIndex extends defineServiceIndex<IndexRow>({
  index: {
    alias: 'requests-requests',
    version: 1,
    mappings: {
      dynamic: 'strict',
      properties: {
        id: mapping.keyword(),
        number: mapping.long(),
        type: mapping.keyword(),
        status: mapping.keyword(),
        is_open: mapping.keyword(),
        title: mapping.text({ suggest: true }),
        description: mapping.text(),
        created_by_ref: mapping.keyword(),
        receiver_ref: mapping.keyword(),
        topic_ref: mapping.keyword(),
        created_by_user: mapping.keyword(),
        created_by_community: mapping.keyword(),
        receiver_user: mapping.keyword(),
        receiver_community: mapping.keyword(),
        topic_record: mapping.keyword(),
        topic_community: mapping.keyword(),
        expires_at: mapping.nanos(),
        created: mapping.nanos(),
        updated: mapping.nanos(),
        last_activity_at: mapping.nanos(),
        search_text: mapping.fullText(),
      },
    },
  },
  doc: requestDoc,
  key: /^[0-9a-f-]{36}$/i,
  // Deleted requests stay (searches filter them); a row gone from the database (never happens
  // today: deletes are soft) is removed for good.
  rows: (db, ids) => requestsForIndex(db, { ids }),
  indexer: { stream: 'REQUESTS', durable: 'requests-search-indexer', filterSubject: 'rdm.requests.request.*' },
  reindex: { pages: [(db, { since, after, limit }) => requestsForIndex(db, { since, afterNumber: after?.number, limit })] },
}) {
  /** `repo.searchRequests` on the engine. */
  search(s: EngineRequestSearch) {
    return this.searching(() => searchRequestsOnEngine(this.engine, this.def.alias, this.db, s));
  }
}
