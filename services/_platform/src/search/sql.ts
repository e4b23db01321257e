/**
 * Compiles a `QueryAst` to a PostgreSQL WHERE fragment for the `postgres` search engine. Use it in a
 * repo: `query.whereRaw(w.sql, w.bindings)` with `w = compileToSql(parseQuery(q), FIELDS, OPTS)`, and
 * `orderByRaw(r.sql + ' DESC', r.bindings)` with `r = rankSql(...)` for `sort=bestmatch`. Don't use it
 * for facet filters (build those directly) or for the OpenSearch engine (it has its own DSL builder).
 *
 * Output is knex-raw compatible: `?` placeholders, user input only ever in `bindings`. The SQL
 * expressions in a `FieldMap` are trusted code and are inlined; they must not contain `?`.
 *
 * Semantics:
 * - Unfielded terms search the default full-text target (`opts.fullText`, a stored tsvector built
 *   from text folded with `foldText`, e.g. via `searchVectorSql`), or else OR over `opts.defaultFields`.
 * - Query values are folded (`foldText`) for text fields; keyword fields compare exactly, case-insensitive
 *   unless `caseSensitive`.
 * - An unknown field matches nothing (`FALSE`), as an unmapped field does in OpenSearch; a field glob
 *   (`metadata.*:x`) is OR over the matching names. A type error on a single field (a wildcard on a date,
 *   `abc` on a number, an invalid date) is a `QuerySyntaxError` (position -1), as OpenSearch fails it.
 * - A term with no letter or digit (`&`) imposes no condition; a query made only of such terms matches
 *   nothing. NOT treats unknown (NULL) as false: `NOT f:x` matches documents without `f`.
 * - Date terms and ranges round to the precision written, as OpenSearch does: `created:2020` is the year
 *   2020, `[2020 TO 2021]` runs to the end of 2021, `{2020 TO *}` starts in 2021. `now`, `now-7d`, `now/d`
 *   are accepted. All in UTC.
 *
 * Which index each construct can use (aim: records search over 100,000 documents, p99 ≤ 100 ms):
 * | construct                          | SQL                                             | index                                         |
 * |------------------------------------|-------------------------------------------------|-----------------------------------------------|
 * | term, phrase (unfielded)           | `vec @@ plainto_tsquery / phraseto_tsquery`     | GIN on the tsvector column                    |
 * | `foo*` (letters/digits prefix)     | `vec @@ to_tsquery('foo':*)`                    | GIN on the tsvector column                    |
 * | other wildcards `te?t`, `*x`       | lexeme `LIKE` over `tsvector_to_array(vec)`     | GIN prefilter on the leading word, if any; else scan |
 * | regex `/…/` (unfielded)            | lexeme `~` over `tsvector_to_array(vec)`        | none (scan: seconds at 100k documents)        |
 * | both, with `fullText.lexicon`      | `vec @@ (expansion from the lexicon table)`     | GIN on the tsvector (+ a scan of the lexicon) |
 * | fielded text term/phrase           | `to_tsvector(cfg, expr) @@ …` or `spec.vector`  | GIN expression index on `to_tsvector(cfg, expr)`, or GIN on `spec.vector` |
 * | keyword `f:v` with `contains`      | `column @> '{"a":{"b":"v"}}'::jsonb`            | GIN (jsonb_path_ops) on `column`              |
 * | keyword `f:v` without `contains`   | `lower(expr) = ?` / `expr = ?`                  | btree on `lower(expr)` / `expr`               |
 * | keyword_array case-sensitive       | `expr @> '["v"]'::jsonb` / `@> ARRAY[?]`        | GIN on `expr`                                 |
 * | keyword_array case-insensitive     | `EXISTS (… lower(el) = ?)`                      | none; use `contains` with stored lower-cased values |
 * | keyword wildcard / regex / range   | `LIKE` / `~` / `>=` on `expr`                   | btree (`text_pattern_ops`) for a literal prefix; else scan |
 * | date / number term and range       | `expr >= ? AND expr < ?`                        | btree on `expr`                               |
 * | exists                             | `expr IS NOT NULL`                              | partial/btree on `expr`                       |
 * | NOT x                              | `(x) IS NOT TRUE`                               | none by itself; fine beside an indexed clause |
 *
 * Why one file over 400 lines: one compiler of one AST, clause by clause; split, each clause would
 * lose its siblings, and `engine/dsl.ts` mirrors it clause for clause so the two can be read side
 * by side.
 */
