/**
 * HTTP routes of a record's access (`/api/records/{id}/access/links[/{link_id}]`, `…/access/grants[/{n}]`,
 * `…/access/users[/{user_id}]`, `PUT/PATCH …/access` settings) and the
 * middleware that turns a secret-link `?token=` into the caller's link permissions.
 *
 * When to use: registered once by app.ts; each route parses, makes one component call, renders.
 * `?access_token=` is NOT read as a link token: the gateway treats it as a personal access token.
 */
import { type AppContext, type AppState, jsonBody, type Knex, type Router } from '@rdm/platform';
import type { Middleware } from 'koa';
import { type AccessLinksService, withLinkToken } from '../access/access-links.service.js';
import type { GrantsService } from '../access/grants.service.js';

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
export function registerAccessRoutes(router: Router<AppState>, links: AccessLinksService, grants: GrantsService): void {
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

  const acc = '/api/records/:id/access';
  for (const [path, usersOnly] of [
    [`${acc}/grants`, false],
    [`${acc}/users`, true],
  ] as const) {
    const key = (ctx: AppContext) => (usersOnly ? { user: String(ctx.params.key) } : { index: String(ctx.params.key) });
    router.get(path, async (ctx: AppContext) => {
      ctx.body = usersOnly ? await grants.listUsers(ctx.state.identity, id(ctx)) : await grants.listGrants(ctx.state.identity, id(ctx));
    });
    router.post(path, async (ctx: AppContext) => {
      const body = await jsonBody(ctx, { limit: '256kb' });
      ctx.status = 201;
      ctx.body = await grants.create(ctx.state.identity, id(ctx), body, usersOnly);
    });
    router.get(`${path}/:key`, async (ctx: AppContext) => {
      ctx.body = await grants.read(ctx.state.identity, id(ctx), key(ctx));
    });
    router.patch(`${path}/:key`, async (ctx: AppContext) => {
      const body = await jsonBody(ctx, { limit: '64kb' });
      ctx.body = await grants.update(ctx.state.identity, id(ctx), key(ctx), body);
    });
    router.delete(`${path}/:key`, async (ctx: AppContext) => {
      await grants.delete(ctx.state.identity, id(ctx), key(ctx));
      ctx.status = 204;
    });
  }
  for (const method of ['put', 'patch'] as const) {
    router[method](acc, async (ctx: AppContext) => {
      const body = await jsonBody(ctx, { limit: '64kb' });
      ctx.body = await grants.updateSettings(ctx.state.identity, id(ctx), body, method === 'put');
    });
  }
}
