/**
 * HTTP routes of the requests service (reference §1.1, §1.7, §1.8). Each route parses input,
 * makes one service call and answers; errors are AppErrors rendered by the platform. The routes
 * themselves (paths, order, documentation) are declared in routes.decl.ts.
 */
import { type AppState, bindRoutes, Errors, ifMatch, jsonBody, openapiRouter, type RouteContext, type Router } from '@rdm/platform';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import type { RequestsService } from '../domain/requests.service.js';
import { API, REQUEST_ROUTES } from './routes.decl.js';

/** Dependencies of the routes. */
export interface RequestsRoutesDeps {
  requests: RequestsService;
  actions: ActionsService;
  comments: CommentsService;
  /** JSON body limit (comments are limited by characters in the domain). */
  bodyLimit?: number;
}

/** Build the router (the declared routes, then the internal `GET /openapi.json`). */
export function requestsRouter(deps: RequestsRoutesDeps): Router<AppState> {
  const body = (ctx: RouteContext) => jsonBody(ctx, { limit: deps.bodyLimit ?? 2 * 1024 * 1024 });
  const router = bindRoutes(REQUEST_ROUTES, {
    searchRequests: async (ctx) => {
      ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'all' })).body;
    },
    searchUserRequests: async (ctx) => {
      ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'user' })).body;
    },
    searchCommunityRequests: async (ctx) => {
      ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'community', communityId: ctx.params.id })).body;
    },
    searchRecordRequests: async (ctx) => {
      ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'record', recordId: ctx.params.id })).body;
    },

    readRequest: async (ctx) => {
      ctx.body = await deps.requests.read(ctx.state.identity, ctx.params.id);
    },
    updateRequest: async (ctx) => {
      const b = await body(ctx);
      ctx.body = await deps.requests.update(ctx.state.identity, ctx.params.id, b, ifMatch(ctx));
    },
    deleteRequest: async (ctx) => {
      await deps.requests.delete(ctx.state.identity, ctx.params.id);
      ctx.status = 204;
    },
    runRequestAction: async (ctx) => {
      const b = await body(ctx);
      // Why 202: past REQUEST_EFFECT_WAIT_MS the effect (e.g. the publication) has not happened
      // yet; the request is answered in its pending state and the durable consumers finish it.
      const { request, pending } = await deps.actions.runWithOutcome(ctx.state.identity, ctx.params.id, ctx.params.action, b);
      ctx.body = request;
      ctx.status = pending ? 202 : 200;
    },
    lockRequest: async (ctx) => {
      await deps.requests.setLocked(ctx.state.identity, ctx.params.id, true);
      ctx.status = 204;
    },
    unlockRequest: async (ctx) => {
      await deps.requests.setLocked(ctx.state.identity, ctx.params.id, false);
      ctx.status = 204;
    },

    createComment: async (ctx) => {
      const b = await body(ctx);
      ctx.body = await deps.comments.create(ctx.state.identity, ctx.params.id, b);
      ctx.status = 201;
    },
    readComment: async (ctx) => {
      ctx.body = await deps.comments.read(ctx.state.identity, ctx.params.id, ctx.params.comment_id);
    },
    updateComment: async (ctx) => {
      const b = await body(ctx);
      ctx.body = await deps.comments.update(ctx.state.identity, ctx.params.id, ctx.params.comment_id, b, ifMatch(ctx));
    },
    deleteComment: async (ctx) => {
      await deps.comments.delete(ctx.state.identity, ctx.params.id, ctx.params.comment_id, ifMatch(ctx));
      ctx.status = 204;
    },
    replyComment: async (ctx) => {
      const b = await body(ctx);
      ctx.body = await deps.comments.create(ctx.state.identity, ctx.params.id, b, ctx.params.comment_id);
      ctx.status = 201;
    },
    listReplies: async (ctx) => {
      ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { parentId: ctx.params.comment_id });
    },
    listRepliesFocused: async (ctx) => {
      ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { parentId: ctx.params.comment_id, focused: true });
    },
    readTimeline: async (ctx) => {
      ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, {});
    },
    readTimelineFocused: async (ctx) => {
      ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { focused: true });
    },
    // InvenioRDM has no generic create: POST /api/requests is 405.
    createRequest: async () => {
      throw Errors.methodNotAllowed(['GET']);
    },
  });
  // Internal (the gateway merges it into /api/openapi.json; never routed publicly).
  router.use(openapiRouter(API).routes());
  return router;
}
