/**
 * Record search on the postgres engine: `GET /api/records`, `GET /api/user/records` and
 * `GET /api/communities/<id>/records` (reference §4.1–§4.3, spec "Search syntax for record
 * lists"), over the denormalized `search_docs` table that the records service writes in the same
 * transaction as every write, so a writer's next search sees its write.
 *
 * A search yields the page of hits (scope AND `q` AND facet filters, sorted, LIMIT/OFFSET), the
 * exact total of the same condition, and the facet counts of scope AND `q` (facet filters are
 * post-filters: counts ignore them).
 * - With `q`: one statement reads the matching documents once (search.repo `searchMatches`).
 * - Without `q`: hits, total and facets run side by side; the facet counts of the part of the
 *   scope shared by all callers (public records) come from a short stale-while-revalidate cache
 *   (agg-cache.ts) and the caller's own restricted records are counted live and added.
 * Hits and totals are never cached (read-your-writes). Hits are the stored documents; routes
 * render them with `serializeItem`.
 *
 * Sorts: `bestmatch` (rank), `mostrecent` (the spec's name) = `newest` (InvenioRDM's), `oldest`,
 * `version`, `mostviewed`, `mostdownloaded`, `updated-desc`, `updated-asc`. Default: `bestmatch`
 * with `q`; else `mostrecent` for published records and `updated-desc` for the caller's records.
 * `sortBy` echoes the sort as given.
 */
import {
  type Aggregation,
  Errors,
  first,
  type Identity,
  type Knex,
  type ListArgs,
  type MsgLogger,
  parseListArgs,
  QuerySyntaxError,
} from '@rdm/platform';
import { recordsPolicy } from '../domain/records.policy.js';
import type { ItemDoc } from '../domain/serializers.js';
import type { VocabulariesPort } from '../rpc/vocabularies.client.js';
import { AggCache, type AggCacheOptions } from './agg-cache.js';
import {
  type AggRow,
  facetFilterSql,
  facetLinkParams,
  parseBool,
  parseFacetFilters,
  renderAggregations,
  resourceTypeKeys,
} from './facets.js';
import { type CompiledQuery, compileQuery } from './fields.js';
import { ResourceTypeLabels } from './labels.js';
import { publishedScope, type Scope, scopeSql, userScope } from './scopes.js';
import { countHits, facetRows, findHits, searchMatches } from './search.repo.js';
import { andAll, type Sql } from './sql.js';

type Query = Record<string, string | string[] | undefined>;

/** ORDER BY of each sort (ties broken by creation, then id, for stable pages). */
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

/** Hits reachable by paging (InvenioRDM's `max_result_window`): `(page-1)*size` below it, else 400. */
export const MAX_RESULT_WINDOW = 10_000;

/**
 * LIMIT of a page. Like InvenioRDM (reference §4.1: no maximum `size`), any size is accepted and
 * the page is cut at the result window, so `size=10000` (a client fetching everything) works.
 */
export function windowLimit(args: Pick<ListArgs, 'size' | 'from'>): number {
  return Math.max(0, Math.min(args.size, MAX_RESULT_WINDOW - args.from));
}

/** Sorts accepted by every record list. */
export const RECORD_SORTS = ['bestmatch', ...Object.keys(ORDER)] as const;

/** One hit: the stored document and its kind. */
export interface SearchHit {
  kind: 'draft' | 'record';
  doc: ItemDoc;
}

/** What a search returns to its route. */
export interface SearchResult {
  hits: SearchHit[];
  total: number;
  args: ListArgs;
  aggregations: Record<string, Aggregation>;
  /** Query parameters kept in `links` besides q/page/size/sort. */
  params: Record<string, string | string[] | undefined>;
}

/** Dependencies of the search service. */
export interface RecordSearchDeps {
  db: Knex;
  vocabularies?: VocabulariesPort;
  logger?: MsgLogger;
  /** Clock of date math in `q` (tests). */
  now?: () => Date;
  /** Facet-count cache of the shared part of published scopes (`{freshMs: 0}` disables it). */
  aggCache?: AggCacheOptions;
  /** Resolve a community id or slug (404 when unknown) and whether the caller is a member. */
  resolveCommunity?: (identity: Identity, idOrSlug: string) => Promise<{ id: string; member: boolean }>;
}

interface Plan {
  scope: Scope;
  defaultSort: string;
  isPublished?: boolean;
  params: Record<string, string | string[] | undefined>;
}

/** The record search service. */
export class RecordSearchService {
  private readonly labels: ResourceTypeLabels;
  private readonly aggCache: AggCache<AggRow[]>;

  constructor(private readonly d: RecordSearchDeps) {
    this.labels = new ResourceTypeLabels(d.db, d.vocabularies, d.logger);
    this.aggCache = new AggCache<AggRow[]>(d.aggCache);
  }

  /** GET /api/records: published, latest (unless `allversions`), readable records. */
  async searchRecords(identity: Identity, query: Query): Promise<SearchResult> {
    const allVersions = parseBool('allversions', first(query.allversions)) ?? false;
    return this.run(query, {
      scope: publishedScope(identity, { allVersions }),
      defaultSort: 'mostrecent',
      params: { allversions: allVersions ? 'true' : undefined },
    });
  }

