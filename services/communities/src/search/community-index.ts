/**
 * Communities on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the
 * index this service owns (`communities-communities-v1` behind the alias `communities-communities`),
 * its documents, the search that mirrors `repo.searchCommunities` (same q fields, scopes, facets and
 * sorts). Inline indexing after commit, the outbox-driven indexer and `reindex` are the platform's
 * (`defineServiceIndex`).
 *
 * Permissions: membership and featured scopes are resolved in PostgreSQL at query time (the caller's
 * community ids, the featured-now ids) and passed as id filters, so member changes never touch the index.
 * Hits are loaded from PostgreSQL by id (in the engine's order): responses are never staler than the
 * database.
 */
import type { IndexDoc, Knex, QueryAst, SearchEngine, SortKey } from '@rdm/platform';
import { defineServiceIndex, engineFields, inHitOrder, mapping, queryFilters, searchTextOf } from '@rdm/platform';
import * as repo from '../repo/communities.repo.js';

/** The `q` fields of `repo.COMMUNITY_SEARCH_FIELDS`, on the index. */
export const COMMUNITY_DSL_FIELDS = engineFields(repo.COMMUNITY_SEARCH_FIELDS);

/** A community row with its insertion sequence (the reindex order). */
type CommunityIndexRow = repo.CommunityRow & { seq: number | string };

/** The index document of a community row (version = revision id). */
export function communityDoc(row: CommunityIndexRow): IndexDoc {
  const md = row.metadata ?? {};
  return {
    id: row.id,
    version: row.revision_id,
    source: {
      id: row.id,
      seq: Number(row.seq),
      slug: row.slug,
      title: row.title,
      // The postgres engine matches the description folded as stored (HTML included).
      description: md.description ?? '',
      type_id: row.type_id,
      type_title: md.type?.title?.en ?? null,
      visibility: row.visibility,
      website: md.website ?? null,
      deletion_status: row.deletion_status,
      created: new Date(row.created).toISOString(),
      updated: new Date(row.updated).toISOString(),
      revision_id: row.revision_id,
      search_text: searchTextOf(repo.searchTexts(row.slug, md)),
      metadata: { type: md.type ?? null },
    },
  };
}

const SORTS: Record<string, SortKey[]> = {
  bestmatch: [
    { path: '_score', order: 'desc' },
    { path: 'created', order: 'desc' },
  ],
  oldest: [
    { path: 'created', order: 'asc' },
    { path: 'seq', order: 'asc' },
  ],
  'updated-desc': [
    { path: 'updated', order: 'desc' },
    { path: 'seq', order: 'desc' },
  ],
  'updated-asc': [
    { path: 'updated', order: 'asc' },
    { path: 'seq', order: 'asc' },
  ],
  newest: [
    { path: 'created', order: 'desc' },
    { path: 'seq', order: 'desc' },
  ],
};

const { term, anyOf } = queryFilters;

/** Options of the engine search (the same as `repo.CommunitySearch`, with the parsed `q`). */
export type EngineCommunitySearch = Omit<repo.CommunitySearch, 'q' | 'rank'> & { ast?: QueryAst };

/** `repo.searchCommunities` on a search engine: same hits, totals and facet counts. */
export async function searchCommunitiesOnEngine(engine: SearchEngine, alias: string, db: Knex, o: EngineCommunitySearch) {
  const filters: QueryAst[] = [term('deletion_status', 'P')];
  if (!o.admin) {
    const mine = o.userId ? await repo.memberCommunityIds(db, o.userId) : [];
    filters.push({ type: 'or', children: [term('access.visibility', 'public'), anyOf('id', mine)] });
  }
  if (o.memberOf) filters.push(anyOf('id', await repo.memberCommunityIds(db, o.memberOf)));
  if (o.featuredNow) filters.push(anyOf('id', await repo.featuredNowIds(db)));
  const postFilters: QueryAst[] = [];
  if (o.filters.type.length) postFilters.push(anyOf('metadata.type.id', o.filters.type));
  if (o.filters.visibility.length) postFilters.push(anyOf('access.visibility', o.filters.visibility));
  const sort = o.sort === 'bestmatch' && !o.ast ? SORTS.newest : (SORTS[o.sort] ?? SORTS.newest);
  const res = await engine.search(alias, {
    query: o.ast ?? { type: 'all' },
    fields: COMMUNITY_DSL_FIELDS,
    filters,
    postFilters,
    sort,
    from: o.from,
    size: o.size,
    sourceIncludes: ['id'],
    aggs: {
      type: { type: 'terms', path: 'type_id', aggs: { label: { type: 'terms', path: 'type_title', size: 1 } } },
      visibility: { type: 'terms', path: 'visibility' },
    },
  });
  const ids = res.hits.map((h) => h.id);
  return {
    rows: inHitOrder(ids, await repo.findCommunities(db, ids), (r) => r.id),
    total: res.total,
    facets: {
      type: (res.aggregations.type ?? []).map((b) => ({ key: b.key, label: b.aggs?.label?.[0]?.key ?? null, count: b.count })),
      visibility: (res.aggregations.visibility ?? []).map((b) => ({ key: b.key, label: null, count: b.count })),
    },
  };
}

/** The communities index: inline writes after commit (read-your-writes), the outbox indexer, reindex, and the search. */
export class CommunitySearchIndex extends defineServiceIndex<CommunityIndexRow>({
  index: {
    alias: 'communities-communities',
    version: 1,
    mappings: {
      dynamic: 'strict',
      properties: {
        id: mapping.keyword(),
        seq: mapping.long(),
        slug: mapping.keyword(),
        title: mapping.text({ suggest: true }),
        description: mapping.text(),
        type_id: mapping.keyword(),
        type_title: mapping.keyword(),
        visibility: mapping.keyword(),
        website: mapping.keyword(),
        deletion_status: mapping.keyword(),
        created: mapping.date(),
        updated: mapping.date(),
        revision_id: mapping.long(),
        search_text: mapping.fullText(),
        metadata: mapping.stored(),
      },
    },
  },
  doc: communityDoc,
  // A community gone from the database (never happens today: deletes are soft) is removed for good.
  rows: (db, ids) => repo.communitiesForIndex(db, { ids }),
  indexer: { stream: 'COMMUNITIES', durable: 'communities-search-indexer', filterSubject: 'rdm.communities.community.*' },
  reindex: {
    pages: [(db, { since, after, limit }) => repo.communitiesForIndex(db, { since, afterSeq: after && Number(after.seq), limit })],
  },
}) {
  /** `repo.searchCommunities` on the engine. */
  search(o: EngineCommunitySearch) {
    return this.searching(() => searchCommunitiesOnEngine(this.engine, this.def.alias, this.db, o));
  }
}
