/**
 * Validates a Lucene regular expression (`q=/…/`) against a safe subset and translates it to a
 * PostgreSQL ARE. Used by the parser (to reject bad patterns up front, so the database never sees an
 * invalid or explosive regex and a bad `q` is a 400, never a 500) and by the SQL compiler.
 *
 * Supported: literals, `.`, `[…]` / `[^…]` classes with ranges, `(…)`, `|`, `*` `+` `?`, `{n}` `{n,}`
 * `{n,m}`, `\d \w \s \D \W \S`, `\x` for a literal x. Rejected (QuerySyntaxError): Lucene's optional
 * operators `@ & ~ < > # "`, stacked quantifiers (`a**`, lazy `*?`), empty groups/branches, malformed
 * or reversed counts. `^` and `$` are literals in Lucene and are escaped for PostgreSQL.
 *
 * Refused as too expensive (QueryLimitError, never softened into a word search): a quantifier on a
 * group that holds a quantifier (`(a+)+`, `(.*){255}`: one such term cost 10 s of PostgreSQL CPU over
 * 243 vocabulary entries), repetition counts adding up to more than 64 (`.{0,255}x` costs ~0.03 ms per
 * word, ten `.{0,32}` 0.2 ms: seconds over a large index), more than 16 quantifiers, nesting deeper
 * than 10 groups and patterns longer than 256 characters. Measured with PostgreSQL 15's `~` on 2,000
 * words; Lucene's determinization (OpenSearch) grows the same way.
 */
import { QueryLimitError, QuerySyntaxError } from './ast.js';

/** Longest accepted pattern (characters between the slashes). */
export const MAX_REGEX_LENGTH = 256;
/** Largest sum of the counts of a pattern's `{n}` / `{n,m}` repetitions (each counts its larger bound). */
export const MAX_REGEX_REPEAT_TOTAL = 64;
/** Most quantifiers (`*` `+` `?` `{…}`) in one pattern. */
export const MAX_REGEX_QUANTIFIERS = 16;
const CLASS_ESCAPES = new Set(['d', 'w', 's', 'D', 'W', 'S']);
const UNSUPPORTED = new Set(['@', '&', '~', '<', '>', '#', '"']);

interface GroupResult {
  out: string;
  /** The group holds a quantifier (a quantifier on the group itself would nest). */
  hasQuantifier: boolean;
}

