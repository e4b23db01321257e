/**
 * HTTP routes of communities: search, create, read, update, delete/restore, rename, logo and
 * featured entries. Each parses input, calls one service method and serializes.
 */
import { all, type AppContext, type AppState, ifMatch, jsonBody, listEnvelope, parseListArgs, Router } from '@rdm/platform';
import { COMMUNITY_SORTS, type CommunitiesService } from '../domain/communities.service.js';
import type { CommunityLinks } from '../domain/links.js';
import type { LogoService } from '../domain/logo.service.js';
import { communityAggregations, serializeCommunity, serializeFeatured, serializeLogo } from './serializers.js';

/** Dependencies of the community routes. */
export interface CommunitiesRoutesDeps {
  communities: CommunitiesService;
  logos: LogoService;
  links: CommunityLinks;
}

const LIST = { sorts: COMMUNITY_SORTS, defaultSort: 'newest', defaultSortWithQ: 'bestmatch' } as const;

/** Build the router. */
export function communitiesRouter(deps: CommunitiesRoutesDeps): Router<AppState> {
  const { communities, logos, links } = deps;
  const router = new Router<AppState>();
  type Ctx = AppContext & { params: Record<string, string> };

  const search = (scope: 'all' | 'user' | 'featured', path: string) => async (ctx: Ctx) => {
    const args = parseListArgs(ctx.query, LIST);
    const filters = { type: all(ctx.query.type), visibility: all(ctx.query.visibility) };
    const res = await communities.search(ctx.state.identity, args, filters, scope);
    ctx.body = listEnvelope({
      hits: res.rows.map((r) => serializeCommunity(r, links)),
      total: res.total,
      args,
      baseUrl: links.base,
      path,
      params: { type: filters.type, visibility: filters.visibility },
      aggregations: communityAggregations(res.facets, filters),
    });
  };
  const single = async (ctx: Ctx, row: Parameters<typeof serializeCommunity>[0]) => {
    ctx.body = serializeCommunity(row, links, await communities.statistics(row.id));
  };

  router.get('/api/communities', search('all', '/api/communities'));
  router.get('/api/communities/featured', search('featured', '/api/communities/featured'));
  router.get('/api/user/communities', search('user', '/api/user/communities'));

  router.post('/api/communities', async (ctx: Ctx) => {
    const row = await communities.create(ctx.state.identity, await jsonBody(ctx));
    await single(ctx, row);
    ctx.status = 201;
  });
  router.get('/api/communities/:id', async (ctx: Ctx) => {
    const c = await communities.read(ctx.state.identity, ctx.params.id);
    await single(ctx, c.row);
  });
  router.put('/api/communities/:id', async (ctx: Ctx) => {
    const row = await communities.update(ctx.state.identity, ctx.params.id, await jsonBody(ctx), ifMatch(ctx));
    await single(ctx, row);
  });
  router.delete('/api/communities/:id', async (ctx: Ctx) => {
    await communities.delete(ctx.state.identity, ctx.params.id, await jsonBody(ctx), ifMatch(ctx));
    ctx.status = 204;
  });
  router.post('/api/communities/:id/rename', async (ctx: Ctx) => {
    const row = await communities.rename(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
    await single(ctx, row);
  });
  router.post('/api/communities/:id/restore', async (ctx: Ctx) => {
    const row = await communities.restore(ctx.state.identity, ctx.params.id);
    await single(ctx, row);
  });

  router.put('/api/communities/:id/logo', async (ctx: Ctx) => {
    const len = ctx.get('content-length');
    const row = await logos.put(ctx.state.identity, ctx.params.id, ctx.req, /^\d+$/.test(len) ? Number(len) : undefined);
    ctx.body = serializeLogo(row, links);
  });
  router.get('/api/communities/:id/logo', async (ctx: Ctx) => {
    const { row, stream } = await logos.get(ctx.state.identity, ctx.params.id);
    ctx.type = row.mimetype;
    ctx.length = Number(row.size);
    ctx.set('Content-Disposition', 'inline');
    // Why: an SVG logo must never run script in the API origin.
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = stream;
  });
  router.delete('/api/communities/:id/logo', async (ctx: Ctx) => {
    await logos.delete(ctx.state.identity, ctx.params.id);
    ctx.status = 204;
  });

  router.get('/api/communities/:id/featured', async (ctx: Ctx) => {
    const rows = await communities.listFeatured(ctx.state.identity, ctx.params.id);
    ctx.body = { hits: { hits: rows.map(serializeFeatured), total: rows.length } };
  });
  router.post('/api/communities/:id/featured', async (ctx: Ctx) => {
    const row = await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'create', await jsonBody(ctx));
    ctx.status = 201;
    ctx.body = serializeFeatured(row!);
  });
  router.put('/api/communities/:id/featured/:fid', async (ctx: Ctx) => {
    const row = await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'update', await jsonBody(ctx), ctx.params.fid);
    ctx.body = serializeFeatured(row!);
  });
  router.delete('/api/communities/:id/featured/:fid', async (ctx: Ctx) => {
    await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'delete', undefined, ctx.params.fid);
    ctx.status = 204;
  });
  return router;
}
