/**
 * The one parser for the `q` search parameter (Lucene / OpenSearch `query_string`-like syntax), shared by
 * every service and every search engine. Use `parseQuery(q)` on the raw `q` and hand the AST to an engine
 * (`compileToSql` for postgres). Don't use it for facet filters or other structured parameters: those
 * are not `q` syntax.
 *
 * Syntax: bare terms; "quoted phrases" (`"a b"~2` slop); `field:value`, `field:"phrase"`, dotted fields
 * (`metadata.title`), field globs (`metadata.*:x`); `AND` `OR` `NOT` (upper-case only, as in Lucene) and
 * `&&` `||` `!`; `+term` / `-term`; parentheses, also `field:(a OR b)`; ranges `field:[a TO b]`,
 * `{a TO b}`, mixed `[a TO b}`, `*` open ends, `field:>=2020` `>` `<` `<=`; wildcards `te?t*`; `field:*`
 * and `_exists_:field` (exists); `*` / `*:*` (match all); backslash escapes; regex `/…/` (subset, see
 * regex.ts). Boosts (`^2`) and fuzziness (`term~1`) are accepted and ignored.
 *
 * Precedence, loosest first: juxtaposition (the default operator) < `OR` < `AND` < `NOT`/`+`/`-`.
 * So with the default operator AND, `a b OR c` means `a AND (b OR c)`.
 *
 * Default operator: AND by default (the project's choice; pass `{ defaultOperator: 'OR' }` for
 * InvenioRDM's own behaviour: its RDM `query_string` sets no `default_operator`, so OpenSearch uses OR).
 * With OR, Lucene's rules apply to a run of clauses: `+x` clauses are required, `-x` excluded, and plain
 * clauses are optional (if any `+x` exists they only affect Lucene's scoring, so they are dropped here).
 *
 * Leniencies beyond Lucene: `/` and `:` may appear inside a value (`doi:10.5281/zenodo.1`, `id:urn:x:1`),
 * and a URL (`https://host/x`) is one unfielded term. Stricter: a range needs a field (`[a TO b]` alone is
 * an error), and a NUL character is an error (PostgreSQL text cannot hold it).
 *
 * Errors: malformed input (unbalanced parentheses or quotes, dangling operators, `field:` with nothing,
 * bad ranges, bad regex) throws `QuerySyntaxError` with a position. A `q` over a cost limit throws
 * `QueryLimitError` (a `QuerySyntaxError` `parseQueryLenient` never softens): longer than 2000
 * characters, nested deeper than 32, more than 5 regex or wildcard terms (each scans the index's words
 * on PostgreSQL and expands into many terms on OpenSearch), or a regex the engines cannot run cheaply
 * (nested quantifiers, large repetition counts: regex.ts). Fuzzy `~N` is ignored (a plain term), so it
 * is not counted. `parseQueryLenient` is the InvenioRDM-style alternative that falls back to a plain
 * word search.
 *
 * Why one file over 400 lines: one recursive-descent grammar, kept whole so that it reads top-down
 * from the loosest operator to the tokens.
 */
import { type PhraseNode, type QueryAst, QueryLimitError, QuerySyntaxError, type RangeNode } from './ast.js';
import { luceneRegexToPostgres } from './regex.js';

/** Options for `parseQuery`. */
export interface ParseOptions {
  /** Operator between clauses written side by side. Default `'AND'`. */
  defaultOperator?: 'AND' | 'OR';
  /** Longest accepted `q`, in characters. Default 2000. */
  maxLength?: number;
  /** Deepest accepted nesting of parentheses and NOT/+/- prefixes. Default 32. */
  maxDepth?: number;
  /** Most regex and wildcard terms in one `q`. Default 5. */
  maxCostlyTerms?: number;
}

/** Default longest `q`. */
export const MAX_QUERY_LENGTH = 2000;
/** Default deepest nesting. */
export const MAX_QUERY_DEPTH = 32;
/** Default most regex and wildcard terms in one `q`. */
export const MAX_COSTLY_TERMS = 5;

type Tok =
  | { k: 'eof'; pos: number }
  | { k: 'lparen'; pos: number }
  | { k: 'rparen'; pos: number }
  | { k: 'and'; pos: number; text: string }
  | { k: 'or'; pos: number; text: string }
  | { k: 'not'; pos: number; text: string }
  | { k: 'plus'; pos: number }
  | { k: 'minus'; pos: number }
  | { k: 'phrase'; pos: number; value: string }
  | { k: 'regex'; pos: number; value: string }
  | { k: 'rangeOpen'; pos: number; inclusive: boolean }
  | { k: 'rangeClose'; pos: number }
  | { k: 'tilde'; pos: number; num?: number }
  | { k: 'boost'; pos: number }
  | { k: 'term'; pos: number; raw: string };

