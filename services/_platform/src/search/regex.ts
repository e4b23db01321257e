/**
 * Validates a Lucene regular expression (`q=/…/`) against a safe subset and translates it to a
 * PostgreSQL ARE. Used by the parser (to reject bad patterns up front, so the database never sees an
 * invalid or explosive regex and a bad `q` is a 400, never a 500) and by the SQL compiler.
 *
 * Supported: literals, `.`, `[…]` / `[^…]` classes with ranges, `(…)`, `|`, `*` `+` `?`, `{n}` `{n,}`
 * `{n,m}` (n, m ≤ 255), `\d \w \s \D \W \S`, `\x` for a literal x. Rejected (QuerySyntaxError): Lucene's
 * optional operators `@ & ~ < > # "`, stacked quantifiers (`a**`, lazy `*?`), empty groups/branches,
 * counted repetition nested inside counted repetition, and patterns longer than 256 characters.
 * `^` and `$` are literals in Lucene and are escaped for PostgreSQL.
 */
import { QuerySyntaxError } from './ast.js';

const MAX_REGEX_LENGTH = 256;
const MAX_REPEAT = 255;
const CLASS_ESCAPES = new Set(['d', 'w', 's', 'D', 'W', 'S']);
const UNSUPPORTED = new Set(['@', '&', '~', '<', '>', '#', '"']);

interface GroupResult {
  out: string;
  hasCountedRepeat: boolean;
}

/** Validates a Lucene regex and returns the equivalent PostgreSQL ARE (unanchored). `offset` shifts error positions. */
export function luceneRegexToPostgres(pattern: string, offset = 0): string {
  if (pattern.length === 0) throw new QuerySyntaxError('Empty regular expression.', offset);
  if (pattern.length > MAX_REGEX_LENGTH) throw new QuerySyntaxError('Regular expression is too long.', offset);
  let i = 0;
  const fail = (msg: string, at = i): never => {
    throw new QuerySyntaxError(msg, offset + at);
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
    let counted = false;
    for (;;) {
      const branchStart = i;
      let out = '';
      let lastAtom: { start: number; counted: boolean } | null = null;
      let lastWasQuantifier = false;
      while (i < pattern.length && pattern[i] !== '|' && pattern[i] !== ')') {
        const c = pattern[i];
        if (c === '*' || c === '+' || c === '?' || c === '{') {
          if (!lastAtom) fail('Quantifier without anything to repeat in regular expression.');
          if (lastWasQuantifier) fail('Stacked quantifiers are not supported in regular expressions.');
          if (c === '{') {
            const m = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(pattern.slice(i));
            if (!m) fail('Malformed {n,m} repetition in regular expression.');
            const lo = Number(m![1]);
            const hi = m![3] ? Number(m![3]) : undefined;
            if (lo > MAX_REPEAT || (hi !== undefined && (hi > MAX_REPEAT || hi < lo)))
              fail('Invalid repetition count in regular expression.');
            if (lastAtom!.counted) fail('Nested counted repetition is not supported in regular expressions.');
            out += m![0];
            i += m![0].length;
            counted = true;
          } else {
            out += c;
            i++;
          }
          lastWasQuantifier = true;
          continue;
        }
        lastWasQuantifier = false;
        const atomStart = i;
        if (c === '(') {
          if (depth >= 10) fail('Regular expression is nested too deeply.');
          if (pattern[i + 1] === '?') fail('Group modifiers are not supported in regular expressions.');
          i++;
          const inner = parseAlternation(depth + 1);
          if (pattern[i] !== ')') fail('Unclosed group in regular expression.', atomStart);
          i++;
          out += `(${inner.out})`;
          lastAtom = { start: atomStart, counted: inner.hasCountedRepeat };
          if (inner.hasCountedRepeat) counted = true;
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
        lastAtom = { start: atomStart, counted: false };
      }
      if (out.length === 0) fail('Empty branch in regular expression.', branchStart);
      branches.push(out);
      if (pattern[i] === '|') {
        i++;
        continue;
      }
      break;
    }
    return { out: branches.join('|'), hasCountedRepeat: counted };
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
