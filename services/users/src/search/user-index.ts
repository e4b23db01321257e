/**
 * Users on the OpenSearch/Elasticsearch engines (`SEARCH_ENGINE` other than `postgres`): the index
 * this service owns (`users-users-v1` behind the alias `users-users`), its documents, the search that
 * mirrors `repo.searchUsers` (same q fields, visibility scope and sorts), inline indexing after commit,
 * the outbox-driven indexer and the `reindex` command.
 *
 * Every user is indexed (inactive, unconfirmed and restricted ones too): the visibility rules
 * (`listScope`) are filters at query time, so a search never shows more than the SQL path. The e-mail
 * is in the document only while `email_visibility` is public, as in the postgres search document.
 * Hits are loaded from PostgreSQL by id in the engine's order. Versions are the users' `revision_id`.
 */
import {
  type AggregateRef,
  type BulkOp,
  type DslFieldMap,
  Errors,
  fullTextField,
  type IndexDefinition,
  type IndexDoc,
  type Knex,
  keywordField,
  type Logger,
  longField,
  type NatsHandle,
  type QueryAst,
  QuerySyntaxError,
  runSearchIndexer,
  ServiceIndex,
  type SearchEngine,
  type SortKey,
  searchTextOf,
  textField,
} from '@rdm/platform';
import type { User } from '../domain/user.js';
import { findUsersByIds, type UserIndexRow, type UserSearch, usersForIndex } from '../repo/users.repo.js';

/** A timestamp with the database's microseconds (ordered exactly as in SQL). */
const nanosField = () => ({ type: 'date_nanos', format: 'strict_date_optional_time_nanos||epoch_millis' });

/** The users index: alias, version, mappings. */
export const USERS_INDEX: IndexDefinition = {
  alias: 'users-users',
  version: 1,
  mappings: {
    dynamic: 'strict',
    properties: {
      id: keywordField(),
      seq: longField(),
      username: textField({ suggest: true }),
      email: textField(),
      full_name: textField({ suggest: true }),
      affiliations: textField(),
      visibility: keywordField(),
      active: keywordField(),
      confirmed: keywordField(),
      created: nanosField(),
      updated: nanosField(),
      search_text: fullTextField(),
    },
  },
};

/** The `q` fields of `USER_SEARCH_FIELDS`, on the index; `scope.*` are the visibility filters. */
export const USER_DSL_FIELDS: DslFieldMap = {
  id: { kind: 'keyword', path: 'id', caseSensitive: true },
  username: { kind: 'text', path: 'username' },
  email: { kind: 'text', path: 'email' },
  'profile.full_name': { kind: 'text', path: 'full_name' },
  'profile.affiliations': { kind: 'text', path: 'affiliations' },
  full_name: 'profile.full_name',
  fullname: 'profile.full_name',
  name: 'profile.full_name',
  affiliation: 'profile.affiliations',
  affiliations: 'profile.affiliations',
  created: { kind: 'date', path: 'created' },
  updated: { kind: 'date', path: 'updated' },
  'scope.visibility': { kind: 'keyword', path: 'visibility', caseSensitive: true },
  'scope.active': { kind: 'keyword', path: 'active', caseSensitive: true },
  'scope.confirmed': { kind: 'keyword', path: 'confirmed', caseSensitive: true },
};

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

const term = (field: string, value: string): QueryAst => ({ type: 'term', field, value, wildcard: false });

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
  const byId = new Map((await findUsersByIds(db, ids)).map((u) => [u.id, u]));
  return { total: res.total, hits: ids.map((id) => byId.get(id)).filter((u): u is User => u !== undefined) };
}

/** The index definition under a name prefix (`SEARCH_INDEX_PREFIX`). */
export function usersIndex(prefix = ''): IndexDefinition {
  return { ...USERS_INDEX, alias: `${prefix}${USERS_INDEX.alias}` };
}

/** Index writes of the service: inline after commit (read-your-writes), the outbox indexer, reindex. */
export class UserSearchIndex extends ServiceIndex {
  constructor(engine: SearchEngine, db: Knex, logger: Pick<Logger, 'warn'>, prefix = '') {
    super(engine, db, logger, USERS_INDEX, prefix);
  }

  /** `repo.searchUsers` on the engine; a value a field rejects (`created:abc`) is a 400 as on postgres. */
  async search(s: EngineUserSearch) {
    try {
      return await searchUsersOnEngine(this.engine, this.def.alias, this.db, s);
    } catch (e) {
      if (e instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(e);
      throw e;
    }
  }

  /** Current state of the touched users as bulk operations. */
  override async load(refs: AggregateRef[]): Promise<BulkOp[]> {
    // Before any write: a bulk into a missing alias would auto-create a plain index under its name.
    await this.ensureIndex();
    const ids = [...new Set(refs.map((r) => r.id))].filter((id) => /^[1-9]\d{0,17}$/.test(id));
    if (!ids.length) return [];
    const rows = await usersForIndex(this.db, { ids });
    const found = new Set(rows.map((r) => r.id));
    const ops: BulkOp[] = rows.map((r) => ({ op: 'index', ...userDoc(r) }));
    // Gone from the database (users are never deleted today): remove for good.
    for (const id of ids) if (!found.has(id)) ops.push({ op: 'delete', id, version: Number.MAX_SAFE_INTEGER });
    return ops;
  }

  /** The durable indexer of `rdm.users.user.*` events. */
  startIndexer(nats: Pick<NatsHandle, 'js' | 'jsm'>, logger: Logger) {
    return runSearchIndexer({
      js: nats.js,
      jsm: nats.jsm,
      engine: this.engine,
      alias: this.def.alias,
      stream: 'USERS',
      durable: 'users-search-indexer',
      filterSubject: 'rdm.users.user.*',
      load: (refs) => this.load(refs),
      logger,
    });
  }

  /** Rebuild the index from PostgreSQL into a new versioned index and swap the alias. */
  async reindex(batch = 1000) {
    const db = this.db;
    return this.engine.reindex(this.def, async function* (since?: Date) {
      let afterId = 0;
      for (;;) {
        const rows = await usersForIndex(db, { since, afterId, limit: batch });
        if (!rows.length) return;
        yield rows.map(userDoc);
        afterId = Number(rows[rows.length - 1].id);
      }
    });
  }
}
