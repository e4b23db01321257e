/**
 * Shared helpers of the export serializers: they read the published record JSON (the read form
 * as the caller may see it, with `links`) and never the stored rows, so nothing the JSON read
 * hides can leak into an export.
 */

/** A published record in its JSON read form (`GET /api/records/<id>` as the caller sees it). */
export type RecordJson = Record<string, any> & { id: string; metadata: Record<string, any> };

/** Vocabulary `props` by vocabulary type and id (resolved before rendering; see vocab-props.ts). */
export type PropsLookup = (type: string, id: string | undefined) => Record<string, any>;

/** What every serializer receives besides the record. */
export interface ExportContext {
  /** PUBLIC_BASE_URL without trailing slash. */
  baseUrl: string;
  /** Repository name (publisher fallback, DCAT catalog). */
  siteName: string;
  /** DOI resolver base, e.g. https://doi.org. */
  doiResolverUrl: string;
  /** DataCite data centre symbol of `oai_datacite` (empty: the site name). */
  datacentreSymbol?: string;
  props: PropsLookup;
  /** The request's `?style=` / `?locale=` (formatted citations, `text/x-bibliography`). */
  citation?: { style?: unknown; locale?: unknown };
  /** Renders formatted citations off the event loop (citation-pool.ts); absent: on the calling thread (tests, tools). */
  citations?: CitationRenderer;
}

/** Renders one CSL JSON item in a style (and locale, else the style's default) as plain text. */
export type CitationRenderer = (item: Record<string, any>, style: string, locale?: string) => Promise<string>;

/** The English (else first) value of a multilingual `{lang: text}` object, or the string itself. */
export function l10n(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const s = v.en ?? Object.values(v)[0];
  return typeof s === 'string' ? s : undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Plain text of an HTML description (tags dropped, entities decoded, whitespace collapsed). */
export function stripHtml(html: unknown): string {
  if (typeof html !== 'string') return '';
  return html
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6])\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** A plain-text value (titles are text, not HTML): whitespace collapsed, '' for non-strings. */
export function plain(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}

/** The start of an EDTF level-0 date or interval (`2020-06/2021` → `2020-06`). */
export function edtfStart(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const start = value.split('/')[0];
  return start === '' || start === '..' ? undefined : start;
}

/** The year of an EDTF date or interval start. */
export function yearOf(value: unknown): string | undefined {
  const m = /^(\d{4})/.exec(edtfStart(value) ?? '');
  return m ? m[1] : undefined;
}

/** `[year, month?, day?]` of an EDTF date (CSL `date-parts`). */
export function dateParts(value: unknown): number[] | undefined {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(edtfStart(value) ?? '');
  if (!m) return undefined;
  return [m[1], m[2], m[3]].filter((x): x is string => x !== undefined).map(Number);
}

const RESOLVERS: Record<string, (v: string) => string> = {
  doi: (v) => `https://doi.org/${v}`,
  handle: (v) => `https://hdl.handle.net/${v}`,
  hdl: (v) => `https://hdl.handle.net/${v}`,
  arxiv: (v) => `https://arxiv.org/abs/${v.replace(/^arxiv:/i, '')}`,
  orcid: (v) => `https://orcid.org/${v}`,
  ror: (v) => `https://ror.org/${v}`,
  isni: (v) => `https://isni.org/isni/${v.replace(/\s+/g, '')}`,
  gnd: (v) => `https://d-nb.info/gnd/${v}`,
  pmid: (v) => `https://pubmed.ncbi.nlm.nih.gov/${v}`,
  ads: (v) => `https://ui.adsabs.harvard.edu/abs/${v}`,
  bibcode: (v) => `https://ui.adsabs.harvard.edu/abs/${v}`,
  swh: (v) => `https://archive.softwareheritage.org/${v}`,
};

/** A resolvable https URL of an identifier, or undefined when its scheme has no resolver. */
export function identifierUrl(identifier: unknown, scheme: unknown): string | undefined {
  if (typeof identifier !== 'string' || identifier === '') return undefined;
  const s = typeof scheme === 'string' ? scheme.toLowerCase() : '';
  if (/^https?:\/\//i.test(identifier)) return identifier;
  if (s === 'url' || s === 'purl' || s === 'w3id') return identifier;
  const r = RESOLVERS[s];
  return r ? r(identifier) : undefined;
}

/** The URL of an identifier, else `scheme:identifier` (Dublin Core's fallback form). */
export function identifierUriOrPrefixed(identifier: string, scheme: string): string {
  const url = identifierUrl(identifier, scheme);
  if (url) return url;
  return identifier.toLowerCase().startsWith(`${scheme.toLowerCase()}:`) ? identifier : `${scheme}:${identifier}`;
}

/** The display name of a `person_or_org` ("Family, Given" or the organization's name). */
export function personName(p: Record<string, any> | undefined): string {
  if (!p) return '';
  if (typeof p.name === 'string' && p.name !== '') return p.name;
  const family = typeof p.family_name === 'string' ? p.family_name : '';
  const given = typeof p.given_name === 'string' ? p.given_name : '';
  return given ? `${family}, ${given}` : family;
}

/** A list of objects at `value` (anything else → []). */
export function list(value: unknown): Record<string, any>[] {
  return Array.isArray(value) ? value.filter((v) => v && typeof v === 'object') : [];
}

/** The first resource type of a record (`resource_type` alias or `resource_types[0]`). */
export function resourceTypeOf(r: RecordJson): Record<string, any> | undefined {
  const m = r.metadata ?? {};
  if (m.resource_type && typeof m.resource_type === 'object') return m.resource_type;
  return list(m.resource_types)[0];
}

/** Alternate identifiers (`identifiers` alias or `alternate_identifiers`). */
export function alternateIdentifiersOf(r: RecordJson): Record<string, any>[] {
  const m = r.metadata ?? {};
  return list(m.alternate_identifiers ?? m.identifiers);
}

/** The record's DOI (`pids.doi.identifier`), if any. */
export function doiOf(r: RecordJson): string | undefined {
  const d = r.pids?.doi?.identifier;
  return typeof d === 'string' && d !== '' ? d : undefined;
}

/** The landing page of a record. */
export function landingPage(r: RecordJson, ctx: ExportContext): string {
  return typeof r.links?.self_html === 'string' ? r.links.self_html : `${ctx.baseUrl}/records/${encodeURIComponent(r.id)}`;
}

/** The community page of a community summary (`parent.communities.entries[]`). */
export function communityUrl(c: Record<string, any>, ctx: ExportContext): string | undefined {
  const slug = c.slug ?? c.id;
  return typeof slug === 'string' ? `${ctx.baseUrl}/communities/${encodeURIComponent(slug)}` : undefined;
}

/** File entries the caller may see (`files.entries`; absent when files are restricted). */
export function visibleFiles(r: RecordJson): Record<string, any>[] {
  const entries = r.files?.entries;
  if (!entries || typeof entries !== 'object') return [];
  return Object.values(entries as Record<string, any>).filter((e) => e && typeof e === 'object' && e.access?.hidden !== true);
}

/** The download URL of a visible file. */
export function fileUrl(r: RecordJson, key: string, ctx: ExportContext): string {
  const k = key.split('/').map(encodeURIComponent).join('/');
  return `${ctx.baseUrl}/records/${encodeURIComponent(r.id)}/files/${k}`;
}
