/**
 * The one layout every page shares (header with a search box, main, footer) and the document
 * head: title, canonical URL, meta tags (Highwire `citation_*`, OpenGraph), alternate links and
 * JSON-LD. HTML is produced by preact's server renderer, which escapes every text and attribute
 * value; the only raw HTML is what a caller passes through `dangerouslySetInnerHTML` on purpose
 * (a record's sanitized description, the JSON-LD made safe by `scriptJson`).
 *
 * When to use: every page renders `<Layout …>` through `renderPage`.
 */
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { STYLESHEET_NAME } from './style.js';

/** One `<meta>` tag: `name` (Highwire) or `property` (OpenGraph). */
export interface MetaTag {
  name?: string;
  property?: string;
  content: string;
}

/** One `<link rel="alternate">`. */
export interface AlternateLink {
  type: string;
  href: string;
  title?: string;
}

/** What goes into a page's `<head>`. */
export interface Head {
  title: string;
  description?: string;
  canonical?: string;
  meta?: MetaTag[];
  alternates?: AlternateLink[];
  /** A JSON-LD document (any JSON value), embedded as `<script type="application/ld+json">`. */
  jsonLd?: unknown;
  /** Ask crawlers not to index (error pages). */
  noindex?: boolean;
}

/** Props of the layout. */
export interface LayoutProps {
  head: Head;
  /** Public base URL of the site (links in the header). */
  baseUrl: string;
  /** The search box's current query. */
  q?: string;
  /** Wider main with a side column. */
  side?: boolean;
  children?: ComponentChildren;
}

/**
 * JSON text safe inside `<script>`: `<`, `>`, `&` and the JavaScript line separators written as
 * `\\u` escapes, so no `</script>` or comment opener can end the element early.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The shared layout. */
export function Layout(p: LayoutProps): VNode {
  const h = p.head;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{h.title}</title>
        {h.description ? <meta name="description" content={h.description} /> : null}
        {h.noindex ? <meta name="robots" content="noindex" /> : null}
        {h.canonical ? <link rel="canonical" href={h.canonical} /> : null}
        <link rel="stylesheet" href={`${p.baseUrl}/static/${STYLESHEET_NAME}`} />
        {(h.meta ?? []).map((m) =>
          m.property ? <meta property={m.property} content={m.content} /> : <meta name={m.name} content={m.content} />,
        )}
        {(h.alternates ?? []).map((a) => (
          <link rel="alternate" type={a.type} href={a.href} title={a.title} />
        ))}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: JSON made safe for a script element by scriptJson */}
        {h.jsonLd !== undefined ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: scriptJson(h.jsonLd) }} /> : null}
      </head>
      <body>
        <header class="site">
          <a href={`${p.baseUrl}/search`}>
            <strong>Research data repository</strong>
          </a>
          <form action={`${p.baseUrl}/search`} method="get" aria-label="Search">
            <label for="site-q" class="muted">
              Search records
            </label>
            <input id="site-q" type="search" name="q" value={p.q ?? ''} />
            <button type="submit">Search</button>
          </form>
        </header>
        <main class={p.side ? 'with-side' : undefined}>{p.children}</main>
        <footer class="site">
          <span>
            Data also available through the <a href={`${p.baseUrl}/api/openapi.json`}>REST API</a>.
          </span>
        </footer>
      </body>
    </html>
  );
}

/** Render a page to a complete HTML document. */
export function renderPage(page: VNode): string {
  return `<!DOCTYPE html>\n${renderToString(page)}`;
}
