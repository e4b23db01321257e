/**
 * The page handlers: read the public API as the visitor (api-client.ts), render a page
 * (pages/*.tsx), answer HTML. API refusals become pages with the same status (404, 403, 410 with
 * the tombstone); a visitor asking for JSON (`Accept: application/json` before HTML) gets the
 * platform's JSON error body instead. Record pages carry the record's signposting `Link` header
 * and are cached for anonymous visitors (page-cache.ts).
 */
import { DEFAULT_CITATION_STYLE } from '@rdm/contracts';
import { type AppContext as Context, AppError, type AppState, bindRoutes, Errors, type Router } from '@rdm/platform';
import type { VNode } from 'preact';
import { type ApiClient, queryOf } from '../api-client.js';
import { type CachedPage, cachedPage, type PageCache } from '../page-cache.js';
import { renderPage } from '../pages/layout.js';
import { ErrorPage, RecordPage, TombstonePage } from '../pages/record.js';
import { CommunityPage, FACETS, type SearchState, SearchPage } from '../pages/search.js';
import { STYLESHEET, STYLESHEET_NAME } from '../pages/style.js';
import { PAGE_ROUTES } from './routes.decl.js';

/** What the handlers need. */
export interface PagesDeps {
  baseUrl: string;
  /** The API client of the current request (as its visitor). */
  clientOf(ctx: Context): ApiClient;
  cache: PageCache;
}

const MAX_SIZE = 100;

/** True when the visitor prefers JSON over HTML (an API client following a `*_html` link). */
function wantsJson(ctx: Context): boolean {
  return ctx.accepts('html', 'json') === 'json';
}

function sendHtml(ctx: Context, status: number, page: VNode, cache = 'no-store'): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', cache);
  ctx.set('Vary', 'Accept, Authorization, Cookie');
  ctx.body = renderPage(page);
}

/**
 * Answer a cached page: its bytes as they are (gzip-compressed when the client accepts it), its
 * own ETag, and 304 without a body when the browser already has it (`If-None-Match`).
 */