import { type QueryAst, QuerySyntaxError } from './ast.js';
import { foldText, regconfigLiteral } from './fold.js';
import { luceneRegexToPostgres } from './regex.js';

/** A full-text field: tokenized, folded, matched word by word. `expr` must yield folded text (`foldText`). */
export interface TextFieldSpec {
  kind: 'text';
  /** SQL yielding the field's folded text. */
  expr: string;
  /** Optional SQL yielding a stored tsvector of this field (used instead of `to_tsvector(cfg, expr)`). */
  vector?: string;
  /**
   * Optional SQL condition of `_exists_:field` (default `expr IS NOT NULL`): for an expression that
   * is not NULL without a value (the text of an empty JSON array), say when a value is there.
   */
  exists?: string;
}

/** Where a keyword value lives inside a jsonb document, for index-friendly `@>` containment. */
export interface JsonbContainment {
  /** The jsonb column (GIN `jsonb_path_ops`), e.g. `search_doc`. */
  column: string;
  /**
   * Dotted path to the value; a `[]` suffix marks an array: `access.status`, `parent.communities.ids[]`,
   * `metadata.creators[].affiliations[].id`. The stored value must be normalized like the query value:
   * lower-cased unless the field is `caseSensitive`.
   */
  path: string;
}

/** An exact-value field (ids, statuses, vocabulary ids). */
export interface KeywordFieldSpec {
  kind: 'keyword';
  /** SQL yielding the value as text (used for wildcard, regex, range, exists, and equality without `contains`). */
  expr: string;
  /** Compare case-sensitively (OpenSearch `keyword` semantics). Default false: case-insensitive. */
  caseSensitive?: boolean;
  /** Use jsonb containment for equality. */
  contains?: JsonbContainment;
}

/** A multi-valued exact-value field. */
export interface KeywordArrayFieldSpec {
  kind: 'keyword_array';
  /** SQL yielding a jsonb array of strings (or NULL), or a `text[]` when `arrayType: 'text[]'`. */
  expr: string;
  /** Default `'jsonb'`. */
  arrayType?: 'jsonb' | 'text[]';
  /** Default false: case-insensitive. */
  caseSensitive?: boolean;
  /** Use jsonb containment for equality. */
  contains?: JsonbContainment;
}

/** A date or timestamp field; with `endExpr` a date range (e.g. EDTF `2020/2021`) matched by intersection. */
export interface DateFieldSpec {
  kind: 'date';
  /** SQL yielding a `timestamptz` (or `date` with `type: 'date'`); the range start when `endExpr` is set. */
  expr: string;
  /** SQL yielding the inclusive range end. */
  endExpr?: string;
  /** Default `'timestamptz'`. */
  type?: 'timestamptz' | 'date';
}

/** A numeric field. */
export interface NumberFieldSpec {
  kind: 'number';
  /** SQL yielding a numeric value. */
  expr: string;
}

/** How one query field is searched. */
export type FieldSpec = TextFieldSpec | KeywordFieldSpec | KeywordArrayFieldSpec | DateFieldSpec | NumberFieldSpec;

/** Query field name → spec, or → another field name (an alias, e.g. `title` → `metadata.title`). */
export type FieldMap = Readonly<Record<string, FieldSpec | string>>;

