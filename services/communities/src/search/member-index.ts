/**
 * Member lists on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the
 * index this service owns (`communities-members-v1` behind the alias `communities-members`), its
 * documents, the searches that mirror `repo.searchMembers` (`…/members`, `…/members/public`) and
 * `repo.searchRequests` (`…/invitations`, `…/membership-requests`) — same q fields, filters, facets,
 * sorts and paging. Inline indexing after commit, the outbox-driven indexer and `reindex` are the
 * platform's (`defineServiceIndex`).
 *
 * Documents: one per `members` row (active member, or pending invitation / membership request) and
 * one per `archived_requests` row (a closed one), with the row's id; `scope.list` says which list a
 * document belongs to. Version: the row's `revision_id` (every member update raises it; archived rows
 * never change). Row ids are never reused (a new invitation round gets a new id), so the delete of a
 * removed member (version MAX) can never hide a later row.
 *
 * Permissions: who may read which list of which community is checked in PostgreSQL before the search
 * (the community policy); the search is then scoped to that community. Hits are loaded from
 * PostgreSQL by id in the engine's order: responses are never staler than the database.
 */
import type { AggSpec, IndexDoc, Knex, QueryAst, SearchEngine, SortKey } from '@rdm/platform';
import { baseIndexSettings, defineServiceIndex, engineFields, inHitOrder, mapping, queryFilters, searchTextOf } from '@rdm/platform';
import * as repo from '../repo/members.repo.js';
import type { MemberFacet, MemberRow } from '../repo/members.repo.js';

/**
 * Name and affiliations are lower-cased, NOT accent-folded: the postgres field queries (`name:`,
 * `affiliations:`) search `lower(name)`, so folding here would answer differently. Unfielded terms
 * search `search_text`, folded on both engines.
 */
const lowercaseText = () => ({
  type: 'text',
  analyzer: 'lowercase_words',
  fields: { raw: { type: 'keyword', normalizer: 'lowercase', ignore_above: 256 } },
});

/**
 * The `q` fields of `repo.MEMBER_SEARCH_FIELDS` on the index, and the `scope.*` names: the exact
 * (case-sensitive) filters of the lists and their facet selections.
 */
export const MEMBER_DSL_FIELDS = engineFields({
  ...repo.MEMBER_SEARCH_FIELDS,
  'scope.community': { kind: 'keyword', path: 'community_id', caseSensitive: true, filterOnly: true },
  'scope.list': { kind: 'keyword', path: 'list', caseSensitive: true, filterOnly: true },
  'scope.role': { kind: 'keyword', path: 'role', caseSensitive: true, filterOnly: true },
  'scope.visible': { kind: 'keyword', path: 'visible', caseSensitive: true, filterOnly: true },
  'scope.request_type': { kind: 'keyword', path: 'request_type', caseSensitive: true, filterOnly: true },
  'scope.status': { kind: 'keyword', path: 'request_status', caseSensitive: true, filterOnly: true },
  'scope.is_open': { kind: 'keyword', path: 'is_open', caseSensitive: true, filterOnly: true },
});

/** Statuses of an open request (`repo.searchRequests`' `isOpen`). */
const OPEN_STATUSES = new Set(['submitted', 'created', 'accepting']);

/**
 * Which list a row belongs to: `member` (active), `open` (pending with its request: invitations /
 * membership requests), `unlinked` (pending without a request yet: in no list), `archived` (closed).
 */
function listOf(r: repo.MemberIndexRow): string {
  if (r.source === 'archived') return 'archived';
  if (r.active) return 'member';
  return r.request_id ? 'open' : 'unlinked';
}

/** The index document of a member-list row (version = revision id). */
export function memberDoc(r: repo.MemberIndexRow): IndexDoc {
  return {
    id: r.id,
    version: r.revision_id,
    source: {
      id: r.id,
      community_id: r.community_id,
      list: listOf(r),
      member_type: r.member_type,
      member_id: r.member_id,
      role: r.role,
      visible: String(r.visible),
      request_type: r.request_type,
      request_status: r.request_status,
      is_open: r.request_status === null ? null : String(OPEN_STATUSES.has(r.request_status)),
      name: r.name,
      username: r.username,
      email: r.email,
      affiliations: r.affiliations,
      sort_name: r.sort_name,
      created: r.created_ts,
      revision_id: r.revision_id,
      // The texts of the postgres search vector (`repo.memberSearchTexts`: no e-mail address).
      search_text: searchTextOf(repo.memberSearchTexts(r)),
    },
  };
}

