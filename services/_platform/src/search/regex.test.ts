import { describe, expect, it } from 'vitest';
import { QuerySyntaxError } from './ast.js';
import { luceneRegexToPostgres } from './regex.js';

describe(luceneRegexToPostgres.name, () => {
  it.each([
    ['\\d{12}', '\\d{12}'],
    ['ab.*', 'ab.*'],
    ['(foo|bar)+baz?', '(foo|bar)+baz?'],
    ['[a-z0-9_]{2,5}', '[a-z0-9_]{2,5}'],
    ['[^\\]x]', '[^\\]x]'],
    ['a^b$', 'a\\^b\\$'],
    ['\\m\\.x', 'm\\.x'],
    ['[\\d-]+', '[\\d\\-]+'],
    ['x{3,}', 'x{3,}'],
  ])('should translate %j to %j', (lucene, pg) => {
    expect(luceneRegexToPostgres(lucene)).toBe(pg);
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(257), 'too long'],
    ['*a', 'quantifier first'],
    ['a**', 'stacked quantifiers'],
    ['a*?', 'lazy quantifier'],
    ['(a', 'unclosed group'],
    ['a)', 'unbalanced )'],
    ['()', 'empty group'],
    ['a||b', 'empty branch'],
    ['[a', 'unclosed class'],
    ['[]', 'empty class'],
    ['[\\D]', 'negated shorthand in a class'],
    ['a{256}', 'repeat over 255'],
    ['a{5,2}', 'reversed repeat'],
    ['a{x}', 'malformed repeat'],
    ['(a{3}){3}', 'nested counted repetition'],
    ['(?i)a', 'group modifier'],
    ['a@', 'any-string operator'],
    ['a&b', 'intersection operator'],
    ['~a', 'complement operator'],
    ['<1-5>', 'numeric interval'],
    ['a\\', 'dangling backslash'],
    ['a]', 'stray ]'],
  ])('should reject %j (%s)', (pattern) => {
    expect(() => luceneRegexToPostgres(pattern)).toThrow(QuerySyntaxError);
  });

  it('should offset error positions', () => {
    try {
      luceneRegexToPostgres('ab**', 10);
      expect.unreachable();
    } catch (e) {
      expect((e as QuerySyntaxError).position).toBe(13);
    }
  });
});
