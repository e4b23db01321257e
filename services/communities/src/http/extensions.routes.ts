/**
 * HTTP routes of community schema extensions: the three reads of the spec and the write call
 * `PUT /api/community-schema-extension/<slug>` (body: a JSON Schema draft-04 object).
 */
import { type AppState, bindRoutes, jsonBody, type Router } from '@rdm/platform';
import type { ExtensionsService } from '../domain/extensions.service.js';
import type { CommunityLinks } from '../domain/links.js';
import { EXTENSION_ROUTES } from './routes.decl.js';

/** Dependencies of the extension routes. */
export interface ExtensionsRoutesDeps {
  extensions: ExtensionsService;
  links: CommunityLinks;
}

/** Build the router. */
export function extensionsRouter(deps: ExtensionsRoutesDeps): Router<AppState> {
  const { extensions, links } = deps;
  const base = '/api/community-schema-extension';

  return bindRoutes(EXTENSION_ROUTES, {
    listSchemaExtensions: async (ctx) => {
      ctx.body = await extensions.list(ctx.state.identity);
    },
    getSchemaExtension: async (ctx) => {
      const row = await extensions.get(ctx.state.identity, ctx.params.schema_id);
      ctx.body = { id: row.id, json_schema: row.json_schema, version: row.version };
    },
    latestSchemaExtension: async (ctx) => {
      const row = await extensions.latest(ctx.state.identity, ctx.params.slug);
      ctx.body = { url: links.schema(row.id), uuid: row.id };
    },
    registerSchemaExtension: async (ctx) => {
      const row = await extensions.register(ctx.state.identity, ctx.params.slug, await jsonBody(ctx, { required: true, limit: '512kb' }));
      ctx.body = {
        community_id: row.community_id,
        community_schema_version: row.version,
        community_slug: row.slug,
        schema_id: row.id,
        section: row.section,
        links: { self: links.schema(row.id), latest: `${links.base}${base}/${row.slug}` },
      };
    },
  });
}
