/**
 * The search query AST shared by every search engine (postgres SQL compiler, OpenSearch/Elasticsearch
 * query-DSL builder). Produced by `parseQuery`; engines only ever see this shape, never the raw `q`.
 *
 * Values are kept as the user wrote them (unescaped, not folded): each engine applies its own analysis
 * (`foldText` for postgres, the index analyzers for OpenSearch).
 */

/** Matches every document (`q` empty, `*`, `*:*`). */
export interface AllNode {
  type: 'all';
}

/** Conjunction or disjunction. An `or` with no children matches nothing. */
export interface BoolNode {
  type: 'and' | 'or';
  children: QueryAst[];
}

/** Negation (`NOT x`, `!x`, `-x`). Documents where `x` is unknown or null count as "not x". */
export interface NotNode {
  type: 'not';
  child: QueryAst;
}

/**
 * A single term. `field` absent = the default full-text fields.
 * When `wildcard` is true, `value` is a Lucene wildcard pattern: `*` any run, `?` one character, and a
 * literal `*`, `?` or `\` is written backslash-escaped. When false, `value` is the plain unescaped text.
 */
export interface TermNode {
  type: 'term';
  field?: string;
  value: string;
  wildcard: boolean;
}

/** A quoted phrase; `slop` is the Lucene proximity (`"a b"~2`), absent for an exact phrase. */
export interface PhraseNode {
  type: 'phrase';
  field?: string;
  value: string;
  slop?: number;
}

/** A range; absent bounds are open (`*`). Bounds are raw strings; engines interpret them per field type. */
export interface RangeNode {
  type: 'range';
  field: string;
  gte?: string;
  gt?: string;
  lte?: string;
  lt?: string;
}

/** The field has a value (`field:*`, `_exists_:field`, `field:[* TO *]`). */
export interface ExistsNode {
  type: 'exists';
  field: string;
}

/**
 * A Lucene regular expression (`/…/`), matched against whole tokens (text) or whole values (keyword).
 * `value` is the pattern between the slashes, already validated against the supported subset (see parser).
 */
export interface RegexNode {
  type: 'regex';
  field?: string;
  value: string;
}

/** The parsed query: a discriminated union on `type`. */
export type QueryAst = AllNode | BoolNode | NotNode | TermNode | PhraseNode | RangeNode | ExistsNode | RegexNode;

/** The error every malformed or abusive `q` raises; services answer 400 `Invalid query string syntax.`. */
export class QuerySyntaxError extends Error {
  /** Zero-based character offset in `q` where the problem was found; -1 when not tied to a character. */
  readonly position: number;
  /** Stable error code, for logs. */
  readonly code = 'invalid_query_syntax';

  constructor(message: string, position: number) {
    super(message);
    this.name = 'QuerySyntaxError';
    this.position = position;
  }
}

/** A `QuerySyntaxError` for a `q` over the length or nesting limit (never softened by `parseQueryLenient`). */
export class QueryLimitError extends QuerySyntaxError {
  constructor(message: string, position: number) {
    super(message, position);
    this.name = 'QueryLimitError';
  }
}

/** The HTTP message services answer with on a `QuerySyntaxError` (InvenioRDM's text). */
export const INVALID_QUERY_MESSAGE = 'Invalid query string syntax.';
