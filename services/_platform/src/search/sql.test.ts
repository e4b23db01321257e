import { describe, expect, it } from 'vitest';
import { QuerySyntaxError } from './ast.js';
import { parseQuery } from './parser.js';
import { type FieldMap, compileToSql, containmentDoc, parseDatePeriod, rankSql, wildcardToLike } from './sql.js';

const FIELDS: FieldMap = {
  id: { kind: 'keyword', expr: 'id', caseSensitive: true },
  'metadata.title': { kind: 'text', expr: "doc->>'title'" },
  title: 'metadata.title',
  'metadata.description': { kind: 'text', expr: "doc->>'description'", vector: 'description_vector' },
  'access.status': { kind: 'keyword', expr: "doc->'access'->>'status'", contains: { column: 'doc', path: 'access.status' } },
  status: 'access.status',
  keywords: { kind: 'keyword_array', expr: "doc->'keywords'" },
  'parent.communities.ids': { kind: 'keyword_array', expr: "doc->'communities'", caseSensitive: true },
  tags: { kind: 'keyword_array', expr: 'tags', arrayType: 'text[]', caseSensitive: true },
  created: { kind: 'date', expr: 'created' },
  'metadata.publication_date': { kind: 'date', expr: 'pub_start', endExpr: 'pub_end', type: 'date' },
  size: { kind: 'number', expr: 'size' },
};
const NOW = new Date('2024-06-15T12:34:56.789Z');
const sut = (q: string, fields: FieldMap = FIELDS) => compileToSql(parseQuery(q), fields, { now: NOW });
const V = 'search_vector';
const CFG = "'simple'::regconfig";

