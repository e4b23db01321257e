/**
 * HTTP routes of record search: `GET /api/records`, `GET /api/user/records` and
 * `GET /api/communities/<id>/records`. Each makes ONE search service call with the raw query and
 * renders the hits with `serializeItem` inside the list envelope. Registered by app.ts before the
 * records routes.
 */
import { type AppContext, type AppState, listEnvelope, type Router } from '@rdm/platform';
import { serializeItem } from '../domain/serializers.js';
import type { RecordSearchService, SearchResult } from '../search/search.service.js';

type Query = Record<string, string | string[] | undefined>;

/** What the routes need. */
export interface SearchRoutesDeps {
  search: RecordSearchService;
  baseUrl: string;
  doiResolverUrl: string;
}

/** Register the search routes on the records router. */
export function registerSearchRoutes(router: Router<AppState>, deps: SearchRoutesDeps): void {
  const { search, baseUrl, doiResolverUrl } = deps;

  const render = (ctx: AppContext, r: SearchResult, path: string) => {
    const identity = ctx.state.identity;
    const hits = r.hits.map((h) => serializeItem(h.doc, { baseUrl, identity, kind: h.kind, doiResolverUrl }));
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