/** Validates a Lucene regex and returns the equivalent PostgreSQL ARE (unanchored). `offset` shifts error positions. */
export function luceneRegexToPostgres(pattern: string, offset = 0): string {
  if (pattern.length === 0) throw new QuerySyntaxError('Empty regular expression.', offset);
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw new QueryLimitError(`Regular expression is longer than ${MAX_REGEX_LENGTH} characters.`, offset);
  }
  let i = 0;
  let repeatTotal = 0;
  let quantifiers = 0;
  const fail = (msg: string, at = i): never => {
    throw new QuerySyntaxError(msg, offset + at);
  };
  const tooCostly = (msg: string, at = i): never => {
    throw new QueryLimitError(msg, offset + at);
  };

  const parseClass = (): string => {
    // at '['
    const start = i;
    i++;
    let out = '[';
    if (pattern[i] === '^') {
      out += '^';
      i++;
    }
    let items = 0;
    while (i < pattern.length && pattern[i] !== ']') {
      const c = pattern[i];
      if (c === '\\') {
        const n = pattern[i + 1];
        if (n === undefined) fail('Dangling backslash in regular expression.');
        if (n === 'd' || n === 'w' || n === 's') out += `\\${n}`;
        else if (CLASS_ESCAPES.has(n)) fail(`\\${n} is not supported inside a character class.`);
        else out += escapeClassChar(n);
        i += 2;
      } else if (c === '-' && items > 0 && pattern[i + 1] !== ']') {
        out += '-';
        i++;
        continue; // a range separator does not count as an item
      } else {
        out += escapeClassChar(c);
        i++;
      }
      items++;
    }
    if (i >= pattern.length) fail('Unclosed character class in regular expression.', start);
    if (items === 0) fail('Empty character class in regular expression.', start);
    i++; // ']'
    return `${out}]`;
  };

  const parseAlternation = (depth: number): GroupResult => {
    const branches: string[] = [];
    let quantified = false;
    for (;;) {
      const branchStart = i;
      let out = '';
      let lastAtom: { start: number; hasQuantifier: boolean } | null = null;
      let lastWasQuantifier = false;
      while (i < pattern.length && pattern[i] !== '|' && pattern[i] !== ')') {
        const c = pattern[i];
        if (c === '*' || c === '+' || c === '?' || c === '{') {
          if (!lastAtom) fail('Quantifier without anything to repeat in regular expression.');
          if (lastWasQuantifier) fail('Stacked quantifiers are not supported in regular expressions.');
          // Why refused: a repeated group that itself repeats multiplies the states the engine
          // explores (PostgreSQL: seconds per term; Lucene: too many determinized states).
          if (lastAtom!.hasQuantifier) tooCostly('Nested quantifiers are not supported in regular expressions.');
          if (++quantifiers > MAX_REGEX_QUANTIFIERS) {
            tooCostly(`A regular expression may hold at most ${MAX_REGEX_QUANTIFIERS} quantifiers.`);
          }
          if (c === '{') {
            const m = /^\{(\d{1,6})(,(\d{0,6}))?\}/.exec(pattern.slice(i));
            if (!m) fail('Malformed {n,m} repetition in regular expression.');
            const lo = Number(m![1]);
            const hi = m![3] ? Number(m![3]) : undefined;
            if (hi !== undefined && hi < lo) fail('Invalid repetition count in regular expression.');
            repeatTotal += Math.max(lo, hi ?? 0);
            if (repeatTotal > MAX_REGEX_REPEAT_TOTAL) {
              tooCostly(`Repetition counts of a regular expression may add up to at most ${MAX_REGEX_REPEAT_TOTAL}.`);
            }
            out += m![0];
            i += m![0].length;
          } else {
            out += c;
            i++;
          }
          quantified = true;
          lastWasQuantifier = true;
          continue;
        }
        lastWasQuantifier = false;
        const atomStart = i;
        if (c === '(') {
          if (depth >= 10) tooCostly('Regular expression is nested too deeply.');
          if (pattern[i + 1] === '?') fail('Group modifiers are not supported in regular expressions.');
          i++;
          const inner = parseAlternation(depth + 1);
          if (pattern[i] !== ')') fail('Unclosed group in regular expression.', atomStart);
          i++;
          out += `(${inner.out})`;
          lastAtom = { start: atomStart, hasQuantifier: inner.hasQuantifier };
          if (inner.hasQuantifier) quantified = true;
          continue;
        }
        if (c === '[') {
          out += parseClass();
        } else if (c === ']' || c === '}') {
          fail(`Unbalanced '${c}' in regular expression.`);
        } else if (c === '\\') {
          const n = pattern[i + 1];
          if (n === undefined) fail('Dangling backslash in regular expression.');
          out += CLASS_ESCAPES.has(n) ? `\\${n}` : escapeLiteral(n);
          i += 2;
        } else if (UNSUPPORTED.has(c)) {
          fail(`The regular expression operator '${c}' is not supported.`);
        } else if (c === '.') {
          out += '.';
          i++;
        } else {
          out += escapeLiteral(c);
          i++;
        }
        lastAtom = { start: atomStart, hasQuantifier: false };
      }
      if (out.length === 0) fail('Empty branch in regular expression.', branchStart);
      branches.push(out);
      if (pattern[i] === '|') {
        i++;
        continue;
      }
      break;
    }
    return { out: branches.join('|'), hasQuantifier: quantified };
  };

  const result = parseAlternation(0);
  if (i < pattern.length) fail(`Unbalanced ')' in regular expression.`);
  return result.out;
}

/** Escapes one literal character for use outside a bracket expression in a PostgreSQL ARE. */
function escapeLiteral(c: string): string {
  // Alphanumerics are literal as-is (a backslash before them would make an ARE escape like \m or \y).
  if (/[\p{L}\p{N}_]/u.test(c)) return c;
  if (/\s/.test(c)) return c;
  return `\\${c}`;
}

/** Escapes one literal character inside a PostgreSQL ARE bracket expression. */
function escapeClassChar(c: string): string {
  return c === ']' || c === '\\' || c === '^' || c === '-' || c === '[' ? `\\${c}` : c;
}
