/**
 * HTTP routes of a record's access (`/api/records/{id}/access/links[/{link_id}]`, `…/access/grants[/{n}]`,
 * `…/access/users[/{user_id}]`, `PUT/PATCH …/access` settings) and the
 * middleware that turns a secret-link `?token=` into the caller's link permissions.
 *
 * When to use: registered once by app.ts; each route parses, makes one component call, renders.
 * `?access_token=` is NOT read as a link token: the gateway treats it as a personal access token.
 */
import { type AppContext, type AppState, bindRoutes, jsonBody, type Knex, type Router } from '@rdm/platform';
import type { Middleware } from 'koa';
import { type AccessLinksService, withLinkToken } from '../access/access-links.service.js';
import type { GrantsService } from '../access/grants.service.js';
import { ACCESS_ROUTES } from './access.decl.js';

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
  const id = (ctx: AppContext) => String(ctx.params.id);
  const linkId = (ctx: AppContext) => String(ctx.params.link_id);
  /** The five handlers of grants (by position) or user grants (`usersOnly`: by user id). */
  const grantHandlers = (usersOnly: boolean) => {
    const key = (ctx: AppContext) => (usersOnly ? { user: String(ctx.params.user_id) } : { index: String(ctx.params.grant_id) });
    return {
      list: async (ctx: AppContext) => {
        ctx.body = usersOnly ? await grants.listUsers(ctx.state.identity, id(ctx)) : await grants.listGrants(ctx.state.identity, id(ctx));
      },
      create: async (ctx: AppContext) => {
        const body = await jsonBody(ctx, { limit: '256kb' });
        ctx.status = 201;
        ctx.body = await grants.create(ctx.state.identity, id(ctx), body, usersOnly);
      },
      read: async (ctx: AppContext) => {
        ctx.body = await grants.read(ctx.state.identity, id(ctx), key(ctx));
      },
      update: async (ctx: AppContext) => {
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.body = await grants.update(ctx.state.identity, id(ctx), key(ctx), body);
      },
      remove: async (ctx: AppContext) => {
        await grants.delete(ctx.state.identity, id(ctx), key(ctx));
        ctx.status = 204;
      },
    };
  };
  const settings = (replace: boolean) => async (ctx: AppContext) => {
    const body = await jsonBody(ctx, { limit: '64kb' });
    ctx.body = await grants.updateSettings(ctx.state.identity, id(ctx), body, replace);
  };
  const G = grantHandlers(false);
  const U = grantHandlers(true);

  bindRoutes(
    ACCESS_ROUTES,
    {
      createAccessLink: async (ctx: AppContext) => {
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.status = 201;
        ctx.body = await links.create(ctx.state.identity, id(ctx), body);
      },
      listAccessLinks: async (ctx: AppContext) => {
        ctx.body = await links.list(ctx.state.identity, id(ctx));
      },
      getAccessLink: async (ctx: AppContext) => {
        ctx.body = await links.read(ctx.state.identity, id(ctx), linkId(ctx));
      },
      updateAccessLink: async (ctx: AppContext) => {
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.body = await links.update(ctx.state.identity, id(ctx), linkId(ctx), body);
      },
      deleteAccessLink: async (ctx: AppContext) => {
        await links.delete(ctx.state.identity, id(ctx), linkId(ctx));
        ctx.status = 204;
      },
      listGrants: G.list,
      createGrants: G.create,
      getGrant: G.read,
      updateGrant: G.update,
      deleteGrant: G.remove,
      listUserGrants: U.list,
      createUserGrants: U.create,
      getUserGrant: U.read,
      updateUserGrant: U.update,
      deleteUserGrant: U.remove,
      putAccessSettings: settings(true),
      patchAccessSettings: settings(false),
    },
    router,
  );
}
