/**
 * The web koa app (no listen, so tests drive it with supertest): the platform's base app with
 * identity checking (the gateway signs every visitor's identity), health, and the pages. No
 * database and no NATS: everything a page shows is read from the public API as the visitor.
 */
import { type AppContext as Context, createHttpApp, type Logger, mountRouter, openapiRouter, type ServiceHttp } from '@rdm/platform';
import { ApiClient, type ApiUpstreams } from './api-client.js';
import type { WebConfig } from './config.js';
import { pagesRouter } from './http/pages.routes.js';
import { API } from './http/routes.decl.js';
import { PageCache } from './page-cache.js';

/** Dependencies of the app. */
export interface AppDeps {
  config: Pick<
    WebConfig,
    | 'IDENTITY_SECRET'
    | 'PUBLIC_BASE_URL'
    | 'RECORDS_URL'
    | 'FILES_URL'
    | 'COMMUNITIES_URL'
    | 'WEB_API_TIMEOUT_MS'
    | 'WEB_PAGE_CACHE_MAX'
    | 'WEB_PAGE_CACHE_TTL_MS'
  >;
  logger: Logger;
}

/** Build the app, its health state and its page cache. */
export function createApp(deps: AppDeps): ServiceHttp & { cache: PageCache } {
  const { config } = deps;
  const { app, health } = createHttpApp({ name: 'web', logger: deps.logger, identitySecret: config.IDENTITY_SECRET, requestScope: false });
  const upstreams: ApiUpstreams = { records: config.RECORDS_URL, files: config.FILES_URL, communities: config.COMMUNITIES_URL };
  const cache = new PageCache(config.WEB_PAGE_CACHE_MAX, config.WEB_PAGE_CACHE_TTL_MS);
  const clientOf = (ctx: Context) =>
    new ApiClient(
      upstreams,
      config.IDENTITY_SECRET,
      ctx.state.identity,
      ctx.state.requestId,
      config.WEB_API_TIMEOUT_MS,
      ctx.get('user-agent') || undefined,
    );
  // The gateway assembles the API document from every service's fragment; the pages add no operation.
  mountRouter(app, openapiRouter(API));
  mountRouter(app, pagesRouter({ baseUrl: config.PUBLIC_BASE_URL.replace(/\/$/, ''), clientOf, cache }));
  return { app, health, cache };
}
