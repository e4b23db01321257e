/**
 * HTTP routes of jobs and runs (`/api/jobs…`, invenio-jobs' shape): parse input, ONE service call,
 * send the result. Declared in routes.decl.ts (`JOB_ROUTES`).
 */
import { type AppState, bindRoutes, jsonBody, Router } from '@rdm/platform';
import type { Context } from 'koa';
import { JOB_ROUTES } from './routes.decl.js';
import type { JobsService } from '../domain/jobs.service.js';

/** The router of the jobs API over a service instance. */
export function jobsRouter(jobs: JobsService): Router<AppState> {
  const router = new Router<AppState>();
  const path = (ctx: Context) => ctx.path.replace(/\/+$/, '');
  bindRoutes(
    JOB_ROUTES,
    {
      listJobs: async (ctx) => {
        ctx.body = await jobs.list(ctx.state.identity, ctx.query, path(ctx));
      },
      createJob: async (ctx) => {
        ctx.body = await jobs.create(ctx.state.identity, await jsonBody(ctx));
        ctx.status = 201;
      },
      readJob: async (ctx) => {
        ctx.body = await jobs.read(ctx.state.identity, ctx.params.id);
      },
      listRuns: async (ctx) => {
        ctx.body = await jobs.listRuns(ctx.state.identity, ctx.params.id, ctx.query, path(ctx));
      },
      startRun: async (ctx) => {
        ctx.body = await jobs.startRun(ctx.state.identity, ctx.params.id, await jsonBody(ctx));
        ctx.status = 201;
      },
      readRun: async (ctx) => {
        ctx.body = await jobs.readRun(ctx.state.identity, ctx.params.id, ctx.params.run_id);
      },
    },
    router,
  );
  return router;
}