const TERM_STOP = new Set(['(', ')', '"', '[', ']', '{', '}', '^', '~']);
const isWs = (c: string | undefined) => c !== undefined && /\s/u.test(c);

/** Pull tokenizer over `q`. Context-free except for range bodies, which the parser reads char by char. */
class Lexer {
  pos = 0;
  constructor(readonly s: string) {}

  skipWs(): void {
    while (this.pos < this.s.length && isWs(this.s[this.pos])) this.pos++;
  }

  next(): Tok {
    this.skipWs();
    const s = this.s;
    const pos = this.pos;
    if (pos >= s.length) return { k: 'eof', pos };
    const c = s[pos];
    const c2 = s[pos + 1];
    switch (c) {
      case '(':
        this.pos++;
        return { k: 'lparen', pos };
      case ')':
        this.pos++;
        return { k: 'rparen', pos };
      case '"':
        return { k: 'phrase', pos, value: this.readQuoted() };
      case '[':
      case '{':
        this.pos++;
        return { k: 'rangeOpen', pos, inclusive: c === '[' };
      case ']':
      case '}':
        this.pos++;
        return { k: 'rangeClose', pos };
      case '+':
        this.pos++;
        return { k: 'plus', pos };
      case '-':
        this.pos++;
        return { k: 'minus', pos };
      case '!':
        this.pos++;
        return { k: 'not', pos, text: '!' };
      case '/':
        return { k: 'regex', pos, value: this.readRegex() };
      case '~': {
        this.pos++;
        const m = /^\d+(\.\d+)?/.exec(s.slice(this.pos));
        if (m) this.pos += m[0].length;
        return { k: 'tilde', pos, num: m ? Number(m[0]) : undefined };
      }
      case '^': {
        this.pos++;
        const m = /^\d+(\.\d+)?/.exec(s.slice(this.pos));
        if (!m) throw new QuerySyntaxError("A boost '^' must be followed by a number.", pos);
        this.pos += m[0].length;
        return { k: 'boost', pos };
      }
    }
    if (c === '&' && c2 === '&') {
      this.pos += 2;
      return { k: 'and', pos, text: '&&' };
    }
    if (c === '|' && c2 === '|') {
      this.pos += 2;
      return { k: 'or', pos, text: '||' };
    }
    const raw = this.readTermRaw();
    if (raw === 'AND') return { k: 'and', pos, text: raw };
    if (raw === 'OR') return { k: 'or', pos, text: raw };
    if (raw === 'NOT') return { k: 'not', pos, text: raw };
    return { k: 'term', pos, raw };
  }

  /** Reads a term, keeping backslash escapes in the raw text. Stops after a `field:` that opens a regex. */
  private readTermRaw(): string {
    const s = this.s;
    const start = this.pos;
    let i = this.pos;
    while (i < s.length) {
      const c = s[i];
      if (isWs(c) || TERM_STOP.has(c)) break;
      if (c === '\\') {
        if (i + 1 >= s.length) throw new QuerySyntaxError('A backslash must escape a character.', i);
        i += 2;
        continue;
      }
      if (c === ':' && s[i + 1] === '/' && s[i + 2] !== '/') {
        i++; // `field:/regex/`; `http://…` stays one term
        break;
      }
      i++;
    }
    this.pos = i;
    return s.slice(start, i);
  }

