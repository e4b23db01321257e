/**
 * The search compiler against the real PostgreSQL: documents stored the way a service stores them
 * (folded tsvector, normalized jsonb doc), queries parsed and compiled, ids checked. Also checks that
 * the hot constructs use their GIN indexes, and that random input never yields a database error.
 */
import { randomBytes } from 'node:crypto';
import knexModule, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FieldMap,
  QuerySyntaxError,
  type SqlFragment,
  compileToSql,
  foldText,
  parseQuery,
  rankSql,
  searchVectorSql,
} from '../../src/search/index.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://rdm:rdm@127.0.0.1:5432/rdm';
const SCHEMA = `search_it_${randomBytes(4).toString('hex')}`;
const NOW = new Date('2024-06-15T12:00:00Z');

interface Doc {
  id: string;
  title: string;
  description: string;
  status: string;
  created: string;
  pub: [string, string] | null;
  keywords: string[] | null;
  subjects: string[];
  size: number | null;
}

const DOCS: Doc[] = [
  {
    id: 'a1',
    title: 'Römäns and Greeks',
    description: 'History of the ancient world',
    status: 'open',
    created: '2020-03-01T10:00:00Z',
    pub: ['2020-01-01', '2020-12-31'],
    keywords: ['History', 'Rome'],
    subjects: ['Ancient History'],
    size: 10,
  },
  {
    id: 'b2',
    title: 'Quantum Physics Primer',
    description: 'An introduction to quantum mechanics',
    status: 'restricted',
    created: '2021-06-15T08:30:00Z',
    pub: ['2021-06-01', '2021-06-30'],
    keywords: ['Physics'],
    subjects: ['Physics'],
    size: 200,
  },
  {
    id: 'c3',
    title: 'Test data set',
    description: 'testing tests tested; foo-bar',
    status: 'open',
    created: '2022-01-10T00:00:00Z',
    pub: null,
    keywords: [],
    subjects: [],
    size: 5,
  },
  {
    id: 'd4',
    title: 'Straße der Römer',
    description: 'Roman roads in Germany',
    status: 'embargoed',
    created: '2019-12-31T23:30:00Z',
    pub: ['2019-01-01', '2020-12-31'],
    keywords: ['rome', 'Roads'],
    subjects: ['Ancient History', 'Transport'],
    size: null,
  },
  {
    id: 'e5',
    title: 'The quick brown fox',
    description: 'jumps over the lazy dog, record 12345, DOI 10.5281/zenodo.12345',
    status: 'open',
    created: '2023-05-05T12:00:00Z',
    pub: ['2023-01-01', '2023-12-31'],
    keywords: null,
    subjects: [],
    size: 42,
  },
];
const ALL = DOCS.map((d) => d.id);

const FIELDS: FieldMap = {
  id: { kind: 'keyword', expr: 'id', caseSensitive: true },
  'metadata.title': { kind: 'text', expr: 'title_folded' },
  title: 'metadata.title',
  'metadata.description': { kind: 'text', expr: "doc->>'description'" },
  'access.status': { kind: 'keyword', expr: "doc->'access'->>'status'", contains: { column: 'doc', path: 'access.status' } },
  access_status: 'access.status',
  created: { kind: 'date', expr: 'created' },
  'metadata.publication_date': { kind: 'date', expr: 'pub_start', endExpr: 'pub_end', type: 'date' },
  publication_date: 'metadata.publication_date',
  keywords: { kind: 'keyword_array', expr: 'keywords' },
  'metadata.subjects.subject': { kind: 'keyword_array', expr: "doc->'subjects'", contains: { column: 'doc', path: 'subjects[]' } },
  size: { kind: 'number', expr: 'size' },
};

let db: Knex;

async function search(q: string): Promise<string[]> {
  const where = compileToSql(parseQuery(q), FIELDS, { now: NOW });
  const rows = await db.withSchema(SCHEMA).from('docs').select('id').whereRaw(where.sql, where.bindings).orderBy('id');
  return rows.map((r: { id: string }) => r.id);
}

