/**
 * HTTP routes of access requests (access/access-request.service.ts):
 *
 * - `POST /api/records/{id}/access/request`: signed in → 200 with the `user-access-request`;
 *   anonymous → 200 `{message}` and a verification e-mail. Anonymous asks send e-mail to any
 *   address, so they are rate limited per client address (`GUEST_ASK_LIMIT`, in memory per
 *   replica, as abuse reports; the address the gateway signed, platform `clientAddress`) → 429.
 * - `GET|POST /api/records/{id}/access/request/confirm?access_request_token=<token>`: the link of
 *   the verification e-mail; 200 with the created `guest-access-request`.
 *
 * When to use: registered once by app.ts.
 */
import { type AppContext, type AppState, AppError, bindRoutes, clientAddress, jsonBody, type Router } from '@rdm/platform';
import type { AccessRequestService } from '../access/access-request.service.js';
import { RateLimiter } from './abuse.routes.js';
import { ACCESS_REQUEST_ROUTES } from './access-request.decl.js';

/** Guest asks per client address and window. */
export const GUEST_ASK_LIMIT = { max: 10, windowMs: 10 * 60_000 };

/** Register the routes. */
export function registerAccessRequestRoutes(router: Router<AppState>, component: AccessRequestService, limit = GUEST_ASK_LIMIT): void {
  const limiter = new RateLimiter(limit.max, limit.windowMs);
  const confirm = async (ctx: AppContext) => {
    ctx.body = await component.confirm(ctx.state.identity, String(ctx.params.id), ctx.query.access_request_token);
  };

  bindRoutes(
    ACCESS_REQUEST_ROUTES,
    {
      requestAccess: async (ctx: AppContext) => {
        const body = await jsonBody(ctx, { limit: '64kb' });
        if (ctx.state.identity.sub === null && !limiter.take(clientAddress(ctx.state.identity, ctx.req))) {
          throw new AppError('rate_limited', 429, 'Too many access requests from this address. Please try again later.', {
            headers: { 'Retry-After': String(Math.ceil(limit.windowMs / 1000)) },
          });
        }
        ctx.body = await component.ask(ctx.state.identity, String(ctx.params.id), body);
      },
      confirmGuestAccessRequest: confirm,
      confirmGuestAccessRequestPost: confirm,
    },
    router,
  );
}