  /** Reads a double-quoted string at `pos`, returning it unescaped. */
  readQuoted(): string {
    const s = this.s;
    const start = this.pos;
    let i = start + 1;
    let out = '';
    while (i < s.length) {
      const c = s[i];
      if (c === '\\') {
        if (i + 1 >= s.length) break;
        out += s[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') {
        this.pos = i + 1;
        return out;
      }
      out += c;
      i++;
    }
    throw new QuerySyntaxError('Unterminated quoted phrase.', start);
  }

  /** Reads `/…/` at `pos`; `\/` becomes `/`, other escapes are kept for the regex translator. */
  private readRegex(): string {
    const s = this.s;
    const start = this.pos;
    let i = start + 1;
    let out = '';
    while (i < s.length) {
      const c = s[i];
      if (c === '\\' && i + 1 < s.length) {
        out += s[i + 1] === '/' ? '/' : c + s[i + 1];
        i += 2;
        continue;
      }
      if (c === '/') {
        this.pos = i + 1;
        luceneRegexToPostgres(out, start + 1);
        return out;
      }
      out += c;
      i++;
    }
    throw new QuerySyntaxError('Unterminated regular expression.', start);
  }
}

interface Clause {
  node: QueryAst;
  mod: 'none' | 'must' | 'mustNot';
}

/** Recursive-descent parser over `Lexer`; see the file header for the grammar. */
class Parser {
  private la: Tok | null = null;
  private depth = 0;
  private readonly lex: Lexer;
  private readonly defaultOp: 'AND' | 'OR';
  private readonly maxDepth: number;

  constructor(
    readonly q: string,
    opts: ParseOptions,
  ) {
    this.lex = new Lexer(q);
    this.defaultOp = opts.defaultOperator ?? 'AND';
    this.maxDepth = opts.maxDepth ?? MAX_QUERY_DEPTH;
  }

  private peek(): Tok {
    if (!this.la) this.la = this.lex.next();
    return this.la;
  }

  private next(): Tok {
    const t = this.peek();
    this.la = null;
    return t;
  }

  private enter(pos: number): void {
    this.depth++;
    if (this.depth > this.maxDepth) throw new QueryLimitError('Query is nested too deeply.', pos);
  }

  parse(): QueryAst {
    const node = this.parseSeq(undefined);
    const t = this.peek();
    if (t.k === 'rparen') throw new QuerySyntaxError("Unbalanced ')': no matching '('.", t.pos);
    if (t.k !== 'eof') throw new QuerySyntaxError('Unexpected input.', t.pos);
    return node;
  }

  /** A run of clauses joined by the default operator, up to `)` or the end. */
  private parseSeq(field: string | undefined): QueryAst {
    const items: Clause[] = [];
    for (;;) {
      const t = this.peek();
      if (t.k === 'eof' || t.k === 'rparen') break;
      if (t.k === 'and' || t.k === 'or') {
        throw new QuerySyntaxError(`'${t.text}' needs a clause on its left.`, t.pos);
      }
      items.push(this.parseOr(field));
    }
    if (items.length === 0) {
      const t = this.peek();
      throw new QuerySyntaxError(t.k === 'eof' ? 'Empty query.' : 'Empty parentheses.', t.pos);
    }
    return this.combineSeq(items);
  }

  private combineSeq(items: Clause[]): QueryAst {
    if (items.length === 1 && items[0].mod !== 'mustNot') return items[0].node;
    const nots = items.filter((i) => i.mod === 'mustNot').map((i) => not(i.node));
    if (this.defaultOp === 'AND') {
      return bool(
        'and',
        items.map((i) => (i.mod === 'mustNot' ? not(i.node) : i.node)),
      );
    }
    const must = items.filter((i) => i.mod === 'must').map((i) => i.node);
    const should = items.filter((i) => i.mod === 'none').map((i) => i.node);
    if (must.length > 0) return bool('and', [...must, ...nots]);
    if (should.length > 0) return bool('and', [bool('or', should), ...nots]);
    return bool('and', nots);
  }

  private parseOr(field: string | undefined): Clause {
    return this.parseChain('or', () => this.parseAnd(field));
  }

  private parseAnd(field: string | undefined): Clause {
    return this.parseChain('and', () => this.parseUnary(field));
  }

  /** Operands of `operand` joined by the binary operator `k` (`a OR b OR c`), one clause when alone. */
  private parseChain(k: 'or' | 'and', operand: () => Clause): Clause {
    const first = operand();
    const parts: Clause[] = [first];
    while (this.peek().k === k) {
      const op = this.next() as { pos: number; text: string };
      this.expectOperand(op);
      parts.push(operand());
    }
    if (parts.length === 1) return first;
    return { node: bool(k, parts.map(asNode)), mod: 'none' };
  }

  private expectOperand(op: { pos: number; text: string }): void {
    const t = this.peek();
    if (t.k === 'eof' || t.k === 'rparen' || t.k === 'and' || t.k === 'or') {
      throw new QuerySyntaxError(`'${op.text}' needs a clause on its right.`, op.pos);
    }
  }

