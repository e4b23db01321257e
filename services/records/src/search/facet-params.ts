/**
 * Facet parameters of record search (reference §4.1, §4.3): the query string's `access_status`,
 * `file_type`, `resource_types`/`resource_type`, `publication_date` and `is_published` values
 * read into `FacetFilters` (400 on an invalid date or boolean), and the ones kept in `links`.
 *
 * When to use: the search service parses once per request and hands the filters to the index
 * engine (facet-sql.ts for postgres) and to the renderer (facet-render.ts). No SQL here.
 */
import { Errors, parseDatePeriod } from '@rdm/platform';

type Query = Record<string, string | string[] | undefined>;

const values = (v: string | string[] | undefined): string[] =>
  (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter((s) => s !== '');

/** A publication date filter: inclusive `lo`, exclusive `hi` (ISO days), either open. */
export interface DateWindow {
  lo?: string;
  hi?: string;
}

/** Facet filters of a request (raw values kept for `is_selected` and links). */
export interface FacetFilters {
  accessStatus: string[];
  fileType: string[];
  /** Raw `resource_types`/`resource_type` values (`image`, `image::image-photo`). */
  resourceTypes: string[];
  publicationDate: string[];
  isPublished: string[];
  /** Parsed publication date windows (OR-ed). */
  dateWindows: DateWindow[];
}

/**
 * Parses a publication date filter: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, ranges `A--B` (the spec),
 * `A..B`, `A/B`, open `..B` / `A..`, and InvenioRDM's brackets `[A..B)` / `(A..B]` for
 * inclusive/exclusive ends (default inclusive). Returns null when invalid.
 */
export function parseDateWindow(raw: string, now = new Date()): DateWindow | null {
  let s = raw.trim();
  let loOpen = false;
  let hiOpen = false;
  if (/^[[(]/.test(s)) {
    loOpen = s[0] === '(';
    s = s.slice(1);
  }
  if (/[\])]$/.test(s)) {
    hiOpen = s.endsWith(')');
    s = s.slice(0, -1);
  }
  const m = /^(.*?)(--|\.\.|\/)(.*)$/.exec(s);
  const bound = (v: string) => parseDatePeriod(v, now, 'date');
  if (!m) {
    const p = bound(s);
    return p ? { lo: p.start, hi: p.next } : null;
  }
  const [a, b] = [m[1].trim(), m[3].trim()];
  const out: DateWindow = {};
  if (a !== '' && a !== '*') {
    const p = bound(a);
    if (!p) return null;
    out.lo = loOpen ? p.next : p.start;
  }
  if (b !== '' && b !== '*') {
    const p = bound(b);
    if (!p) return null;
    out.hi = hiOpen ? p.start : p.next;
  }
  if (out.lo === undefined && out.hi === undefined && a !== '*' && b !== '*') return null;
  return out;
}

/** Booleans as marshmallow reads them. */
export function parseBool(field: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'y', 'on', 't'].includes(v)) return true;
  if (['false', '0', 'no', 'n', 'off', 'f'].includes(v)) return false;
  throw Errors.validation([{ field, messages: ['Not a valid boolean.'] }]);
}

/** Read the facet parameters of a request; 400 on an invalid date or boolean. */
export function parseFacetFilters(query: Query, o: { isPublished?: boolean; now?: Date } = {}): FacetFilters {
  const publicationDate = values(query.publication_date);
  const dateWindows: DateWindow[] = [];
  for (const v of publicationDate) {
    const w = parseDateWindow(v, o.now);
    if (!w) throw Errors.validation([{ field: 'publication_date', messages: [`Not a valid date range: '${v}'.`] }]);
    dateWindows.push(w);
  }
  const isPublished = o.isPublished ? values(query.is_published) : [];
  for (const v of isPublished) parseBool('is_published', v);
  return {
    accessStatus: values(query.access_status),
    fileType: values(query.file_type).map((v) => v.toLowerCase()),
    resourceTypes: [...values(query.resource_types), ...values(query.resource_type)],
    publicationDate,
    isPublished,
    dateWindows,
  };
}

/** The facet parameters to keep in `links` (as given). */
export function facetLinkParams(query: Query, o: { isPublished?: boolean } = {}): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const keys = [
    'access_status',
    'file_type',
    'resource_types',
    'resource_type',
    'publication_date',
    ...(o.isPublished ? ['is_published'] : []),
  ];
  for (const k of keys) {
    const v = values(query[k]);
    if (v.length) out[k] = v;
  }
  return out;
}

/** `type` → subtypes (empty = the whole type), as InvenioRDM's NestedTermsFacet parses `a::b`. */
export function parseNested(raw: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of raw) {
    const [type, ...rest] = v.split('::');
    const subs = out.get(type) ?? [];
    if (rest.length) subs.push(rest[rest.length - 1]);
    out.set(type, subs);
  }
  return out;
}