/** The stored tsvector unfielded terms search. */
export interface FullTextTarget {
  /** SQL yielding the document's tsvector, e.g. `search_vector` (GIN-indexed). */
  tsvector: string;
  /** Text search configuration used to build it. Default `'simple'`. */
  config?: string;
  /**
   * Optional table of every lexeme in the tsvectors (column `column`, default `word`, unique). With it,
   * non-prefix wildcards and regexes on unfielded terms scan this small table and then use the GIN index
   * (`vec @@ 'w1' | 'w2' | …`, at most 10,000 expansions) instead of reading every row's lexemes. Keep it
   * filled when writing documents: `INSERT INTO lexemes(word) SELECT unnest(tsvector_to_array(?::tsvector))
   * ON CONFLICT DO NOTHING` (stale extra words are harmless).
   */
  lexicon?: { table: string; column?: string };
}

/** Options for `compileToSql` / `rankSql`. */
export interface CompileOptions {
  /** Target of unfielded terms. Default `{ tsvector: 'search_vector', config: 'simple' }` unless `defaultFields` is set. */
  fullText?: FullTextTarget;
  /** Without `fullText`: unfielded terms are OR-ed over these field names instead. */
  defaultFields?: readonly string[];
  /** Clock for `now` in date ranges (tests). */
  now?: Date;
}

/** A knex-raw-compatible SQL fragment. */
export interface SqlFragment {
  sql: string;
  /** Values for the `?` placeholders, in order. All strings (numbers and dates are cast in SQL), so they fit knex's `RawBinding[]`. */
  bindings: string[];
}

type Frag = SqlFragment | null; // null: the clause imposes no condition (e.g. a punctuation-only term)

const NO_RANK = '0::real';
const MAX_EXPANSIONS = 10_000;
const DEFAULT_FULL_TEXT: FullTextTarget = { tsvector: 'search_vector', config: 'simple' };
const hasWordChar = (s: string) => /[\p{L}\p{N}]/u.test(s);
const frag = (sql: string, ...bindings: string[]): SqlFragment => ({ sql, bindings });

/** A tsvector to match against, and its configuration literal. */
interface VectorTarget {
  vec: string;
  cfg: string;
  /** Table and column of known lexemes, for index-backed wildcard/regex expansion. */
  lexicon?: { table: string; column: string };
}

/** Compiles `ast` to a WHERE fragment. Throws `QuerySyntaxError` on a value the field's type rejects. */
export function compileToSql(ast: QueryAst, fields: FieldMap, opts: CompileOptions = {}): SqlFragment {
  const c = new Compiler(fields, opts);
  return c.compile(ast) ?? frag('FALSE');
}

/**
 * SQL ranking expression for `sort=bestmatch`: `ts_rank_cd(<tsvector>, <positive terms>)`, higher is better,
 * built from the unfielded and fielded-text terms, phrases and prefixes not under a NOT. `'0::real'` when
 * the query has none (or there is no `fullText` target); safe in ORDER BY either way.
 */
export function rankSql(ast: QueryAst, fields: FieldMap, opts: CompileOptions = {}): SqlFragment {
  const c = new Compiler(fields, opts);
  const target = c.fullText;
  // Not a bare `0`: in ORDER BY an integer literal means a column position.
  if (!target) return frag(NO_RANK);
  const parts: SqlFragment[] = [];
  const visit = (n: QueryAst, positive: boolean): void => {
    switch (n.type) {
      case 'and':
      case 'or':
        for (const ch of n.children) visit(ch, positive);
        return;
      case 'not':
        visit(n.child, !positive);
        return;
      case 'term':
      case 'phrase': {
        if (!positive) return;
        if (n.field !== undefined) {
          const spec = c.lookup(n.field);
          if (!spec || spec.kind !== 'text') return;
        }
        const q =
          n.type === 'phrase'
            ? c.phraseQuery(target, n.value, n.slop)
            : n.wildcard
              ? c.prefixQuery(target, n.value)
              : c.termQuery(target, n.value);
        if (q) parts.push(q);
        return;
      }
      default:
        return;
    }
  };
  visit(ast, true);
  if (parts.length === 0) return frag(NO_RANK);
  const q = join(parts, ' || ');
  return { sql: `ts_rank_cd(${target.vec}, (${q.sql}))`, bindings: q.bindings };
}

class Compiler {
  readonly fullText: VectorTarget | null;

