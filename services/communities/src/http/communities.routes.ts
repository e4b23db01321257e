/**
 * HTTP routes of communities: search, create, read, update, delete/restore, rename, logo and
 * featured entries. Each parses input, calls one service method and serializes.
 */
import {
  all,
  type AppState,
  bindRoutes,
  ifMatch,
  jsonBody,
  listEnvelope,
  parseListArgs,
  type RouteContext,
  type Router,
} from '@rdm/platform';
import { COMMUNITY_SORTS, type CommunitiesService } from '../domain/communities.service.js';
import type { CommunityLinks } from '../domain/links.js';
import type { LogoService } from '../domain/logo.service.js';
import { COMMUNITY_ROUTES } from './routes.decl.js';
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
  type Ctx = RouteContext;

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

  return bindRoutes(COMMUNITY_ROUTES, {
    searchCommunities: search('all', '/api/communities'),
    featuredCommunities: search('featured', '/api/communities/featured'),
    userCommunities: search('user', '/api/user/communities'),

    createCommunity: async (ctx) => {
      const row = await communities.create(ctx.state.identity, await jsonBody(ctx));
      await single(ctx, row);
      ctx.status = 201;
    },
    readCommunity: async (ctx) => {
      const c = await communities.read(ctx.state.identity, ctx.params.id);
      await single(ctx, c.row);
    },
    updateCommunity: async (ctx) => {
      const row = await communities.update(ctx.state.identity, ctx.params.id, await jsonBody(ctx), ifMatch(ctx));
      await single(ctx, row);
    },
    deleteCommunity: async (ctx) => {
      await communities.delete(ctx.state.identity, ctx.params.id, await jsonBody(ctx), ifMatch(ctx));
      ctx.status = 204;
    },
    renameCommunity: async (ctx) => {
      const row = await communities.rename(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
      await single(ctx, row);
    },
    restoreCommunity: async (ctx) => {
      const row = await communities.restore(ctx.state.identity, ctx.params.id);
      await single(ctx, row);
    },

    putLogo: async (ctx) => {
      const len = ctx.get('content-length');
      const row = await logos.put(ctx.state.identity, ctx.params.id, ctx.req, /^\d+$/.test(len) ? Number(len) : undefined);
      ctx.body = serializeLogo(row, links);
    },
    getLogo: async (ctx) => {
      const { row, stream } = await logos.get(ctx.state.identity, ctx.params.id);
      ctx.type = row.mimetype;
      ctx.length = Number(row.size);
      ctx.set('Content-Disposition', 'inline');
      // Why: an SVG logo must never run script in the API origin.
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = stream;
    },
    deleteLogo: async (ctx) => {
      await logos.delete(ctx.state.identity, ctx.params.id);
      ctx.status = 204;
    },

    listFeatured: async (ctx) => {
      const rows = await communities.listFeatured(ctx.state.identity, ctx.params.id);
      ctx.body = { hits: { hits: rows.map(serializeFeatured), total: rows.length } };
    },
    createFeatured: async (ctx) => {
      const row = await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'create', await jsonBody(ctx));
      ctx.status = 201;
      ctx.body = serializeFeatured(row!);
    },
    updateFeatured: async (ctx) => {
      const row = await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'update', await jsonBody(ctx), ctx.params.fid);
      ctx.body = serializeFeatured(row!);
    },
    deleteFeatured: async (ctx) => {
      await communities.writeFeatured(ctx.state.identity, ctx.params.id, 'delete', undefined, ctx.params.fid);
      ctx.status = 204;
    },
  });
}