/** The order of `repo.searchMembers` / `repo.searchRequests` (`order()`): relevance for bestmatch with q, then the date or the name, then the id. */
function sortOf(sort: string, hasQuery: boolean): SortKey[] {
  const keys: SortKey[] = sort === 'bestmatch' && hasQuery ? [{ path: '_score', order: 'desc' }] : [];
  if (sort === 'newest') keys.push({ path: 'created', order: 'desc' });
  else if (sort === 'oldest') keys.push({ path: 'created', order: 'asc' });
  else keys.push({ path: 'sort_name', order: 'asc' });
  keys.push({ path: 'id', order: 'asc' });
  return keys;
}

const { term, anyOf } = queryFilters;

/** Options of the engine searches (`repo.MemberSearch` with the parsed `q` instead of SQL). */
export type EngineMemberSearch = Omit<repo.MemberSearch, 'q' | 'rank'> & { ast?: QueryAst };

/** Facet buckets in the SQL order (`facetCounts`: by key; `is_open`: true first). */
function facet(buckets: { key: string; count: number }[] | undefined, desc = false): MemberFacet[] {
  const out = (buckets ?? []).map((b) => ({ key: b.key, count: b.count }));
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) * (desc ? -1 : 1));
  return out;
}

/** `repo.searchMembers` on a search engine: same hits, totals and role/visibility facets. */
export async function searchMembersOnEngine(
  engine: SearchEngine,
  alias: string,
  db: Knex,
  o: EngineMemberSearch & { publicOnly?: boolean; facets?: boolean },
): Promise<{ rows: MemberRow[]; total: number; facets: Record<string, MemberFacet[]> }> {
  const filters = [term('scope.community', o.communityId), term('scope.list', 'member')];
  if (o.publicOnly) filters.push(term('scope.visible', 'true'));
  // InvenioRDM's post_filter: the facet selections narrow the hits, never the counts.
  const postFilters: QueryAst[] = [];
  if (o.filters.role?.length) postFilters.push(anyOf('scope.role', o.filters.role));
  if (o.filters.visibility?.length)
    postFilters.push(
      anyOf(
        'scope.visible',
        o.filters.visibility.map((v) => String(v === 'true' || v === 'public')),
      ),
    );
  const aggs: Record<string, AggSpec> | undefined = o.facets
    ? { role: { type: 'terms', path: 'role' }, visibility: { type: 'terms', path: 'visible' } }
    : undefined;
  const { res, ids } = await memberHits(engine, alias, o, filters, postFilters, aggs);
  return {
    rows: inHitOrder(ids, await repo.findMemberRows(db, ids), (r) => r.id),
    total: res.total,
    facets: { role: facet(res.aggregations.role), visibility: facet(res.aggregations.visibility) },
  };
}

/** The engine search both member lists run: the hit ids in order (rows are read from PostgreSQL), the total and the aggregations. */
async function memberHits(
  engine: SearchEngine,
  alias: string,
  o: EngineMemberSearch,
  filters: QueryAst[],
  postFilters: QueryAst[],
  aggs: Record<string, AggSpec> | undefined,
) {
  const res = await engine.search(alias, {
    query: o.ast ?? { type: 'all' },
    fields: MEMBER_DSL_FIELDS,
    filters,
    postFilters,
    sort: sortOf(o.sort, !!o.ast),
    from: o.from,
    size: o.size,
    sourceIncludes: ['id'],
    aggs,
  });
  return { res, ids: res.hits.map((h) => h.id) };
}

/** `repo.searchRequests` on a search engine: open and archived requests of one type, role/status/is_open facets. */
export async function searchRequestsOnEngine(
  engine: SearchEngine,
  alias: string,
  db: Knex,
  o: EngineMemberSearch & { requestType: string },
): Promise<{ rows: MemberRow[]; total: number; facets: Record<string, MemberFacet[]> }> {
  const filters = [
    term('scope.community', o.communityId),
    anyOf('scope.list', ['open', 'archived']),
    term('scope.request_type', o.requestType),
  ];
  const postFilters: QueryAst[] = [];
  if (o.filters.role?.length) postFilters.push(anyOf('scope.role', o.filters.role));
  if (o.filters.status?.length) postFilters.push(anyOf('scope.status', o.filters.status));
  if (o.filters.is_open?.length) {
    const wanted = new Set(o.filters.is_open.map((v) => v === 'true'));
    if (wanted.size === 1) postFilters.push(term('scope.is_open', String(wanted.has(true))));
  }
  const { res, ids } = await memberHits(engine, alias, o, filters, postFilters, {
    role: { type: 'terms', path: 'role' },
    status: { type: 'terms', path: 'request_status' },
    is_open: { type: 'terms', path: 'is_open' },
  });
  return {
    rows: inHitOrder(ids, await repo.findRequestRows(db, ids), (r) => r.id),
    total: res.total,
    facets: {
      role: facet(res.aggregations.role),
      status: facet(res.aggregations.status),
      is_open: facet(res.aggregations.is_open, true),
    },
  };
}