  /**
   * GET /api/communities/<id or slug>/records: as searchRecords, restricted to records whose
   * parent's communities include the community (resolved by `resolveCommunity` when given: 404 if
   * unknown; its members also see its restricted records).
   */
  async searchCommunityRecords(identity: Identity, idOrSlug: string, query: Query): Promise<SearchResult> {
    const allVersions = parseBool('allversions', first(query.allversions)) ?? false;
    const { id: communityId, member } = this.d.resolveCommunity
      ? await this.d.resolveCommunity(identity, idOrSlug)
      : { id: idOrSlug, member: false };
    return this.run(query, {
      scope: publishedScope(identity, { allVersions, communityId, member }),
      defaultSort: 'mostrecent',
      params: { allversions: allVersions ? 'true' : undefined },
    });
  }

  /** GET /api/user/records: the caller's drafts and records (403 for anonymous callers). */
  async searchUserRecords(identity: Identity, query: Query): Promise<SearchResult> {
    recordsPolicy.require('search_drafts', identity);
    const allVersions = parseBool('allversions', first(query.allversions)) ?? false;
    const sharedWithMe = parseBool('shared_with_me', first(query.shared_with_me));
    return this.run(query, {
      scope: userScope(identity, { allVersions, sharedWithMe }),
      defaultSort: 'updated-desc',
      isPublished: true,
      params: {
        allversions: allVersions ? 'true' : undefined,
        shared_with_me: sharedWithMe === undefined ? undefined : String(sharedWithMe),
      },
    });
  }

  private async run(query: Query, plan: Plan): Promise<SearchResult> {
    // The spec lists `mostrecent` among the parameters of GET /api/records: a bare flag for sort=mostrecent.
    const q2 = { ...query };
    if (!first(q2.sort) && first(q2.mostrecent) !== undefined && !/^(false|0)$/i.test(first(q2.mostrecent) ?? '')) q2.sort = 'mostrecent';
    const args = parseListArgs(q2, { sorts: RECORD_SORTS, defaultSort: plan.defaultSort, maxSize: Number.MAX_SAFE_INTEGER });
    const filters = parseFacetFilters(query, { isPublished: plan.isPublished, now: this.d.now?.() });
    let compiled: CompiledQuery;
    try {
      compiled = compileQuery(args.q, this.d.now?.());
    } catch (err) {
      if (err instanceof QuerySyntaxError) throw Errors.invalidQuerySyntax(err);
      throw err;
    }
    const qWhere = compiled.matchAll ? null : compiled.where;
    const facets = facetFilterSql(filters);
    // A query without full-text terms ranks every hit 0 (`ORDER BY 0` would be a column position).
    const ranked = args.sort === 'bestmatch' && compiled.rank.sql !== '0';
    const order = ranked ? `rank DESC, ${ORDER.mostrecent}, kind` : `${ORDER[args.sort] ?? ORDER.mostrecent}, kind`;
    const page = { limit: windowLimit(args), offset: args.from };

    let hits: SearchHit[];
    let total: number;
    let rows: AggRow[];
    if (qWhere) {
      // With q: the matching documents are read once for hits, total and facets.
      ({ hits, total, rows } = await searchMatches(this.d.db, {
        where: andAll([scopeSql(plan.scope), qWhere]),
        facets,
        rank: ranked ? compiled.rank : null,
        order,
        ...page,
        isPublished: plan.isPublished,
      }));
    } else {
      // Without q: hits walk a sort index, the total is an index-only count, facets are (partly) cached.
      const where = andAll([scopeSql(plan.scope), facets]);
      [hits, total, rows] = await Promise.all([
        findHits(this.d.db, where, { sql: order, bindings: [] }, page),
        this.count(plan.scope, facets),
        this.aggregate(plan, null),
      ]);
    }
    const labels = await this.labels.labels(resourceTypeKeys(rows));
    return {
      hits,
      total,
      args,
      aggregations: renderAggregations(rows, filters, labels, { isPublished: plan.isPublished }),
      params: { ...plan.params, ...facetLinkParams(query, { isPublished: plan.isPublished }) },
    };
  }

  /** Exact total of a scope AND facets: the shared and the personal part counted apart (each has its index). */
  private async count(scope: Scope, facets: Sql | null): Promise<number> {
    if (!scope.shared || !scope.personal) return countHits(this.d.db, andAll([scopeSql(scope), facets]));
    const counts = await Promise.all([
      countHits(this.d.db, andAll([scope.common, scope.shared, facets])),
      countHits(this.d.db, andAll([scope.common, scope.personal, facets])),
    ]);
    return counts[0] + counts[1];
  }

  /** Facet rows of scope AND q (facet filters ignored): the shared part cached, the personal part live. */
  private async aggregate(plan: Plan, qWhere: Sql | null): Promise<AggRow[]> {
    const { scope } = plan;
    const o = { isPublished: plan.isPublished };
    if (!scope.shareable || !scope.shared) return facetRows(this.d.db, andAll([scopeSql(scope), qWhere]), o);
    const shared = andAll([scope.common, scope.shared, qWhere]);
    const key = JSON.stringify([shared.sql, shared.bindings, o.isPublished ?? false]);
    const [a, b] = await Promise.all([
      this.aggCache.get(key, () => facetRows(this.d.db, shared, o)),
      scope.personal ? facetRows(this.d.db, andAll([scope.common, scope.personal, qWhere]), o) : Promise.resolve([]),
    ]);
    return [...a, ...b];
  }
}