  private parseUnary(field: string | undefined): Clause {
    const t = this.peek();
    if (t.k === 'not' || t.k === 'plus' || t.k === 'minus') {
      this.next();
      const after = this.peek();
      if (after.k === 'eof' || after.k === 'rparen' || after.k === 'and' || after.k === 'or') {
        const sym = t.k === 'not' ? t.text : t.k === 'plus' ? '+' : '-';
        throw new QuerySyntaxError(`'${sym}' needs a clause after it.`, t.pos);
      }
      this.enter(t.pos);
      const inner = this.parseUnary(field);
      this.depth--;
      if (t.k === 'plus') return { node: asNode(inner), mod: 'must' };
      return { node: asNode(inner), mod: 'mustNot' };
    }
    return { node: this.parsePrimary(field), mod: 'none' };
  }

  private parsePrimary(field: string | undefined): QueryAst {
    const t = this.next();
    switch (t.k) {
      case 'lparen': {
        const node = this.parseGroup(t.pos, field);
        this.skipModifiers(false);
        return node;
      }
      case 'phrase': {
        const slop = this.skipModifiers(true);
        return phraseNode(field, t.value, slop, t.pos);
      }
      case 'regex': {
        this.skipModifiers(false);
        return field === '_exists_' ? bad('_exists_ needs a field name.', t.pos) : regexNode(field, t.value);
      }
      case 'rangeOpen': {
        if (field === undefined) throw new QuerySyntaxError('A range needs a field, as in field:[a TO b].', t.pos);
        const node = this.readRange(field, t.inclusive, t.pos);
        this.skipModifiers(false);
        return node;
      }
      case 'term':
        return this.parseTerm(t.raw, t.pos, field);
      case 'rparen':
        throw new QuerySyntaxError("Unbalanced ')': no matching '('.", t.pos);
      case 'rangeClose':
        throw new QuerySyntaxError('Unexpected closing bracket outside a range.', t.pos);
      case 'tilde':
      case 'boost':
        throw new QuerySyntaxError('A modifier (~ or ^) must follow a term.', t.pos);
      case 'eof':
        throw new QuerySyntaxError('Unexpected end of query.', t.pos);
      default:
        throw new QuerySyntaxError('Unexpected operator.', t.pos);
    }
  }

  private parseGroup(openPos: number, field: string | undefined): QueryAst {
    this.enter(openPos);
    const node = this.parseSeq(field);
    const close = this.next();
    if (close.k !== 'rparen') throw new QuerySyntaxError("Unbalanced '(': missing ')'.", openPos);
    this.depth--;
    return node;
  }

  /** Consumes trailing `~N` / `^N`. Returns the `~` number when `wantSlop`. */
  private skipModifiers(wantSlop: boolean): number | undefined {
    let slop: number | undefined;
    for (;;) {
      const t = this.peek();
      if (t.k === 'tilde') {
        this.next();
        if (wantSlop && t.num !== undefined) slop = Math.floor(t.num);
      } else if (t.k === 'boost') {
        this.next();
      } else {
        return slop;
      }
    }
  }

  private parseTerm(raw: string, pos: number, ctxField: string | undefined): QueryAst {
    const colon = findUnescaped(raw, ':');
    if (colon < 0) {
      this.skipModifiers(false);
      return valueNode(ctxField, raw, pos);
    }
    const name = unescapeRaw(raw.slice(0, colon));
    if (name.length === 0) throw new QuerySyntaxError('Missing field name before ":".', pos);
    const rest = raw.slice(colon + 1);
    const restPos = pos + colon + 1;
    if (rest.startsWith('//')) {
      // A URL (`https://host/path`) is a plain term, not field `https`.
      this.skipModifiers(false);
      return valueNode(ctxField, raw, pos);
    }
    if (rest.length > 0) {
      this.skipModifiers(false);
      if (name === '*' && rest === '*') return { type: 'all' };
      return valueNode(name === '*' ? undefined : name, rest, restPos);
    }
    // `field:` followed by a phrase, group, range, regex or (after spaces) a term.
    const t = this.peek();
    switch (t.k) {
      case 'phrase':
      case 'regex':
      case 'rangeOpen':
      case 'lparen':
        return this.parsePrimary(name === '*' ? undefined : name);
      case 'term':
        if (findUnescaped(t.raw, ':') < 0) {
          this.next();
          this.skipModifiers(false);
          return valueNode(name === '*' ? undefined : name, t.raw, t.pos);
        }
    }
    throw new QuerySyntaxError(`Missing value for field '${name}'.`, restPos);
  }

