import { describe, expect, it } from 'vitest';
import { QueryLimitError, QuerySyntaxError } from './ast.js';
import { luceneRegexToPostgres, MAX_REGEX_QUANTIFIERS, MAX_REGEX_REPEAT_TOTAL } from './regex.js';

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
    ['a{5,2}', 'reversed repeat'],
    ['a{x}', 'malformed repeat'],
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

  describe('cost limits (QueryLimitError: refused, never softened into a word search)', () => {
    it.each([
      ['(.*){255}x', 'a counted repeat of a starred group (the 10 s vocabularies term)'],
      ['(a+)+', 'a plus on a group holding a plus'],
      ['(a*)*', 'a star on a group holding a star'],
      ['(ab?)+c', 'a plus on a group holding an optional'],
      ['(a{3}){3}', 'nested counted repetition'],
      ['((x|y+))*', 'a quantifier two groups out'],
      ['(a|b*){2}', 'a quantifier in one branch'],
      ['a{1000}', 'a count of 1000'],
      ['a{256}', 'a count over PostgreSQL`s maximum'],
      ['.{0,255}x', 'a large upper bound'],
      [`a{${MAX_REGEX_REPEAT_TOTAL + 1}}`, 'one over the repetition total'],
      ['.{0,32}'.repeat(3), 'counts adding up over the total'],
      ['a{2,}'.repeat(3) + 'b{60}', 'open counts adding up over the total'],
      ['a*'.repeat(MAX_REGEX_QUANTIFIERS + 1), 'too many quantifiers'],
      [`${'('.repeat(11)}a${')'.repeat(11)}`, 'groups nested too deeply'],
      ['a'.repeat(257), 'longer than 256 characters'],
    ])('should refuse %j (%s)', (pattern) => {
      expect(() => luceneRegexToPostgres(pattern)).toThrow(QueryLimitError);
    });

    it.each([
      ['(foo|bar)+baz?', 'a quantifier on a group without one'],
      ['\\d{4}-\\d{4}-\\d{4}-\\d{3}[\\dX]', 'an ORCID: counts adding up to 15'],
      [`a{${MAX_REGEX_REPEAT_TOTAL}}`, 'a count at the total'],
      ['.{0,32}.{0,32}', 'counts adding up to the total'],
      ['a*'.repeat(MAX_REGEX_QUANTIFIERS), 'quantifiers at the limit'],
      ['(a(b(c)))+', 'a quantifier on nested groups without quantifiers'],
      ['a'.repeat(256), '256 characters'],
    ])('should accept %j (%s)', (pattern) => {
      expect(() => luceneRegexToPostgres(pattern)).not.toThrow();
    });

    it('should say which limit in the message', () => {
      expect(() => luceneRegexToPostgres('(.*){255}x')).toThrow('Nested quantifiers are not supported in regular expressions.');
      expect(() => luceneRegexToPostgres('a{1000}')).toThrow(
        `Repetition counts of a regular expression may add up to at most ${MAX_REGEX_REPEAT_TOTAL}.`,
      );
    });
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