  constructor(
    private readonly fields: FieldMap,
    private readonly opts: CompileOptions,
  ) {
    const ft = opts.fullText ?? (opts.defaultFields ? undefined : DEFAULT_FULL_TEXT);
    this.fullText = ft
      ? {
          vec: ft.tsvector,
          cfg: regconfigLiteral(ft.config ?? 'simple'),
          lexicon: ft.lexicon && { table: sqlIdentifier(ft.lexicon.table), column: sqlIdentifier(ft.lexicon.column ?? 'word') },
        }
      : null;
  }

  compile(n: QueryAst): Frag {
    switch (n.type) {
      case 'all':
        return frag('TRUE');
      case 'and':
      case 'or': {
        if (n.children.length === 0) return frag(n.type === 'and' ? 'TRUE' : 'FALSE');
        const parts = n.children.map((ch) => this.compile(ch)).filter((f): f is SqlFragment => f !== null);
        if (parts.length === 0) return null;
        if (parts.length === 1) return parts[0];
        const j = join(parts, n.type === 'and' ? ' AND ' : ' OR ');
        return { sql: `(${j.sql})`, bindings: j.bindings };
      }
      case 'not': {
        const inner = this.compile(n.child);
        // IS NOT TRUE: a NULL (missing field) counts as "not matching", so NOT f:x keeps documents without f.
        return inner ? { sql: `(${inner.sql}) IS NOT TRUE`, bindings: inner.bindings } : null;
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

  /** Resolves a field name through aliases; undefined when unknown. */
  lookup(name: string): FieldSpec | undefined {
    let v: FieldSpec | string | undefined = Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
    for (let hops = 0; typeof v === 'string' && hops < 8; hops++) v = Object.hasOwn(this.fields, v) ? this.fields[v] : undefined;
    return typeof v === 'string' ? undefined : v;
  }

  private unfielded(n: Extract<QueryAst, { type: 'term' | 'phrase' | 'regex' }>): Frag {
    if (this.fullText) return this.onVector(this.fullText, n);
    const parts = (this.opts.defaultFields ?? []).map((f) => {
      const spec = this.lookup(f);
      return spec ? this.onField(f, spec, { ...n, field: f }, true) : undefined;
    });
    return orOf(parts);
  }

  private fielded(name: string, n: QueryAst & { field?: string }, lenient = false): Frag {
    if (/[*?]/.test(name)) {
      // Field glob: OR over every matching name; a type error on one of them just skips it (as OpenSearch is lenient there).
      return orOf(fieldsMatching(name, this.fields, (k) => this.lookup(k)).map(([key, spec]) => this.onField(key, spec, n, true)));
    }
    const spec = this.lookup(name);
    if (!spec) return frag('FALSE');
    return this.onField(name, spec, n, lenient) ?? frag('FALSE');
  }

  /** Compiles `n` on one field; with `lenient`, a type error gives undefined (skip this field) instead of throwing. */
  private onField(name: string, spec: FieldSpec, n: QueryAst, lenient: boolean): Frag | undefined {
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

  // ---- full-text (a tsvector) -------------------------------------------------------------------

  termQuery(t: VectorTarget, value: string): Frag {
    const v = foldText(value);
    return hasWordChar(v) ? frag(`plainto_tsquery(${t.cfg}, ?)`, v) : null;
  }

  phraseQuery(t: VectorTarget, value: string, slop?: number): Frag {
    const v = foldText(value);
    if (!hasWordChar(v)) return null;
    // A sloppy phrase is approximated by "all words" (a superset of any slop).
    return frag(`${slop ? 'plainto_tsquery' : 'phraseto_tsquery'}(${t.cfg}, ?)`, v);
  }

  /** `'foo':*` for a wildcard pattern that is letters/digits followed only by `*`; else null. */
  prefixQuery(t: VectorTarget, pattern: string): Frag {
    const m = /^([\p{L}\p{N}]+)\*+$/u.exec(foldText(pattern));
    return m ? frag(`to_tsquery(${t.cfg}, ?)`, `'${m[1]}':*`) : null;
  }

  private onVector(t: VectorTarget, n: QueryAst): Frag {
    const match = (q: Frag) => (q ? { sql: `${t.vec} @@ ${q.sql}`, bindings: q.bindings } : null);
    // A lexeme condition: expanded through the lexicon into an index-backed tsquery when there is one,
    // else tested on each row's lexemes (no index; see the header table).
    const onLexemes = (cond: string, binding: string): SqlFragment =>
      t.lexicon
        ? frag(
            `${t.vec} @@ (SELECT string_agg('''' || replace(replace(lx.w, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery ` +
              `FROM (SELECT ${t.lexicon.column} AS w FROM ${t.lexicon.table} WHERE ${t.lexicon.column} ${cond} LIMIT ${MAX_EXPANSIONS}) AS lx)`,
            binding,
          )
        : frag(`EXISTS (SELECT 1 FROM unnest(tsvector_to_array(${t.vec})) AS lx(l) WHERE lx.l ${cond})`, binding);
    switch (n.type) {
      case 'term': {
        if (!n.wildcard) return match(this.termQuery(t, n.value));
        const prefix = this.prefixQuery(t, n.value);
        if (prefix) return match(prefix);
        const pattern = foldText(n.value);
        const lit = literalPrefix(pattern);
        const scan = onLexemes('LIKE ?', wildcardToLike(pattern));
        const lead = /^[\p{L}\p{N}]+/u.exec(lit);
        if (!lead || t.lexicon) return scan;
        // Every lexeme matching the pattern starts with the leading word, so the GIN prefix match is a safe prefilter.
        return { sql: `(${t.vec} @@ to_tsquery(${t.cfg}, ?) AND ${scan.sql})`, bindings: [`'${lead[0]}':*`, ...scan.bindings] };
      }
      case 'phrase':
        return match(this.phraseQuery(t, n.value, n.slop));
      case 'regex':
        return onLexemes('~ ?', `^(?:${luceneRegexToPostgres(n.value)})$`);
      default:
        return frag('FALSE');
    }
  }

  private onText(spec: TextFieldSpec, n: QueryAst): Frag {
    const expr = `(${spec.expr})`;
    if (n.type === 'exists') return frag(spec.exists ? `(${spec.exists})` : `${expr} IS NOT NULL`);
    if (n.type === 'range') return rangeSql(expr, n, (v) => ({ sql: '?', value: foldText(v) }));
    const target = {
      vec: spec.vector ?? `to_tsvector(${this.fullText?.cfg ?? regconfigLiteral('simple')}, ${expr})`,
      cfg: this.fullText?.cfg ?? regconfigLiteral('simple'),
    };
    return this.onVector(target, n);
  }

  // ---- keyword ----------------------------------------------------------------------------------

  private onKeyword(spec: KeywordFieldSpec | KeywordArrayFieldSpec, n: QueryAst): Frag {
    const ci = !spec.caseSensitive;
    const norm = (v: string) => (ci ? v.toLowerCase() : v);
    const isArray = spec.kind === 'keyword_array';
    const jsonbArray = isArray && (spec.arrayType ?? 'jsonb') === 'jsonb';
    const expr = `(${spec.expr})`;
    // For arrays, conditions other than containment test each element.
    const each = (cond: (el: string) => SqlFragment): SqlFragment => {
      if (!isArray) return cond(ci ? `lower(${expr})` : expr);
      const from = jsonbArray ? `jsonb_array_elements_text(${expr})` : `unnest(${expr})`;
      const c = cond(ci ? 'lower(el.v)' : 'el.v');
      return { sql: `EXISTS (SELECT 1 FROM ${from} AS el(v) WHERE ${c.sql})`, bindings: c.bindings };
    };
    switch (n.type) {
      case 'exists':
        if (!isArray) return frag(`${expr} IS NOT NULL`);
        return frag(jsonbArray ? `(jsonb_typeof(${expr}) = 'array' AND ${expr} <> '[]'::jsonb)` : `cardinality(${expr}) > 0`);
      case 'range':
        return each((el) => rangeSql(el, n, (v) => ({ sql: '?', value: norm(v) })));
      case 'regex':
        // `~*` rather than lower-casing the pattern, which would turn `\D` into `\d`.
        return each((el) => frag(`${el} ${ci ? '~*' : '~'} ?`, `^(?:${luceneRegexToPostgres(n.value)})$`));
      case 'term':
      case 'phrase': {
        if (n.type === 'term' && n.wildcard) return each((el) => frag(`${el} LIKE ?`, wildcardToLike(norm(n.value))));
        const v = norm(n.value);
        if (spec.contains) return frag(`${spec.contains.column} @> ?::jsonb`, JSON.stringify(containmentDoc(spec.contains.path, v)));
        if (isArray && !ci) return jsonbArray ? frag(`${expr} @> ?::jsonb`, JSON.stringify([v])) : frag(`${expr} @> ARRAY[?]::text[]`, v);
        return each((el) => frag(`${el} = ?`, v));
      }
      default:
        return frag('FALSE');
    }
  }

  // ---- date and number --------------------------------------------------------------------------

  private onDate(name: string, spec: DateFieldSpec, n: QueryAst): Frag {
    const type = spec.type ?? 'timestamptz';
    const start = `(${spec.expr})`;
    const end = spec.endExpr ? `(${spec.endExpr})` : start;
    if (n.type === 'exists') return frag(`${start} IS NOT NULL`);
    // Query interval [lo, hi) against the document interval [start, end] (a point when there is no endExpr).
    const { lo, hi } = dateQueryInterval(name, n, this.opts.now ?? new Date(), type);
    const conds: SqlFragment[] = [];
    if (lo !== undefined) conds.push(frag(`${end} >= ?::${type}`, lo));
    if (hi !== undefined) conds.push(frag(`${start} < ?::${type}`, hi));
    const j = join(conds, ' AND ');
    return conds.length > 1 ? { sql: `(${j.sql})`, bindings: j.bindings } : j;
  }

  private onNumber(name: string, spec: NumberFieldSpec, n: QueryAst): Frag {
    const expr = `(${spec.expr})`;
    const num = (v: string) => {
      const t = v.trim();
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/.test(t)) {
        throw new QuerySyntaxError(`'${v}' is not a number (field '${name}').`, -1);
      }
      return t;
    };
    switch (n.type) {
      case 'exists':
        return frag(`${expr} IS NOT NULL`);
      case 'range':
        return rangeSql(expr, n, (v) => ({ sql: '?::numeric', value: num(v) }));
      case 'term':
      case 'phrase':
        if (n.type === 'term' && n.wildcard) throw new QuerySyntaxError(`Wildcards are not supported on number field '${name}'.`, -1);
        return frag(`${expr} = ?::numeric`, num(n.value));
      default:
        throw new QuerySyntaxError(`Regular expressions are not supported on number field '${name}'.`, -1);
    }
  }
}

/** Validates a (possibly schema-qualified) SQL identifier from configuration. */
function sqlIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(name)) throw new Error(`Invalid SQL identifier: ${name}`);
  return name;
}

function join(parts: SqlFragment[], sep: string): SqlFragment {
  return { sql: parts.map((p) => p.sql).join(sep), bindings: parts.flatMap((p) => p.bindings) };
}

/** OR of per-field fragments: undefined entries (skipped fields) are ignored; nothing left matches nothing. */
function orOf(input: Array<Frag | undefined>): Frag {
  const parts = input.filter((p) => p !== undefined);
  const kept = parts.filter((p): p is SqlFragment => p !== null);
  if (kept.length === 0) return parts.length === 0 ? frag('FALSE') : null;
  if (kept.length === 1) return kept[0];
  const j = join(kept, ' OR ');
  return { sql: `(${j.sql})`, bindings: j.bindings };
}

function rangeSql(expr: string, n: Extract<QueryAst, { type: 'range' }>, bind: (v: string) => { sql: string; value: string }): SqlFragment {
  const conds: SqlFragment[] = [];
  const add = (op: string, v: string | undefined) => {
    if (v === undefined) return;
    const b = bind(v);
    conds.push(frag(`${expr} ${op} ${b.sql}`, b.value));
  };
  add('>=', n.gte);
  add('>', n.gt);
  add('<=', n.lte);
  add('<', n.lt);
  if (conds.length === 0) return frag(`${expr} IS NOT NULL`);
  const j = join(conds, ' AND ');
  return conds.length > 1 ? { sql: `(${j.sql})`, bindings: j.bindings } : j;
}

/** The literal text of a wildcard pattern before its first unescaped `*` or `?`, unescaped. */
function literalPrefix(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) out += pattern[++i];
    else if (c === '*' || c === '?') break;
    else out += c;
  }
  return out;
}

