/**
 * List arguments and the list envelope shared by every search endpoint.
 *
 * `parseListArgs` turns `page`/`size`/`sort`/`q` into numbers and a known sort, with InvenioRDM's
 * 400s; `listEnvelope` renders `{hits:{hits,total}, aggregations, sortBy, links}` with absolute
 * links built from PUBLIC_BASE_URL (query keys sorted, facet values kept).
 */
import { Errors, type FieldError } from './errors.js';

/** A facet bucket exactly as the spec shows it. */
export interface Bucket {
  key: string;
  doc_count: number;
  label: string;
  is_selected: boolean;
  inner?: { buckets: Bucket[] };
}

/** One aggregation: a label and its buckets. */
export interface Aggregation {
  label: string;
  buckets: Bucket[];
}

/** Parsed list arguments. */
export interface ListArgs {
  q: string;
  page: number;
  size: number;
  sort: string;
  /** Offset of the first hit. */
  from: number;
}

/** Options of one list endpoint. */
export interface ListOptions {
  /** Accepted sort names. */
  sorts: readonly string[];
  /** Sort without q. */
  defaultSort: string;
  /** Sort with q (default: `bestmatch` when accepted, else defaultSort). */
  defaultSortWithQ?: string;
  defaultSize?: number;
  /** Largest allowed size (default 10000: InvenioRDM has no size cap, only the 10000-hit window). */
  maxSize?: number;
  /** Largest allowed page*size window (default 10000, like the search engine). */
  maxWindow?: number;
}

type Query = Record<string, string | string[] | undefined>;

/** The first value of a query parameter. */
export function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** All values of a query parameter. */
export function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((s) => s !== '');
}

function parseInt10(name: string, raw: string | undefined, errors: FieldError[]): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[+]?\d+$/.test(raw.trim())) {
    errors.push({ field: name, messages: ['Not a valid integer.'] });
    return undefined;
  }
  const n = Number(raw);
  if (n < 1) {
    errors.push({ field: name, messages: ['Must be greater than or equal to 1.'] });
    return undefined;
  }
  return n;
}

/** Parse page/size/sort/q; 400 with field errors on bad values. */
export function parseListArgs(query: Query, opts: ListOptions): ListArgs {
  const errors: FieldError[] = [];
  const q = (first(query.q) ?? '').trim();
  const page = parseInt10('page', first(query.page), errors) ?? 1;
  const size = parseInt10('size', first(query.size), errors) ?? opts.defaultSize ?? 25;
  const maxSize = opts.maxSize ?? opts.maxWindow ?? 10000;
  if (size > maxSize && !errors.some((e) => e.field === 'size')) {
    errors.push({ field: 'size', messages: [`Must be less than or equal to ${maxSize}.`] });
  }
  let sort = first(query.sort);
  if (sort !== undefined && sort !== '' && !opts.sorts.includes(sort)) {
    errors.push({ field: '_schema', messages: [`Invalid sort option '${sort}'.`] });
  }
  if (errors.length) throw Errors.validation(errors);
  const withQ = opts.defaultSortWithQ ?? (opts.sorts.includes('bestmatch') ? 'bestmatch' : opts.defaultSort);
  if (!sort) sort = q ? withQ : opts.defaultSort;
  // InvenioRDM rewrites bestmatch without a query to the default sort.
  if (sort === 'bestmatch' && !q) sort = opts.defaultSort;
  if ((page - 1) * size >= (opts.maxWindow ?? 10000)) throw Errors.invalidQuerystring();
  return { q, page, size, sort, from: (page - 1) * size };
}

/** Build `{base}{path}?k=v…` with keys sorted and repeated keys kept in order. */
export function buildUrl(base: string, path: string, params: Record<string, string | number | (string | number)[] | undefined>): string {
  const parts: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const v = params[key];
    if (v === undefined || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(one)).replace(/%20/g, '+')}`);
    }
  }
  return `${base}${path}${parts.length ? `?${parts.join('&')}` : ''}`;
}

/** Options of `listEnvelope`. */
export interface EnvelopeOptions<T> {
  hits: T[];
  total: number;
  args: ListArgs;
  baseUrl: string;
  path: string;
  /** Extra query parameters kept in links (facet filters, flags). */
  params?: Record<string, string | string[] | undefined>;
  aggregations?: Record<string, Aggregation>;
  /** Omit the sort from links (lists without sorting). */
  noSortInLinks?: boolean;
}

/** Render the list envelope of the spec. */
export function listEnvelope<T>(o: EnvelopeOptions<T>) {
  const keep = { ...(o.params ?? {}), q: o.args.q || undefined, size: o.args.size, sort: o.noSortInLinks ? undefined : o.args.sort };
  const link = (page: number) => buildUrl(o.baseUrl, o.path, { ...keep, page });
  const links: Record<string, string> = { self: link(o.args.page) };
  if (o.args.page > 1 && (o.args.page - 2) * o.args.size < o.total) links.prev = link(o.args.page - 1);
  if (o.args.page * o.args.size < o.total) links.next = link(o.args.page + 1);
  const body: Record<string, unknown> = {
    hits: { hits: o.hits, total: o.total },
    aggregations: o.aggregations ?? {},
    sortBy: o.args.sort,
    links,
  };
  return body;
}
