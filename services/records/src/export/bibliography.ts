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
 * - bounded work: one citeproc engine per (style, locale), compiled once and reused (at most
 *   styles × locales engines); each rendering gives the engine one item with a fresh id, so
 *   nothing of an earlier record is reused; names beyond `MAX_NAMES` are cut (the first ones and
 *   the last kept: every shipped style truncates with et-al far below), so a record with 10,000
 *   creators renders as fast as one with 60; the abstract is dropped (no shipped style prints it);
 *   the last `RENDER_CACHE_MAX` renderings are kept, keyed by a digest of (style, locale, item):
 *   a record read again (a landing page's citation box) is not rendered again, and an edit (another
 *   item) can never be answered from the cache.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Errors } from '@rdm/platform';

const require = createRequire(import.meta.url);
type CiteprocModule = { Engine: new (sys: CiteprocSys, style: string, lang?: string, forceLang?: boolean) => CiteprocEngine };
let citeproc: CiteprocModule | undefined;
// citeproc ships CommonJS without types (the members used are typed here), loaded on the first
// rendering: the route tables import the formats, and the gateway's generator needs no processor.
const CSL = (): CiteprocModule => {
  citeproc ??= require('citeproc') as CiteprocModule;
  return citeproc;
};

interface CiteprocSys {
  retrieveLocale(lang: string): string | undefined;
  retrieveItem(id: string): Record<string, unknown>;
}

interface CiteprocEngine {
  setOutputFormat(format: 'text' | 'html'): void;
  updateItems(ids: string[]): void;
  makeBibliography(): [Record<string, unknown>, string[]] | false;
}

const DIR = new URL('./csl/', import.meta.url);

/** A citation style offered: its name in `?style=` and the label shown on landing pages. */
export interface CitationStyle {
  /** Name in `?style=` (the CSL file name). */
  id: string;
  /** Human label (InvenioRDM's `RDM_CITATION_STYLES` labels). */
  title: string;
}

/** Styles served, in the order a style selector lists them (APA first: the default). */
export const CITATION_STYLES: readonly CitationStyle[] = [
  { id: 'apa', title: 'APA' },
  { id: 'harvard-cite-them-right', title: 'Harvard' },
  { id: 'modern-language-association', title: 'MLA' },
  { id: 'vancouver', title: 'Vancouver' },
  { id: 'chicago-author-date', title: 'Chicago (author-date)' },
  { id: 'chicago-notes-bibliography', title: 'Chicago (notes and bibliography)' },
  { id: 'ieee', title: 'IEEE' },
  { id: 'nature', title: 'Nature' },
];

/** The default style (InvenioRDM's `RDM_CITATION_STYLES_DEFAULT`). */
export const DEFAULT_CITATION_STYLE = 'apa';

/** Style name → CSL file (without `.csl`): `vancouver` is the CSL repository's `nlm-citation-sequence` since it was renamed. */
const STYLE_FILES: Record<string, string> = {
  apa: 'apa',
  'harvard-cite-them-right': 'harvard-cite-them-right',
  'modern-language-association': 'modern-language-association',
  vancouver: 'nlm-citation-sequence',
  'chicago-author-date': 'chicago-author-date',
  'chicago-notes-bibliography': 'chicago-notes-bibliography',
  ieee: 'ieee',
  nature: 'nature',
};

/** Old names the CSL repository renamed (its renamed-styles.json), still accepted. */
const RENAMED: Record<string, string> = {
  harvard1: 'harvard-cite-them-right',
  'nlm-citation-sequence': 'vancouver',
  'chicago-fullnote-bibliography': 'chicago-notes-bibliography',
  'modern-language-association-8th-edition': 'modern-language-association',
  mla: 'modern-language-association',
};

/** Locales shipped (`csl/locales/locales-<tag>.xml`). */
export const CITATION_LOCALES: readonly string[] = [
  'en-US',
  'en-GB',
  'de-DE',
  'fr-FR',
  'es-ES',
  'it-IT',
  'nl-NL',
  'pt-PT',
  'pt-BR',
  'cs-CZ',
  'sv-SE',
  'zh-CN',
  'ja-JP',
];

/** Renderings kept (LRU). */
export const RENDER_CACHE_MAX = 2000;

/** Names kept of a longer author/editor list (the first `MAX_NAMES - 1` and the last). */
export const MAX_NAMES = 60;

const LOCALE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/;

let primaryDialects: Record<string, string> | undefined;
const styleXml = new Map<string, string>();
const localeXml = new Map<string, string | undefined>();
const engines = new Map<string, { engine: CiteprocEngine; slot: { id: string; item: Record<string, unknown> } }>();
const rendered = new Map<string, string>();
let serial = 0;

