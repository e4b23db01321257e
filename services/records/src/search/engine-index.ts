/**
 * Record search on OpenSearch/Elasticsearch (`SEARCH_ENGINE=opensearch|elasticsearch`), part 2: the
 * `Indexer` the records service uses instead of the postgres one. The same answers as
 * pg-indexer.ts for every search (the differential suite checks it): the same scopes
 * (scopes.ts), `q` fields (engine-fields.ts), file-data guard (files-guard.ts), facet filters as
 * post-filters and facet counts in the engine-neutral `AggRow` form, so search.service.ts and
 * facet-render.ts do not know which engine answered.
 *
 * Writes: `search_docs` stays the source of every document (written in the transaction of each
 * change, by the postgres indexer this one wraps; loading, bulk, the indexer and reindex are the
 * platform's `defineServiceIndex` skeleton); each change also writes an outbox event
 * (`rdm.records.search-doc.changed`, naming the document or the parent) in the same transaction.
 * - After commit the touched documents are read back and indexed at once with `refresh: true`
 *   (read-your-writes, as InvenioRDM's services refresh the index on the writer's path); an HTTP
 *   request that wrote waits for it before answering (`readYourWrites` middleware), bounded.
 * - The durable indexer (`startIndexer`) consumes the events and indexes the same documents in
 *   batches without refresh: it repairs whatever the inline path missed (a crash after commit, an
 *   engine outage). Both read the CURRENT row and write it with external version `index_version`
 *   (a sequence bumped by every change, migration 20261126000000); deleted rows leave a tombstone
 *   with a higher version: a late or repeated write never overwrites a newer state.
 * Reads: the engine returns keys in order, the documents come from `search_docs` (a hit is never
 * staler than the database). Engine down → 503 (engine.ts), while writes still commit.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  afterCommit,
  afterRollback,
  type AggBucket,
  type AggSpec,
  type BulkOp,
  defineServiceIndex,
  Errors,
  type Identity,
  isAdmin,
  isSystem,
  type Knex,
  type Logger,
  type NatsHandle,
  outermostTransaction,
  parseQueryLenient,
  type QueryAst,
  queryFilters,
  QuerySyntaxError,
  type SearchEngine,
  type SortKey,
  writeOutbox,
} from '@rdm/platform';
import type { Middleware } from 'koa';
import type { IndexedItem } from '../domain/ports.js';
import type { LinkIdentity } from '../domain/records.policy.js';
import type { ItemDoc } from '../model/rows.js';
import { engineDoc, GUARDED_FIELDS, RECORD_DSL_FIELDS, RECORDS_INDEX } from './engine-fields.js';
import { type FacetFilters, parseBool, parseNested } from './facet-params.js';
import type { AggRow, Indexer, ScopeSpec, SearchPage, SearchPlan } from './indexer.js';
import { PostgresIndexer } from './pg-indexer.js';
import type { EngineSourceRow } from './search.repo.js';
import * as repo from './search.repo.js';

// ---------------------------------------------------------------------------------------------
// filters as ASTs (the DSL builder compiles them with the filter-only fields)

const { term, anyOf, and, or, not } = queryFilters;
const NOTHING: QueryAst = { type: 'or', children: [] };

const LEVELS = ['view', 'preview', 'edit', 'manage'] as const;

/** Documents whose parent grants `identity` (user or role) at least `level` (scopes.ts `grantFilter`). */
function grants(identity: Identity, level: (typeof LEVELS)[number]): QueryAst | null {
  if (identity.sub === null) return null;
  const subjects = [`user:${identity.sub}`, ...identity.roles.map((r) => `role:${r}`)];
  const keys = level === 'view' ? subjects : subjects.flatMap((s) => LEVELS.slice(LEVELS.indexOf(level)).map((p) => `${s}:${p}`));
  return anyOf('#grants', keys);
}

/** The `view` generators of a restricted published record (scopes.ts `RESTRICTED_READ_GENERATORS`). */
function personalRead(identity: Identity, memberOf?: readonly string[]): QueryAst | null {
  const parents = [...new Set(((identity as LinkIdentity).links ?? []).map((l) => l.parentId))];
  const parts = [
    identity.sub === null ? null : term('#owner', identity.sub),
    grants(identity, 'view'),
    parents.length ? anyOf('parent.id', parents) : null,
    identity.sub === null || !memberOf?.length ? null : anyOf('#communities', memberOf),
  ].filter((p): p is QueryAst => p !== null);
  return parts.length ? or(...parts) : null;
}

