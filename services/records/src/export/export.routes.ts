/**
 * Export routes: content negotiation on `GET /api/records/<id>` and
 * `GET /api/records/<id>/export/<format>`. The negotiating handler is registered BEFORE the records
 * routes on the same router: when JSON is negotiated (no Accept, `*\/*`, `application/json`) it
 * calls `next()` and the records route answers exactly as before (cache, ETag, Link); any other
 * supported type is rendered here from the same permission-checked read; an unsupported one is 406
 * listing every supported type.
 */
import type { AppContext, AppState, Identity, MsgLogger, Router } from '@rdm/platform';
import type { Next } from 'koa';
import type { CitationPool } from './citation-pool.js';
import { type ExportFormat, formatByName, MEDIA_TYPES, negotiateFormat } from './formats.js';
import { type PublishedRecordReader, readPublishedJson } from './reader.js';
import type { VocabPropsCache } from './vocab-props.js';
import { bindRoutes, Errors } from '@rdm/platform';
import { EXPORT_ROUTES } from '../http/interop.decl.js';

/** What the export routes need. */
export interface ExportRoutesDeps {
  reader: PublishedRecordReader;
  props: VocabPropsCache;
  baseUrl: string;
  doiResolverUrl: string;
  siteName: string;
  datacentreSymbol?: string;
  logger?: MsgLogger;
  /** Where formatted citations are rendered (worker threads). */
  citations: CitationPool;
}

/** Render a published record in `format` for `identity` (403/404/410 and redirects as the JSON read). */
export async function renderExport(
  deps: ExportRoutesDeps,
  identity: Identity,
  id: string,
  format: ExportFormat,
  citation?: { style?: unknown; locale?: unknown },
): Promise<{ body: string; contentType: string } | { redirect: string }> {
  const read = await readPublishedJson(deps.reader, identity, id, deps);
  if ('redirect' in read) return read;
  const props = await deps.props.lookupFor([read.record]);
  const body = await format.render(read.record, {
    baseUrl: deps.baseUrl,
    siteName: deps.siteName,
    doiResolverUrl: deps.doiResolverUrl,
    datacentreSymbol: deps.datacentreSymbol,
    props,
    citation,
    citations: (item, style, locale) => deps.citations.format(item, style, locale),
  });
  return { body, contentType: format.contentType };
}

/** Register the export routes (before the records routes). */
export function registerExportRoutes(router: Router<AppState>, deps: ExportRoutesDeps): void {
  const send = async (ctx: AppContext, format: ExportFormat, suffix: string) => {
    const id = String(ctx.params.id);
    const out = await renderExport(deps, ctx.state.identity, id, format, { style: ctx.query.style, locale: ctx.query.locale });
    if ('redirect' in out) {
      const location = `${out.redirect}${suffix}`;
      ctx.status = 302;
      ctx.set('Location', location);
      ctx.body = { status: 302, message: 'Redirecting...', location };
      return;
    }
    ctx.status = 200;
    ctx.set('Content-Type', out.contentType);
    ctx.body = out.body;
  };

  bindRoutes(
    EXPORT_ROUTES,
    {
      negotiateRecordFormat: async (ctx: AppContext, next: Next) => {
        ctx.vary('Accept');
        const format = negotiateFormat(ctx.get('accept') || undefined, ctx.query.format, (types) => ctx.accepts(types));
        if (format.name === 'json') return next();
        await send(ctx, format, '');
      },
      exportRecord: async (ctx: AppContext) => {
        const format = formatByName(String(ctx.params.format));
        if (!format) throw Errors.notFound(`Export format not found. Supported: ${MEDIA_TYPES.join(', ')}`);
        await send(ctx, format, `/export/${encodeURIComponent(String(ctx.params.format))}`);
      },
    },
    router,
  );
}
