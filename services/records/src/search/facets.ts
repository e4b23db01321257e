/**
 * Facets of record search (reference §4.1, §4.3): the facet query parameters turned into SQL
 * filters, the one-pass aggregation query over `search_docs`, and its rows rendered as the
 * spec's aggregations (`{label, buckets:[{key, doc_count, label, is_selected, inner?}]}`).
 *
 * When to use: the record search service builds the filters with `parseFacetFilters`, applies
 * `facetFilterSql` to the hits and the total only (facet filters are post-filters: aggregation
 * counts ignore every facet filter, as InvenioRDM's `post_filter`), and renders the rows of
 * `aggregationSql` with `renderAggregations`.
 *
 * Facets: `access_status` (terms), `file_type` (terms, label = key upper-cased), `resource_types`
 * (nested terms on type/subtype with `inner` buckets; also rendered as InvenioRDM's
 * `resource_type`), `publication_date` (calendar-year histogram of the EDTF range, empty years
 * between the first and the last filled in), and `is_published` for the caller's records.
 * Terms buckets follow OpenSearch's defaults: at most 10, by count then key.
 */
import { type Aggregation, type Bucket, Errors, parseDatePeriod } from '@rdm/platform';
import { andAll as and, orAll as or, type Sql } from './sql.js';

type Query = Record<string, string | string[] | undefined>;

/** OpenSearch's default `size` of a terms aggregation. */
export const TERMS_SIZE = 10;

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

/**
 * SQL of the facet filters (AND across facets, OR within one), over the columns
 * `access_status, file_types, resource_type_type, resource_type_subtype, publication_date_start,
 * publication_date_end, is_published`; null when no facet filter is given.
 */
export function facetFilterSql(f: FacetFilters): Sql | null {
  const parts: Sql[] = [];
  if (f.accessStatus.length) parts.push({ sql: 'access_status = ANY(?::text[])', bindings: [f.accessStatus] });
  if (f.fileType.length) parts.push({ sql: 'file_types && ?::text[]', bindings: [f.fileType] });
  if (f.resourceTypes.length) {
    const ors: Sql[] = [];
    for (const [type, subs] of parseNested(f.resourceTypes)) {
      if (subs.length) {
        ors.push({ sql: '(resource_type_type = ? AND resource_type_subtype = ANY(?::text[]))', bindings: [type, subs] });
      } else if (type.includes('-')) {
        // A bare subtype id (an inner bucket key, `image-photo`): subtype ids are `<type>-<name>`.
        ors.push({
          sql: '(resource_type_type = ? OR (resource_type_type = ? AND resource_type_subtype = ?))',
          bindings: [type, type.split('-')[0], type],
        });
      } else {
        ors.push({ sql: 'resource_type_type = ?', bindings: [type] });
      }
    }
    parts.push(or(ors));
  }
  if (f.dateWindows.length) {
    const ors = f.dateWindows.map((w): Sql => {
      const c: Sql[] = [{ sql: '(publication_date_start IS NOT NULL OR publication_date_end IS NOT NULL)', bindings: [] }];
      if (w.lo) c.push({ sql: "coalesce(publication_date_end, 'infinity'::date) >= ?::date", bindings: [w.lo] });
      if (w.hi) c.push({ sql: "coalesce(publication_date_start, '-infinity'::date) < ?::date", bindings: [w.hi] });
      return and(c);
    });
    parts.push(or(ors));
  }
  if (f.isPublished.length) {
    const bools = [...new Set(f.isPublished.map((v) => parseBool('is_published', v)))];
    parts.push({ sql: 'is_published = ANY(?::boolean[])', bindings: [bools] });
  }
  return parts.length ? and(parts) : null;
}

/** Longest publication date range counted year by year (longer EDTF intervals are clipped). */
const MAX_YEARS_PER_DOC = 200;

/**
 * ONE statement computing every aggregation over the documents matching `where` (in `from`,
 * default `search_docs`), in a single scan with `GROUPING SETS` (an index-only scan of
 * `search_docs_pub_facets_idx` for published records): rows `{f, k, s, a, ys, ye, n}` where `f` names the grouping set — `a` access status
 * (`k`), `r` resource type (`k` type, `s` subtype), `f` file types (`a` the document's array),
 * `y` publication years (`ys`..`ye`), `p` is_published (`k`). Rows of several statements (e.g. the
 * shared and the personal part of a scope) can be concatenated: renderAggregations sums them.
 */
export function aggregationSql(where: Sql, o: { isPublished?: boolean; from?: string } = {}): Sql {
  const p = o.isPublished;
  const from = o.from ?? 'search_docs';
  const sql = `
    SELECT CASE WHEN GROUPING(access_status) = 0 THEN 'a' WHEN GROUPING(resource_type_type) = 0 THEN 'r'
                WHEN GROUPING(file_types) = 0 THEN 'f' WHEN GROUPING(ys) = 0 THEN 'y' ELSE 'p' END AS f,
           coalesce(access_status, resource_type_type${p ? ', is_published::text' : ''}) AS k,
           resource_type_subtype AS s, file_types AS a, ys, ye, count(*)::int AS n
      FROM (SELECT access_status, resource_type_type, resource_type_subtype, file_types${p ? ', is_published' : ''},
                   date_part('year', coalesce(publication_date_start, publication_date_end))::int AS ys,
                   date_part('year', coalesce(publication_date_end, publication_date_start))::int AS ye
              FROM ${from} WHERE ${where.sql}) AS d
     GROUP BY GROUPING SETS ((access_status), (resource_type_type, resource_type_subtype), (file_types), (ys, ye)${p ? ', (is_published)' : ''})`;
  return { sql, bindings: where.bindings };
}

