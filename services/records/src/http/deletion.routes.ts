/**
 * HTTP routes of deletion and restore (`deletion/deletion.service.ts`), and the tombstone
 * middleware: any 410 answered for `/api/records/<id>[/…]` is replaced by the record's tombstone
 * body (or a 404 `Record not found` when the tombstone is hidden), so every read path keeps
 * throwing the plain `Errors.gone()`.
 *
 * When to use: mount `tombstoneMiddleware` on the app before the router (app.ts).
 */
import { type AppContext, type AppState, bindRoutes, ifMatch, isAppError, jsonBody, type Router } from '@rdm/platform';
import type { Middleware } from 'koa';
import type { DeletionService } from '../deletion/deletion.service.js';
import { DELETION_ROUTES } from './lifecycle.decl.js';

/** Register `DELETE /api/records/{id}/delete` (also `POST`, as the gateway table) and `POST …/restore`. */
export function registerDeletionRoutes(router: Router<AppState>, deletion: DeletionService): void {
  const remove = async (ctx: AppContext) => {
    const body = await jsonBody(ctx, { limit: '64kb' });
    await deletion.delete(ctx.state.identity, String(ctx.params.id), body, ifMatch(ctx));
    ctx.status = 204;
  };

  bindRoutes(
    DELETION_ROUTES,
    {
      deleteRecord: remove,
      deleteRecordPost: remove,
      restoreRecord: async (ctx: AppContext) => {
        await deletion.restore(ctx.state.identity, String(ctx.params.id));
        ctx.status = 204;
      },
    },
    router,
  );
}

const RECORD_PATH = /^\/api\/records\/([^/]+)(?:\/|$)/;

/** Koa middleware: a 410 of a record path becomes its tombstone answer. */
export function tombstoneMiddleware(deletion: DeletionService): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      const m = RECORD_PATH.exec(ctx.path);
      if (!m || !isAppError(e) || e.status !== 410) throw e;
      throw await deletion.goneError(decodeURIComponent(m[1]!));
    }
  };
}