describe(compileToSql.name, () => {
  beforeAll(async () => {
    db = knexModule({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 2 } });
    await db.raw(`CREATE SCHEMA "${SCHEMA}"`);
    await db.raw(`
      CREATE TABLE "${SCHEMA}".docs (
        id text PRIMARY KEY,
        title_folded text NOT NULL,
        search_vector tsvector NOT NULL,
        doc jsonb NOT NULL,
        created timestamptz NOT NULL,
        pub_start date,
        pub_end date,
        keywords jsonb,
        size integer
      )`);
    await db.raw(`CREATE INDEX docs_vector_gin ON "${SCHEMA}".docs USING gin (search_vector)`);
    await db.raw(`CREATE INDEX docs_doc_gin ON "${SCHEMA}".docs USING gin (doc jsonb_path_ops)`);
    await db.raw(`CREATE INDEX docs_title_gin ON "${SCHEMA}".docs USING gin (to_tsvector('simple', title_folded))`);
    for (const d of DOCS) {
      const vector = searchVectorSql([d.id, d.title, d.description, ...(d.keywords ?? []), ...d.subjects]);
      await db
        .withSchema(SCHEMA)
        .table('docs')
        .insert({
          id: d.id,
          title_folded: foldText(d.title),
          search_vector: db.raw(vector.sql, vector.bindings),
          doc: JSON.stringify({
            description: foldText(d.description),
            access: { status: d.status },
            subjects: d.subjects.map((s) => s.toLowerCase()),
          }),
          created: d.created,
          pub_start: d.pub?.[0] ?? null,
          pub_end: d.pub?.[1] ?? null,
          keywords: d.keywords === null ? null : JSON.stringify(d.keywords),
          size: d.size,
        });
    }
    await db.raw(`CREATE TABLE "${SCHEMA}".lexemes (word text PRIMARY KEY)`);
    await db.raw(`INSERT INTO "${SCHEMA}".lexemes SELECT DISTINCT unnest(tsvector_to_array(search_vector)) FROM "${SCHEMA}".docs`);
    // Words in no document, with characters the tsquery expansion must quote correctly.
    await db.raw(`INSERT INTO "${SCHEMA}".lexemes VALUES ('it''s'), ('back\\slash'), ('pipe|amp&'), ('quote''''s')`);
    await db.raw(`ANALYZE "${SCHEMA}".docs`);
  });

  afterAll(async () => {
    await db?.raw(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await db?.destroy();
  });

  it.each([
    // match-all and plain terms
    ['', ALL],
    ['*', ALL],
    ['*:*', ALL],
    ['quantum', ['b2']],
    ['QUANTUM', ['b2']],
    // accent folding both ways
    ['romans', ['a1']],
    ['Römäns', ['a1']],
    ['RÖMANS', ['a1']],
    ['strasse', ['d4']],
    ['straße', ['d4']],
    ['romer', ['d4']],
    // phrases
    ['"quantum mechanics"', ['b2']],
    ['"mechanics quantum"', []],
    ['"quick brown fox"', ['e5']],
    ['"quick fox"', []],
    ['"quick fox"~2', ['e5']],
    // boolean logic
    ['quantum physics', ['b2']],
    ['quantum AND history', []],
    ['history OR physics', ['a1', 'b2', 'd4']],
    ['history || physics', ['a1', 'b2', 'd4']],
    ['(history OR physics) AND NOT quantum', ['a1', 'd4']],
    ['(history OR physics) AND NOT (quantum OR germany)', ['a1']],
    ['rome -roads', ['a1']],
    ['+rome -roads', ['a1']],
    ['NOT rome', ['b2', 'c3', 'e5']],
    ['!rome && !physics', ['c3', 'e5']],
    // wildcards
    ['rom*', ['a1', 'd4']],
    ['rom* -germany', ['a1']],
    ['te?t', ['c3']],
    ['tes?s', ['c3']],
    ['*sted', ['c3']],
    ['t*ed', ['c3']],
    ['qu?ck', ['e5']],
    ['foo-ba*', ['c3']],
    ['zzz*', []],
    // regex on lexemes
    ['/\\d{5}/', ['e5']],
    ['/rom[ae]ns?/', ['a1', 'd4']],
    ['/qu/', []],
    // identifiers
    ['10.5281/zenodo.12345', ['e5']],
    ['id:a1', ['a1']],
    ['id:A1', []],
    ['id:a*', ['a1']],
    ['a1', ['a1']],
    // fielded text
    ['title:quantum', ['b2']],
    ['title:history', []],
    ['metadata.description:history', ['a1']],
    ['title:primer OR title:fox', ['b2', 'e5']],
    ['title:(primer OR fox)', ['b2', 'e5']],
    ['title:"quick brown"', ['e5']],
    ['title:rom*', ['a1', 'd4']],
    ['title:romans', ['a1']],
    ['metadata.*:germany', ['d4']],
    // keywords
    ['access.status:open', ['a1', 'c3', 'e5']],
    ['access_status:OPEN', ['a1', 'c3', 'e5']],
    ['NOT access.status:open', ['b2', 'd4']],
    ['access.status:(restricted OR embargoed)', ['b2', 'd4']],
    ['access.status:emb*', ['d4']],
    ['access.status:/(open|restricted)/', ['a1', 'b2', 'c3', 'e5']],
    ['keywords:rome', ['a1', 'd4']],
    ['keywords:ROADS', ['d4']],
    ['keywords:ro*', ['a1', 'd4']],
    ['keywords:*', ['a1', 'b2', 'd4']],
    ['NOT _exists_:keywords', ['c3', 'e5']],
    ['metadata.subjects.subject:"Ancient History"', ['a1', 'd4']],
    ['metadata.subjects.subject:transport', ['d4']],
    // dates
    ['created:[2020 TO 2021]', ['a1', 'b2']],
    ['created:>=2022', ['c3', 'e5']],
    ['created:2019', ['d4']],
    ['created:2019-12-31', ['d4']],
    ['created:{2019 TO 2021}', ['a1']],
    ['created:[2019-12-31T23:00:00Z TO 2020-03-01T10:00:00Z]', ['a1', 'd4']],
    ['created:<2020', ['d4']],
    ['created:[now-2y TO now]', ['e5']],
    ['publication_date:2020', ['a1', 'd4']],
    ['publication_date:[2021-01 TO 2021-12]', ['b2']],
    ['publication_date:>2020', ['b2', 'e5']],
    ['_exists_:publication_date', ['a1', 'b2', 'd4', 'e5']],
    // numbers
    ['size:>=10', ['a1', 'b2', 'e5']],
    ['size:[* TO 9]', ['c3']],
    ['size:{5 TO 200}', ['a1', 'e5']],
    ['size:42', ['e5']],
    ['_exists_:size', ['a1', 'b2', 'c3', 'e5']],
    ['size:*', ['a1', 'b2', 'c3', 'e5']],
    ['NOT size:*', ['d4']],
    // unknown fields and dropped terms
    ['unknown:foo', []],
    ['NOT unknown:foo', ALL],
    ['&', []],
    ['quantum &', ['b2']],
    // mixed
    ['rom* AND created:[2020 TO *] access.status:open', ['a1']],
    ['(title:quantum OR keywords:rome) -publication_date:2019', ['a1', 'b2']],
  ])('should answer %j with %j', async (q, ids) => {
    expect(await search(q)).toEqual(ids);
  });

  it.each([
    ['te?t', ['c3']],
    ['*sted', ['c3']],
    ['t*ed', ['c3']],
    ['rom*', ['a1', 'd4']],
    ['foo-ba*', ['c3']],
    ['/\\d{5}/', ['e5']],
    ['/rom[ae]ns?/', ['a1', 'd4']],
    ['/t.*s/ -greeks', ['c3']],
    ['/.*s.*/ -/.*o.*/', []],
    ["/.*['|&\\\\].*/", []],
    ['NOT *sted', ['a1', 'b2', 'd4', 'e5']],
    ['zz?z', []],
  ])('should answer %j with %j through the lexicon as without it', async (q, ids) => {
    expect(await search(q)).toEqual(ids);
    const opts = { now: NOW, fullText: { tsvector: 'search_vector', lexicon: { table: `${SCHEMA}.lexemes` } } };
    const where = compileToSql(parseQuery(q), FIELDS, opts);
    const rows = await db.withSchema(SCHEMA).from('docs').select('id').whereRaw(where.sql, where.bindings).orderBy('id');
    expect(rows.map((r: { id: string }) => r.id)).toEqual(ids);
  });

  it('should order by a rank without positive terms', async () => {
    const ast = parseQuery('-quantum');
    const rank = rankSql(ast, FIELDS);
    const where = compileToSql(ast, FIELDS);
    const rows = await db
      .withSchema(SCHEMA)
      .from('docs')
      .select('id')
      .whereRaw(where.sql, where.bindings)
      .orderByRaw(`${rank.sql} DESC, id`, rank.bindings);
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['a1', 'c3', 'd4', 'e5']);
  });

  it('should reject a bad date on a date field as a syntax error', async () => {
    await expect(search('created:2020-13-01')).rejects.toBeInstanceOf(QuerySyntaxError);
  });

  it('should rank bestmatch by the number of matching terms', async () => {
    const ast = parseQuery('roman OR romans OR roads');
    const where = compileToSql(ast, FIELDS);
    const rank = rankSql(ast, FIELDS);
    const rows = await db
      .withSchema(SCHEMA)
      .from('docs')
      .select('id', db.raw(`${rank.sql} AS score`, rank.bindings))
      .whereRaw(where.sql, where.bindings)
      .orderByRaw(`${rank.sql} DESC, id`, rank.bindings);
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['d4', 'a1']);
    expect(Number(rows[0].score)).toBeGreaterThan(Number(rows[1].score));
  });

  describe('index use', () => {
    const plan = async (q: string): Promise<string> =>
      db.transaction(async (trx) => {
        await trx.raw('SET LOCAL enable_seqscan = off');
        const where = compileToSql(parseQuery(q), FIELDS, { now: NOW });
        const res = await trx.raw(`EXPLAIN SELECT id FROM "${SCHEMA}".docs WHERE ${where.sql}`, where.bindings);
        return res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      });

    it.each([
      ['quantum', /docs_vector_gin/],
      ['"quantum mechanics"', /docs_vector_gin/],
      ['quan*', /docs_vector_gin/],
      ['te?t', /docs_vector_gin/],
      ['title:quantum', /docs_title_gin/],
      ['access.status:open', /docs_doc_gin/],
      ['metadata.subjects.subject:physics', /docs_doc_gin/],
      ['quantum access.status:open', /docs_(vector|doc)_gin/],
      ['quantum -access.status:open', /docs_vector_gin/],
    ])('should let %j use an index (%s)', async (q, index) => {
      const p = await plan(q);
      expect(p).toMatch(index);
      expect(p).toContain('Bitmap Index Scan');
    });
  });

  describe('robustness', () => {
    it('should never make the database fail on random input', async () => {
      const alphabet = [
        'a',
        'b',
        'é',
        ' ',
        ' ',
        '"',
        '(',
        ')',
        '[',
        ']',
        '{',
        '}',
        ':',
        '*',
        '?',
        '\\',
        '/',
        '-',
        '+',
        '!',
        '&',
        '|',
        '^',
        '~',
        "'",
        '%',
        '_',
        '>',
        '=',
        '<',
        'AND',
        'OR',
        'NOT',
        'TO',
        'title',
        'size',
        'created',
        'keywords',
        'id',
        '2020',
        '1',
        '.',
        ',',
        'now',
      ];
      let seed = 42;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      let executed = 0;
      for (let i = 0; i < 400; i++) {
        const q = Array.from({ length: 1 + rand(12) }, () => alphabet[rand(alphabet.length)]).join('');
        let where: SqlFragment;
        try {
          where = compileToSql(parseQuery(q), FIELDS, { now: NOW });
        } catch (e) {
          expect(e, q).toBeInstanceOf(QuerySyntaxError);
          continue;
        }
        try {
          await db.withSchema(SCHEMA).from('docs').select('id').whereRaw(where.sql, where.bindings);
        } catch (e) {
          throw new Error(`q=${JSON.stringify(q)} sql=${where.sql} bindings=${JSON.stringify(where.bindings)}: ${(e as Error).message}`);
        }
        executed++;
      }
      expect(executed).toBeGreaterThan(100);
    });
  });
});