/** Lucene wildcard pattern (`*`, `?`, `\` escapes) → SQL LIKE pattern (backslash escape). */
export function wildcardToLike(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    let c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      c = pattern[++i];
      out += c === '%' || c === '_' || c === '\\' ? `\\${c}` : c;
    } else if (c === '*') out += '%';
    else if (c === '?') out += '_';
    else out += c === '%' || c === '_' ? `\\${c}` : c;
  }
  return out;
}

/** `a.b[].c` + `v` → `{"a":{"b":[{"c":"v"}]}}` (a trailing `[]` wraps the value itself in an array). */
export function containmentDoc(path: string, value: string): unknown {
  const segs = path.split('.');
  let v: unknown = value;
  for (let i = segs.length - 1; i >= 0; i--) {
    const seg = segs[i];
    v = seg.endsWith('[]') ? { [seg.slice(0, -2)]: [v] } : { [seg]: v };
  }
  return v;
}

interface DateBounds {
  /** First instant (or day) of the period, as a SQL literal string. */
  start: string;
  /** First instant (or day) after the period. */
  next: string;
}

/**
 * The distinct fields a field glob (`metadata.*`, `titl?`) names, as [name, spec] in declaration
 * order (a spec reached by two names counted once); shared by the SQL and engine translators.
 */
