/**
 * HTTP routes of a record's access (`/api/records/{id}/access/links[/{link_id}]`) and the
 * middleware that turns a secret-link `?token=` into the caller's link permissions.
 *
 * When to use: registered once by app.ts; each route parses, makes one component call, renders.
 * `?access_token=` is NOT read as a link token: the gateway treats it as a personal access token.
 */
import { type AppContext, type AppState, jsonBody, type Knex, type Router } from '@rdm/platform';
import type { Middleware } from 'koa';
import { type AccessLinksComponent, withLinkToken } from '../domain/access-links.component.js';

/** Adds the live links of `?token=` to `ctx.state.identity` (bad tokens are ignored). */
export function linkTokenMiddleware(db: Knex): Middleware<AppState> {
  return async (ctx, next) => {
    const token = ctx.query.token;
    if (typeof token === 'string' && token && ctx.state.identity) {
      ctx.state.identity = await withLinkToken(db, ctx.state.identity, token);
    }
    await next();
  };
}

/** Register the access-links routes. */
export function registerAccessRoutes(router: Router<AppState>, links: AccessLinksComponent): void {
  const base = '/api/records/:id/access/links';
  const id = (ctx: AppContext) => String(ctx.params.id);
  router.post(base, async (ctx: AppContext) => {
    const body = await jsonBody(ctx, { limit: '64kb' });
    ctx.status = 201;
    ctx.body = await links.create(ctx.state.identity, id(ctx), body);
  });
  router.get(base, async (ctx: AppContext) => {
    ctx.body = await links.list(ctx.state.identity, id(ctx));
  });
  router.get(`${base}/:linkId`, async (ctx: AppContext) => {
    ctx.body = await links.read(ctx.state.identity, id(ctx), String(ctx.params.linkId));
  });
  router.patch(`${base}/:linkId`, async (ctx: AppContext) => {
    const body = await jsonBody(ctx, { limit: '64kb' });
    ctx.body = await links.update(ctx.state.identity, id(ctx), String(ctx.params.linkId), body);
  });
  router.delete(`${base}/:linkId`, async (ctx: AppContext) => {
    await links.delete(ctx.state.identity, id(ctx), String(ctx.params.linkId));
    ctx.status = 204;
  });
}