describe(compileToSql.name, () => {
  describe('unfielded full text', () => {
    it('should match everything for an empty query', () => {
      expect(sut('')).toEqual({ sql: 'TRUE', bindings: [] });
    });

    it('should fold a term and match it on the default tsvector', () => {
      expect(sut('Römäns')).toEqual({ sql: `${V} @@ plainto_tsquery(${CFG}, ?)`, bindings: ['romans'] });
    });

    it('should use phraseto_tsquery for a phrase', () => {
      expect(sut('"Big  Data"')).toEqual({ sql: `${V} @@ phraseto_tsquery(${CFG}, ?)`, bindings: ['big  data'] });
    });

    it('should relax a sloppy phrase to all of its words', () => {
      expect(sut('"big data"~2')).toEqual({ sql: `${V} @@ plainto_tsquery(${CFG}, ?)`, bindings: ['big data'] });
    });

    it('should use a tsquery prefix for a trailing wildcard', () => {
      expect(sut('Phot*')).toEqual({ sql: `${V} @@ to_tsquery(${CFG}, ?)`, bindings: ["'phot':*"] });
    });

    it('should prefilter other wildcards with the GIN prefix and test lexemes with LIKE', () => {
      expect(sut('te?t*')).toEqual({
        sql: `(${V} @@ to_tsquery(${CFG}, ?) AND EXISTS (SELECT 1 FROM unnest(tsvector_to_array(${V})) AS lx(l) WHERE lx.l LIKE ?))`,
        bindings: ["'te':*", 'te_t%'],
      });
    });

    it('should scan lexemes for a leading wildcard', () => {
      expect(sut('*sted')).toEqual({
        sql: `EXISTS (SELECT 1 FROM unnest(tsvector_to_array(${V})) AS lx(l) WHERE lx.l LIKE ?)`,
        bindings: ['%sted'],
      });
    });

    it('should escape LIKE metacharacters in wildcard terms', () => {
      expect(sut('a%b_c*d').bindings).toEqual(["'a':*", 'a\\%b\\_c%d']);
    });

    it('should anchor an unfielded regex on whole lexemes', () => {
      expect(sut('/\\d{12}/')).toEqual({
        sql: `EXISTS (SELECT 1 FROM unnest(tsvector_to_array(${V})) AS lx(l) WHERE lx.l ~ ?)`,
        bindings: ['^(?:\\d{12})$'],
      });
    });

    it('should use a custom full-text target and configuration', () => {
      const out = compileToSql(parseQuery('x'), FIELDS, { fullText: { tsvector: 'r.vec', config: 'english' } });
      expect(out).toEqual({ sql: "r.vec @@ plainto_tsquery('english'::regconfig, ?)", bindings: ['x'] });
    });

    it('should expand wildcards and regexes through a lexicon table when configured', () => {
      const opts = { fullText: { tsvector: 'v', lexicon: { table: 'app.lexemes' } } };
      const expand = (cond: string) =>
        `v @@ (SELECT string_agg('''' || replace(replace(lx.w, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery ` +
        `FROM (SELECT word AS w FROM app.lexemes WHERE word ${cond} LIMIT 10000) AS lx)`;
      expect(compileToSql(parseQuery('te?t*'), FIELDS, opts)).toEqual({ sql: expand('LIKE ?'), bindings: ['te_t%'] });
      expect(compileToSql(parseQuery('/x+/'), FIELDS, opts)).toEqual({ sql: expand('~ ?'), bindings: ['^(?:x+)$'] });
      expect(compileToSql(parseQuery('te*'), FIELDS, opts)).toEqual({
        sql: "v @@ to_tsquery('simple'::regconfig, ?)",
        bindings: ["'te':*"],
      });
    });

    it('should refuse a bad lexicon table name', () => {
      expect(() => compileToSql(parseQuery('x'), FIELDS, { fullText: { tsvector: 'v', lexicon: { table: 'a;b' } } })).toThrow(/identifier/);
    });

    it('should OR over defaultFields when there is no full-text target', () => {
      const out = compileToSql(parseQuery('Open'), FIELDS, { defaultFields: ['id', 'status', 'size'] });
      expect(out).toEqual({ sql: '((id) = ? OR doc @> ?::jsonb)', bindings: ['Open', '{"access":{"status":"open"}}'] });
    });

    it('should refuse a bad configuration name', () => {
      expect(() => compileToSql(parseQuery('x'), FIELDS, { fullText: { tsvector: 'v', config: "x'; drop" } })).toThrow(/configuration/);
    });
  });

  describe('boolean structure', () => {
    it('should join with AND and OR', () => {
      expect(sut('a (b OR c)')).toEqual({
        sql: `(${V} @@ plainto_tsquery(${CFG}, ?) AND (${V} @@ plainto_tsquery(${CFG}, ?) OR ${V} @@ plainto_tsquery(${CFG}, ?)))`,
        bindings: ['a', 'b', 'c'],
      });
    });

    it('should make NOT null-safe', () => {
      expect(sut('NOT status:open')).toEqual({ sql: '(doc @> ?::jsonb) IS NOT TRUE', bindings: ['{"access":{"status":"open"}}'] });
    });

    it('should drop punctuation-only terms', () => {
      expect(sut('a & b')).toEqual({
        sql: `(${V} @@ plainto_tsquery(${CFG}, ?) AND ${V} @@ plainto_tsquery(${CFG}, ?))`,
        bindings: ['a', 'b'],
      });
    });

    it('should match nothing when every term is dropped', () => {
      expect(sut('& -"!"')).toEqual({ sql: 'FALSE', bindings: [] });
    });

    it('should match nothing for an empty disjunction', () => {
      expect(compileToSql({ type: 'or', children: [] }, FIELDS)).toEqual({ sql: 'FALSE', bindings: [] });
    });
  });

  describe('fields', () => {
    it('should match nothing for a glob whose fields all reject the value', () => {
      expect(sut('si*:abc')).toEqual({ sql: 'FALSE', bindings: [] });
    });

    it('should match nothing on an unknown field', () => {
      expect(sut('nope:x')).toEqual({ sql: 'FALSE', bindings: [] });
    });

    it('should match everything for NOT an unknown field', () => {
      expect(sut('NOT nope:x')).toEqual({ sql: '(FALSE) IS NOT TRUE', bindings: [] });
    });

    it('should resolve aliases', () => {
      expect(sut('title:x')).toEqual(sut('metadata.title:x'));
    });

    it('should search a fielded text term on to_tsvector of the folded expression', () => {
      expect(sut('title:Ünïcode')).toEqual({
        sql: `to_tsvector(${CFG}, (doc->>'title')) @@ plainto_tsquery(${CFG}, ?)`,
        bindings: ['unicode'],
      });
    });

    it('should use a field vector when given', () => {
      expect(sut('metadata.description:"a b"')).toEqual({ sql: `description_vector @@ phraseto_tsquery(${CFG}, ?)`, bindings: ['a b'] });
    });

    it('should OR a field glob over the matching fields and skip type errors', () => {
      expect(sut('metadata.*:x')).toEqual({
        sql: `(to_tsvector(${CFG}, (doc->>'title')) @@ plainto_tsquery(${CFG}, ?) OR description_vector @@ plainto_tsquery(${CFG}, ?))`,
        bindings: ['x', 'x'],
      });
    });

    it('should use jsonb containment for a keyword with contains, lower-cased', () => {
      expect(sut('access.status:Open')).toEqual({ sql: 'doc @> ?::jsonb', bindings: ['{"access":{"status":"open"}}'] });
    });

    it('should compare a case-sensitive keyword exactly', () => {
      expect(sut('id:AbC-12')).toEqual({ sql: '(id) = ?', bindings: ['AbC-12'] });
    });

    it('should compare a case-insensitive keyword without containment with lower()', () => {
      const fields: FieldMap = { k: { kind: 'keyword', expr: 'k' } };
      expect(sut('k:"Two Words"', fields)).toEqual({ sql: 'lower((k)) = ?', bindings: ['two words'] });
    });

    it('should use LIKE for a keyword wildcard', () => {
      expect(sut('id:ab?c*')).toEqual({ sql: '(id) LIKE ?', bindings: ['ab_c%'] });
    });

    it('should use case-insensitive regex on a case-insensitive keyword without changing the pattern', () => {
      const fields: FieldMap = { k: { kind: 'keyword', expr: 'k' } };
      expect(sut('k:/\\D+/', fields)).toEqual({ sql: 'lower((k)) ~* ?', bindings: ['^(?:\\D+)$'] });
    });

    it('should use containment for a case-sensitive jsonb array', () => {
      expect(sut('parent.communities.ids:c1')).toEqual({ sql: `(doc->'communities') @> ?::jsonb`, bindings: ['["c1"]'] });
    });

    it('should test elements for a case-insensitive jsonb array', () => {
      expect(sut('keywords:Rome')).toEqual({
        sql: `EXISTS (SELECT 1 FROM jsonb_array_elements_text((doc->'keywords')) AS el(v) WHERE lower(el.v) = ?)`,
        bindings: ['rome'],
      });
    });

    it('should use array containment for a text[] array', () => {
      expect(sut('tags:x')).toEqual({ sql: '(tags) @> ARRAY[?]::text[]', bindings: ['x'] });
    });

    it('should test exists on arrays by emptiness', () => {
      expect(sut('_exists_:keywords').sql).toContain("<> '[]'::jsonb");
      expect(sut('tags:*')).toEqual({ sql: 'cardinality((tags)) > 0', bindings: [] });
    });

    it('should test exists on a scalar with IS NOT NULL', () => {
      expect(sut('_exists_:size')).toEqual({ sql: '(size) IS NOT NULL', bindings: [] });
    });

    it('should compile a keyword range on lower-cased values', () => {
      expect(sut('status:[a TO M}')).toEqual({
        sql: `(lower((doc->'access'->>'status')) >= ? AND lower((doc->'access'->>'status')) < ?)`,
        bindings: ['a', 'm'],
      });
    });
  });

  describe('dates and numbers', () => {
    it('should turn a year into the whole year', () => {
      expect(sut('created:2020')).toEqual({
        sql: '((created) >= ?::timestamptz AND (created) < ?::timestamptz)',
        bindings: ['2020-01-01T00:00:00.000Z', '2021-01-01T00:00:00.000Z'],
      });
    });

    it('should round an inclusive upper bound up and an exclusive lower bound past the period', () => {
      expect(sut('created:{2020 TO 2021-02]').bindings).toEqual(['2021-01-01T00:00:00.000Z', '2021-03-01T00:00:00.000Z']);
    });

    it('should compile comparisons', () => {
      expect(sut('created:<2020-05-03').bindings).toEqual(['2020-05-03T00:00:00.000Z']);
      expect(sut('created:<=2020-05-03').bindings).toEqual(['2020-05-04T00:00:00.000Z']);
    });

    it('should resolve now-based date math', () => {
      expect(sut('created:>=now-1d/d').bindings).toEqual(['2024-06-14T00:00:00.000Z']);
    });

    it('should intersect a date-range field', () => {
      expect(sut('metadata.publication_date:[2020 TO 2021]')).toEqual({
        sql: '((pub_end) >= ?::date AND (pub_start) < ?::date)',
        bindings: ['2020-01-01', '2022-01-01'],
      });
    });

    it.each(['created:2020-13', 'created:2020-02-30', 'created:soon', 'created:[2020 TO x]'])(
      'should reject the invalid date in %j',
      (q) => {
        expect(() => sut(q)).toThrow(QuerySyntaxError);
      },
    );

    it.each(['created:20*', 'created:/20.*/'])('should reject %j on a date field', (q) => {
      expect(() => sut(q)).toThrow(QuerySyntaxError);
    });

    it('should compile numbers with a numeric cast', () => {
      expect(sut('size:[10 TO 2e3}')).toEqual({ sql: '((size) >= ?::numeric AND (size) < ?::numeric)', bindings: ['10', '2e3'] });
      expect(sut('size:-1.5')).toEqual({ sql: '(size) = ?::numeric', bindings: ['-1.5'] });
    });

    it.each(['size:abc', 'size:1e99999', 'size:[1 TO x]', 'size:1*'])('should reject %j on a number field', (q) => {
      expect(() => sut(q)).toThrow(QuerySyntaxError);
    });
  });

  describe('safety', () => {
    it.each([
      ["'; DROP TABLE records; --x", 'b c d e'],
      ['title:"\'); DELETE FROM x; --"', 'title:"abc"'],
      ["status:'or'1'='1", 'status:abc'],
      ['id:?', 'id:?'],
      ["keywords:['a TO 'z]", 'keywords:[a TO z]'],
      ["/'.*/", '/a.*/'],
      ["created:[2020 TO 2021] size:>1 x' OR '1'='1*", 'created:[2020 TO 2021] size:>1 x OR .1*'],
    ])('should keep %j out of the SQL text (same SQL as %j)', (q, benign) => {
      const out = sut(q);
      expect(out.sql).toBe(sut(benign).sql);
      expect((out.sql.match(/\?/g) ?? []).length).toBe(out.bindings.length);
    });
  });
});