const isPrivileged = (i: Identity) => isAdmin(i) || isSystem(i);

/** Scope filter and file-data guard (null: every file readable) of a search (scopes.ts + files-guard.ts). */
export function scopeFilters(s: ScopeSpec): { scope: QueryAst; files: QueryAst | null } {
  const { identity } = s;
  if (s.kind === 'user') {
    if (identity.sub === null) return { scope: NOTHING, files: null };
    const owned = term('#owner', identity.sub);
    const shared = grants(identity, 'preview') ?? NOTHING;
    const who = s.sharedWithMe === true ? and(shared, not(owned)) : s.sharedWithMe === false ? owned : or(owned, shared);
    const common = and(
      or(term('#kind', 'draft'), and(term('#kind', 'record'), term('#has_draft', 'false'), term('deletion_status.status', 'P'))),
      s.allVersions ? null : term('versions.is_latest_draft', 'true'),
    );
    return { scope: and(common, who), files: null };
  }
  const member = s.communityId !== undefined && !!s.member;
  const common = and(
    term('#kind', 'record'),
    term('deletion_status.status', 'P'),
    s.allVersions ? null : term('versions.is_latest', 'true'),
    s.communityId === undefined ? null : term('#communities', s.communityId),
  );
  if (isPrivileged(identity)) return { scope: common, files: null };
  const personal = member ? term('access.record', 'restricted') : personalRead(identity, s.memberOf);
  const read = or(term('access.record', 'public'), personal ? and(term('access.record', 'restricted'), personal) : null);
  const files = member
    ? null
    : or(and(term('access.record', 'public'), term('access.files', 'public')), personalRead(identity, s.memberOf));
  return { scope: and(common, read), files };
}

/** The facet filters as post-filters (facet-sql.ts `facetFilterSql`). */
export function facetFilters(f: FacetFilters): QueryAst[] {
  const out: QueryAst[] = [];
  if (f.accessStatus.length) out.push(anyOf('access.status', f.accessStatus));
  if (f.fileType.length) out.push(anyOf('files.types', f.fileType));
  if (f.resourceTypes.length) {
    const ors: QueryAst[] = [];
    for (const [type, subs] of parseNested(f.resourceTypes)) {
      if (subs.length) ors.push(and(term('metadata.resource_type.props.type', type), anyOf('metadata.resource_type.props.subtype', subs)));
      else if (type.includes('-')) {
        ors.push(
          or(
            term('metadata.resource_type.props.type', type),
            and(term('metadata.resource_type.props.type', type.split('-')[0]), term('metadata.resource_type.props.subtype', type)),
          ),
        );
      } else ors.push(term('metadata.resource_type.props.type', type));
    }
    out.push(or(...ors));
  }
  if (f.dateWindows.length) {
    out.push(
      or(
        ...f.dateWindows.map((w) =>
          and(
            or({ type: 'exists', field: '#pub_start' }, { type: 'exists', field: '#pub_end' }),
            w.lo ? or(not({ type: 'exists', field: '#pub_end' }), { type: 'range', field: '#pub_end', gte: w.lo }) : null,
            w.hi ? or(not({ type: 'exists', field: '#pub_start' }), { type: 'range', field: '#pub_start', lt: w.hi }) : null,
          ),
        ),
      ),
    );
  }
  if (f.isPublished.length) {
    const bools = [...new Set(f.isPublished.map((v) => String(parseBool('is_published', v))))];
    out.push(anyOf('is_published', bools));
  }
  return out;
}

/** Sort keys of each sort but `bestmatch` (pg-indexer.ts `ORDER`, ties by id then kind). */
const SORTS: Readonly<Record<string, SortKey[]>> = (() => {
  const k = (path: string, order: 'asc' | 'desc'): SortKey => ({ path, order });
  const recent = [k('created', 'desc'), k('id', 'desc'), k('kind', 'asc')];
  return {
    mostrecent: recent,
    newest: recent,
    oldest: [k('created', 'asc'), k('id', 'asc'), k('kind', 'asc')],
    version: [k('version_index', 'desc'), ...recent],
    'updated-desc': [k('updated', 'desc'), k('id', 'desc'), k('kind', 'asc')],
    'updated-asc': [k('updated', 'asc'), k('id', 'asc'), k('kind', 'asc')],
    mostviewed: [k('views', 'desc'), ...recent],
    mostdownloaded: [k('downloads', 'desc'), ...recent],
    bestmatch: [k('_score', 'desc'), ...recent],
  };
})();

