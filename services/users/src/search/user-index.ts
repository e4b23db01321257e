/**
 * Users on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the index
 * this service owns (`users-users-v1` behind the alias `users-users`), its documents, the search that
 * mirrors `repo.searchUsers` (same q fields, visibility scope and sorts). Inline indexing after
 * commit, the outbox-driven indexer and `reindex` are the platform's (`defineServiceIndex`).
 *
 * Every user is indexed (inactive, unconfirmed and restricted ones too): the visibility rules
 * (`listScope`) are filters at query time, so a search never shows more than the SQL path. The e-mail
 * is in the document only while `email_visibility` is public, as in the postgres search document.
 * Hits are loaded from PostgreSQL by id in the engine's order. Versions are the users' `revision_id`.
 */
import type { IndexDoc, Knex, QueryAst, SearchEngine, SortKey } from '@rdm/platform';
import { defineServiceIndex, engineFields, inHitOrder, mapping, queryFilters, searchTextOf } from '@rdm/platform';
import { findUsersByIds, USER_FIELDS, type UserIndexRow, type UserSearch, usersForIndex } from '../repo/users.repo.js';

/** The `q` fields of `USER_FIELDS` on the index, and the visibility filters (`scope.*`). */
export const USER_DSL_FIELDS = engineFields({
  ...USER_FIELDS,
  'scope.visibility': { kind: 'keyword', path: 'visibility', caseSensitive: true },
  'scope.active': { kind: 'keyword', path: 'active', caseSensitive: true },
  'scope.confirmed': { kind: 'keyword', path: 'confirmed', caseSensitive: true },
});

/** The index document of a user (version = revision id). */
export function userDoc(r: UserIndexRow): IndexDoc {
  return {
    id: r.id,
    version: r.revision_id,
    source: {
      id: r.id,
      seq: Number(r.id),
      username: r.username ?? '',
      email: r.email,
      full_name: r.full_name,
      affiliations: r.affiliations,
      visibility: r.visibility,
      active: String(r.active),
      confirmed: String(r.confirmed),
      created: r.created,
      updated: r.updated,
      // The texts of the postgres search vector (users.repo `searchColumns`), in the same order.
      search_text: searchTextOf([r.full_name, r.username, r.email, r.affiliations]),
    },
  };
}

const { term } = queryFilters;

/** Options of the engine search: `repo.UserSearch` with the parsed `q` instead of SQL. */
export type EngineUserSearch = Omit<UserSearch, 'where' | 'rank'> & { ast?: QueryAst };

/** `repo.searchUsers` on a search engine: same hits and total. */
export async function searchUsersOnEngine(engine: SearchEngine, alias: string, db: Knex, s: EngineUserSearch) {
  const filters: QueryAst[] = [term('scope.active', 'true'), term('scope.confirmed', 'true')];
  if (s.scope.kind === 'public') {
    const visible = term('scope.visibility', 'public');
    filters.push(s.scope.selfId ? { type: 'or', children: [visible, term('id', s.scope.selfId)] } : visible);
  }
  const order = s.sort === 'oldest' ? 'asc' : 'desc';
  const sort: SortKey[] = [
    { path: 'created', order },
    { path: 'seq', order },
  ];
  if (s.sort === 'bestmatch' && s.ast) sort.unshift({ path: '_score', order: 'desc' });
  const res = await engine.search(alias, {
    query: s.ast ?? { type: 'all' },
    fields: USER_DSL_FIELDS,
    filters,
    sort,
    from: s.offset,
    size: s.limit,
    sourceIncludes: ['id'],
  });
  const ids = res.hits.map((h) => h.id);
  return { total: res.total, hits: inHitOrder(ids, await findUsersByIds(db, ids), (u) => u.id) };
}

/** The users index: inline writes after commit (read-your-writes), the outbox indexer, reindex, and the search. */
export class UserSearchIndex extends defineServiceIndex<UserIndexRow>({
  index: {
    alias: 'users-users',
    version: 1,
    mappings: {
      dynamic: 'strict',
      properties: {
        id: mapping.keyword(),
        seq: mapping.long(),
        username: mapping.text({ suggest: true }),
        email: mapping.text(),
        full_name: mapping.text({ suggest: true }),
        affiliations: mapping.text(),
        visibility: mapping.keyword(),
        active: mapping.keyword(),
        confirmed: mapping.keyword(),
        created: mapping.nanos(),
        updated: mapping.nanos(),
        search_text: mapping.fullText(),
      },
    },
  },
  doc: userDoc,
  key: /^[1-9]\d{0,17}$/,
  // Users are never deleted today: a user gone from the database is removed for good.
  rows: (db, ids) => usersForIndex(db, { ids }),
  indexer: { stream: 'USERS', durable: 'users-search-indexer', filterSubject: 'rdm.users.user.*' },
  reindex: { pages: [(db, { since, after, limit }) => usersForIndex(db, { since, afterId: after && Number(after.id), limit })] },
}) {
  /** `repo.searchUsers` on the engine. */
  search(s: EngineUserSearch) {
    return this.searching(() => searchUsersOnEngine(this.engine, this.def.alias, this.db, s));
  }
}
