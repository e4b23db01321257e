/**
 * Small pure helpers of the templates: reading the API's localized titles, identifier URLs
 * (ORCID, ROR, DOI…), file sizes, and the export formats the API serves by `Accept`.
 *
 * When to use: inside page templates only (no I/O).
 */

/** A value of the API's localized title objects (`{en: "…"}`), else the string itself. */
export function titleOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const en = o.en ?? Object.values(o)[0];
    return typeof en === 'string' ? en : '';
  }
  return '';
}

/** The resolvable URL of a persistent identifier, or undefined for schemes without one. */
export function identifierUrl(scheme: string | undefined, id: string | undefined): string | undefined {
  if (!id) return undefined;
  switch ((scheme ?? '').toLowerCase()) {
    case 'orcid':
      return `https://orcid.org/${id}`;
    case 'ror':
      return `https://ror.org/${id}`;
    case 'doi':
      return `https://doi.org/${id}`;
    case 'isni':
      return `https://isni.org/isni/${id.replace(/\s+/g, '')}`;
    case 'gnd':
      return `https://d-nb.info/gnd/${id}`;
    case 'url':
      return /^https?:\/\//i.test(id) ? id : undefined;
    case 'handle':
      return `https://hdl.handle.net/${id}`;
    case 'arxiv':
      return `https://arxiv.org/abs/${id.replace(/^arxiv:/i, '')}`;
    default:
      return undefined;
  }
}

/** `1536` → `1.5 kB` (decimal units, as InvenioRDM shows them). */
export function humanSize(bytes: number | undefined | null): string {
  if (bytes === undefined || bytes === null || !Number.isFinite(bytes)) return '';
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB', 'PB'];
  let v = bytes;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** One export format the API serves for a record (`GET /api/records/<id>` with `Accept`, or `/export/<name>`). */
export interface ExportFormat {
  name: string;
  label: string;
  mediaType: string;
}

/** Every export format of records' `GET /api/records/<id>` (its export/formats.ts), in menu order. */
export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { name: 'json', label: 'JSON', mediaType: 'application/json' },
  { name: 'json-ld', label: 'JSON-LD (schema.org)', mediaType: 'application/ld+json' },
  { name: 'csl', label: 'CSL', mediaType: 'application/vnd.citationstyles.csl+json' },
  { name: 'datacite-json', label: 'DataCite JSON', mediaType: 'application/vnd.datacite.datacite+json' },
  { name: 'datacite-xml', label: 'DataCite XML', mediaType: 'application/vnd.datacite.datacite+xml' },
  { name: 'bibtex', label: 'BibTeX', mediaType: 'application/x-bibtex' },
  { name: 'dublincore', label: 'Dublin Core', mediaType: 'application/x-dc+xml' },
  { name: 'marcxml', label: 'MARCXML', mediaType: 'application/marcxml+xml' },
  { name: 'dcat-ap', label: 'DCAT-AP', mediaType: 'application/dcat+xml' },
  { name: 'geojson', label: 'GeoJSON', mediaType: 'application/vnd.geo+json' },
  { name: 'linkset', label: 'Linkset (FAIR signposting)', mediaType: 'application/linkset+json' },
];

/** `["a"]`-like API lists, tolerant of absent or wrong values. */
export function list<T = any>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}
