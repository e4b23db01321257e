import { describe, expect, it } from 'vitest';
import { QueryLimitError, QuerySyntaxError } from './ast.js';
import { MAX_COSTLY_TERMS, parseQuery, parseQueryLenient } from './parser.js';

const t = (value: string, field?: string) =>
  field === undefined ? { type: 'term', value, wildcard: false } : { type: 'term', field, value, wildcard: false };
const w = (value: string, field?: string) =>
  field === undefined ? { type: 'term', value, wildcard: true } : { type: 'term', field, value, wildcard: true };
const and = (...children: unknown[]) => ({ type: 'and', children });
const or = (...children: unknown[]) => ({ type: 'or', children });
const not = (child: unknown) => ({ type: 'not', child });

describe(parseQuery.name, () => {
  describe('match all', () => {
    it.each(['', '   ', '\t\n', '*', '*:*', '**'])('should parse %j as match-all', (q) => {
      expect(parseQuery(q)).toEqual({ type: 'all' });
    });

    it('should absorb match-all inside a conjunction', () => {
      expect(parseQuery('* AND foo')).toEqual(t('foo'));
    });

    it('should make a disjunction with match-all match all', () => {
      expect(parseQuery('foo OR *')).toEqual({ type: 'all' });
    });
  });

  describe('terms and phrases', () => {
    it('should parse a bare term', () => {
      expect(parseQuery('photo')).toEqual(t('photo'));
    });

    it('should join bare terms with AND by default', () => {
      expect(parseQuery('test foo')).toEqual(and(t('test'), t('foo')));
    });

    it('should keep accents and case for the engine to fold', () => {
      expect(parseQuery('Römäns')).toEqual(t('Römäns'));
    });

    it('should parse a quoted phrase', () => {
      expect(parseQuery('"hello big world"')).toEqual({ type: 'phrase', value: 'hello big world' });
    });

    it('should keep escaped quotes inside a phrase', () => {
      expect(parseQuery('"say \\"hi\\""')).toEqual({ type: 'phrase', value: 'say "hi"' });
    });

    it('should read a phrase slop', () => {
      expect(parseQuery('"a b"~3')).toEqual({ type: 'phrase', value: 'a b', slop: 3 });
    });

    it('should ignore boosts and fuzziness', () => {
      expect(parseQuery('foo^2 bar~1 baz~ "x y"^3')).toEqual(and(t('foo'), t('bar'), t('baz'), { type: 'phrase', value: 'x y' }));
    });

    it('should treat lower-case and/or/not as terms', () => {
      expect(parseQuery('cats and dogs')).toEqual(and(t('cats'), t('and'), t('dogs')));
    });

    it('should treat words that start with an operator as terms', () => {
      expect(parseQuery('ANDROID ORACLE NOTE')).toEqual(and(t('ANDROID'), t('ORACLE'), t('NOTE')));
    });

    it('should keep inner hyphens, plus signs and slashes in a term', () => {
      expect(parseQuery('foo-bar c++ 10.5281/zenodo.123')).toEqual(and(t('foo-bar'), t('c++'), t('10.5281/zenodo.123')));
    });

    it('should unescape backslash escapes in a term', () => {
      expect(parseQuery('a\\:b \\(x\\) \\-y')).toEqual(and(t('a:b'), t('(x)'), t('-y')));
    });

    it('should keep a URL as one unfielded term', () => {
      expect(parseQuery('https://example.org/a')).toEqual(t('https://example.org/a'));
    });
  });

  describe('fields', () => {
    it('should parse field:value', () => {
      expect(parseQuery('title:photo')).toEqual(t('photo', 'title'));
    });

    it('should parse dotted field paths', () => {
      expect(parseQuery('metadata.creators.person_or_org.name:Smith')).toEqual(t('Smith', 'metadata.creators.person_or_org.name'));
    });

    it('should parse field:"phrase"', () => {
      expect(parseQuery('metadata.title:"big data"')).toEqual({ type: 'phrase', field: 'metadata.title', value: 'big data' });
    });

    it('should accept a space after the colon', () => {
      expect(parseQuery('title: photo')).toEqual(t('photo', 'title'));
    });

    it('should apply a field to a group', () => {
      expect(parseQuery('title:(a OR "b c")')).toEqual(or(t('a', 'title'), { type: 'phrase', field: 'title', value: 'b c' }));
    });

    it('should let an inner field override the group field', () => {
      expect(parseQuery('title:(a OR id:b)')).toEqual(or(t('a', 'title'), t('b', 'id')));
    });

    it('should keep a colon inside a value', () => {
      expect(parseQuery('id:urn:x:1')).toEqual(t('urn:x:1', 'id'));
    });

    it('should accept an escaped colon in a field name', () => {
      expect(parseQuery('a\\:b:c')).toEqual(t('c', 'a:b'));
    });

    it('should parse a field glob', () => {
      expect(parseQuery('metadata.*:x')).toEqual(t('x', 'metadata.*'));
    });

    it('should treat *:value as unfielded', () => {
      expect(parseQuery('*:x')).toEqual(t('x'));
    });
  });

  describe('boolean operators', () => {
    it.each([
      ['a AND b', and(t('a'), t('b'))],
      ['a && b', and(t('a'), t('b'))],
      ['a OR b', or(t('a'), t('b'))],
      ['a || b', or(t('a'), t('b'))],
      ['NOT a', not(t('a'))],
      ['!a', not(t('a'))],
      ['-a', not(t('a'))],
      ['+a', t('a')],
      ['a NOT b', and(t('a'), not(t('b')))],
      ['a AND NOT b', and(t('a'), not(t('b')))],
      ['a OR NOT b', or(t('a'), not(t('b')))],
      ['+a -b c', and(t('a'), not(t('b')), t('c'))],
      ['NOT NOT a', t('a')],
      ['a - b', and(t('a'), not(t('b')))],
    ])('should parse %j', (q, expected) => {
      expect(parseQuery(q)).toEqual(expected);
    });

    it('should bind AND tighter than OR', () => {
      expect(parseQuery('a OR b AND c')).toEqual(or(t('a'), and(t('b'), t('c'))));
    });

    it('should bind juxtaposition looser than OR', () => {
      expect(parseQuery('a b OR c')).toEqual(and(t('a'), or(t('b'), t('c'))));
    });

    it('should honour parentheses', () => {
      expect(parseQuery('(a OR b) AND (c OR -d)')).toEqual(and(or(t('a'), t('b')), or(t('c'), not(t('d')))));
    });

    it('should flatten nested conjunctions', () => {
      expect(parseQuery('a AND (b AND c) d')).toEqual(and(t('a'), t('b'), t('c'), t('d')));
    });

    it('should negate a group', () => {
      expect(parseQuery('-(a OR b)')).toEqual(not(or(t('a'), t('b'))));
    });

    it('should negate a fielded clause', () => {
      expect(parseQuery('NOT access.status:open')).toEqual(not(t('open', 'access.status')));
    });
  });

  describe('default operator OR', () => {
    const opts = { defaultOperator: 'OR' } as const;

    it('should join bare terms with OR', () => {
      expect(parseQuery('a b c', opts)).toEqual(or(t('a'), t('b'), t('c')));
    });

    it('should require +terms and drop the optional ones beside them', () => {
      expect(parseQuery('+a b -c', opts)).toEqual(and(t('a'), not(t('c'))));
    });

    it('should exclude -terms from the optional ones', () => {
      expect(parseQuery('a b -c', opts)).toEqual(and(or(t('a'), t('b')), not(t('c'))));
    });

    it('should parse a lone negation as everything but it', () => {
      expect(parseQuery('-a', opts)).toEqual(not(t('a')));
    });
  });

  describe('ranges', () => {
    it.each([
      ['year:[2020 TO 2021]', { type: 'range', field: 'year', gte: '2020', lte: '2021' }],
      ['year:{2020 TO 2021}', { type: 'range', field: 'year', gt: '2020', lt: '2021' }],
      ['year:[2020 TO 2021}', { type: 'range', field: 'year', gte: '2020', lt: '2021' }],
      ['year:{2020 TO 2021]', { type: 'range', field: 'year', gt: '2020', lte: '2021' }],
      ['year:[2020 TO *]', { type: 'range', field: 'year', gte: '2020' }],
      ['year:[* TO 2021]', { type: 'range', field: 'year', lte: '2021' }],
      ['year:[* TO *]', { type: 'exists', field: 'year' }],
      ['year:>=2020', { type: 'range', field: 'year', gte: '2020' }],
      ['year:>2020', { type: 'range', field: 'year', gt: '2020' }],
      ['year:<=2020', { type: 'range', field: 'year', lte: '2020' }],
      ['year:<2020', { type: 'range', field: 'year', lt: '2020' }],
      ['created:[2020-01-01T00:00:00Z TO now]', { type: 'range', field: 'created', gte: '2020-01-01T00:00:00Z', lte: 'now' }],
      ['name:["a b" TO "c\\"d"]', { type: 'range', field: 'name', gte: 'a b', lte: 'c"d' }],
      ['n:[-5 TO 5]', { type: 'range', field: 'n', gte: '-5', lte: '5' }],
      ['year:[ 2020   TO 2021 ]', { type: 'range', field: 'year', gte: '2020', lte: '2021' }],
    ])('should parse %j', (q, expected) => {
      expect(parseQuery(q)).toEqual(expected);
    });

    it('should combine a range with other clauses', () => {
      expect(parseQuery('photo year:[2020 TO 2021] -x')).toEqual(
        and(t('photo'), { type: 'range', field: 'year', gte: '2020', lte: '2021' }, not(t('x'))),
      );
    });

    it('should treat a comparison without a field as a plain term', () => {
      expect(parseQuery('>=5')).toEqual(t('>=5'));
    });
  });

  describe('wildcards, exists and regex', () => {
    it('should flag wildcard terms', () => {
      expect(parseQuery('te?t*')).toEqual(w('te?t*'));
    });

    it('should flag fielded wildcard terms', () => {
      expect(parseQuery('title:phot*')).toEqual(w('phot*', 'title'));
    });

    it('should keep escaped wildcard characters escaped in a wildcard pattern', () => {
      expect(parseQuery('a\\*b*')).toEqual(w('a\\*b*'));
    });

    it('should treat a term with only escaped wildcards as plain', () => {
      expect(parseQuery('a\\*b')).toEqual(t('a*b'));
    });

    it.each([
      ['title:*', 'title'],
      ['_exists_:title', 'title'],
      ['_exists_:"metadata.title"', 'metadata.title'],
      ['title:**', 'title'],
    ])('should parse %j as exists', (q, field) => {
      expect(parseQuery(q)).toEqual({ type: 'exists', field });
    });

    it('should parse an unfielded regex', () => {
      expect(parseQuery('/\\d{12}/')).toEqual({ type: 'regex', value: '\\d{12}' });
    });

    it('should parse a fielded regex with an escaped slash', () => {
      expect(parseQuery('id:/ab\\/c.*/')).toEqual({ type: 'regex', field: 'id', value: 'ab/c.*' });
    });
  });

  describe('malformed queries', () => {
    it.each([
      ['(a OR b', 0, 'missing )'],
      ['a OR b)', 6, 'stray )'],
      ['((a)', 0, 'missing inner )'],
      ['()', 1, 'empty group'],
      ['"unterminated', 0, 'unterminated phrase'],
      ['title:"unterminated', 6, 'unterminated fielded phrase'],
      ['a AND', 2, 'dangling AND'],
      ['a OR', 2, 'dangling OR'],
      ['AND a', 0, 'leading AND'],
      ['OR a', 0, 'leading OR'],
      ['a AND OR b', 2, 'AND followed by OR'],
      ['a &&', 2, 'dangling &&'],
      ['NOT', 0, 'lone NOT'],
      ['a NOT', 2, 'trailing NOT'],
      ['-', 0, 'lone -'],
      ['a +', 2, 'trailing +'],
      ['!', 0, 'lone !'],
      ['title:', 6, 'field without value'],
      ['title: AND b', 6, 'field followed by operator'],
      [':foo', 0, 'value without field'],
      ['title:(', 7, 'field with open group'],
      ['title:()', 7, 'field with empty group'],
      ['year:[2020 TO]', 13, 'range without upper bound'],
      ['year:[TO 2021]', 9, 'range without TO (lower bound is TO)'],
      ['year:[2020 2021]', 11, 'range without TO'],
      ['year:[2020 TO 2021', 5, 'unclosed range'],
      ['year:[2020 TO 2021 x]', 19, 'junk before the closing bracket'],
      ['year:[2020', 5, 'unterminated range'],
      ['[2020 TO 2021]', 0, 'range without field'],
      ['year:>=', 7, 'comparison without value'],
      ['year:>*', 6, 'comparison with star'],
      ['a]', 1, 'stray ]'],
      ['^2', 0, 'boost without term'],
      ['a^', 1, 'boost without number'],
      ['~1', 0, 'fuzzy without term'],
      ['a\\', 1, 'dangling backslash'],
      ['/abc', 0, 'unterminated regex'],
      ['/a**/', 3, 'stacked regex quantifiers'],
      ['/(a/', 1, 'unbalanced regex group'],
      ['/a@b/', 2, 'unsupported regex operator'],
      ['_exists_:', 9, '_exists_ without field'],
      ['_exists_:ti*', 9, '_exists_ with a wildcard'],
      ['ab\u0000c', 2, 'NUL character'],
    ])('should reject %j at position %i (%s)', (q, position) => {
      try {
        parseQuery(q);
        expect.unreachable(`${q} should not parse`);
      } catch (e) {
        expect(e).toBeInstanceOf(QuerySyntaxError);
        expect((e as QuerySyntaxError).position).toBe(position);
        expect((e as QuerySyntaxError).name).toBe('QuerySyntaxError');
      }
    });

    it('should reject a query longer than the limit', () => {
      expect(() => parseQuery('a '.repeat(1001))).toThrow(QueryLimitError);
    });

    it('should accept a query at the limit', () => {
      expect(parseQuery('a'.repeat(2000)).type).toBe('term');
    });

    it('should honour a custom length limit', () => {
      expect(() => parseQuery('abcdef', { maxLength: 5 })).toThrow(QuerySyntaxError);
    });

    it('should reject parentheses nested too deeply', () => {
      expect(() => parseQuery(`${'('.repeat(40)}a${')'.repeat(40)}`)).toThrow(QueryLimitError);
    });

    it('should reject NOT chains nested too deeply', () => {
      expect(() => parseQuery(`${'NOT '.repeat(40)}a`)).toThrow(/nested too deeply/);
    });

    it('should accept nesting within the limit', () => {
      expect(parseQuery(`${'('.repeat(30)}a${')'.repeat(30)}`)).toEqual(t('a'));
    });

    it('should refuse more regex terms than the limit (85 in one q held a records backend for 10 s)', () => {
      expect(() => parseQuery(Array(85).fill('/(.*)x/').join(' '))).toThrow(QueryLimitError);
      expect(() =>
        parseQuery(
          Array(MAX_COSTLY_TERMS + 1)
            .fill('/ab.*/')
            .join(' OR '),
        ),
      ).toThrow(`A query may hold at most ${MAX_COSTLY_TERMS} regular expression or wildcard terms.`);
    });

    it('should count wildcard terms, fielded or not, with regex terms, under NOT and in groups', () => {
      const q = 'a* title:*b -c?d (/x.*/ OR e*f) NOT g*';
      expect(() => parseQuery(q)).toThrow(QueryLimitError);
      expect(parseQuery(q, { maxCostlyTerms: 6 }).type).toBe('and');
    });

    it('should accept the limit of regex and wildcard terms', () => {
      expect(() => parseQuery(Array(MAX_COSTLY_TERMS).fill('ab*').join(' '))).not.toThrow();
    });

    it('should not count plain terms, phrases, exists, ranges or fuzzy terms (fuzziness is ignored)', () => {
      const q = `${Array(50).fill('a').join(' ')} "b c" title:* year:[1 TO 2] d~2 e~`;
      expect(() => parseQuery(q)).not.toThrow();
    });

    it('should refuse a costly regex as a limit, not as a syntax error', () => {
      expect(() => parseQuery('/(.*){255}x/')).toThrow(QueryLimitError);
      expect(() => parseQuery('title:/(a+)+/')).toThrow(QueryLimitError);
    });
  });
});

describe(parseQueryLenient.name, () => {
  it('should parse a valid query like parseQuery', () => {
    expect(parseQueryLenient('a AND b')).toEqual(and(t('a'), t('b')));
  });

  it('should fall back to any of the plain words on a syntax error, operators included (as multi_match does)', () => {
    expect(parseQueryLenient('(foo AND bar')).toEqual(or(t('foo'), t('AND'), t('bar')));
  });

  it('should match nothing when the broken query has no words', () => {
    expect(parseQueryLenient('(((')).toEqual(or());
  });

  it('should still enforce the length limit', () => {
    expect(() => parseQueryLenient(`(${'a'.repeat(3000)}`)).toThrow(QueryLimitError);
  });

  it('should still refuse costly regexes and too many regex or wildcard terms', () => {
    expect(() => parseQueryLenient('/(.*){255}x/')).toThrow(QueryLimitError);
    expect(() => parseQueryLenient(Array(85).fill('/a.*/').join(' '))).toThrow(QueryLimitError);
  });
});
