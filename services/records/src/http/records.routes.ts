/**
 * HTTP routes of records and drafts (everything under /api/records except files and search).
 * Each route parses its input, makes ONE service call and renders with `serializeItem`.
 */
import {
  type AppContext,
  type AppState,
  bindRoutes,
  Errors,
  type Identity,
  ifMatch,
  jsonBody,
  listEnvelope,
  type Router,
} from '@rdm/platform';
import type { Context } from 'koa';
import type { ItemView, RecordsService } from '../domain/records.service.js';
import type { SignpostingHeader } from '../interop/interop.routes.js';
import type { ReviewService } from '../review/review.service.js';
import { serializeItem } from '../domain/serializers.js';
import { type CachedRecordBody, RecordReadCache, StampBatcher } from './record-read-cache.js';
import { RECORD_ROUTES } from './routes.decl.js';

/** What the routes need. */
export interface RecordsRoutesDeps {
  service: RecordsService;
  /** When present, `POST /api/records` accepts `parent.review`. */
  review?: ReviewService;
  baseUrl: string;
  doiResolverUrl: string;
  /** FAIR signposting level 1 (`Link`); without it only the `linkset` link is sent. */
  signposting?: SignpostingHeader;
}

const BODY_LIMIT = '2mb';
const ACCEPTED = ['application/json', 'application/vnd.inveniordm.v1+json'];

/** 406 unless the client accepts JSON (InvenioRDM's content negotiation, JSON only here). */
function negotiate(ctx: Context): void {
  const accept = ctx.get('accept');
  if (!accept) return;
  if (!ctx.accepts(ACCEPTED)) throw Errors.notAcceptable(ACCEPTED);
}

/** What the records routes hand back: the read cache's hit test, for the lean read path (record-read-lean.ts). */
export interface RecordsRoutes {
  /** The cached rendering of `GET /api/records/<id>` for this caller if still current, else undefined (then read it in full). */
  cachedRead(id: string, identity: Identity): Promise<CachedRecordBody | undefined>;
}