/** One row of the aggregation statement. */
export interface AggRow {
  f: string;
  k: string | null;
  s: string | null;
  a: string[] | null;
  ys: number | null;
  ye: number | null;
  n: number;
}

/** Labels of `access_status` keys. */
export const ACCESS_STATUS_LABELS: Readonly<Record<string, string>> = {
  open: 'Open',
  embargoed: 'Embargoed',
  restricted: 'Restricted',
  'metadata-only': 'Metadata-only',
};

const byCountThenKey = (a: { key: string; doc_count: number }, b: { key: string; doc_count: number }) =>
  b.doc_count - a.doc_count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function terms(counts: Map<string, number>, label: (k: string) => string, selected: (k: string) => boolean): Bucket[] {
  return [...counts.entries()]
    .map(([key, doc_count]) => ({ key, doc_count }))
    .sort(byCountThenKey)
    .slice(0, TERMS_SIZE)
    .map(({ key, doc_count }) => ({ key, doc_count, label: label(key), is_selected: selected(key) }));
}

/** The resource type ids (type and subtype keys) whose labels the rendered buckets need. */
export function resourceTypeKeys(rows: AggRow[]): string[] {
  const keys = new Set<string>();
  for (const r of rows) {
    if (r.f !== 'r' || r.k === null) continue;
    keys.add(r.k);
    if (r.s) keys.add(r.s);
  }
  return [...keys];
}

/** Render the aggregation rows (summed when several statements contributed). */
export function renderAggregations(
  rows: AggRow[],
  f: FacetFilters,
  rtLabels: ReadonlyMap<string, string>,
  o: { isPublished?: boolean } = {},
): Record<string, Aggregation> {
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  const access = new Map<string, number>();
  const files = new Map<string, number>();
  const years = new Map<number, number>();
  const published = new Map<string, number>();
  const rt = new Map<string, { n: number; inner: Map<string, number> }>();
  for (const r of rows) {
    const n = Number(r.n);
    switch (r.f) {
      case 'a':
        if (r.k !== null) add(access, r.k, n);
        break;
      case 'f':
        for (const t of new Set(r.a ?? [])) add(files, t, n);
        break;
      case 'y':
        if (r.ys !== null) {
          const end = Math.min(r.ye ?? r.ys, r.ys + MAX_YEARS_PER_DOC - 1);
          for (let y = r.ys; y <= end; y++) years.set(y, (years.get(y) ?? 0) + n);
        }
        break;
      case 'p':
        if (r.k !== null) add(published, r.k, n);
        break;
      case 'r': {
        if (r.k === null) break;
        const e = rt.get(r.k) ?? { n: 0, inner: new Map<string, number>() };
        e.n += n;
        if (r.s) add(e.inner, r.s, n);
        rt.set(r.k, e);
        break;
      }
    }
  }
  const rtLabel = (k: string) => rtLabels.get(k) ?? titleCase(k);
  const rtSelected = new Set(f.resourceTypes);
  const rtCounts = new Map([...rt.entries()].map(([k, v]) => [k, v.n]));
  const rtBuckets: Bucket[] = terms(rtCounts, rtLabel, (k) => rtSelected.has(k)).map((b) => {
    const inner = rt.get(b.key)!.inner;
    // Subtype keys are resource type ids; a bare id is a valid filter value too (facetFilterSql).
    const innerBuckets = terms(inner, rtLabel, (s) => rtSelected.has(`${b.key}::${s}`) || rtSelected.has(s));
    return { ...b, inner: { buckets: innerBuckets } };
  });

  const yearBuckets: Bucket[] = [];
  if (years.size) {
    const keys = [...years.keys()];
    const [min, max] = [Math.min(...keys), Math.max(...keys)];
    const selected = new Set(f.publicationDate);
    for (let y = min; y <= max; y++) {
      const key = String(y).padStart(4, '0');
      yearBuckets.push({ key, doc_count: years.get(y) ?? 0, label: key, is_selected: selected.has(key) });
    }
  }

  const aggregations: Record<string, Aggregation> = {
    access_status: {
      label: 'Access status',
      buckets: terms(
        access,
        (k) => ACCESS_STATUS_LABELS[k] ?? titleCase(k),
        (k) => f.accessStatus.includes(k),
      ),
    },
    file_type: {
      label: 'File type',
      buckets: terms(
        files,
        (k) => k.toUpperCase(),
        (k) => f.fileType.includes(k),
      ),
    },
    resource_types: { label: 'Resource types', buckets: rtBuckets },
    resource_type: { label: 'Resource types', buckets: structuredClone(rtBuckets) },
    publication_date: { label: 'Publication date', buckets: yearBuckets },
  };
  if (o.isPublished) {
    const sel = new Set(f.isPublished.map((v) => String(parseBool('is_published', v))));
    aggregations.is_published = {
      label: 'Status',
      buckets: terms(
        published,
        (k) => (k === 'true' ? 'Published' : 'Unpublished'),
        (k) => sel.has(k),
      ),
    };
  }
  return aggregations;
}

/** `image` → `Image`, `metadata-only` → `Metadata-only`. */
export function titleCase(k: string): string {
  return k ? k[0].toUpperCase() + k.slice(1) : k;
}
