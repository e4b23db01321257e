/**
 * Facet buckets of record search: aggregation rows (`AggRow`, the engine-neutral counts every
 * index engine returns) rendered as the spec's aggregations
 * (`{label, buckets:[{key, doc_count, label, is_selected, inner?}]}`).
 *
 * Facets: `access_status` (terms), `file_type` (terms, label = key upper-cased), `resource_types`
 * (nested terms on type/subtype with `inner` buckets; also rendered as InvenioRDM's
 * `resource_type`), `publication_date` (calendar-year histogram of the EDTF range, empty years
 * between the first and the last filled in), and `is_published` for the caller's records.
 * Terms buckets follow OpenSearch's defaults: at most 10, by count then key. Pure functions.
 */
import type { Aggregation, Bucket } from '@rdm/platform';
import { type FacetFilters, parseBool } from './facet-params.js';
import type { AggRow } from './indexer.js';

/** OpenSearch's default `size` of a terms aggregation. */
export const TERMS_SIZE = 10;

/** Longest publication date range counted year by year (longer EDTF intervals are clipped). */
const MAX_YEARS_PER_DOC = 200;

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