function sendCached(ctx: Context, page: CachedPage): void {
  ctx.set('X-Page-Cache', 'hit');
  if (page.link) ctx.set('Link', page.link);
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Vary', 'Accept, Accept-Encoding, Authorization, Cookie');
  ctx.set('ETag', page.pageEtag);
  ctx.type = 'text/html; charset=utf-8';
  const known = ctx.get('If-None-Match');
  if (known?.split(',').some((t) => t.trim().replace(/^W\//, '') === page.pageEtag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = page.gzip;
  } else ctx.body = page.html;
}

/** Answer an API refusal: the JSON error for JSON clients, else an error page with the same status. */
function refuse(ctx: Context, baseUrl: string, status: number, message: string): void {
  const s = status >= 400 && status < 600 ? status : 502;
  if (wantsJson(ctx)) throw new AppError(s === 404 ? 'not_found' : 'page_error', s, message);
  sendHtml(ctx, s, ErrorPage({ baseUrl, status: s, message }));
}

function messageOf(body: any, fallback: string): string {
  return typeof body?.message === 'string' ? body.message : fallback;
}

function one(v: unknown): string | undefined {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === 'string' ? x : undefined;
}

function many(v: unknown): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string' && x !== '');
}

/** The search state of a page's query; bad paging → 400 (as the API would). */
function searchState(ctx: Context): SearchState {
  const page = one(ctx.query.page) ?? '1';
  const size = one(ctx.query.size) ?? '10';
  const errors = [];
  if (!/^[1-9]\d{0,5}$/.test(page)) errors.push({ field: 'page', messages: ['Must be a positive integer.'] });
  if (!/^[1-9]\d{0,2}$/.test(size) || Number(size) > MAX_SIZE)
    errors.push({ field: 'size', messages: [`Must be between 1 and ${MAX_SIZE}.`] });
  if (errors.length) throw Errors.invalidQuerystring(errors);
  const filters: Record<string, string[]> = {};
  for (const f of FACETS) {
    const vs = many(ctx.query[f.name]);
    if (vs.length) filters[f.name] = vs;
  }
  return { q: one(ctx.query.q) ?? '', page: Number(page), size: Number(size), sort: one(ctx.query.sort), filters };
}

function apiQuery(s: SearchState): string {
  return queryOf({ q: s.q, page: s.page, size: s.size, sort: s.sort, ...s.filters });
}

/**
 * A draft, read-only, as the visitor may read it (`GET /api/records/<id>/draft`): InvenioRDM's
 * preview (`/records/<id>?preview=1`) and, here, its deposit-form URL `/uploads/<id>` (the form
 * itself is out of scope). Answers false when there is no draft (the caller decides what then).
 */
async function draftPreview(ctx: Context, deps: PagesDeps, id: string, token: string | undefined): Promise<boolean> {
  const api = deps.clientOf(ctx);
  const enc = encodeURIComponent;
  const draft = await api.get('records', `/api/records/${enc(id)}/draft${queryOf({ token })}`);
  if (draft.status === 404) return false;
  if (draft.status !== 200 || !draft.body?.id) {
    refuse(ctx, deps.baseUrl, draft.status, messageOf(draft.body, 'The draft does not exist.'));
    return true;
  }
  const files =
    draft.body.files?.enabled === false ? undefined : await api.get('files', `/api/records/${enc(id)}/draft/files${queryOf({ token })}`);
  const page = RecordPage({
    baseUrl: deps.baseUrl,
    record: draft.body,
    token,
    preview: true,
    files: files === undefined ? undefined : files.status === 200 ? { entries: files.body?.entries ?? [] } : { refused: files.status },
  });
  sendHtml(ctx, 200, page, 'private, no-store');
  return true;
}

/** The router of every page. */
export function pagesRouter(deps: PagesDeps): Router<AppState> {
  const { baseUrl, cache } = deps;
  const enc = encodeURIComponent;
  return bindRoutes(PAGE_ROUTES, {
    async recordLatestPage(ctx) {
      const token = one(ctx.query.token);
      const res = await deps.clientOf(ctx).get('records', `/api/records/${enc(ctx.params.id)}/versions/latest${queryOf({ token })}`);
      if (res.status !== 200 || !res.body?.id) return refuse(ctx, baseUrl, res.status, messageOf(res.body, 'The record does not exist.'));
      const target = res.body.links?.self_html ?? `${baseUrl}/records/${enc(res.body.id)}`;
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(`${target}${queryOf({ token })}`);
    },

    async draftPage(ctx) {
      const token = one(ctx.query.token);
      if (!(await draftPreview(ctx, deps, ctx.params.id, token))) refuse(ctx, baseUrl, 404, 'The draft does not exist.');
    },

    async recordPage(ctx) {
      const id = ctx.params.id;
      const token = one(ctx.query.token);
      const style = one(ctx.query.style) ?? DEFAULT_CITATION_STYLE;
      // `preview_html` (`?preview=1`): the draft when there is one the visitor may read, else the published page.
      if (one(ctx.query.preview) && (await draftPreview(ctx, deps, id, token))) return;
      const api = deps.clientOf(ctx);
      const q = queryOf({ token });
      const anonymous = ctx.state.identity.sub === null && token === undefined;
      // One cached page per record and citation style (a style records refuses is never cached);
      // a page held is checked with a conditional read: records answers 304 while the revision is the same.
      const cacheKey = `${id} ${style}`;
      const held = anonymous ? cache.peek(cacheKey) : undefined;
      const rec = await api.get('records', `/api/records/${enc(id)}${q}`, held ? { ifNoneMatch: held.etag } : {});
      if (rec.status === 304 && held) return sendCached(ctx, held);
      if (rec.status === 410) {
        if (wantsJson(ctx)) {
          const tombstone = rec.body?.tombstone;
          throw Errors.gone(messageOf(rec.body, 'The record has been deleted.'), tombstone ? { tombstone } : undefined);
        }
        return sendHtml(ctx, 410, TombstonePage({ baseUrl, id, body: rec.body }));
      }
      // A parent id (`links.parent_html`): the API redirects to its latest version; so does the page.
      const latest = /\/api\/records\/([^/?#]+)$/.exec(rec.headers.get('location') ?? '')?.[1];
      if ((rec.status === 301 || rec.status === 302) && latest) {
        ctx.set('Cache-Control', 'no-store');
        return ctx.redirect(`${baseUrl}/records/${latest}${queryOf({ token })}`);
      }
      if (rec.status !== 200 || !rec.body?.id) return refuse(ctx, baseUrl, rec.status, messageOf(rec.body, 'The record does not exist.'));
      const record = rec.body;
      const link = rec.headers.get('link') ?? undefined;
      const etag = rec.headers.get('etag') ?? '';
      if (link) ctx.set('Link', link);
      if (anonymous && etag) {
        const hit = cache.get(cacheKey, etag);
        if (hit) return sendCached(ctx, hit);
      }
      const [versions, files, communities, jsonLd, citation] = await Promise.all([
        api.get('records', `/api/records/${enc(record.id)}/versions${queryOf({ token, size: 100 })}`),
        record.files?.enabled === false ? undefined : api.get('files', `/api/records/${enc(record.id)}/files${q}`),
        api.get('records', `/api/records/${enc(record.id)}/communities${queryOf({ token, size: 25 })}`),
        api.get('records', `/api/records/${enc(record.id)}${q}`, { accept: 'application/ld+json' }),
        // The citation is an extra: unreachable or slow, the page goes without it (and is not cached).
        api
          .get('records', `/api/records/${enc(record.id)}${queryOf({ token, style })}`, { accept: 'text/x-bibliography' })
          .catch(() => undefined),
      ]);
      // A style records does not serve: 400 with its message (which lists the styles), as the API answers.
      if (citation?.status === 400) return refuse(ctx, baseUrl, 400, messageOf(citation.body, 'Citation string style not found.'));
      const page = RecordPage({
        baseUrl,
        record,
        token,
        versions: versions.status === 200 ? (versions.body?.hits?.hits ?? []) : undefined,
        files: files === undefined ? undefined : files.status === 200 ? { entries: files.body?.entries ?? [] } : { refused: files.status },
        communities: communities.status === 200 ? (communities.body?.hits?.hits ?? []) : undefined,
        jsonLd: jsonLd.status === 200 && jsonLd.body !== undefined ? jsonLd.body : undefined,
        citation: { style, text: citation?.status === 200 ? citation.text : undefined },
      });
      sendHtml(ctx, 200, page, anonymous ? 'no-cache' : 'private, no-store');
      if (anonymous && etag && citation?.status === 200) {
        const kept = cachedPage(etag, ctx.body as string, link);
        cache.set(cacheKey, kept);
        ctx.set('X-Page-Cache', 'miss');
        ctx.set('ETag', kept.pageEtag);
      }
    },

    async doiPage(ctx) {
      const doi = String(ctx.params.doi).replace(/["\\]/g, '');
      const api = deps.clientOf(ctx);
      // A version's own DOI (of any version, hence allversions), else a concept (parent) DOI, which
      // resolves to the latest version as InvenioRDM's does (`links.parent_doi_html`).
      const lookups = [
        { q: `pids.doi.identifier:"${doi}"`, size: 1, allversions: 'true' },
        { q: `parent.pids.doi.identifier:"${doi}"`, size: 1 },
      ];
      for (const query of lookups) {
        const res = await api.get('records', `/api/records${queryOf(query)}`);
        const hit = res.status === 200 ? res.body?.hits?.hits?.[0] : undefined;
        if (hit?.links?.self_html) return ctx.redirect(hit.links.self_html);
      }
      return refuse(ctx, baseUrl, 404, 'No record has this DOI.');
    },

    async communityPage(ctx) {
      const state = searchState(ctx);
      const api = deps.clientOf(ctx);
      const com = await api.get('communities', `/api/communities/${enc(ctx.params.slug)}`);
      if (com.status !== 200 || !com.body?.id)
        return refuse(ctx, baseUrl, com.status, messageOf(com.body, 'The community does not exist.'));
      const records = await api.get('records', `/api/communities/${enc(com.body.id)}/records${apiQuery(state)}`);
      if (records.status !== 200) return refuse(ctx, baseUrl, records.status, messageOf(records.body, 'The search failed.'));
      sendHtml(ctx, 200, CommunityPage({ baseUrl, community: com.body, answer: records.body, state }));
    },

    async searchPage(ctx) {
      const state = searchState(ctx);
      const res = await deps.clientOf(ctx).get('records', `/api/records${apiQuery(state)}`);
      if (res.status !== 200) return refuse(ctx, baseUrl, res.status, messageOf(res.body, 'The search failed.'));
      sendHtml(ctx, 200, SearchPage({ baseUrl, answer: res.body, state }));
    },

    asset(ctx) {
      if (ctx.params.name !== STYLESHEET_NAME) throw Errors.notFound('No such file.');
      ctx.type = 'text/css; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = STYLESHEET;
    },
  });
}