/** Enough buckets to count every key (the renderer sorts and cuts, as for postgres rows). */
const ALL_KEYS = 10_000;

function aggsOf(files: QueryAst | null, isPublished?: boolean): Record<string, AggSpec> {
  const aggs: Record<string, AggSpec> = {
    a: { type: 'terms', path: 'access_status', size: ALL_KEYS },
    r: { type: 'terms', path: 'rt_type', size: ALL_KEYS, aggs: { s: { type: 'terms', path: 'rt_subtype', size: ALL_KEYS } } },
    f: { type: 'terms', path: 'file_types', size: ALL_KEYS, ...(files ? { filter: files } : {}) },
    y: { type: 'terms', path: 'pub_years', size: ALL_KEYS },
  };
  if (isPublished) aggs.p = { type: 'terms', path: 'is_published', size: ALL_KEYS };
  return aggs;
}

/** Engine buckets → `AggRow`s (the form facet-render.ts sums). */
export function aggRows(aggs: Record<string, AggBucket[]>): AggRow[] {
  const rows: AggRow[] = [];
  const row = (f: string, o: Partial<AggRow>, n: number): AggRow => ({ f, k: null, s: null, a: null, ys: null, ye: null, ...o, n });
  for (const b of aggs.a ?? []) rows.push(row('a', { k: b.key }, b.count));
  for (const b of aggs.r ?? []) {
    const subs = b.aggs?.s ?? [];
    const inSubs = subs.reduce((n, s) => n + s.count, 0);
    if (b.count > inSubs) rows.push(row('r', { k: b.key }, b.count - inSubs));
    for (const s of subs) rows.push(row('r', { k: b.key, s: s.key }, s.count));
  }
  for (const b of aggs.f ?? []) rows.push(row('f', { a: [b.key] }, b.count));
  for (const b of aggs.y ?? []) rows.push(row('y', { ys: Number(b.key), ye: Number(b.key) }, b.count));
  for (const b of aggs.p ?? []) rows.push(row('p', { k: b.key }, b.count));
  return rows;
}

// ---------------------------------------------------------------------------------------------
// the indexer

/** Longest an HTTP request waits for its inline indexing before answering anyway. */
const INLINE_WAIT_MS = 5000;

const requestWrites = new AsyncLocalStorage<Promise<void>[]>();

/** Options of the engine indexer. */
export interface EngineIndexerOptions {
  db: Knex;
  engine: SearchEngine;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** `SEARCH_INDEX_PREFIX`: names the alias (`<prefix>records-records`). */
  prefix?: string;
}

type PagedRow = EngineSourceRow & { changed_at: string };

/**
 * The records index's writes (the platform's skeleton): a ref names a document (`d:<kind>:<id>`)
 * or every document of a parent (`p:<parent>`); a deleted document's tombstone carries its version.
 */
const RecordsIndex = defineServiceIndex<EngineSourceRow>({
  index: RECORDS_INDEX,
  doc: engineDoc,
  key: /^[dp]:/,
  async rows(db, refs) {
    const keys = refs.filter((r) => r.startsWith('d:')).map((r) => r.slice(2));
    const parents = refs.filter((r) => r.startsWith('p:')).map((r) => r.slice(2));
    const { rows, gone } = await repo.engineRows(db, keys, parents);
    const present = new Set(rows.map((r) => `${r.kind}:${r.id}`));
    return {
      rows,
      gone: gone
        .filter((g) => !present.has(`${g.kind}:${g.id}`))
        .map((g) => ({ id: `${g.kind}:${g.id}`, version: Number(g.index_version) })),
    };
  },
  // The writer's request waits for it (`readYourWrites`): visible at once.
  refresh: true,
  indexer: { stream: 'RECORDS', durable: 'records-search-indexer', filterSubject: 'rdm.records.search-doc.changed' },
  reindex: {
    pages: [(db, { since, after, limit }) => repo.engineRowsPage(db, { since, after: after as PagedRow | undefined, limit })],
    goneSince: async (db, since) => (await repo.goneSince(db, since)).map((g) => `d:${g.kind}:${g.id}`),
  },
});

