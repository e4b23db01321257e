/**
 * HTTP routes of the vocabularies service. Each route parses input, makes ONE service call and
 * sends the result.
 *
 * - `GET /api/vocabularies` — vocabulary types.
 * - `GET /api/vocabularies/<type>` and, for affiliations, awards, funders, names and subjects,
 *   `GET /api/<type>` — entry search (`q` | `suggest`, `tags`, `sort`, `page`, `size`).
 * - `GET /api/vocabularies/<type>/<id>` and `GET /api/<type>/<id>` — one entry, with `ETag`
 *   (`"<revision_id>"`) and `If-None-Match` → 304. Subject ids may be URIs (slashes allowed).
 * - `GET /api/names/<scheme>/<value>` — a name by identifier (ORCID, GND, ISNI).
 * - `POST`/`PUT`/`DELETE` — system and administrators only; everyone else gets 403.
 * - `GET /openapi.json` — the service's OpenAPI fragment (internal, merged by the gateway).
 *
 * The single-entry GET is the hottest route: it sends the cached serialized body as-is.
 * The routes themselves (paths, order, documentation) are declared in routes.decl.ts.
 */
import { type AppState, bindRoutes, Errors, ifMatch, jsonBody, notModified, openapiRouter, Router } from '@rdm/platform';
import type { Context } from 'koa';
import { API, VOCABULARY_ROUTES } from './routes.decl.js';
import type { VocabulariesService } from '../domain/vocabularies.service.js';

/** The context a route handler sees. */
type Ctx = Context & { state: AppState; params: Record<string, string> };

const UI_JSON = 'application/vnd.inveniordm.v1+json';

/** Preferred UI language: `?ln=`, else the first `Accept-Language` tag, else `en`. */
function uiLang(ctx: Context): string {
  const ln = typeof ctx.query.ln === 'string' ? ctx.query.ln : '';
  const raw = ln || (ctx.get('accept-language').split(',')[0] ?? '');
  const m = /^([a-z]{2})/i.exec(raw.trim());
  return m ? m[1].toLowerCase() : 'en';
}

/** Build the router over a service instance. */
export function vocabulariesRouter(service: VocabulariesService): Router<AppState> {
  const router = new Router<AppState>();

  // Why: PostgreSQL text cannot hold NUL (U+0000). Such a value matches nothing, but sent to the
  // database it fails the whole statement (a 500): an id with NUL is unknown, a query value is refused.
  router.use(async (ctx: Ctx, next) => {
    if (ctx.path.includes('%00')) throw Errors.pidDoesNotExist();
    if (ctx.querystring.includes('%00')) {
      for (const [field, value] of Object.entries(ctx.query)) {
        if ((Array.isArray(value) ? value : [value]).some((v) => v?.includes('\0'))) {
          throw Errors.invalidQuerystring([{ field, messages: ['Must not contain NUL characters.'] }]);
        }
      }
    }
    return next();
  });

  const sendEntry = async (ctx: Ctx, type: string, id: string) => {
    if (ctx.get('accept').includes(UI_JSON)) {
      ctx.body = await service.readL10n(ctx.state.identity, type, id, uiLang(ctx));
      ctx.type = UI_JSON;
      return;
    }
    const entry = await service.read(ctx.state.identity, type, id);
    if (notModified(ctx, entry.etag)) return;
    ctx.type = 'application/json';
    ctx.body = entry.body;
  };

  const listPathOf = (ctx: Context) => ctx.path.replace(/\/+$/, '');
  const search = async (ctx: Ctx, type: string) => {
    ctx.body = await service.search(ctx.state.identity, type, ctx.query, listPathOf(ctx));
  };
  const create = async (ctx: Ctx, type: string) => {
    const body = await jsonBody(ctx);
    ctx.body = await service.create(ctx.state.identity, type, body);
    ctx.status = 201;
  };
  const update = async (ctx: Ctx, type: string, id: string) => {
    const body = await jsonBody(ctx);
    ctx.body = await service.update(ctx.state.identity, type, id, body, ifMatch(ctx));
  };
  const remove = async (ctx: Ctx, type: string, id: string) => {
    await service.delete(ctx.state.identity, type, id, ifMatch(ctx));
    ctx.status = 204;
  };

  bindRoutes(
    VOCABULARY_ROUTES,
    {
      readEntry: (ctx) => sendEntry(ctx, ctx.params.type, ctx.params.id),
      listTypes: async (ctx) => {
        ctx.body = await service.listTypes(ctx.state.identity, ctx.query);
      },
      searchEntries: (ctx) => search(ctx, ctx.params.type),
      resolveName: async (ctx) => {
        ctx.body = await service.resolveName(ctx.state.identity, ctx.params.scheme, ctx.params.value);
      },
      searchRoot: (ctx) => search(ctx, ctx.params.type),
      readSubject: (ctx) => sendEntry(ctx, 'subjects', ctx.params.id),
      readRoot: (ctx) => sendEntry(ctx, ctx.params.type, ctx.params.id),
      // Writes: system only (InvenioRDM), administrators too here.
      launchTask: async (ctx) => {
        await service.launchTask(ctx.state.identity);
      },
      createEntry: (ctx) => create(ctx, ctx.params.type),
      updateEntry: (ctx) => update(ctx, ctx.params.type, ctx.params.id),
      deleteEntry: (ctx) => remove(ctx, ctx.params.type, ctx.params.id),
      createRoot: (ctx) => create(ctx, ctx.params.type),
      updateSubject: (ctx) => update(ctx, 'subjects', ctx.params.id),
      deleteSubject: (ctx) => remove(ctx, 'subjects', ctx.params.id),
      updateRoot: (ctx) => update(ctx, ctx.params.type, ctx.params.id),
      deleteRoot: (ctx) => remove(ctx, ctx.params.type, ctx.params.id),
    },
    router,
  );
  // Internal (the gateway merges it into /api/openapi.json; never routed publicly).
  router.use(openapiRouter(API).routes());
  return router;
}