export function fieldsMatching<S>(
  glob: string,
  fields: Record<string, unknown>,
  lookup: (name: string) => S | undefined,
): Array<[string, S]> {
  const re = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  const seen = new Set<S>();
  const out: Array<[string, S]> = [];
  for (const key of Object.keys(fields)) {
    const spec = re.test(key) ? lookup(key) : undefined;
    if (spec === undefined || seen.has(spec)) continue;
    seen.add(spec);
    out.push([key, spec]);
  }
  return out;
}

/**
 * The interval [lo, hi) a date query node asks for (a term or phrase: its period; a range: its
 * bounds), as SQL literal strings; shared by the SQL and engine translators so both read a date
 * query alike. Throws QuerySyntaxError for an invalid date, a wildcard or a regular expression.
 */
export function dateQueryInterval(
  name: string,
  n: QueryAst,
  now: Date,
  type: 'timestamptz' | 'date',
): { lo: string | undefined; hi: string | undefined } {
  const period = (v: string) => {
    const p = parseDatePeriod(v, now, type);
    if (!p) throw new QuerySyntaxError(`Invalid date '${v}' for field '${name}'.`, -1);
    return p;
  };
  let lo: string | undefined;
  let hi: string | undefined;
  if (n.type === 'term' || n.type === 'phrase') {
    if (n.type === 'term' && n.wildcard) throw new QuerySyntaxError(`Wildcards are not supported on date field '${name}'.`, -1);
    const p = period(n.value);
    lo = p.start;
    hi = p.next;
  } else if (n.type === 'range') {
    if (n.gte !== undefined) lo = period(n.gte).start;
    if (n.gt !== undefined) lo = period(n.gt).next;
    if (n.lte !== undefined) hi = period(n.lte).next;
    if (n.lt !== undefined) hi = period(n.lt).start;
  } else {
    throw new QuerySyntaxError(`Regular expressions are not supported on date field '${name}'.`, -1);
  }
  return { lo, hi };
}

