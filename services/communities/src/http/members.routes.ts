/**
 * HTTP routes of members, invitations and membership requests (`{id}` must be the community
 * UUID: a slug is a 400). Each parses input, calls one service method and serializes.
 */
import { all, type AppState, bindRoutes, jsonBody, listEnvelope, parseListArgs, type RouteContext, type Router } from '@rdm/platform';
import type { CommunityLinks } from '../domain/links.js';
import { INVITATION, MEMBER_SORTS, MEMBERSHIP_REQUEST, type MembersService } from '../domain/members.service.js';
import { MEMBER_ROUTES } from './routes.decl.js';
import { memberAggregations, serializeMember, serializePublicMember, serializeRequestHit } from './serializers.js';

/** Dependencies of the member routes. */
export interface MembersRoutesDeps {
  members: MembersService;
  links: CommunityLinks;
}

const LIST = { sorts: MEMBER_SORTS, defaultSort: 'name', defaultSortWithQ: 'bestmatch' } as const;

/** Build the router. */
export function membersRouter(deps: MembersRoutesDeps): Router<AppState> {
  const { members, links } = deps;
  type Ctx = RouteContext;
  const pick = (ctx: Ctx, names: string[]) => Object.fromEntries(names.map((n) => [n, all(ctx.query[n])]));

  const requests = (type: string, path: string) => async (ctx: Ctx) => {
    const args = parseListArgs(ctx.query, LIST);
    const filters = pick(ctx, ['role', 'status', 'is_open']);
    const res = await members.searchRequests(ctx.state.identity, ctx.params.id, args, filters, type);
    ctx.body = listEnvelope({
      hits: res.rows.map((m) => serializeRequestHit(m, res.actor, links, res.community)),
      total: res.total,
      args,
      baseUrl: links.base,
      path: `/api/communities/${res.community.id}/${path}`,
      params: filters,
      aggregations: memberAggregations(res.facets, filters, ['role', 'status', 'is_open']),
    });
  };

  return bindRoutes(MEMBER_ROUTES, {
    searchMembers: async (ctx) => {
      const args = parseListArgs(ctx.query, LIST);
      const filters = pick(ctx, ['role', 'visibility']);
      const res = await members.search(ctx.state.identity, ctx.params.id, args, filters, false);
      ctx.body = listEnvelope({
        hits: res.rows.map((m) => serializeMember(m, res.actor, links)),
        total: res.total,
        args,
        baseUrl: links.base,
        path: `/api/communities/${res.community.id}/members`,
        params: filters,
        aggregations: memberAggregations(res.facets, filters, ['role', 'visibility']),
      });
    },
    publicMembers: async (ctx) => {
      const args = parseListArgs(ctx.query, LIST);
      const res = await members.search(ctx.state.identity, ctx.params.id, args, {}, true);
      const body = listEnvelope({
        hits: res.rows.map((m) => serializePublicMember(m, links)),
        total: res.total,
        args,
        baseUrl: links.base,
        path: `/api/communities/${res.community.id}/members/public`,
      });
      // Public members have no aggregations (reference §3.2).
      body.aggregations = undefined;
      ctx.body = body;
    },
    updateMembers: async (ctx) => {
      await members.update(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
      ctx.status = 204;
    },
    removeMembers: async (ctx) => {
      await members.remove(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
      ctx.status = 204;
    },

    invite: async (ctx) => {
      await members.invite(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
      ctx.status = 204;
    },
    updateInvitations: async (ctx) => {
      await members.updatePending(ctx.state.identity, ctx.params.id, await jsonBody(ctx), INVITATION);
      ctx.status = 204;
    },
    searchInvitations: requests(INVITATION, 'invitations'),
    searchMembershipRequests: requests(MEMBERSHIP_REQUEST, 'membership-requests'),
    requestMembership: async (ctx) => {
      ctx.body = await members.requestMembership(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
      ctx.status = 201;
    },
    updateMembershipRequests: async (ctx) => {
      await members.updatePending(ctx.state.identity, ctx.params.id, await jsonBody(ctx), MEMBERSHIP_REQUEST);
      ctx.status = 204;
    },
  });
}
