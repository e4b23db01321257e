/**
 * HTTP routes of community schema extensions: the three reads of the spec and the write call
 * `PUT /api/community-schema-extension/<slug>` (body: a JSON Schema draft-04 object).
 */
import { type AppContext, type AppState, jsonBody, Router } from '@rdm/platform';
import type { ExtensionsService } from '../domain/extensions.service.js';
import type { CommunityLinks } from '../domain/links.js';

/** Dependencies of the extension routes. */
export interface ExtensionsRoutesDeps {
  extensions: ExtensionsService;
  links: CommunityLinks;
}

/** Build the router. */
export function extensionsRouter(deps: ExtensionsRoutesDeps): Router<AppState> {
  const { extensions, links } = deps;
  const router = new Router<AppState>();
  type Ctx = AppContext & { params: Record<string, string> };
  const base = '/api/community-schema-extension';

  router.get(base, async (ctx: Ctx) => {
    ctx.body = await extensions.list(ctx.state.identity);
  });
  router.get(`${base}/schema/:sid/jsonschema`, async (ctx: Ctx) => {
    const row = await extensions.get(ctx.state.identity, ctx.params.sid);
    ctx.body = { id: row.id, json_schema: row.json_schema, version: row.version };
  });
  router.get(`${base}/:slug`, async (ctx: Ctx) => {
    const row = await extensions.latest(ctx.state.identity, ctx.params.slug);
    ctx.body = { url: links.schema(row.id), uuid: row.id };
  });
  router.put(`${base}/:slug`, async (ctx: Ctx) => {
    const row = await extensions.register(ctx.state.identity, ctx.params.slug, await jsonBody(ctx, { required: true, limit: '512kb' }));
    ctx.body = {
      community_id: row.community_id,
      community_schema_version: row.version,
      community_slug: row.slug,
      schema_id: row.id,
      section: row.section,
      links: { self: links.schema(row.id), latest: `${links.base}${base}/${row.slug}` },
    };
  });
  return router;
}
