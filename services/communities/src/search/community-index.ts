/**
 * Communities on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the
 * index this service owns (`communities-communities-v1` behind the alias `communities-communities`),
 * its documents, the search that mirrors `repo.searchCommunities` (same q fields, scopes, facets and
 * sorts), inline indexing after commit, the outbox-driven indexer and the `reindex` command.
 *
 * Permissions: membership and featured scopes are resolved in PostgreSQL at query time (the caller's
 * community ids, the featured-now ids) and passed as id filters, so member changes never touch the index.
 * Hits are loaded from PostgreSQL by id (in the engine's order): responses are never staler than the
 * database.
 */
import {
  type AggregateRef,
  type BulkOp,
  type DslFieldMap,
  Errors,
  type IndexDefinition,
  type IndexDoc,
  type Knex,
  type Logger,
  type NatsHandle,
  type QueryAst,
  QuerySyntaxError,
  type SearchEngine,
  type SortKey,
  dateField,
  fullTextField,
  keywordField,
  longField,
  runSearchIndexer,
  ServiceIndex,
  searchTextOf,
  storedObject,
  textField,
} from '@rdm/platform';
import * as repo from '../repo/communities.repo.js';

/** The communities index: alias, version, mappings. */
export const COMMUNITIES_INDEX: IndexDefinition = {
  alias: 'communities-communities',
  version: 1,
  mappings: {
    dynamic: 'strict',
    properties: {
      id: keywordField(),
      seq: longField(),
      slug: keywordField(),
      title: textField({ suggest: true }),
      description: textField(),
      type_id: keywordField(),
      type_title: keywordField(),
      visibility: keywordField(),
      website: keywordField(),
      deletion_status: keywordField(),
      created: dateField(),
      updated: dateField(),
      revision_id: longField(),
      search_text: fullTextField(),
      metadata: storedObject(),
    },
  },
};

/** The `q` fields of `repo.COMMUNITY_FIELDS`, on the index. */
export const COMMUNITY_DSL_FIELDS: DslFieldMap = {
  id: { kind: 'keyword', path: 'id', caseSensitive: true },
  slug: { kind: 'keyword', path: 'slug' },
  'metadata.title': { kind: 'text', path: 'title' },
  title: 'metadata.title',
  'metadata.description': { kind: 'text', path: 'description' },
  'metadata.type.id': { kind: 'keyword', path: 'type_id' },
  type: 'metadata.type.id',
  'access.visibility': { kind: 'keyword', path: 'visibility' },
  'metadata.website': { kind: 'keyword', path: 'website' },
  created: { kind: 'date', path: 'created' },
  updated: { kind: 'date', path: 'updated' },
  deletion_status: { kind: 'keyword', path: 'deletion_status', caseSensitive: true },
};

/** The index document of a community row (version = revision id). */
export function communityDoc(row: repo.CommunityRow & { seq: number | string }): IndexDoc {
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

const term = (field: string, value: string): QueryAst => ({ type: 'term', field, value, wildcard: false });
const anyOf = (field: string, values: string[]): QueryAst => ({ type: 'or', children: values.map((v) => term(field, v)) });

/** Options of the engine search (the same as `repo.CommunitySearch`, with the parsed `q`). */
export type EngineCommunitySearch = Omit<repo.CommunitySearch, 'q' | 'rank'> & { ast?: QueryAst };

/** The index definition under a name prefix (`SEARCH_INDEX_PREFIX`). */
export function communitiesIndex(prefix = ''): IndexDefinition {
  return { ...COMMUNITIES_INDEX, alias: `${prefix}${COMMUNITIES_INDEX.alias}` };
}

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
  const byId = new Map((await repo.findCommunities(db, ids)).map((r) => [r.id, r]));
  return {
    rows: ids.map((id) => byId.get(id)).filter((r): r is repo.CommunityRow => !!r),
    total: res.total,
    facets: {
      type: (res.aggregations.type ?? []).map((b) => ({ key: b.key, label: b.aggs?.label?.[0]?.key ?? null, count: b.count })),
      visibility: (res.aggregations.visibility ?? []).map((b) => ({ key: b.key, label: null, count: b.count })),
    },
  };
}

/** Index writes of the service: inline after commit (read-your-writes), the outbox indexer, reindex. */
export class CommunitySearchIndex extends ServiceIndex {
  constructor(engine: SearchEngine, db: Knex, logger: Pick<Logger, 'warn'>, prefix = '') {
    super(engine, db, logger, COMMUNITIES_INDEX, prefix);
  }

  /** `repo.searchCommunities` on the engine; a value a field rejects (`created:abc`) is a 400 as on postgres. */
  async search(o: EngineCommunitySearch) {
    try {
      return await searchCommunitiesOnEngine(this.engine, this.def.alias, this.db, o);
    } catch (e) {
      if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
      throw e;
    }
  }

  /** Current state of the touched communities as bulk operations. */
  override async load(refs: AggregateRef[]): Promise<BulkOp[]> {
    // Before any write: a bulk into a missing alias would auto-create a plain index under its name.
    await this.ensureIndex();
    const ids = [...new Set(refs.map((r) => r.id))];
    const rows = await repo.communitiesForIndex(this.db, { ids });
    const found = new Set(rows.map((r) => r.id));
    const ops: BulkOp[] = rows.map((r) => ({ op: 'index', ...communityDoc(r) }));
    // Gone from the database (never happens today: deletes are soft): remove for good.
    for (const id of ids) if (!found.has(id)) ops.push({ op: 'delete', id, version: Number.MAX_SAFE_INTEGER });
    return ops;
  }

  /** The durable indexer of `rdm.communities.community.*` events. */
  startIndexer(nats: NatsHandle, logger: Logger) {
    return runSearchIndexer({
      js: nats.js,
      jsm: nats.jsm,
      engine: this.engine,
      alias: this.def.alias,
      stream: 'COMMUNITIES',
      durable: 'communities-search-indexer',
      filterSubject: 'rdm.communities.community.*',
      load: (refs) => this.load(refs),
      logger,
    });
  }

  /** Rebuild the index from PostgreSQL into a new versioned index and swap the alias. */
  async reindex(batch = 1000) {
    const db = this.db;
    return this.engine.reindex(this.def, async function* (since?: Date) {
      let afterSeq = 0;
      for (;;) {
        const rows = await repo.communitiesForIndex(db, { since, afterSeq, limit: batch });
        if (!rows.length) return;
        yield rows.map(communityDoc);
        afterSeq = Number(rows[rows.length - 1].seq);
      }
    });
  }
}
