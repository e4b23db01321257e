/**
 * HTTP routes of record search: `GET /api/records`, `GET /api/user/records` and
 * `GET /api/communities/<id>/records`. Each makes ONE search service call with the raw query and
 * renders the hits with `serializeItem` inside the list envelope. Registered by app.ts before the
 * records routes.
 *
 * Hits of an answer the index shares between callers (frozen, cached per write stamp:
 * pg-indexer.ts) are rendered once per caller instead of on every request (issue 14: rendering,
 * a deep copy per hit, was most of a cached search's CPU). The rendering is a pure function of the
 * stored document, the caller and fixed settings, so it is exact for as long as the answer is;
 * it is keyed by the answer itself and dies with it.
 */
import { type AppContext, type AppState, type Identity, listEnvelope, type Router } from '@rdm/platform';
import { serializeItem } from '../domain/serializers.js';
import type { RecordSearchService, SearchResult } from '../search/search.service.js';

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

/** Rendered hits of shared (frozen) answers, per caller. */
export class RenderedHits {
  private readonly byAnswer = new WeakMap<Hits, Map<string, Rendered>>();

  /** The hits of `hits` rendered for `identity`: cached when the answer is shared, else `render()`. */
  get(hits: Hits, identity: Identity, render: () => Rendered): Rendered {
    // Only shared answers are frozen; secret-link callers are never cached (as record reads).
    if (!Object.isFrozen(hits) || identity.linkToken) return render();
    const caller = `${identity.sub ?? ''}\u0000${identity.roles.join(',')}`;
    let perCaller = this.byAnswer.get(hits);
    if (!perCaller) {
      perCaller = new Map();
      this.byAnswer.set(hits, perCaller);
    }
    let out = perCaller.get(caller);
    if (!out) {
      if (perCaller.size >= CALLERS_PER_ANSWER) return render();
      out = render();
      // Shared with later requests: a write to it would leak between them, so it throws instead.
      for (const item of out) Object.freeze(item);
      perCaller.set(caller, Object.freeze(out) as Rendered);
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
    const hits = rendered.get(r.hits, identity, () =>
      r.hits.map((h) => serializeItem(h.doc, { baseUrl, identity, kind: h.kind, doiResolverUrl })),
    );
    ctx.body = listEnvelope({ hits, total: r.total, args: r.args, baseUrl, path, params: r.params, aggregations: r.aggregations });
  };

  router.get('/api/records', async (ctx: AppContext) => {
    render(ctx, await search.searchRecords(ctx.state.identity, ctx.query as Query), '/api/records');
  });

  router.get('/api/user/records', async (ctx: AppContext) => {
    render(ctx, await search.searchUserRecords(ctx.state.identity, ctx.query as Query), '/api/user/records');
  });

  router.get('/api/communities/:id/records', async (ctx: AppContext) => {
    const id = String(ctx.params.id);
    const r = await search.searchCommunityRecords(ctx.state.identity, id, ctx.query as Query);
    render(ctx, r, `/api/communities/${encodeURIComponent(id)}/records`);
  });
}
