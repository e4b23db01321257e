/**
 * Builds OpenSearch/Elasticsearch query DSL from the shared `q` AST: the one builder both engines use
 * (`OpenSearchEngine`, `ElasticsearchEngine`). It mirrors `compileToSql` clause by clause so that the
 * postgres and the DSL engines answer the same query the same way (the conformance suite checks it):
 *
 * | AST                         | SQL (postgres)                         | DSL                                                  |
 * |-----------------------------|----------------------------------------|------------------------------------------------------|
 * | unfielded term              | `vec @@ plainto_tsquery(fold(v))`      | `match` on the full-text field, operator AND         |
 * | phrase / sloppy phrase      | `phraseto_tsquery` / `plainto_tsquery` | `match_phrase` / `match` AND                         |
 * | `foo*` / other wildcard     | `'foo':*` / lexeme LIKE                | `prefix` / `wildcard` on the analysed tokens (folded)|
 * | regex                       | lexeme `~`                             | `regexp` on the analysed tokens (bounded determinization) |
 * | keyword term/wildcard/regex | `lower(x) = lower(v)` / LIKE / `~*`    | `term`/`wildcard`/`regexp` with `case_insensitive`   |
 * | date term and range         | period from `parseDatePeriod`          | `range` with the same period bounds                  |
 * | number                      | `= ?::numeric` / comparisons           | `term` / `range`                                     |
 * | NOT x                       | `(x) IS NOT TRUE`                      | `bool.must_not` (documents without the field match)  |
 * | unknown field               | `FALSE`                                | `match_none`                                         |
 * | punctuation-only term       | no condition                           | no condition                                         |
 *
 * Type errors (a wildcard on a date, `abc` on a number, an invalid date) throw the same
 * `QuerySyntaxError` as the SQL compiler. Text analysis: the index analyser is `standard` tokenizer +
 * lowercase + asciifolding (see `analysis.ts`), query values are folded with `foldText` before
 * term-level queries, as documents are for postgres.
 */
import { type QueryAst, QuerySyntaxError } from '../ast.js';
import { foldText } from '../fold.js';
import { dateQueryInterval, fieldsMatching } from '../sql.js';
import type { AggSpec, DslFieldMap, DslFieldSpec, DslOptions, SearchRequest, SortKey } from './port.js';

/** A query DSL clause. */
export type Dsl = Record<string, unknown>;

type Frag = Dsl | null; // null: the clause imposes no condition

/**
 * Lucene's determinization budget of a `regexp` query (its own default: 10,000). Measured on OpenSearch
 * 2.19: ORCID- and DOI-like patterns, `[a-z]{3,12}ing`, `.*a.*b.*c.*` need under 1,000; `.{0,16}x.{0,16}`
 * needs more than 4,000 (refused: 400). The parser's regex limits (regex.ts) come first.
 */
export const REGEX_MAX_DETERMINIZED_STATES = 2000;

const MATCH_ALL: Dsl = { match_all: {} };
const MATCH_NONE: Dsl = { match_none: {} };
const hasWordChar = (s: string) => /[\p{L}\p{N}]/u.test(s);

/** Builds the DSL query of `ast`. Throws `QuerySyntaxError` on a value the field's type rejects. */
export function buildQuery(ast: QueryAst, fields: DslFieldMap, opts: DslOptions = {}): Dsl {
  return new Builder(queryFields(fields), opts, fields).compile(ast) ?? MATCH_NONE;
}

/** A filter AST as a DSL clause (no scoring); same semantics as `buildQuery`. */
export function buildFilter(ast: QueryAst, fields: DslFieldMap, opts: DslOptions = {}): Dsl {
  return new Builder(fields, opts).compile(ast) ?? MATCH_NONE;
}

/** The full `_search` body of a request (query + filters, post_filter, sort, paging, aggregations). */
export function buildSearchBody(req: SearchRequest): Dsl {
  const dsl = req.dsl ?? {};
  const q = buildQuery(req.query, req.fields, dsl);
  const filters = (req.filters ?? []).map((f) => buildFilter(f, req.fields, dsl));
  const boosts = (req.boosts ?? []).map((b) => ({ constant_score: { filter: buildFilter(b.filter, req.fields, dsl), boost: b.weight } }));
  const body: Dsl = {
    query:
      filters.length || boosts.length
        ? { bool: { must: [q], ...(filters.length ? { filter: filters } : {}), ...(boosts.length ? { should: boosts } : {}) } }
        : q,
    from: req.from,
    size: req.size,
    track_total_hits: req.trackTotalHits ?? true,
    sort: buildSort(req.sort),
  };
  const post = (req.postFilters ?? []).map((f) => buildFilter(f, req.fields, dsl));
  if (post.length) body.post_filter = { bool: { filter: post } };
  if (req.aggs && Object.keys(req.aggs).length) body.aggs = buildAggs(req.aggs, req, dsl);
  if (req.sourceIncludes) body._source = { includes: req.sourceIncludes };
  return body;
}