/** Events whose aggregate is a member row (the indexer's input); other subjects of the stream are skipped. */
const MEMBER_SUBJECT = /^rdm\.communities\.(member|member-request)\./;
/** Events after which a member row may be gone (replayed after a reindex: its catch-up sees no deletes). */
const GONE_SUBJECTS = ['rdm.communities.member.removed', 'rdm.communities.member-request.closed'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The member-lists index: inline writes after commit (read-your-writes), the outbox indexer, reindex, and the searches. */
export class MemberSearchIndex extends defineServiceIndex<repo.MemberIndexRow>({
  index: {
    alias: 'communities-members',
    version: 1,
    settings: {
      analysis: {
        ...baseIndexSettings.analysis,
        analyzer: {
          ...baseIndexSettings.analysis.analyzer,
          lowercase_words: { type: 'custom', tokenizer: 'standard', filter: ['lowercase'] },
        },
        normalizer: { ...baseIndexSettings.analysis.normalizer, lowercase: { type: 'custom', filter: ['lowercase'] } },
      },
    },
    mappings: {
      dynamic: 'strict',
      properties: {
        id: mapping.keyword(),
        community_id: mapping.keyword(),
        list: mapping.keyword(),
        member_type: mapping.keyword(),
        member_id: mapping.keyword(),
        role: mapping.keyword(),
        visible: mapping.keyword(),
        request_type: mapping.keyword(),
        request_status: mapping.keyword(),
        is_open: mapping.keyword(),
        name: lowercaseText(),
        username: mapping.keyword(),
        email: mapping.keyword(),
        affiliations: lowercaseText(),
        // The exact SQL sort key (`lower(coalesce(nullif(name, ''), username, ''))`); C.UTF-8 collation = code point order, as here.
        sort_name: { type: 'keyword', ignore_above: 8191 },
        created: mapping.nanos(),
        revision_id: mapping.long(),
        search_text: mapping.fullText(),
      },
    },
  },
  doc: memberDoc,
  // One filter subject per consumer: the whole stream; only the member subjects name member rows.
  keysOf: (ref) => (!ref.subject || MEMBER_SUBJECT.test(ref.subject) ? [ref.id] : []),
  key: UUID,
  // The row (active or pending) and the archived rows that replaced it; removed members and closed
  // requests that were declined, cancelled or expired have no row left: deleted for good.
  rows: async (db, ids) => (await Promise.all([repo.memberRowsForIndex(db, { ids }), repo.archivedRowsForIndex(db, { ids })])).flat(),
  indexer: { stream: 'COMMUNITIES', durable: 'communities-members-indexer', filterSubject: 'rdm.communities.>' },
  reindex: {
    pages: [repo.memberRowsForIndex, repo.archivedRowsForIndex].map(
      (rowsOf) =>
        (db: Knex, { since, after, limit }: { since?: Date; after?: repo.MemberIndexRow; limit: number }) =>
          rowsOf(db, { since, afterId: after?.id, limit }),
    ),
    goneSince: (db, since) => repo.memberRowsTouchedSince(db, since, GONE_SUBJECTS),
  },
}) {
  /** `repo.searchMembers` on the engine. */
  searchMembers(o: EngineMemberSearch & { publicOnly?: boolean; facets?: boolean }) {
    return this.searching(() => searchMembersOnEngine(this.engine, this.def.alias, this.db, o));
  }

  /** `repo.searchRequests` on the engine. */
  searchRequests(o: EngineMemberSearch & { requestType: string }) {
    return this.searching(() => searchRequestsOnEngine(this.engine, this.def.alias, this.db, o));
  }

  /**
   * Index member rows as `trx` sees them, BEFORE it commits (`refresh: wait_for`): for a consumer's
   * transaction whose commit releases a waiting writer through an outbox event (an accepted
   * invitation confirms the requests service's accept call), so the list that writer reads next
   * already shows the change. Should the commit fail, the message is redelivered and applied again
   * with the same rows and versions. A failure is logged, never thrown: the outbox indexer catches up.
   */
  indexWithin(trx: Knex.Transaction, ids: string[]): Promise<void> {
    return this.afterCommit(ids, trx);
  }
}