function readText(rel: string): string {
  return readFileSync(new URL(rel, DIR), 'utf8');
}

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
  primaryDialects ??= (JSON.parse(readText('locales/locales.json')) as { 'primary-dialects': Record<string, string> })['primary-dialects'];
  const primary = primaryDialects[parts[0].toLowerCase()];
  return primary && CITATION_LOCALES.includes(primary) ? primary : 'en-US';
}

function styleError(value: unknown): Error {
  const names = CITATION_STYLES.map((s) => s.id).join(', ');
  return Errors.badRequest(`Citation string style not found. Available styles: ${names}.`, [
    { field: 'style', messages: [`Unknown style ${JSON.stringify(String(value)).slice(0, 80)}. Available styles: ${names}.`] },
  ]);
}

function retrieveLocale(lang: string): string | undefined {
  const want = CITATION_LOCALES.find((l) => l.toLowerCase() === String(lang).toLowerCase());
  if (!want) return undefined;
  if (!localeXml.has(want)) localeXml.set(want, readText(`locales/locales-${want}.xml`));
  return localeXml.get(want);
}

function styleXmlOf(style: string): string {
  const file = STYLE_FILES[style];
  let xml = styleXml.get(file);
  if (!xml) {
    xml = readText(`styles/${file}.csl`);
    styleXml.set(file, xml);
  }
  return xml;
}

/** The locale a style renders in without `?locale=`: its `default-locale` when shipped, else en-US. */
export function styleDefaultLocale(style: string): string {
  const m = /<style\b[^>]*\bdefault-locale="([^"]+)"/.exec(styleXmlOf(style));
  return m ? (resolveCitationLocale(m[1]) ?? 'en-US') : 'en-US';
}

function engineFor(style: string, locale: string) {
  const key = `${style}|${locale}`;
  let e = engines.get(key);
  if (!e) {
    const slot = { id: '', item: {} as Record<string, unknown> };
    const sys: CiteprocSys = { retrieveLocale, retrieveItem: (id) => (id === slot.id ? slot.item : { id, type: 'article' }) };
    // Why forced: citeproc-js without a forced language renders en-US even for a style whose
    // default-locale is another (harvard-cite-them-right: en-GB); the locale is resolved here.
    const engine = new (CSL().Engine)(sys, styleXmlOf(style), locale, true);
    engine.setOutputFormat('text');
    e = { engine, slot };
    engines.set(key, e);
  }
  return e;
}

function capNames(names: unknown): unknown {
  if (!Array.isArray(names) || names.length <= MAX_NAMES) return names;
  return [...names.slice(0, MAX_NAMES - 1), names[names.length - 1]];
}

/**
 * Compile the default style's engine now (its first rendering would otherwise compile it: a
 * synchronous second or more, during which the service answers nothing). Called once at start.
 */
export function warmCitationEngine(style = DEFAULT_CITATION_STYLE): void {
  engineFor(style, styleDefaultLocale(style));
}

/** Check `?style=` and `?locale=` before any read: the canonical style and the locale (400 for either when bad). */
export function citationParams(query: { style?: unknown; locale?: unknown }): { style: string; locale: string | undefined } {
  const style = resolveCitationStyle(query.style);
  if (!style) throw styleError(query.style);
  return { style, locale: resolveCitationLocale(query.locale) };
}

/** The formatted citation of one CSL JSON item in `style` (and `locale`, else the style's default), as plain text. */
export function formatCitation(item: Record<string, any>, style: string, locale?: string): string {
  const { abstract: _abstract, id: _id, ...rest } = item;
  const capped = { ...rest, author: capNames(rest.author), editor: capNames(rest.editor) };
  const key = createHash('sha256')
    .update(`${style}|${locale ?? ''}|${JSON.stringify(capped)}`)
    .digest('base64');
  const hit = rendered.get(key);
  if (hit !== undefined) {
    rendered.delete(key);
    rendered.set(key, hit);
    return hit;
  }
  const { engine, slot } = engineFor(style, locale ?? styleDefaultLocale(style));
  serial = (serial + 1) % Number.MAX_SAFE_INTEGER;
  slot.id = `item-${serial}`;
  slot.item = { ...capped, id: slot.id };
  let text: string;
  try {
    engine.updateItems([slot.id]);
    const bib = engine.makeBibliography();
    // InvenioRDM's _clean_result: whitespace runs collapsed, repeated full stops made one.
    text = (bib ? bib[1].join('') : '').replace(/\s\s+/g, ' ').replace(/\.\.+/g, '.').trim();
  } finally {
    slot.item = {};
  }
  rendered.set(key, text);
  if (rendered.size > RENDER_CACHE_MAX) rendered.delete(rendered.keys().next().value as string);
  return text;
}