/** The fields a user's `q` may reach: all but the `filterOnly` ones. */
function queryFields(fields: DslFieldMap): DslFieldMap {
  if (!Object.values(fields).some((f) => typeof f !== 'string' && f.filterOnly)) return fields;
  return Object.fromEntries(Object.entries(fields).filter(([, f]) => typeof f === 'string' || !f.filterOnly));
}

/** Sort keys → DSL sort (missing values last, as SQL `NULLS LAST` for desc… see each service's sort). */
export function buildSort(sort: SortKey[]): Dsl[] {
  return sort.map((s) => (s.path === '_score' ? { _score: { order: s.order } } : { [s.path]: { order: s.order, missing: '_last' } }));
}

function buildAggs(aggs: Record<string, AggSpec>, req: SearchRequest, dsl: DslOptions): Dsl {
  const out: Dsl = {};
  for (const [name, a] of Object.entries(aggs)) {
    let agg: Dsl;
    if (a.type === 'terms') {
      agg = { terms: { field: a.path, size: a.size ?? 100, order: [{ _count: 'desc' }, { _key: 'asc' }] } };
      if (a.aggs) agg.aggs = buildAggs(a.aggs, req, dsl);
      if (a.nested) agg = { nested: { path: a.nested }, aggs: { inner: agg } };
    } else {
      agg = { date_histogram: { field: a.path, calendar_interval: 'year', format: 'yyyy', min_doc_count: 1, order: { _key: 'desc' } } };
    }
    if (a.filter) agg = { filter: buildFilter(a.filter, req.fields, dsl), aggs: { inner: agg } };
    out[name] = agg;
  }
  return out;
}

class Builder {
  private readonly fullTextPath: string | null;

  constructor(
    private readonly fields: DslFieldMap,
    private readonly opts: DslOptions,
    /** Every field, `filterOnly` ones included: what guards are compiled against. */
    private readonly allFields: DslFieldMap = fields,
  ) {
    this.fullTextPath = opts.defaultFields && !opts.fullTextPath ? null : (opts.fullTextPath ?? 'search_text');
  }

  compile(n: QueryAst): Frag {
    switch (n.type) {
      case 'all':
        return MATCH_ALL;
      case 'and':
      case 'or': {
        if (n.children.length === 0) return n.type === 'and' ? MATCH_ALL : MATCH_NONE;
        const parts = n.children.map((ch) => this.compile(ch)).filter((f): f is Dsl => f !== null);
        if (parts.length === 0) return null;
        if (parts.length === 1) return parts[0];
        return n.type === 'and' ? { bool: { must: parts } } : { bool: { should: parts, minimum_should_match: 1 } };
      }
      case 'not': {
        const inner = this.compile(n.child);
        return inner ? { bool: { must_not: [inner] } } : null;
      }
      case 'term':
      case 'phrase':
      case 'regex':
        if (n.field === undefined) return this.unfielded(n);
        return this.fielded(n.field, n);
      case 'range':
      case 'exists':
        return this.fielded(n.field, n);
    }
  }

  private lookup(name: string): DslFieldSpec | undefined {
    let v: DslFieldSpec | string | undefined = Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
    for (let hops = 0; typeof v === 'string' && hops < 8; hops++) v = Object.hasOwn(this.fields, v) ? this.fields[v] : undefined;
    return typeof v === 'string' ? undefined : v;
  }

  private unfielded(n: Extract<QueryAst, { type: 'term' | 'phrase' | 'regex' }>): Frag {
    if (this.fullTextPath) return this.onAnalysed(this.fullTextPath, n);
    const parts = (this.opts.defaultFields ?? []).map((f) => {
      const spec = this.lookup(f);
      return spec ? this.onField(f, spec, { ...n, field: f }, true) : undefined;
    });
    return orOf(parts);
  }

  private fielded(name: string, n: QueryAst): Frag {
    if (/[*?]/.test(name)) {
      return orOf(fieldsMatching(name, this.fields, (k) => this.lookup(k)).map(([key, spec]) => this.onField(key, spec, n, true)));
    }
    const spec = this.lookup(name);
    if (!spec) return MATCH_NONE;
    return this.onField(name, spec, n, false) ?? MATCH_NONE;
  }

  private onField(name: string, spec: DslFieldSpec, n: QueryAst, lenient: boolean): Frag | undefined {
    const clause = this.onFieldUnguarded(name, spec, n, lenient);
    if (!spec.guard || !clause) return clause;
    const guard = new Builder(this.allFields, this.opts).compile(spec.guard) ?? MATCH_ALL;
    return { bool: { must: [clause], filter: [guard] } };
  }

  private onFieldUnguarded(name: string, spec: DslFieldSpec, n: QueryAst, lenient: boolean): Frag | undefined {
    try {
      switch (spec.kind) {
        case 'text':
          return this.onText(spec, n);
        case 'keyword':
        case 'keyword_array':
          return this.onKeyword(spec, n);
        case 'date':
          return this.onDate(name, spec, n);
        case 'number':
          return this.onNumber(name, spec, n);
      }
    } catch (e) {
      if (lenient && e instanceof QuerySyntaxError) return undefined;
      throw e;
    }
  }

