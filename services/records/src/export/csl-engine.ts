/**
 * The CSL processor itself: citeproc-js engines compiled from the official style and locale files
 * shipped in `./csl/` (source and licence: csl/SOURCE.md), one per (style, locale), kept for the
 * life of the thread, and the rendering of one CSL JSON item with one of them. No validation, no
 * result cache and no platform import: the caller (bibliography.ts) resolves the style and locale.
 *
 * When to use: only inside a citation worker thread (citation-worker.ts, run by citation-pool.ts)
 * and by bibliography.ts's in-thread `formatCitation` (unit tests): compiling a style is seconds
 * of synchronous CPU, never to be done on the service's event loop.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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

/** Style name → CSL file (without `.csl`): `vancouver` is the CSL repository's `nlm-citation-sequence` since it was renamed. */
export const STYLE_FILES: Readonly<Record<string, string>> = {
  apa: 'apa',
  'harvard-cite-them-right': 'harvard-cite-them-right',
  'modern-language-association': 'modern-language-association',
  vancouver: 'nlm-citation-sequence',
  'chicago-author-date': 'chicago-author-date',
  'chicago-notes-bibliography': 'chicago-notes-bibliography',
  ieee: 'ieee',
  nature: 'nature',
};

const SHIPPED_TAG = /^[a-z]{2,3}-[A-Z]{2}$/;
const styleXml = new Map<string, string>();
const localeXml = new Map<string, string | undefined>();
const engines = new Map<string, { engine: CiteprocEngine; slot: { id: string; item: Record<string, unknown> } }>();
let serial = 0;

/** A file of `./csl/` as text. */
export function readCslText(rel: string): string {
  return readFileSync(new URL(rel, DIR), 'utf8');
}

function retrieveLocale(lang: string): string | undefined {
  const tag = String(lang);
  if (!localeXml.has(tag)) {
    let xml: string | undefined;
    if (SHIPPED_TAG.test(tag)) {
      try {
        xml = readCslText(`locales/locales-${tag}.xml`);
      } catch {
        xml = undefined; // Not shipped: citeproc falls back (to en-US).
      }
    }
    localeXml.set(tag, xml);
  }
  return localeXml.get(tag);
}

/** The CSL XML of a style served (a key of `STYLE_FILES`). */
export function styleXmlOf(style: string): string {
  const file = STYLE_FILES[style];
  if (!file) throw new Error(`unknown citation style ${style}`);
  let xml = styleXml.get(file);
  if (!xml) {
    xml = readCslText(`styles/${file}.csl`);
    styleXml.set(file, xml);
  }
  return xml;
}

function engineFor(style: string, locale: string) {
  const key = `${style}|${locale}`;
  let e = engines.get(key);
  if (!e) {
    const slot = { id: '', item: {} as Record<string, unknown> };
    const sys: CiteprocSys = { retrieveLocale, retrieveItem: (id) => (id === slot.id ? slot.item : { id, type: 'article' }) };
    // Why forced: citeproc-js without a forced language renders en-US even for a style whose
    // default-locale is another (harvard-cite-them-right: en-GB); the locale is resolved by the caller.
    const engine = new (CSL().Engine)(sys, styleXmlOf(style), locale, true);
    engine.setOutputFormat('text');
    e = { engine, slot };
    engines.set(key, e);
  }
  return e;
}

/** Compile the engine of (`style`, `locale`) now if it is not yet (the first rendering would). */
export function compileEngine(style: string, locale: string): void {
  engineFor(style, locale);
}

/**
 * The plain-text bibliography entry of one CSL JSON item (already capped, without `id`) in a
 * served `style` and a shipped `locale`. Each rendering gives the engine the item under a fresh
 * id, so nothing of an earlier record is reused.
 */
export function renderCitation(item: Record<string, unknown>, style: string, locale: string): string {
  const { engine, slot } = engineFor(style, locale);
  serial = (serial + 1) % Number.MAX_SAFE_INTEGER;
  slot.id = `item-${serial}`;
  slot.item = { ...item, id: slot.id };
  try {
    engine.updateItems([slot.id]);
    const bib = engine.makeBibliography();
    // InvenioRDM's _clean_result: whitespace runs collapsed, repeated full stops made one.
    return (bib ? bib[1].join('') : '').replace(/\s\s+/g, ' ').replace(/\.\.+/g, '.').trim();
  } finally {
    slot.item = {};
  }
}
