/**
 * `GET /sitemap.xml` (sitemaps.org protocol 0.9) of the public records: the landing page
 * (`links.self_html` form, `<base>/records/<id>`) and `lastmod` of every public, live, latest
 * version. Up to `maxUrls` (50,000, the protocol's limit) it is one `urlset`; beyond, it is a
 * `sitemapindex` of `/sitemaps/records-<n>.xml` pages of `maxUrls` each. Anonymous; answered from
 * the database on each request (a crawler's daily read).
 *
 * When to use: mounted by `registerInteropRoutes`; the gateway routes `/sitemap.xml` and
 * `/sitemaps/{name}` here.
 */
import { type AppContext, type AppState, bindRoutes, Errors, type Knex, type Router } from '@rdm/platform';
import { SITEMAP_ROUTES } from '../http/interop.decl.js';
import { el, renderXml, textEl, type XmlNode } from '../export/xml.js';
import { countSitemapRecords, sitemapRecords } from '../repo/sitemap.repo.js';

/** The sitemaps.org namespace. */
export const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** URLs per sitemap file (the protocol's limit). */
export const SITEMAP_MAX_URLS = 50_000;

/** What the sitemap routes need. */
export interface SitemapDeps {
  db: Knex;
  baseUrl: string;
  /** URLs per file (tests use a small one). */
  maxUrls?: number;
}

const doc = (root: XmlNode) => `<?xml version="1.0" encoding="UTF-8"?>\n${renderXml(root)}\n`;

/** Register `/sitemap.xml` and `/sitemaps/records-<n>.xml`. */
export function registerSitemapRoutes(router: Router<AppState>, deps: SitemapDeps): void {
  const max = deps.maxUrls ?? SITEMAP_MAX_URLS;
  const base = deps.baseUrl.replace(/\/+$/, '');
  const send = (ctx: AppContext, xml: string) => {
    ctx.status = 200;
    ctx.set('Content-Type', 'application/xml; charset=utf-8');
    ctx.body = xml;
  };
  const urlset = async (page: number) => {
    const rows = await sitemapRecords(deps.db, page * max, max);
    const urls = rows.map((r) =>
      el('url', null, textEl('loc', `${base}/records/${encodeURIComponent(r.id)}`), textEl('lastmod', r.lastmod)),
    );
    return doc(el('urlset', { xmlns: SITEMAP_NS }, ...urls));
  };

  bindRoutes(
    SITEMAP_ROUTES,
    {
      sitemap: async (ctx: AppContext) => {
        const total = await countSitemapRecords(deps.db);
        if (total <= max) return send(ctx, await urlset(0));
        const pages = Math.ceil(total / max);
        const entries = Array.from({ length: pages }, (_, i) =>
          el('sitemap', null, textEl('loc', `${base}/sitemaps/records-${i + 1}.xml`)),
        );
        send(ctx, doc(el('sitemapindex', { xmlns: SITEMAP_NS }, ...entries)));
      },
      sitemapPage: async (ctx: AppContext) => {
        const m = /^records-([1-9][0-9]{0,6})\.xml$/.exec(String(ctx.params.name));
        if (!m) throw Errors.notFound('Sitemap not found.');
        const page = Number(m[1]) - 1;
        const total = await countSitemapRecords(deps.db);
        if (page * max >= Math.max(total, 1)) throw Errors.notFound('Sitemap not found.');
        send(ctx, await urlset(page));
      },
    },
    router,
  );
}
