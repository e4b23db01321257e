/**
 * The postgres engine of the records search index (`SEARCH_ENGINE=postgres`, the default):
 * documents in `search_docs` (written in the transaction of each change, so a writer's next
 * search sees its write) and searches compiled to SQL.
 *
 * A search yields the page of hits (scope AND `q` AND facet filters, sorted, LIMIT/OFFSET; deep
 * pages of column sorts without `q` after the previous page's last key, keyset.ts), the exact
 * total of the same condition, and the facet counts of scope AND `q` (facet filters are
 * post-filters: counts ignore them).
 * - With `q`: one statement reads the matching documents once (search.repo `searchMatches`).
 * - Without `q`: hits, total and facets run side by side; the facet counts of the part of the
 *   scope shared by all callers (public records) come from a short stale-while-revalidate cache
 *   (agg-cache.ts) and the caller's own restricted records are counted live and added.
 * Write stamp (issue 14): every search first reads the write stamp of `search_docs`
 * (`repo.writeStamp`, one cheap statement). What is the same for every caller — the whole answer
 * of a scope without a personal part (anonymous callers), the total of the shared part of the
 * others — is cached per stamp and served only while the stamp is unchanged and the entry was
 * computed with no writer in flight (`AggCache.exact`): never a total or a page that misses a
 * committed write (read-your-writes holds), and no recomputation while nothing is written. The
 * caller's own part (restricted records it may read): its total and facet rows are cached per
 * stamp under the same rule (per caller), its page is read live. Facet counts of the
 * shared part are exact while the stamp is unchanged, else under the facet cache's time rules.
 * File data is guarded by the caller's right to read the files (files-guard.ts): the cached
 * shared counts count only public files, the caller's other readable files are counted live.
 */
import { Errors, type Knex, QuerySyntaxError } from '@rdm/platform';
import type { IndexedItem } from '../domain/ports.js';
import type { ItemDoc } from '../model/rows.js';
import { AggCache, type AggCacheOptions, type Stamp } from './agg-cache.js';
import { facetFilterSql } from './facet-sql.js';
import { fileTypesExpr } from './files-guard.js';
import { type CompiledQuery, compileQuery } from './fields.js';
import type { AggRow, Indexer, ScopeSpec, SearchPage, SearchPlan } from './indexer.js';
import { publishedScope, type Scope, scopeSql, userScope } from './scopes.js';
import { Keysets, keyExpr, keysetAfter, type SortColumn, sortColumns } from './keyset.js';
import { fileTypes, searchDocRow } from './search-doc.js';
import * as repo from './search.repo.js';
import { andAll, type Sql } from './sql.js';

/** ORDER BY of each sort but `bestmatch` (ties broken by creation, then id, for stable pages). */
const ORDER: Readonly<Record<string, string>> = {
  mostrecent: 'created DESC, id DESC',
  newest: 'created DESC, id DESC',
  oldest: 'created ASC, id ASC',
  version: 'version_index DESC, created DESC, id DESC',
  'updated-desc': 'updated DESC, id DESC',
  'updated-asc': 'updated ASC, id ASC',
  mostviewed: 'views DESC, created DESC, id DESC',
  mostdownloaded: 'downloads DESC, created DESC, id DESC',
};

/** Largest page whose answer is cached (the UI asks 10–25, API clients up to 100). */
const CACHED_PAGE_MAX = 100;

/**
 * Offset from which pages of column sorts without `q` remember their last sort key and are read
 * by keyset when the previous page's key is known (keyset.ts); below it OFFSET costs little.
 */
const KEYSET_FROM = 500;

/** Options of the engine. */
export interface PostgresIndexerOptions {
  /** Facet-count cache of the shared part of published scopes (`{freshMs: 0}` disables it). */
  aggCache?: AggCacheOptions;
  /**
   * Cache of answers exact for a write stamp: whole answers of shared scopes and totals of shared
   * parts (default 1,000 keys; `{freshMs: 0}` disables it).
   */
  resultCache?: AggCacheOptions;
  /** Offset from which deep pages are paged by keyset (default KEYSET_FROM; negative: never). */
  keysetFrom?: number;
}