/** The records search index on OpenSearch/Elasticsearch (see the file header). */
export class EngineIndexer implements Indexer {
  readonly alias: string;
  private readonly pg: PostgresIndexer;
  private readonly db: Knex;
  readonly engine: SearchEngine;
  /** The platform's part: ensure, load, inline write, outbox indexer, reindex. */
  private readonly writes: InstanceType<typeof RecordsIndex>;
  /** Per outermost transaction: the refs already announced (one event and one inline write each). */
  private readonly touched = new WeakMap<object, Set<string>>();

  constructor(o: EngineIndexerOptions) {
    this.db = o.db;
    this.engine = o.engine;
    this.pg = new PostgresIndexer(o.db);
    this.writes = new RecordsIndex(o.engine, o.db, o.logger, o.prefix);
    this.alias = this.writes.def.alias;
  }

  /** The index definition under this deployment's alias. */
  get def() {
    return this.writes.def;
  }

  /** Creates the index behind its alias when missing (once; retried after a failure). */
  ensureIndex(): Promise<void> {
    return this.writes.ensureIndex();
  }

  /** Koa middleware: a request that wrote answers once its documents are searchable (bounded wait). */
  readYourWrites(): Middleware {
    return async (ctx, next) => {
      const pending: Promise<void>[] = [];
      await requestWrites.run(pending, next);
      if (!pending.length) return;
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise((r) => {
        timer = setTimeout(r, INLINE_WAIT_MS);
      });
      await Promise.race([Promise.all(pending), cap]);
      clearTimeout(timer);
    };
  }

  // -------------------------------------------------------------------------------------------
  // writes: search_docs in the transaction, plus the event and the inline index after commit

  async index(trx: Knex.Transaction, item: IndexedItem): Promise<void> {
    await this.pg.index(trx, item);
    await this.touch(trx, [`d:${item.kind}:${item.doc.id}`]);
  }

  async remove(trx: Knex.Transaction, id: string, kind: 'draft' | 'record'): Promise<void> {
    await this.pg.remove(trx, id, kind);
    await this.touch(trx, [`d:${kind}:${id}`]);
  }

  async setUsage(trx: Knex.Transaction, parentId: string, views: number, downloads: number): Promise<void> {
    await this.pg.setUsage(trx, parentId, views, downloads);
    await this.touch(trx, [`p:${parentId}`]);
  }

  async setHasDraft(trx: Knex.Transaction, id: string, hasDraft: boolean): Promise<void> {
    await this.pg.setHasDraft(trx, id, hasDraft);
    await this.touch(trx, [`d:record:${id}`]);
  }

  async refreshVersionFlags(trx: Knex.Transaction, ids: string[], state: { latest_id: string | null; next_draft_id: string | null }) {
    await this.pg.refreshVersionFlags(trx, ids, state);
    await this.touch(
      trx,
      [...new Set(ids.filter(Boolean))].flatMap((id) => [`d:record:${id}`, `d:draft:${id}`]),
    );
  }

  async refreshParent(trx: Knex.Transaction, parentId: string, parent: ItemDoc['parent']): Promise<void> {
    await this.pg.refreshParent(trx, parentId, parent);
    await this.touch(trx, [`p:${parentId}`]);
  }

  async setDraftFiles(trx: Knex.Transaction, id: string, files: ItemDoc['files']): Promise<void> {
    await this.pg.setDraftFiles(trx, id, files);
    await this.touch(trx, [`d:draft:${id}`]);
  }

  async setDraftsStatus(trx: Knex.Transaction, parentId: string, status: string): Promise<void> {
    await this.pg.setDraftsStatus(trx, parentId, status);
    await this.touch(trx, [`p:${parentId}`]);
  }

  storedDraftFiles(id: string): Promise<ItemDoc['files'] | undefined> {
    return this.pg.storedDraftFiles(id);
  }

  resourceTypeTitles(ids: string[]): Promise<Map<string, string>> {
    return this.pg.resourceTypeTitles(ids);
  }