/** Register the records routes on `router`. */
export function registerRecordsRoutes(router: Router<AppState>, deps: RecordsRoutesDeps): RecordsRoutes {
  const { service, baseUrl } = deps;

  const render = (ctx: AppContext, view: ItemView, status = 200, o: { fileLinks?: boolean } = {}) => {
    const item = serializeItem(view.doc, {
      baseUrl,
      identity: ctx.state.identity,
      kind: view.kind,
      fileLinks: o.fileLinks,
      doiResolverUrl: deps.doiResolverUrl,
    });
    if (view.errors && view.errors.length > 0) item.errors = view.errors;
    ctx.status = status;
    ctx.set('ETag', `"${view.doc.revision_id}"`);
    ctx.body = item;
    return item;
  };

  const id = (ctx: AppContext) => String(ctx.params.id);

  // Published records are read far more than written: a rendering is reused while the record's
  // stamp (revision ids, checked on every read) is unchanged. See record-read-cache.ts.
  const readCache = new RecordReadCache();
  const stamps = new StampBatcher((ids) => service.recordStamps(ids));
  const sendRecord = (ctx: AppContext, r: CachedRecordBody) => {
    ctx.status = 200;
    ctx.set('ETag', r.etag);
    ctx.set('Link', r.link);
    ctx.type = 'application/json';
    ctx.body = r.body;
  };
  const cachedRead = async (recordId: string, identity: Identity): Promise<CachedRecordBody | undefined> => {
    const key = readCache.keyOf(recordId, identity);
    if (key === undefined || !readCache.has(key)) return undefined;
    const stamp = await stamps.stamp(recordId);
    return stamp === undefined ? undefined : readCache.get(key, stamp);
  };

  bindRoutes(
    RECORD_ROUTES,
    {
      createDraft: async (ctx: AppContext) => {
        negotiate(ctx);
        const body = await jsonBody(ctx, { limit: BODY_LIMIT });
        const view = await (deps.review
          ? deps.review.createDraft(ctx.state.identity, body)
          : service.createDraft(ctx.state.identity, body));
        const item = render(ctx as AppContext, view, 201);
        ctx.set('Location', item.links.self);
      },
      readRecord: async (ctx: AppContext) => {
        negotiate(ctx);
        const recordId = id(ctx);
        const hit = await cachedRead(recordId, ctx.state.identity);
        if (hit) return sendRecord(ctx as AppContext, hit);
        const key = readCache.keyOf(recordId, ctx.state.identity);
        const result = await service.readRecord(ctx.state.identity, recordId);
        if ('redirect' in result) {
          ctx.status = 302;
          ctx.set('Location', result.redirect);
          ctx.body = { status: 302, message: 'Redirecting...', location: result.redirect };
          return;
        }
        const item = render(ctx as AppContext, result, 200, { fileLinks: true });
        const signposting = deps.signposting
          ? await deps.signposting(item as Parameters<SignpostingHeader>[0])
          : { link: `<${item.links.self}> ; rel="linkset" ; type="application/linkset+json"`, complete: true };
        const rendered: CachedRecordBody = {
          stamp: result.stamp ?? '',
          body: Buffer.from(JSON.stringify(item)),
          etag: `"${result.doc.revision_id}"`,
          link: signposting.link,
        };
        if (key !== undefined && result.stamp !== undefined && signposting.complete) readCache.set(key, rendered);
        sendRecord(ctx as AppContext, rendered);
      },
      readDraft: async (ctx: AppContext) => {
        negotiate(ctx);
        render(ctx as AppContext, await service.readDraft(ctx.state.identity, id(ctx)));
      },
      updateDraft: async (ctx: AppContext) => {
        negotiate(ctx);
        const revision = ifMatch(ctx);
        const body = await jsonBody(ctx, { limit: BODY_LIMIT });
        render(ctx as AppContext, await service.updateDraft(ctx.state.identity, id(ctx), body, revision));
      },
      editRecord: async (ctx: AppContext) => {
        negotiate(ctx);
        render(ctx as AppContext, await service.edit(ctx.state.identity, id(ctx)), 201);
      },
      deleteDraft: async (ctx: AppContext) => {
        const revision = ifMatch(ctx);
        await service.deleteDraft(ctx.state.identity, id(ctx), revision);
        ctx.status = 204;
        ctx.body = null;
      },
      runDraftAction: async (ctx: AppContext) => {
        negotiate(ctx);
        render(ctx as AppContext, await service.publish(ctx.state.identity, id(ctx)), 202);
      },
      importDraftFiles: async (ctx: AppContext) => {
        negotiate(ctx);
        ctx.status = 201;
        ctx.body = await service.importFiles(ctx.state.identity, id(ctx));
      },
      reserveDraftPid: async (ctx: AppContext) => {
        negotiate(ctx);
        render(ctx as AppContext, await service.reservePid(ctx.state.identity, id(ctx), String(ctx.params.scheme)), 201);
      },
      // No GET here: InvenioRDM serves POST and DELETE only (405 otherwise). The spec's `GET
      // …/draft/pids/doi` (204 for an existing draft, 404 otherwise, to anyone) was an existence
      // oracle for every draft id (issue 18, item 9).
      discardDraftPid: async (ctx: AppContext) => {
        await service.discardPid(ctx.state.identity, id(ctx), String(ctx.params.scheme));
        ctx.status = 204;
        ctx.body = null;
      },
      createRecordVersion: async (ctx: AppContext) => {
        negotiate(ctx);
        render(ctx as AppContext, await service.newVersion(ctx.state.identity, id(ctx)), 201);
      },
      listRecordVersions: async (ctx: AppContext) => {
        negotiate(ctx);
        const recordId = id(ctx);
        const view = await service.listVersions(ctx.state.identity, recordId, ctx.query as Record<string, string | string[] | undefined>);
        const hits = view.items.map((i) =>
          serializeItem(i.doc, { baseUrl, identity: ctx.state.identity, kind: i.kind, doiResolverUrl: deps.doiResolverUrl }),
        );
        const body = listEnvelope({
          hits,
          total: view.total,
          args: view.args,
          baseUrl,
          path: `/api/records/${encodeURIComponent(recordId)}/versions`,
        });
        // InvenioRDM's versions list has no facets: no `aggregations` key at all (reference §4.12).
        Reflect.deleteProperty(body, 'aggregations');
        ctx.body = body;
      },
      readLatestRecordVersion: async (ctx: AppContext) => {
        negotiate(ctx);
        // Why: the spec answers 200 with the latest record (InvenioRDM redirects with 301);
        // Content-Location tells clients which resource the body is.
        const item = render(ctx as AppContext, await service.readLatest(ctx.state.identity, id(ctx)), 200, { fileLinks: true });
        ctx.set('Content-Location', item.links.self);
      },
    },
    router,
  );

  return { cachedRead };
}
