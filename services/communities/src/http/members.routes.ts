/**
 * HTTP routes of members, invitations and membership requests (`{id}` must be the community
 * UUID: a slug is a 400). Each parses input, calls one service method and serializes.
 */
import { all, type AppContext, type AppState, jsonBody, listEnvelope, parseListArgs, Router } from '@rdm/platform';
import type { CommunityLinks } from '../domain/links.js';
import { INVITATION, MEMBER_SORTS, MEMBERSHIP_REQUEST, type MembersService } from '../domain/members.service.js';
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
  const router = new Router<AppState>();
  type Ctx = AppContext & { params: Record<string, string> };
  const pick = (ctx: Ctx, names: string[]) => Object.fromEntries(names.map((n) => [n, all(ctx.query[n])]));

  router.get('/api/communities/:id/members', async (ctx: Ctx) => {
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
  });
  router.get('/api/communities/:id/members/public', async (ctx: Ctx) => {
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
  });
  router.put('/api/communities/:id/members', async (ctx: Ctx) => {
    await members.update(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
    ctx.status = 204;
  });
  router.delete('/api/communities/:id/members', async (ctx: Ctx) => {
    await members.remove(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
    ctx.status = 204;
  });

  router.post('/api/communities/:id/invitations', async (ctx: Ctx) => {
    await members.invite(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
    ctx.status = 204;
  });
  router.put('/api/communities/:id/invitations', async (ctx: Ctx) => {
    await members.updatePending(ctx.state.identity, ctx.params.id, await jsonBody(ctx), INVITATION);
    ctx.status = 204;
  });
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
  router.get('/api/communities/:id/invitations', requests(INVITATION, 'invitations'));
  router.get('/api/communities/:id/membership-requests', requests(MEMBERSHIP_REQUEST, 'membership-requests'));
  router.post('/api/communities/:id/membership-requests', async (ctx: Ctx) => {
    ctx.body = await members.requestMembership(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
    ctx.status = 201;
  });
  router.put('/api/communities/:id/membership-requests', async (ctx: Ctx) => {
    await members.updatePending(ctx.state.identity, ctx.params.id, await jsonBody(ctx), MEMBERSHIP_REQUEST);
    ctx.status = 204;
  });
  return router;
}
