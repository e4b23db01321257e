/**
 * Record search: `GET /api/records`, `GET /api/user/records` and
 * `GET /api/communities/<id>/records` (reference §4.1–§4.3, spec "Search syntax for record
 * lists"). Reads the request's parameters (paging, sort, facets), asks the index engine
 * (`Indexer.search`, pg-indexer.ts by default) and renders the facet buckets (facet-render.ts).
 * Hits are the stored documents; routes render them with `serializeItem`.
 *
 * Sorts: `bestmatch` (rank), `mostrecent` (the spec's name) = `newest` (InvenioRDM's), `oldest`,
 * `version`, `mostviewed`, `mostdownloaded`, `updated-desc`, `updated-asc`. Default: `bestmatch`
 * with `q`; else `mostrecent` for published records and `updated-desc` for the caller's records.
 * `sortBy` echoes the sort as given.
 */
import { type Aggregation, first, type Identity, isAdmin, isSystem, type ListArgs, type MsgLogger, parseListArgs } from '@rdm/platform';
import type { VocabulariesPort } from '../domain/ports.js';
import { recordsPolicy } from '../domain/records.policy.js';
import { facetLinkParams, parseBool, parseFacetFilters } from './facet-params.js';
import { renderAggregations, resourceTypeKeys } from './facet-render.js';
import type { Indexer, ScopeSpec, SearchHit } from './indexer.js';
import { ResourceTypeLabels } from './labels.js';

export type { SearchHit };

type Query = Record<string, string | string[] | undefined>;

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
export const RECORD_SORTS = [
  'bestmatch',
  'mostrecent',
  'newest',
  'oldest',
  'version',
  'updated-desc',
  'updated-asc',
  'mostviewed',
  'mostdownloaded',
] as const;

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
  index: Indexer;
  vocabularies?: VocabulariesPort;
  logger?: MsgLogger;
  /** Clock of date math in `q` (tests). */
  now?: () => Date;
  /** Resolve a community id or slug (404 when unknown) and whether the caller is a member. */
  resolveCommunity?: (identity: Identity, idOrSlug: string) => Promise<{ id: string; member: boolean }>;
  /**
   * Ids of the communities the caller is an active member of (any role; the communities roles
   * RPC, cached briefly): members read the restricted records of their communities. Without it,
   * searches ignore community memberships.
   */
  memberships?: (userId: string) => Promise<string[]>;
}

interface Plan {
  scope: ScopeSpec;
  defaultSort: string;
  isPublished?: boolean;
  params: Record<string, string | string[] | undefined>;
}

/** The record search service. */
export class RecordSearchService {
  private readonly labels: ResourceTypeLabels;

  constructor(private readonly d: RecordSearchDeps) {
    this.labels = new ResourceTypeLabels(d.index, d.vocabularies, d.logger);
  }

  /** GET /api/records: published, latest (unless `allversions`), readable records. */
  async searchRecords(identity: Identity, query: Query): Promise<SearchResult> {
    const allVersions = parseBool('allversions', first(query.allversions)) ?? false;
    const memberOf = await this.memberOf(identity);
    return this.run(query, {
      scope: { kind: 'published', identity, allVersions, memberOf },
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
    const memberOf = member ? undefined : await this.memberOf(identity);
    return this.run(query, {
      scope: { kind: 'published', identity, allVersions, communityId, member, memberOf },
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
      scope: { kind: 'user', identity, allVersions, sharedWithMe },
      defaultSort: 'updated-desc',
      isPublished: true,
      params: {
        allversions: allVersions ? 'true' : undefined,
        shared_with_me: sharedWithMe === undefined ? undefined : String(sharedWithMe),
      },
    });
  }

  /**
   * The caller's communities (none for anonymous callers, administrators and the system, who
   * need none). The communities service being away only narrows the search (logged), never fails it.
   */
  private async memberOf(identity: Identity): Promise<string[] | undefined> {
    if (!this.d.memberships || identity.sub === null || isAdmin(identity) || isSystem(identity)) return undefined;
    try {
      return await this.d.memberships(identity.sub);
    } catch (err) {
      this.d.logger?.warn({ err }, 'community memberships unavailable: searching without them');
      return undefined;
    }
  }

  private async run(query: Query, plan: Plan): Promise<SearchResult> {
    // The spec lists `mostrecent` among the parameters of GET /api/records: a bare flag for sort=mostrecent.
    const q2 = { ...query };
    if (!first(q2.sort) && first(q2.mostrecent) !== undefined && !/^(false|0)$/i.test(first(q2.mostrecent) ?? '')) q2.sort = 'mostrecent';
    const args = parseListArgs(q2, { sorts: RECORD_SORTS, defaultSort: plan.defaultSort, maxSize: Number.MAX_SAFE_INTEGER });
    const filters = parseFacetFilters(query, { isPublished: plan.isPublished, now: this.d.now?.() });
    const { hits, total, rows } = await this.d.index.search({
      scope: plan.scope,
      q: args.q,
      filters,
      sort: args.sort,
      limit: windowLimit(args),
      offset: args.from,
      isPublished: plan.isPublished,
      now: this.d.now?.(),
    });
    const labels = await this.labels.labels(resourceTypeKeys(rows));
    return {
      hits,
      total,
      args,
      aggregations: renderAggregations(rows, filters, labels, { isPublished: plan.isPublished }),
      params: { ...plan.params, ...facetLinkParams(query, { isPublished: plan.isPublished }) },
    };
  }
}
