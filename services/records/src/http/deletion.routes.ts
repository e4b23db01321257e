/**
 * HTTP routes of deletion and restore (`deletion/deletion.service.ts`), and the tombstone
 * middleware: any 410 answered for `/api/records/<id>[/…]` is replaced by the record's tombstone
 * body (or a 404 `Record not found` when the tombstone is hidden), so every read path keeps
 * throwing the plain `Errors.gone()`.
 *
 * When to use: mount `tombstoneMiddleware` on the app before the router (app.ts).
 */
import { AppError, type AppContext, type AppState, bindRoutes, ifMatch, isAppError, jsonBody, type Router } from '@rdm/platform';
import type { Middleware } from 'koa';
import type { DeletionRequestService } from '../deletion/deletion-request.service.js';
import type { DeletionService } from '../deletion/deletion.service.js';
import type { FileModificationRequestService } from '../file-modification/file-modification-request.service.js';
import type { QuotaRequestService } from '../quota/quota-request.service.js';
import { DELETION_ROUTES } from './lifecycle.decl.js';

/**
 * Register `DELETE /api/records/{id}/delete` (also `POST`, as the gateway table), `POST …/restore`
 * and the owner's `POST …/request-deletion`, `POST …/file-modification` and `POST …/quota-increase`
 * (501 without the requests service).
 */
export function registerDeletionRoutes(
  router: Router<AppState>,
  deletion: DeletionService,
  requests?: DeletionRequestService,
  quota?: QuotaRequestService,
  fileModification?: FileModificationRequestService,
): void {
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
      requestDeletion: async (ctx: AppContext) => {
        if (!requests) throw new AppError('not_implemented', 501, 'Deletion requests need the requests service.');
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.body = (await requests.request(ctx.state.identity, String(ctx.params.id), body)).request;
        ctx.status = 201;
      },
      requestFileModification: async (ctx: AppContext) => {
        if (!fileModification) throw new AppError('not_implemented', 501, 'File modification requests need the requests service.');
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.body = (await fileModification.request(ctx.state.identity, String(ctx.params.id), body)).request;
        ctx.status = 201;
      },
      requestQuotaIncrease: async (ctx: AppContext) => {
        if (!quota) throw new AppError('not_implemented', 501, 'Quota requests need the requests service.');
        const body = await jsonBody(ctx, { limit: '64kb' });
        ctx.body = (await quota.request(ctx.state.identity, String(ctx.params.id), body)).request;
        ctx.status = 201;
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