/**
 * An answer as cached, deeply frozen: every caller shares it (the routes serialize hits from a
 * copy, serializers.ts `serializeItem`; a write to a shared answer throws instead of leaking).
 */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) frozen(v);
  }
  return value;
}

const scopeOf = (s: ScopeSpec): Scope => (s.kind === 'published' ? publishedScope(s.identity, s) : userScope(s.identity, s));

/** The search index on PostgreSQL. */
export class PostgresIndexer implements Indexer {
  private readonly aggCache: AggCache<AggRow[]>;
  private readonly pages: AggCache<SearchPage>;
  private readonly totals: AggCache<number>;
  /** Facet rows of callers' own parts (exact per stamp, like totals). */
  private readonly ownRows: AggCache<AggRow[]>;
  private readonly keysets = new Keysets();
  private readonly keysetFrom: number;

  constructor(
    private readonly db: Knex,
    o: PostgresIndexerOptions = {},
  ) {
    this.aggCache = new AggCache<AggRow[]>(o.aggCache);
    this.pages = new AggCache<SearchPage>({ maxEntries: 1000, ...o.resultCache });
    this.totals = new AggCache<number>({ maxEntries: 1000, ...o.resultCache });
    this.ownRows = new AggCache<AggRow[]>({ maxEntries: 1000, ...o.resultCache });
    this.keysetFrom = o.keysetFrom ?? KEYSET_FROM;
  }

  // -------------------------------------------------------------------------------------------
  // writes (in the caller's transaction)

  index(trx: Knex.Transaction, item: IndexedItem): Promise<void> {
    return repo.upsertDoc(trx, searchDocRow(item));
  }

  remove(trx: Knex.Transaction, id: string, kind: 'draft' | 'record'): Promise<void> {
    return repo.deleteDoc(trx, id, kind);
  }

  setHasDraft(trx: Knex.Transaction, id: string, hasDraft: boolean): Promise<void> {
    return repo.setHasDraft(trx, id, hasDraft);
  }

  setUsage(trx: Knex.Transaction, parentId: string, views: number, downloads: number): Promise<void> {
    return repo.setUsage(trx, parentId, views, downloads);
  }

  refreshVersionFlags(trx: Knex.Transaction, ids: string[], state: { latest_id: string | null; next_draft_id: string | null }) {
    return repo.refreshVersionFlags(trx, ids, state);
  }

  refreshParent(trx: Knex.Transaction, parentId: string, parent: ItemDoc['parent']): Promise<void> {
    const ids = (parent?.communities as { ids?: unknown } | undefined)?.ids;
    return repo.setParentOfDocs(trx, parentId, parent, Array.isArray(ids) ? (ids as string[]) : []);
  }

  setDraftFiles(trx: Knex.Transaction, id: string, files: ItemDoc['files']): Promise<void> {
    return repo.setDraftDocFiles(trx, id, files, fileTypes(files?.entries ?? {}));
  }

  setDraftsStatus(trx: Knex.Transaction, parentId: string, status: string): Promise<void> {
    return repo.setDraftDocsStatus(trx, parentId, status);
  }

  storedDraftFiles(id: string): Promise<ItemDoc['files'] | undefined> {
    return repo.draftDocFiles(this.db, id);
  }

  resourceTypeTitles(ids: string[]): Promise<Map<string, string>> {
    return repo.resourceTypeTitles(this.db, ids);
  }

  // -------------------------------------------------------------------------------------------
  // search