  /** Announce changed documents: an outbox event each (once per transaction) and the inline index after commit. */
  private async touch(trx: Knex.Transaction, refs: string[]): Promise<void> {
    const top = outermostTransaction(trx);
    let seen = this.touched.get(top);
    if (!seen) {
      const refsOfTrx = new Set<string>();
      seen = refsOfTrx;
      this.touched.set(top, refsOfTrx);
      const waiters = requestWrites.getStore();
      const done = new Promise<void>((resolve) => {
        afterCommit(trx, async () => {
          await this.indexNow([...refsOfTrx]);
          resolve();
        });
        afterRollback(trx, resolve);
      });
      waiters?.push(done);
    }
    for (const ref of refs) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      await writeOutbox(trx, {
        subject: 'rdm.records.search-doc.changed',
        aggregate: { type: 'search-doc', id: ref, revision: 0 },
        data: { scope: ref.startsWith('p:') ? 'parent' : 'document' },
      });
    }
  }

  /** Index refs now with `refresh: true`; a failure is logged (the outbox indexer catches up). */
  private indexNow(refs: string[]): Promise<void> {
    return this.writes.afterCommit(refs);
  }

  /** Current state of the referenced documents (`d:<kind>:<id>`, `p:<parent>`) as bulk operations. */
  load(refs: string[]): Promise<BulkOp[]> {
    return this.writes.loadKeys(refs);
  }

  /** The durable indexer of `rdm.records.search-doc.changed` events (a background worker). */
  startIndexer(nats: NatsHandle, logger: Logger) {
    return this.writes.startIndexer(nats, logger);
  }

  /** Rebuild the index from `search_docs` into a new versioned index and swap the alias (searches keep answering). */
  async reindex(batch = 1000) {
    const res = await this.writes.reindex(batch);
    await repo.pruneGone(this.db, 7);
    return res;
  }

  // -------------------------------------------------------------------------------------------
  // search

  async search(plan: SearchPlan): Promise<SearchPage> {
    let query: QueryAst;
    try {
      query = parseQueryLenient(plan.q, { defaultOperator: 'OR' });
    } catch (err) {
      if (err instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(err);
      throw err;
    }
    const { scope, files } = scopeFilters(plan.scope);
    const fields = files ? withGuard(files) : RECORD_DSL_FIELDS;
    const common = { query, fields, dsl: { fullTextPath: 'search_text', now: plan.now }, filters: [scope], sourceIncludes: [] };
    const postFilters = facetFilters(plan.filters);
    const hitsRequest = { ...common, postFilters, sort: SORTS[plan.sort] ?? SORTS.mostrecent, from: plan.offset, size: plan.limit };
    const aggs = aggsOf(files, plan.isPublished);
    try {
      // Why two requests without q: facet counts of a whole scope are the same for every caller of
      // it until the index changes; as a `size: 0` request they come from the engine's shard request
      // cache, which each refresh that changes the index invalidates (exact, unlike pg's AggCache).
      // Without facet filters that request's total is the hits' total too, so the hits request
      // need not count every match and the engine skips those that cannot reach the page.
      const matchAll = query.type === 'all';
      const totalFromFacets = matchAll && postFilters.length === 0;
      const [res, facets] = await Promise.all([
        this.engine.search(this.alias, matchAll ? { ...hitsRequest, trackTotalHits: !totalFromFacets } : { ...hitsRequest, aggs }),
        matchAll ? this.engine.search(this.alias, { ...common, sort: [], from: 0, size: 0, aggs }) : undefined,
      ]);
      const keys = res.hits.map((h) => h.id);
      const byKey = new Map((await repo.docsByKeys(this.db, keys)).map((d) => [`${d.kind}:${d.id}`, d]));
      const hits = keys.flatMap((k) => {
        const d = byKey.get(k);
        return d ? [{ kind: d.kind, doc: d.doc }] : [];
      });
      return { hits, total: totalFromFacets && facets ? facets.total : res.total, rows: aggRows((facets ?? res).aggregations) };
    } catch (err) {
      if (err instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(err);
      throw err;
    }
  }
}

/** The field map with the file-data fields guarded by `files` (the caller may read the document's files). */
function withGuard(files: QueryAst) {
  const out = { ...RECORD_DSL_FIELDS };
  for (const name of GUARDED_FIELDS) {
    const spec = out[name];
    if (typeof spec !== 'string') out[name] = { ...spec, guard: files };
  }
  return out;
}
