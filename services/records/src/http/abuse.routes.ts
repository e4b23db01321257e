/**
 * `POST /api/records/{id}/report-abuse` (no authentication): 201 `{status: "submitted"}`, rate
 * limited per client address (`ABUSE_RATE_LIMIT` reports per `ABUSE_RATE_WINDOW_MS`, per replica,
 * in memory: a limit against floods, not an accounting) → 429. The address is the one the
 * gateway signed into the identity (platform `clientAddress`), never a client-written header.
 *
 * When to use: registered by app.ts; the domain is `abuse/abuse.service.ts`.
 */
import { type AppContext, type AppState, AppError, bindRoutes, clientAddress, jsonBody, type Router } from '@rdm/platform';
import type { AbuseService } from '../abuse/abuse.service.js';
import { ABUSE_ROUTES } from './lifecycle.decl.js';

/** Fixed-window counter per key, bounded in size. */
export class RateLimiter {
  private hits = new Map<string, { start: number; n: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Count one hit of `key`; false when over the limit. */
  take(key: string, now = Date.now()): boolean {
    let h = this.hits.get(key);
    if (!h || now - h.start >= this.windowMs) {
      if (this.hits.size >= this.maxKeys) this.hits.clear();
      h = { start: now, n: 0 };
      this.hits.set(key, h);
    }
    h.n += 1;
    return h.n <= this.limit;
  }
}

/** Register the route. */
export function registerAbuseRoutes(router: Router<AppState>, abuse: AbuseService, limit = { max: 5, windowMs: 10 * 60_000 }): void {
  const limiter = new RateLimiter(limit.max, limit.windowMs);

  bindRoutes(
    ABUSE_ROUTES,
    {
      reportAbuse: async (ctx: AppContext) => {
        if (!limiter.take(clientAddress(ctx.state.identity, ctx.req))) {
          throw new AppError('rate_limited', 429, 'Too many abuse reports from this address. Please try again later.', {
            headers: { 'Retry-After': String(Math.ceil(limit.windowMs / 1000)) },
          });
        }
        const body = await jsonBody(ctx, { limit: '64kb' });
        await abuse.report(String(ctx.params.id), body);
        ctx.status = 201;
        ctx.body = { status: 'submitted' };
      },
    },
    router,
  );
}