  /** Reads `a TO b]` after `[` / `{` straight from the characters (bounds may contain any character). */
  private readRange(field: string, lowerInclusive: boolean, openPos: number): QueryAst {
    const lex = this.lex;
    const s = this.q;
    const readBound = (what: string): { value: string; star: boolean } => {
      lex.skipWs();
      if (lex.pos >= s.length) throw new QuerySyntaxError('Unterminated range.', openPos);
      if (s[lex.pos] === '"') return { value: lex.readQuoted(), star: false };
      let i = lex.pos;
      let out = '';
      while (i < s.length && !isWs(s[i]) && s[i] !== ']' && s[i] !== '}') {
        if (s[i] === '\\') {
          if (i + 1 >= s.length) throw new QuerySyntaxError('A backslash must escape a character.', i);
          out += s[i + 1];
          i += 2;
          continue;
        }
        out += s[i];
        i++;
      }
      if (i === lex.pos) throw new QuerySyntaxError(`Missing ${what} bound in range.`, i);
      const star = s.slice(lex.pos, i) === '*';
      lex.pos = i;
      return { value: out, star };
    };
    const lower = readBound('lower');
    lex.skipWs();
    if (lex.pos >= s.length) throw new QuerySyntaxError('Unterminated range.', openPos);
    const afterTo = s[lex.pos + 2];
    if (!(s.startsWith('TO', lex.pos) && (afterTo === undefined || isWs(afterTo) || afterTo === ']' || afterTo === '}'))) {
      throw new QuerySyntaxError("Expected 'TO' in range.", lex.pos);
    }
    lex.pos += 2;
    const upper = readBound('upper');
    lex.skipWs();
    const close = s[lex.pos];
    if (close === undefined) throw new QuerySyntaxError('Unterminated range.', openPos);
    if (close !== ']' && close !== '}') throw new QuerySyntaxError("Missing ']' or '}' to close the range.", lex.pos);
    lex.pos++;
    if (field === '_exists_') throw new QuerySyntaxError('_exists_ needs a field name.', openPos);
    if (lower.star && upper.star) return { type: 'exists', field };
    const node: RangeNode = { type: 'range', field };
    if (!lower.star) node[lowerInclusive ? 'gte' : 'gt'] = lower.value;
    if (!upper.star) node[close === ']' ? 'lte' : 'lt'] = upper.value;
    return node;
  }
}

function bad(message: string, pos: number): never {
  throw new QuerySyntaxError(message, pos);
}

function asNode(c: Clause): QueryAst {
  return c.mod === 'mustNot' ? not(c.node) : c.node;
}

function not(child: QueryAst): QueryAst {
  return child.type === 'not' ? child.child : { type: 'not', child };
}

/** Builds a flattened and/or node: nested same-type nodes merge, `all` is absorbed, one child unwraps. */
function bool(type: 'and' | 'or', input: QueryAst[]): QueryAst {
  const children: QueryAst[] = [];
  for (const c of input) {
    if (c.type === type) children.push(...c.children);
    else children.push(c);
  }
  if (type === 'or' && children.some((c) => c.type === 'all')) return { type: 'all' };
  const kept = type === 'and' ? children.filter((c) => c.type !== 'all') : children;
  if (type === 'and' && kept.length === 0 && children.length > 0) return { type: 'all' };
  if (kept.length === 1) return kept[0];
  return { type, children: kept };
}

/** A term value (raw, with escapes) in the context of an optional field. */
function valueNode(field: string | undefined, raw: string, pos: number): QueryAst {
  if (field === '_exists_') {
    if (hasUnescapedWildcard(raw)) throw new QuerySyntaxError('_exists_ needs a field name.', pos);
    return { type: 'exists', field: unescapeRaw(raw) };
  }
  if (raw === '*') return field === undefined ? { type: 'all' } : { type: 'exists', field };
  const cmp = /^(>=|<=|>|<)/.exec(raw);
  if (cmp && field !== undefined) {
    const boundRaw = raw.slice(cmp[0].length);
    if (boundRaw.length === 0) throw new QuerySyntaxError(`Missing value after '${cmp[0]}'.`, pos + cmp[0].length);
    if (boundRaw === '*') throw new QuerySyntaxError(`'${cmp[0]}' needs a value, not '*'.`, pos + cmp[0].length);
    const key = cmp[0] === '>=' ? 'gte' : cmp[0] === '>' ? 'gt' : cmp[0] === '<=' ? 'lte' : 'lt';
    const node: RangeNode = { type: 'range', field };
    node[key] = unescapeRaw(boundRaw);
    return node;
  }
  if (hasUnescapedWildcard(raw)) {
    const value = wildcardPattern(raw);
    if (/^\*+$/.test(value)) return field === undefined ? { type: 'all' } : { type: 'exists', field };
    return field === undefined ? { type: 'term', value, wildcard: true } : { type: 'term', field, value, wildcard: true };
  }
  const value = unescapeRaw(raw);
  return field === undefined ? { type: 'term', value, wildcard: false } : { type: 'term', field, value, wildcard: false };
}

function phraseNode(field: string | undefined, value: string, slop: number | undefined, pos: number): QueryAst {
  if (field === '_exists_') {
    if (value.length === 0) throw new QuerySyntaxError('_exists_ needs a field name.', pos);
    return { type: 'exists', field: value };
  }
  const node: PhraseNode = field === undefined ? { type: 'phrase', value } : { type: 'phrase', field, value };
  if (slop !== undefined && slop > 0) node.slop = slop;
  return node;
}

function regexNode(field: string | undefined, value: string): QueryAst {
  return field === undefined ? { type: 'regex', value } : { type: 'regex', field, value };
}

/** Index of the first unescaped `ch` in `raw`, or -1. */
function findUnescaped(raw: string, ch: string): number {
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === ch) return i;
  }
  return -1;
}