describe(rankSql.name, () => {
  it('should rank on the positive unfielded and fielded-text terms', () => {
    expect(rankSql(parseQuery('a "b c" d* -e title:f status:open'), FIELDS)).toEqual({
      sql: `ts_rank_cd(${V}, (plainto_tsquery(${CFG}, ?) || phraseto_tsquery(${CFG}, ?) || to_tsquery(${CFG}, ?) || plainto_tsquery(${CFG}, ?)))`,
      bindings: ['a', 'b c', "'d':*", 'f'],
    });
  });

  it('should count a doubly negated term as positive', () => {
    expect(rankSql({ type: 'not', child: { type: 'not', child: { type: 'term', value: 'x', wildcard: false } } }, FIELDS).bindings).toEqual(
      ['x'],
    );
  });

  it('should be a constant expression (not an ORDER BY position) without positive terms', () => {
    expect(rankSql(parseQuery('-a status:open'), FIELDS)).toEqual({ sql: '0::real', bindings: [] });
  });

  it('should be 0 without a full-text target', () => {
    expect(rankSql(parseQuery('a'), FIELDS, { defaultFields: ['id'] })).toEqual({ sql: '0::real', bindings: [] });
  });
});

describe(wildcardToLike.name, () => {
  it.each([
    ['te?t*', 'te_t%'],
    ['a\\*b*', 'a*b%'],
    ['50%_off*', '50\\%\\_off%'],
    ['back\\\\slash?', 'back\\\\slash_'],
  ])('should turn %j into %j', (pattern, like) => {
    expect(wildcardToLike(pattern)).toBe(like);
  });
});