const DAY = 86_400_000;
const UNIT_MS: Record<string, number> = { w: 7 * DAY, d: DAY, h: 3_600_000, H: 3_600_000, m: 60_000, s: 1000 };

/**
 * Parses a date query value into the period it names: `2020`, `2020-05`, `2020-05-03`,
 * `2020-05-03T10:00[:00[.000]][Z|±hh:mm]` (no zone = UTC), `now`, `now-7d`, `now+1h/d`.
 * Returns null when invalid. With `type: 'date'` the period is widened to whole days.
 */
export function parseDatePeriod(v: string, now: Date, type: 'timestamptz' | 'date' = 'timestamptz'): DateBounds | null {
  const s = v.trim();
  let start: number;
  let next: number;
  const year = /^(\d{4})$/.exec(s);
  const month = /^(\d{4})-(\d{2})$/.exec(s);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const dateTime = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  const math = /^now((?:[+-]\d{1,6}[yMwdhHms])*)(?:\/([yMwdhHms]))?$/.exec(s);
  const ymd = (y: number, mo: number, d: number) => {
    const t = Date.UTC(y, mo - 1, d);
    const dt = new Date(t);
    return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d ? t : Number.NaN;
  };
  if (year) {
    const m = year;
    start = Date.UTC(Number(m[1]), 0, 1);
    next = Date.UTC(Number(m[1]) + 1, 0, 1);
  } else if (month) {
    const m = month;
    const mo = Number(m[2]);
    if (mo < 1 || mo > 12) return null;
    start = Date.UTC(Number(m[1]), mo - 1, 1);
    next = Date.UTC(Number(m[1]), mo, 1);
  } else if (day) {
    const m = day;
    start = ymd(Number(m[1]), Number(m[2]), Number(m[3]));
    next = start + DAY;
  } else if (dateTime) {
    const m = dateTime;
    const day = ymd(Number(m[1]), Number(m[2]), Number(m[3]));
    const [hh, mi, ss] = [Number(m[4]), Number(m[5]), m[6] === undefined ? 0 : Number(m[6])];
    if (hh > 23 || mi > 59 || ss > 59) return null;
    const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
    let offset = 0;
    if (m[8] && m[8] !== 'Z') {
      const z = /^([+-])(\d{2}):?(\d{2})$/.exec(m[8])!;
      offset = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
    }
    start = day + hh * 3_600_000 + mi * 60_000 + ss * 1000 + ms - offset;
    next = start + (m[7] !== undefined ? 1 : m[6] !== undefined ? 1000 : 60_000);
  } else if (math) {
    const m = math;
    const d = new Date(now.getTime());
    for (const [, sign, n, unit] of m[1].matchAll(/([+-])(\d+)([yMwdhHms])/g)) {
      const k = (sign === '-' ? -1 : 1) * Number(n);
      if (unit === 'y') d.setUTCFullYear(d.getUTCFullYear() + k);
      else if (unit === 'M') d.setUTCMonth(d.getUTCMonth() + k);
      else d.setTime(d.getTime() + k * UNIT_MS[unit]);
    }
    const round = m[2];
    if (!round) {
      start = d.getTime();
      next = start + 1;
    } else if (round === 'y') {
      start = Date.UTC(d.getUTCFullYear(), 0, 1);
      next = Date.UTC(d.getUTCFullYear() + 1, 0, 1);
    } else if (round === 'M') {
      start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    } else if (round === 'w') {
      const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      start = dayStart - ((d.getUTCDay() + 6) % 7) * DAY; // ISO weeks start on Monday
      next = start + 7 * DAY;
    } else {
      const u = UNIT_MS[round];
      start = Math.floor(d.getTime() / u) * u;
      next = start + u;
    }
  } else {
    return null;
  }
  if (!Number.isFinite(start) || !Number.isFinite(next)) return null;
  if (type === 'date') {
    const s0 = Math.floor(start / DAY) * DAY;
    const n0 = Math.ceil(next / DAY) * DAY;
    return { start: isoDay(s0), next: isoDay(n0 === s0 ? s0 + DAY : n0) };
  }
  return { start: new Date(start).toISOString(), next: new Date(next).toISOString() };
}

function isoDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
