/**
 * HTTP routes of record search: `GET /api/records`, `GET /api/user/records` and
 * `GET /api/communities/<id>/records`. Each makes ONE search service call with the raw query and
 * renders the hits with `serializeItem` inside the list envelope. Registered by app.ts before the
 * records routes.
 *
 * Hits of an answer the index shares between callers (frozen, cached per write stamp:
 * pg-indexer.ts) are rendered and turned into JSON once per caller instead of on every request
 * (issue 14: a deep copy per hit, then the JSON of ~100 KB of hits, were most of a cached search's
 * CPU); the rest of the envelope (total, facets, links) is rendered per request and the cached
 * JSON spliced in. The rendering is a pure function of the stored document, the caller and fixed
 * settings, so it is exact for as long as the answer is; it is keyed by the answer itself and
 * dies with it.
 */
import { type AppContext, type AppState, bindRoutes, type Identity, listEnvelope, type Router } from '@rdm/platform';
import { serializeItem } from '../domain/serializers.js';
import type { RecordSearchService, SearchResult } from '../search/search.service.js';
import { SEARCH_ROUTES } from './routes.decl.js';

type Query = Record<string, string | string[] | undefined>;

/** What the routes need. */
export interface SearchRoutesDeps {
  search: RecordSearchService;
  baseUrl: string;
  doiResolverUrl: string;
}

type Hits = SearchResult['hits'];
type Rendered = Record<string, any>[];

/** Callers rendered per shared answer at most (anonymous, then a few roles); more are rendered live. */
const CALLERS_PER_ANSWER = 8;

/** How the JSON of every list envelope begins (listEnvelope puts the hits first), hits left empty. */
const EMPTY_HITS = '{"hits":{"hits":[]';
const HITS_OPEN = Buffer.from('{"hits":{"hits":');

/** JSON (UTF-8 bytes) of the rendered hits of shared (frozen) answers, per caller. */
export class RenderedHits {
  private readonly byAnswer = new WeakMap<Hits, Map<string, Buffer>>();

  /**
   * The hits of `hits` rendered for `identity`, as JSON bytes, when the answer is shared (rendered
   * once per caller); undefined when it is not (the caller renders live).
   */
  json(hits: Hits, identity: Identity, render: () => Rendered): Buffer | undefined {
    // Only shared answers are frozen; secret-link callers are never cached (as record reads).
    if (!Object.isFrozen(hits) || identity.linkToken) return undefined;
    const caller = `${identity.sub ?? ''}\u0000${identity.roles.join(',')}`;
    let perCaller = this.byAnswer.get(hits);
    if (!perCaller) {
      perCaller = new Map();
      this.byAnswer.set(hits, perCaller);
    }
    let out = perCaller.get(caller);
    if (out === undefined) {
      if (perCaller.size >= CALLERS_PER_ANSWER) return undefined;
      out = Buffer.from(JSON.stringify(render()));
      perCaller.set(caller, out);
    }
    return out;
  }
}

/** Register the search routes on the records router. */
export function registerSearchRoutes(router: Router<AppState>, deps: SearchRoutesDeps): void {
  const { search, baseUrl, doiResolverUrl } = deps;
  const rendered = new RenderedHits();

  const render = (ctx: AppContext, r: SearchResult, path: string) => {
    const identity = ctx.state.identity;
    const renderHits = () => r.hits.map((h) => serializeItem(h.doc, { baseUrl, identity, kind: h.kind, doiResolverUrl }));
    const envelope = (hits: Rendered) =>
      listEnvelope({ hits, total: r.total, args: r.args, baseUrl, path, params: r.params, aggregations: r.aggregations });
    const hitsJson = rendered.json(r.hits, identity, renderHits);
    const rest = hitsJson === undefined ? undefined : JSON.stringify(envelope([]));
    if (hitsJson === undefined || !rest?.startsWith(EMPTY_HITS)) {
      ctx.body = envelope(renderHits());
      return;
    }
    // The same bytes koa would write for the whole envelope: the cached hits spliced into the rest
    // (bytes, so that neither the length nor the write encodes the ~100 KB of hits again).
    ctx.type = 'application/json';
    ctx.body = Buffer.concat([HITS_OPEN, hitsJson, Buffer.from(rest.slice(EMPTY_HITS.length))]);
  };

  bindRoutes(
    SEARCH_ROUTES,
    {
      searchRecords: async (ctx: AppContext) => {
        render(ctx, await search.searchRecords(ctx.state.identity, ctx.query as Query), '/api/records');
      },
      searchUserRecords: async (ctx: AppContext) => {
        render(ctx, await search.searchUserRecords(ctx.state.identity, ctx.query as Query), '/api/user/records');
      },
      searchCommunityRecords: async (ctx: AppContext) => {
        const id = String(ctx.params.id);
        const r = await search.searchCommunityRecords(ctx.state.identity, id, ctx.query as Query);
        render(ctx, r, `/api/communities/${encodeURIComponent(id)}/records`);
      },
    },
    router,
  );
}