  /** Term-level clauses on an analysed (tokenized, folded) text field. */
  private onAnalysed(path: string, n: QueryAst): Frag {
    switch (n.type) {
      case 'term': {
        const v = foldText(n.value);
        if (!n.wildcard) return hasWordChar(v) ? { match: { [path]: { query: v, operator: 'and' } } } : null;
        const m = /^([\p{L}\p{N}]+)\*+$/u.exec(v);
        if (m) return { prefix: { [path]: { value: m[1] } } };
        return { wildcard: { [path]: { value: v } } };
      }
      case 'phrase': {
        const v = foldText(n.value);
        if (!hasWordChar(v)) return null;
        // A sloppy phrase is "all words", as on postgres.
        return n.slop ? { match: { [path]: { query: v, operator: 'and' } } } : { match_phrase: { [path]: { query: v } } };
      }
      case 'regex':
        return { regexp: { [path]: { value: n.value, max_determinized_states: REGEX_MAX_DETERMINIZED_STATES } } };
      default:
        return MATCH_NONE;
    }
  }

  private onText(spec: DslFieldSpec, n: QueryAst): Frag {
    if (n.type === 'exists') return { exists: { field: spec.path } };
    if (n.type === 'range') return rangeOf(`${spec.path}.raw`, n, foldText) ?? { exists: { field: spec.path } };
    return this.onAnalysed(spec.path, n);
  }

  private onKeyword(spec: DslFieldSpec, n: QueryAst): Frag {
    const ci = !spec.caseSensitive;
    const norm = (v: string) => (ci ? v.toLowerCase() : v);
    const path = spec.path;
    switch (n.type) {
      case 'exists':
        return { exists: { field: path } };
      case 'range':
        return rangeOf(path, n, norm) ?? { exists: { field: path } };
      case 'regex':
        return { regexp: { [path]: { value: n.value, case_insensitive: ci, max_determinized_states: REGEX_MAX_DETERMINIZED_STATES } } };
      case 'term':
      case 'phrase':
        if (n.type === 'term' && n.wildcard) return { wildcard: { [path]: { value: norm(n.value), case_insensitive: ci } } };
        return { term: { [path]: { value: n.value, case_insensitive: ci } } };
      default:
        return MATCH_NONE;
    }
  }

  private onDate(name: string, spec: DslFieldSpec, n: QueryAst): Frag {
    const type = spec.type ?? 'timestamptz';
    if (n.type === 'exists') return { exists: { field: spec.path } };
    const { lo, hi } = dateQueryInterval(name, n, this.opts.now ?? new Date(), type);
    const end = spec.endPath ?? spec.path;
    const conds: Dsl[] = [];
    if (lo !== undefined) conds.push({ range: { [end]: { gte: lo } } });
    if (hi !== undefined) conds.push({ range: { [spec.path]: { lt: hi } } });
    if (conds.length === 0) return null;
    return conds.length === 1 ? conds[0] : { bool: { filter: conds } };
  }

  private onNumber(name: string, spec: DslFieldSpec, n: QueryAst): Frag {
    const num = (v: string) => {
      const t = v.trim();
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/.test(t)) {
        throw new QuerySyntaxError(`'${v}' is not a number (field '${name}').`, -1);
      }
      return t;
    };
    switch (n.type) {
      case 'exists':
        return { exists: { field: spec.path } };
      case 'range':
        return rangeOf(spec.path, n, num) ?? { exists: { field: spec.path } };
      case 'term':
      case 'phrase':
        if (n.type === 'term' && n.wildcard) throw new QuerySyntaxError(`Wildcards are not supported on number field '${name}'.`, -1);
        return { term: { [spec.path]: { value: num(n.value) } } };
      default:
        throw new QuerySyntaxError(`Regular expressions are not supported on number field '${name}'.`, -1);
    }
  }
}

/** A `range` clause; null when the range has no bound (then it means "exists"). */
function rangeOf(path: string, n: Extract<QueryAst, { type: 'range' }>, conv: (v: string) => string): Dsl | null {
  const r: Record<string, string> = {};
  if (n.gte !== undefined) r.gte = conv(n.gte);
  if (n.gt !== undefined) r.gt = conv(n.gt);
  if (n.lte !== undefined) r.lte = conv(n.lte);
  if (n.lt !== undefined) r.lt = conv(n.lt);
  return Object.keys(r).length ? { range: { [path]: r } } : null;
}

/** OR of per-field clauses: undefined entries (skipped fields) are ignored; nothing left matches nothing. */
function orOf(input: Array<Frag | undefined>): Frag {
  const parts = input.filter((p) => p !== undefined);
  const kept = parts.filter((p): p is Dsl => p !== null);
  if (kept.length === 0) return parts.length === 0 ? MATCH_NONE : null;
  if (kept.length === 1) return kept[0];
  return { bool: { should: kept, minimum_should_match: 1 } };
}