function hasUnescapedWildcard(raw: string): boolean {
  return findUnescaped(raw, '*') >= 0 || findUnescaped(raw, '?') >= 0;
}

/** Drops backslash escapes. */
function unescapeRaw(raw: string): string {
  return raw.replace(/\\(.)/gsu, '$1');
}

/** Unescapes all but `\*`, `\?` and `\\`, which stay escaped as wildcard-pattern literals. */
function wildcardPattern(raw: string): string {
  return raw.replace(/\\(.)/gsu, (_m, c: string) => (c === '*' || c === '?' || c === '\\' ? `\\${c}` : c));
}

/**
 * Parses the `q` search parameter into a `QueryAst`. Empty or blank `q` is `{type:'all'}`.
 * Throws `QuerySyntaxError` on malformed input or when `q` exceeds the length/depth limits.
 */
export function parseQuery(q: string, opts: ParseOptions = {}): QueryAst {
  const maxLength = opts.maxLength ?? MAX_QUERY_LENGTH;
  if (q.length > maxLength) throw new QueryLimitError(`Query is longer than ${maxLength} characters.`, maxLength);
  // PostgreSQL text cannot hold NUL, so it would fail in the database instead of here.
  const nul = q.indexOf('\u0000');
  if (nul >= 0) throw new QuerySyntaxError('The query contains a NUL character.', nul);
  if (q.trim().length === 0) return { type: 'all' };
  const ast = new Parser(q, opts).parse();
  const maxCostly = opts.maxCostlyTerms ?? MAX_COSTLY_TERMS;
  if (countCostlyTerms(ast) > maxCostly) {
    throw new QueryLimitError(`A query may hold at most ${maxCostly} regular expression or wildcard terms.`, -1);
  }
  return ast;
}

/**
 * Regex and wildcard terms of `ast`: on PostgreSQL each one that no index serves scans the words of
 * the index (or every value of a keyword field); OpenSearch expands each into the matching terms.
 */
function countCostlyTerms(ast: QueryAst): number {
  switch (ast.type) {
    case 'and':
    case 'or':
      return ast.children.reduce((n, c) => n + countCostlyTerms(c), 0);
    case 'not':
      return countCostlyTerms(ast.child);
    case 'regex':
      return 1;
    case 'term':
      return ast.wildcard ? 1 : 0;
    default:
      return 0;
  }
}

/**
 * InvenioRDM's behaviour on a `q` its parser rejects: instead of an error, search the plain words of `q`
 * on the default fields, any of them matching (its fallback is a `multi_match`, operator OR). Length and
 * depth limits still throw. A `q` without any letter or digit matches nothing.
 */
export function parseQueryLenient(q: string, opts: ParseOptions = {}): QueryAst {
  try {
    return parseQuery(q, opts);
  } catch (e) {
    if (!(e instanceof QuerySyntaxError) || e instanceof QueryLimitError) throw e;
    const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
    return { type: 'or', children: words.map((value) => ({ type: 'term', value, wildcard: false })) };
  }
}