  async search(plan: SearchPlan): Promise<SearchPage> {
    let compiled: CompiledQuery;
    try {
      compiled = compileQuery(plan.q, plan.now);
    } catch (err) {
      if (err instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(err);
      throw err;
    }
    const scope = scopeOf(plan.scope);
    // A query without full-text terms ranks every hit 0 (`ORDER BY 0` would be a column position).
    const ranked = plan.sort === 'bestmatch' && compiled.rank.sql !== '0';
    const order = ranked ? `rank DESC, ${ORDER.mostrecent}, kind` : `${ORDER[plan.sort] ?? ORDER.mostrecent}, kind`;
    const page = { limit: plan.limit, offset: plan.offset };
    // Only scopes with a shared part cache anything.
    const stamp = this.pages.enabled && scope.shareable && scope.shared ? await this.stamp() : null;
    // The same answer for every caller of this scope (no personal part): cached per stamp (pages
    // of at most CACHED_PAGE_MAX hits: a client fetching `size=10000` would hold megabytes a key).
    const key =
      stamp && !scope.personal && plan.limit <= CACHED_PAGE_MAX
        ? JSON.stringify([scope, compiled.where, compiled.rank, plan.filters, order, page, plan.isPublished ?? false])
        : null;

    if (!compiled.matchAll) {
      // With q: the matching documents are read once for hits, total and facets.
      const live = () =>
        repo.searchMatches(this.db, {
          where: andAll([scopeSql(scope), compiled.where]),
          // Over the matches, whose file types are already guarded (searchMatches).
          facets: facetFilterSql(plan.filters),
          filesReadable: scope.files,
          rank: ranked ? compiled.rank : null,
          order,
          ...page,
          isPublished: plan.isPublished,
        });
      return stamp && key ? this.pages.exact(key, async () => frozen(await live()), stamp) : live();
    }
    // Without q: hits walk a sort index, the total is an index-only count, facets are (partly) cached.
    const facets = facetFilterSql(plan.filters, scope.files);
    const where = andAll([scopeSql(scope), facets]);
    // Deep pages of column sorts: by keyset when the previous page's key is known (keyset.ts).
    const cols = ranked || this.keysetFrom < 0 || plan.offset + plan.limit < this.keysetFrom ? null : sortColumns(order);
    const keyStamp = cols ? (stamp ?? (await this.stamp())) : null;
    const hitsAndTotal = async (): Promise<SearchPage> => {
      const [hits, total] = await Promise.all([
        cols && keyStamp
          ? this.keyedHits(where, order, cols, page, keyStamp)
          : repo.findHits(this.db, where, { sql: order, bindings: [] }, page),
        this.count(scope, facets, stamp),
      ]);
      return { hits, total, rows: [] };
    };
    // Facet counts apart: exact while nothing is written, else within the facet cache's lag (never
    // the whole aggregation synchronously on every search after a write).
    const [ht, rows] = await Promise.all([
      stamp && key ? this.pages.exact(key, async () => frozen(await hitsAndTotal()), stamp) : hitsAndTotal(),
      this.aggregate(scope, plan.isPublished, stamp),
    ]);
    return { hits: ht.hits, total: ht.total, rows };
  }

  /**
   * The write stamp of this search (read once, before anything it may cache). Its lock check runs
   * once, at the first computation that asks, so it precedes every computation's snapshot.
   */
  private async stamp(): Promise<Stamp> {
    const value = await repo.writeStamp(this.db);
    let settled: Promise<boolean> | undefined;
    const check = async () => !(await repo.writersInFlight(this.db));
    return {
      value,
      settled: () => {
        settled ??= check();
        return settled;
      },
    };
  }

  /**
   * A page of hits of a column sort, read after the previous page's last key when it is known
   * under `stamp` (else with OFFSET); its own last key remembered when exact for `stamp`.
   * Identical to OFFSET: the key used was remembered from a snapshot holding every write drawn
   * under the stamp (settled), and the keyset read is kept only if the stamp is unchanged after
   * it (no write committed before its snapshot either).
   */
  private async keyedHits(where: Sql, order: string, cols: SortColumn[], page: { limit: number; offset: number }, stamp: Stamp) {
    const base = JSON.stringify([where.sql, where.bindings, order, page.limit]);
    const known = page.offset > 0 && page.offset >= this.keysetFrom ? this.keysets.get(base, page.offset, stamp.value) : null;
    const after = known ? keysetAfter(cols, known) : null;
    const key = keyExpr(cols);
    // Without a known key, this page's key is exact only if no writer was in flight before the read.
    const settled = after ? true : await stamp.settled();
    let r = await repo.findHitsKeyed(this.db, where, order, page, { key, after });
    if (after && (await repo.writeStamp(this.db)) !== stamp.value) {
      // Written since the stamp: this snapshot's row offset−1 may not be the remembered one.
      r = await repo.findHitsKeyed(this.db, where, order, page, { key, after: null });
      return r.hits;
    }
    if (settled && r.last && r.hits.length === page.limit) this.keysets.set(base, page.offset + page.limit, stamp.value, r.last);
    return r.hits;
  }

  /**
   * Exact total of a scope AND facets: the shared and the personal part counted apart (each has
   * its index); the shared part's count cached per write stamp (exact) when it is shareable, so
   * that every page of a walk (and every caller) shares it.
   */
  private async count(scope: Scope, facets: Sql | null, stamp: Stamp | null): Promise<number> {
    if (!scope.shared) return repo.countHits(this.db, andAll([scopeSql(scope), facets]));
    const shared = andAll([scope.common, scope.shared, facets]);
    const sharedCount = () => repo.countHits(this.db, shared);
    const counts = await Promise.all([
      stamp && scope.shareable ? this.totals.exact(JSON.stringify([shared.sql, shared.bindings]), sharedCount, stamp) : sharedCount(),
      scope.personal ? this.exactOwn(this.totals, andAll([scope.common, scope.personal, facets]), 'n', repo.countHits, stamp) : 0,
    ]);
    return counts[0] + counts[1];
  }

  /**
   * A figure of a caller's own part (`where`): exact per write stamp when there is one (the same
   * rule as shared totals: never one that misses a committed write), else computed live.
   */
  private exactOwn<T>(cache: AggCache<T>, where: Sql, what: string, compute: (db: Knex, where: Sql) => Promise<T>, stamp: Stamp | null) {
    const live = () => compute(this.db, where);
    return stamp ? cache.exact(JSON.stringify([what, where.sql, where.bindings]), live, stamp) : live();
  }

  /**
   * Facet rows of a scope (facet filters ignored): the shared part cached (file types: only those
   * everyone sharing the cache may read), the personal part and the caller's own readable files
   * of the shared part live. Personal parts are readable as a whole (files included).
   */
  private async aggregate(scope: Scope, isPublished: boolean | undefined, stamp: Stamp | null): Promise<AggRow[]> {
    if (!scope.shareable || !scope.shared) {
      return repo.facetRows(this.db, scopeSql(scope), { isPublished, fileTypes: fileTypesExpr(scope.files) });
    }
    const shared = andAll([scope.common, scope.shared]);
    const o = { isPublished, fileTypes: fileTypesExpr(scope.sharedFiles) };
    const key = JSON.stringify([shared.sql, shared.bindings, isPublished ?? false, o.fileTypes.sql]);
    const extra =
      scope.sharedFiles.sql === 'TRUE' || !scope.filesExtra
        ? null
        : andAll([
            scope.common,
            scope.shared,
            { sql: `(${scope.sharedFiles.sql}) IS NOT TRUE`, bindings: scope.sharedFiles.bindings },
            scope.filesExtra,
          ]);
    const [a, b, c] = await Promise.all([
      this.aggCache.get(key, () => repo.facetRows(this.db, shared, o), stamp ?? undefined),
      scope.personal
        ? this.exactOwn(
            this.ownRows,
            andAll([scope.common, scope.personal]),
            `r${isPublished ?? ''}`,
            (db, w) => repo.facetRows(db, w, { isPublished }),
            stamp,
          )
        : Promise.resolve([]),
      extra ? this.exactOwn(this.ownRows, extra, 'f', repo.fileTypeRows, stamp) : Promise.resolve([]),
    ]);
    return [...a, ...b, ...c];
  }
}