describe(containmentDoc.name, () => {
  it.each([
    ['access.status', { access: { status: 'v' } }],
    ['parent.communities.ids[]', { parent: { communities: { ids: ['v'] } } }],
    ['metadata.creators[].affiliations[].id', { metadata: { creators: [{ affiliations: [{ id: 'v' }] }] } }],
  ])('should build the document for %j', (path, doc) => {
    expect(containmentDoc(path, 'v')).toEqual(doc);
  });
});

describe(parseDatePeriod.name, () => {
  it.each([
    ['2020', '2020-01-01T00:00:00.000Z', '2021-01-01T00:00:00.000Z'],
    ['2020-02', '2020-02-01T00:00:00.000Z', '2020-03-01T00:00:00.000Z'],
    ['2020-12', '2020-12-01T00:00:00.000Z', '2021-01-01T00:00:00.000Z'],
    ['2020-02-29', '2020-02-29T00:00:00.000Z', '2020-03-01T00:00:00.000Z'],
    ['2020-05-03T10:20', '2020-05-03T10:20:00.000Z', '2020-05-03T10:21:00.000Z'],
    ['2020-05-03T10:20:30Z', '2020-05-03T10:20:30.000Z', '2020-05-03T10:20:31.000Z'],
    ['2020-05-03T10:20:30.5+02:00', '2020-05-03T08:20:30.500Z', '2020-05-03T08:20:30.501Z'],
    ['now', '2024-06-15T12:34:56.789Z', '2024-06-15T12:34:56.790Z'],
    ['now-1y/M', '2023-06-01T00:00:00.000Z', '2023-07-01T00:00:00.000Z'],
    ['now+2h/h', '2024-06-15T14:00:00.000Z', '2024-06-15T15:00:00.000Z'],
    ['now/w', '2024-06-10T00:00:00.000Z', '2024-06-17T00:00:00.000Z'],
  ])('should read %j as [%s, %s)', (v, start, next) => {
    expect(parseDatePeriod(v, NOW)).toEqual({ start, next });
  });

  it('should widen to whole days for date columns', () => {
    expect(parseDatePeriod('2020-05-03T10:20', NOW, 'date')).toEqual({ start: '2020-05-03', next: '2020-05-04' });
    expect(parseDatePeriod('2020', NOW, 'date')).toEqual({ start: '2020-01-01', next: '2021-01-01' });
  });

  it.each(['2021-02-29', '2020-00', '2020-1-1', '20201', '2020-05-03T24:00', 'yesterday', 'now-1x', ''])('should reject %j', (v) => {
    expect(parseDatePeriod(v, NOW)).toBeNull();
  });
});
