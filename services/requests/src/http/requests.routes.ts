/**
 * HTTP routes of the requests service (reference §1.1, §1.7, §1.8). Each route parses input,
 * makes one service call and answers; errors are AppErrors rendered by the platform.
 */
import { type AppContext, type AppState, Errors, ifMatch, jsonBody, Router } from '@rdm/platform';
import type { ActionsService } from '../domain/actions.service.js';
import type { CommentsService } from '../domain/comments.service.js';
import type { RequestsService } from '../domain/requests.service.js';

/** Dependencies of the routes. */
export interface RequestsRoutesDeps {
  requests: RequestsService;
  actions: ActionsService;
  comments: CommentsService;
  /** JSON body limit (comments are limited by characters in the domain). */
  bodyLimit?: number;
}

/** Build the router. */
export function requestsRouter(deps: RequestsRoutesDeps): Router<AppState> {
  const router = new Router<AppState>();
  type Ctx = AppContext & { params: Record<string, string> };
  const body = (ctx: Ctx) => jsonBody(ctx, { limit: deps.bodyLimit ?? 2 * 1024 * 1024 });

  router.get('/api/requests', async (ctx: Ctx) => {
    ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'all' })).body;
  });
  router.get('/api/user/requests', async (ctx: Ctx) => {
    ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'user' })).body;
  });
  router.get('/api/communities/:cid/requests', async (ctx: Ctx) => {
    ctx.body = (await deps.requests.search(ctx.state.identity, ctx.query, { kind: 'community', communityId: ctx.params.cid })).body;
  });

  router.get('/api/requests/:id', async (ctx: Ctx) => {
    ctx.body = await deps.requests.read(ctx.state.identity, ctx.params.id);
  });
  router.put('/api/requests/:id', async (ctx: Ctx) => {
    const b = await body(ctx);
    ctx.body = await deps.requests.update(ctx.state.identity, ctx.params.id, b, ifMatch(ctx));
  });
  router.delete('/api/requests/:id', async (ctx: Ctx) => {
    await deps.requests.delete(ctx.state.identity, ctx.params.id);
    ctx.status = 204;
  });
  router.post('/api/requests/:id/actions/:action', async (ctx: Ctx) => {
    const b = await body(ctx);
    // Why 202: past REQUEST_EFFECT_WAIT_MS the effect (e.g. the publication) has not happened
    // yet; the request is answered in its pending state and the durable consumers finish it.
    const { request, pending } = await deps.actions.runWithOutcome(ctx.state.identity, ctx.params.id, ctx.params.action, b);
    ctx.body = request;
    ctx.status = pending ? 202 : 200;
  });
  router.get('/api/requests/:id/lock', async (ctx: Ctx) => {
    await deps.requests.setLocked(ctx.state.identity, ctx.params.id, true);
    ctx.status = 204;
  });
  router.get('/api/requests/:id/unlock', async (ctx: Ctx) => {
    await deps.requests.setLocked(ctx.state.identity, ctx.params.id, false);
    ctx.status = 204;
  });

  router.post('/api/requests/:id/comments', async (ctx: Ctx) => {
    const b = await body(ctx);
    ctx.body = await deps.comments.create(ctx.state.identity, ctx.params.id, b);
    ctx.status = 201;
  });
  router.get('/api/requests/:id/comments/:eid', async (ctx: Ctx) => {
    ctx.body = await deps.comments.read(ctx.state.identity, ctx.params.id, ctx.params.eid);
  });
  router.put('/api/requests/:id/comments/:eid', async (ctx: Ctx) => {
    const b = await body(ctx);
    ctx.body = await deps.comments.update(ctx.state.identity, ctx.params.id, ctx.params.eid, b, ifMatch(ctx));
  });
  router.delete('/api/requests/:id/comments/:eid', async (ctx: Ctx) => {
    await deps.comments.delete(ctx.state.identity, ctx.params.id, ctx.params.eid, ifMatch(ctx));
    ctx.status = 204;
  });
  router.post('/api/requests/:id/comments/:eid/reply', async (ctx: Ctx) => {
    const b = await body(ctx);
    ctx.body = await deps.comments.create(ctx.state.identity, ctx.params.id, b, ctx.params.eid);
    ctx.status = 201;
  });
  router.get('/api/requests/:id/comments/:eid/replies', async (ctx: Ctx) => {
    ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { parentId: ctx.params.eid });
  });
  router.get('/api/requests/:id/comments/:eid/replies_focused', async (ctx: Ctx) => {
    ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { parentId: ctx.params.eid, focused: true });
  });
  router.get('/api/requests/:id/timeline', async (ctx: Ctx) => {
    ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, {});
  });
  router.get('/api/requests/:id/timeline_focused', async (ctx: Ctx) => {
    ctx.body = await deps.comments.list(ctx.state.identity, ctx.params.id, ctx.query, { focused: true });
  });
  // InvenioRDM has no generic create: POST /api/requests is 405.
  router.post('/api/requests', async () => {
    throw Errors.methodNotAllowed(['GET']);
  });
  return router;
}
