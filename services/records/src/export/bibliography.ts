/**
 * Formatted citations (`text/x-bibliography`, `?style=` / `?locale=`), after InvenioRDM's
 * `StringCitationSerializer`: the record's CSL JSON item (citation.ts) rendered by citeproc-js with
 * the official CSL style and locale files shipped in `./csl/` (source and licence: csl/SOURCE.md).
 *
 * When to use: to answer a formatted citation of a published record, and to list the styles a
 * client may ask for. Rules:
 * - style: a name of `CITATION_STYLES` or an old name the CSL repository renamed (`harvard1`,
 *   `vancouver`, `chicago-fullnote-bibliography`), case-insensitive; default `apa` (InvenioRDM's
 *   `RDM_CITATION_STYLES_DEFAULT`); another value → 400 naming every style (InvenioRDM: 400
 *   "Citation string style not found.").
 * - locale: a BCP 47 tag (`en-GB`, `de`, `pt_BR`); one not shipped falls back to its language's
 *   primary dialect (CSL's locales.json), then to en-US, as CSL processors do; a value that is not a
 *   language tag → 400. Without `?locale=` the style's own `default-locale` (else en-US) applies.
 * - bounded work: the processor (csl-engine.ts) runs in worker threads (citation-pool.ts: a
 *   bounded pool and queue, 503 with Retry-After beyond), one citeproc engine per (style, locale)
 *   compiled once per worker and reused (at most styles × locales engines); each rendering gives
 *   the engine one item with a fresh id, so nothing of an earlier record is reused; names beyond
 *   `MAX_NAMES` are cut (the first ones and the last kept: every shipped style truncates with
 *   et-al far below), so a record with 10,000 creators renders as fast as one with 60; the abstract
 *   is dropped (no shipped style prints it); renderings are kept keyed by a digest of (style,
 *   locale, item) (`citationJob`): a record read again (a landing page's citation box) is not
 *   rendered again, and an edit (another item) can never be answered from the cache.
 * - the list of styles and locales is `@rdm/contracts`' (proto/lib/citations.ts), which the web
 *   service's style selector reads too; `STYLE_FILES` (csl-engine.ts) names their CSL files.
 */
import { createHash } from 'node:crypto';
import { CITATION_LOCALES, CITATION_STYLES, DEFAULT_CITATION_STYLE } from '@rdm/contracts';
import { Errors } from '@rdm/platform';
import { readCslText, renderCitation, STYLE_FILES, styleXmlOf } from './csl-engine.js';

export { CITATION_LOCALES, CITATION_STYLES, type CitationStyle, DEFAULT_CITATION_STYLE } from '@rdm/contracts';

/** Old names the CSL repository renamed (its renamed-styles.json), still accepted. */
const RENAMED: Record<string, string> = {
  harvard1: 'harvard-cite-them-right',
  'nlm-citation-sequence': 'vancouver',
  'chicago-fullnote-bibliography': 'chicago-notes-bibliography',
  'modern-language-association-8th-edition': 'modern-language-association',
  mla: 'modern-language-association',
};

/** Renderings kept (LRU). */
export const RENDER_CACHE_MAX = 2000;

/** Names kept of a longer author/editor list (the first `MAX_NAMES - 1` and the last). */
export const MAX_NAMES = 60;

const LOCALE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/;

let primaryDialects: Record<string, string> | undefined;
const rendered = new Map<string, string>();

/** The canonical style name of a `?style=` value, or undefined when it names no style served. */
export function resolveCitationStyle(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return DEFAULT_CITATION_STYLE;
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  const name = RENAMED[v] ?? v;
  return Object.hasOwn(STYLE_FILES, name) ? name : undefined;
}

/** The shipped locale a `?locale=` value renders in (fallbacks: primary dialect, en-US); undefined when none given; 400 when not a language tag. */
export function resolveCitationLocale(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !LOCALE_TAG.test(value.trim())) {
    throw Errors.badRequest('Invalid citation locale.', [
      { field: 'locale', messages: [`Not a language tag. Available locales: ${CITATION_LOCALES.join(', ')}.`] },
    ]);
  }
  const parts = value.trim().replace(/_/g, '-').split('-');
  const tag = [parts[0].toLowerCase(), ...parts.slice(1).map((p) => (p.length === 2 ? p.toUpperCase() : p))].join('-');
  const exact = CITATION_LOCALES.find((l) => l.toLowerCase() === tag.toLowerCase());
  if (exact) return exact;
  primaryDialects ??= (JSON.parse(readCslText('locales/locales.json')) as { 'primary-dialects': Record<string, string> })[
    'primary-dialects'
  ];
  const primary = primaryDialects[parts[0].toLowerCase()];
  return primary && CITATION_LOCALES.includes(primary) ? primary : 'en-US';
}

function styleError(value: unknown): Error {
  const names = CITATION_STYLES.map((s) => s.id).join(', ');
  return Errors.badRequest(`Citation string style not found. Available styles: ${names}.`, [
    { field: 'style', messages: [`Unknown style ${JSON.stringify(String(value)).slice(0, 80)}. Available styles: ${names}.`] },
  ]);
}

/** The locale a style renders in without `?locale=`: its `default-locale` when shipped, else en-US. */
export function styleDefaultLocale(style: string): string {
  const m = /<style\b[^>]*\bdefault-locale="([^"]+)"/.exec(styleXmlOf(style));
  return m ? (resolveCitationLocale(m[1]) ?? 'en-US') : 'en-US';
}

function capNames(names: unknown): unknown {
  if (!Array.isArray(names) || names.length <= MAX_NAMES) return names;
  return [...names.slice(0, MAX_NAMES - 1), names[names.length - 1]];
}

/** Check `?style=` and `?locale=` before any read: the canonical style and the locale (400 for either when bad). */
export function citationParams(query: { style?: unknown; locale?: unknown }): { style: string; locale: string | undefined } {
  const style = resolveCitationStyle(query.style);
  if (!style) throw styleError(query.style);
  return { style, locale: resolveCitationLocale(query.locale) };
}

/** One rendering to do: the item as rendered (capped, without abstract and id), the style, the resolved locale, and the digest of the three (the key of rendering caches). */
export interface CitationJob {
  item: Record<string, unknown>;
  style: string;
  locale: string;
  key: string;
}

/** Prepare the rendering of one CSL JSON item in `style` (and `locale`, else the style's default). */
export function citationJob(item: Record<string, any>, style: string, locale?: string): CitationJob {
  const { abstract: _abstract, id: _id, ...rest } = item;
  const capped = { ...rest, author: capNames(rest.author), editor: capNames(rest.editor) };
  const resolved = locale ?? styleDefaultLocale(style);
  const key = createHash('sha256')
    .update(`${style}|${resolved}|${JSON.stringify(capped)}`)
    .digest('base64');
  return { item: capped, style, locale: resolved, key };
}

/**
 * The formatted citation of one CSL JSON item, rendered on the calling thread (compiling an
 * uncached style blocks it for seconds): for tests and tools; the service renders through
 * citation-pool.ts, whose workers run the same code.
 */
export function formatCitation(item: Record<string, any>, style: string, locale?: string): string {
  const job = citationJob(item, style, locale);
  const hit = rendered.get(job.key);
  if (hit !== undefined) {
    rendered.delete(job.key);
    rendered.set(job.key, hit);
    return hit;
  }
  const text = renderCitation(job.item, job.style, job.locale);
  rendered.set(job.key, text);
  if (rendered.size > RENDER_CACHE_MAX) rendered.delete(rendered.keys().next().value as string);
  return text;
}
