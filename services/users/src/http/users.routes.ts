/**
 * HTTP routes of the users service: `GET /api/users`, `GET /api/users/<id>`,
 * `GET /api/users/<id>/avatar.svg` and `GET /api/me`. Each parses input, makes one service call
 * and serializes. The routes themselves (paths, documentation) are declared in routes.decl.ts;
 * the router also serves the internal `GET /openapi.json` built from them.
 */
import { type AppState, bindRoutes, listEnvelope, notModified, openapiRouter, parseListArgs, type Router } from '@rdm/platform';
import { avatarInitial, renderAvatar } from '../domain/avatar.js';
import { USER_SORTS, type UsersService } from '../domain/users.service.js';
import { API, USER_ROUTES } from './routes.decl.js';
import { serializeUser } from './user.serializer.js';

/** Dependencies of the users routes. */
export interface UsersRoutesDeps {
  users: UsersService;
  baseUrl: string;
}

/**
 * InvenioRDM serves the public user search 10 at a time (`default_results_per_page: 10`); the
 * spec lets callers pick `page` and `size`, so both are honoured and 10 is only the default.
 */
const LIST_OPTIONS = { sorts: USER_SORTS, defaultSort: 'newest', defaultSortWithQ: 'bestmatch', defaultSize: 10 } as const;

/** Build the router (the declared routes, then the internal `GET /openapi.json`). */
export function usersRouter(deps: UsersRoutesDeps): Router<AppState> {
  const router = bindRoutes(USER_ROUTES, {
    searchUsers: async (ctx) => {
      const args = parseListArgs(ctx.query, LIST_OPTIONS);
      const identity = ctx.state.identity;
      const res = await deps.users.search(identity, args);
      ctx.body = listEnvelope({
        hits: res.hits.map((u) => serializeUser(u, identity, deps.baseUrl)),
        total: res.total,
        args,
        baseUrl: deps.baseUrl,
        path: '/api/users',
      });
    },
    readUser: async (ctx) => {
      const user = await deps.users.read(ctx.state.identity, ctx.params.id);
      ctx.body = serializeUser(user, ctx.state.identity, deps.baseUrl);
    },
    readUserAvatar: async (ctx) => {
      const user = await deps.users.read(ctx.state.identity, ctx.params.id);
      const { svg, etag } = renderAvatar(user.id, avatarInitial(user.profile.full_name, user.username, user.email));
      // Why: who may see an avatar depends on the caller, so shared caches must not keep it.
      ctx.set('Cache-Control', 'private, max-age=3600');
      ctx.set('Vary', 'Authorization');
      if (notModified(ctx, etag)) return;
      ctx.type = 'image/svg+xml';
      ctx.body = svg;
    },
    readMe: async (ctx) => {
      const user = await deps.users.me(ctx.state.identity);
      ctx.body = serializeUser(user, ctx.state.identity, deps.baseUrl);
    },
  });
  // Internal (the gateway merges it into /api/openapi.json; never routed publicly).
  router.use(openapiRouter(API).routes());
  return router;
}
