/**
 * The web service's HTTP surface, declared once: the router (pages.routes.ts binds one handler per
 * key) and the gateway's routing table (`pnpm gen:contracts`) come from it. The pages are HTML for
 * people and crawlers, not API operations, so none enters the OpenAPI fragment (`undocumented`).
 *
 * When to edit: a page is added or its path changes. Only the platform may be imported here (the
 * generator imports this file).
 */
import { defineApi, defineRoutes } from '@rdm/platform';

/** Every page of the web service, in koa match order. */
export const PAGE_ROUTES = defineRoutes({
  recordLatestPage: {
    method: 'GET',
    path: '/records/{id}/latest',
    summary: "Landing page: redirect to the record's latest version",
    undocumented: true,
  },
  recordPage: { method: 'GET', path: '/records/{id}', summary: 'Landing page of a record (HTML)', undocumented: true },
  draftPage: {
    method: 'GET',
    path: '/uploads/{id}',
    summary: 'A draft, read-only (HTML; the deposit form is not served)',
    undocumented: true,
  },
  doiPage: { method: 'GET', path: '/doi/{doi+}', summary: 'Landing page of a DOI: redirect to its record', undocumented: true },
  communityPage: { method: 'GET', path: '/communities/{slug}', summary: 'Page of a community (HTML)', undocumented: true },
  searchPage: { method: 'GET', path: '/search', summary: 'Search page of the records (HTML)', undocumented: true },
  asset: { method: 'GET', path: '/static/{name}', summary: 'Stylesheet of the pages (content-hashed name)', undocumented: true },
});

/** The web service's API: its pages only. */
export const API = defineApi({ service: 'web', tables: [PAGE_ROUTES] });
