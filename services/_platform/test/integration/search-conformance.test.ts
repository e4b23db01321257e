/**
 * Conformance of the search engines: the same generated corpus stored in PostgreSQL (the `postgres`
 * engine: folded columns + tsvector, `compileToSql`) and in a real OpenSearch 2.19 index (the DSL
 * builder), read through `OpenSearchEngine` and through `ElasticsearchEngine` (the 8.x client via the
 * test-only compatibility proxy). Every query of the corpus must give the same total, the same ids in
 * the same order under total sorts, the same facet buckets; every bad query a `QuerySyntaxError` (400)
 * on every engine. Relevance order (`bestmatch`) differs by design (ts_rank_cd vs BM25) and is not compared.
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AggBucket,
  type IndexDefinition,
  type QueryAst,
  QuerySyntaxError,
  type SearchEngine,
  type SortKey,
  compileToSql,
  createEngine,
  dateField,
  foldText,
  fullTextField,
  keywordField,
  longField,
  parseQuery,
  searchTextOf,
  searchVectorSql,
  textField,
} from '../../src/search/index.js';
import { requireOpenSearch, startEsCompatProxy, testDb, type TestDb, uniqueId } from '../../src/testing/index.js';
import { BAD_QUERIES, type CDoc, DSL_FIELDS, QUERIES, SQL_FIELDS, fullTexts, generateCorpus } from './conformance/corpus.js';

const N = Number(process.env.CONFORMANCE_DOCS ?? 3000);
const NOW = new Date('2025-01-15T12:00:00Z');
const osUrl = await requireOpenSearch('the search conformance suite (postgres vs OpenSearch vs Elasticsearch-via-proxy)');

const MAPPINGS = {
  dynamic: 'strict',
  properties: {
    id: keywordField(),
    seq: longField(),
    title: textField(),
    description: textField(),
    creators: textField(),
    type: keywordField(),
    languages: keywordField(),
    tags: keywordField(),
    visibility: keywordField(),
    created: dateField(),
    pub_start: { type: 'date', format: 'strict_date' },
    pub_end: { type: 'date', format: 'strict_date' },
    views: longField(),
    search_text: fullTextField(),
  },
};

const SORT_CREATED: SortKey[] = [
  { path: 'created', order: 'desc' },
  { path: 'seq', order: 'desc' },
];
const SORT_VIEWS: SortKey[] = [
  { path: 'views', order: 'asc' },
  { path: 'seq', order: 'asc' },
];
const SORT_SEQ: SortKey[] = [{ path: 'seq', order: 'asc' }];

interface Answer {
  total: number;
  ids: string[];
  facets: Record<string, AggBucket[]>;
}

interface Ask {
  ast: QueryAst;
  filters?: QueryAst[];
  postFilters?: QueryAst[];
  sort: SortKey[];
  from: number;
  size: number;
}

const SQL_SORT: Record<string, string> = {
  created: 'created',
  seq: 'seq',
  views: 'views',
};

let t: TestDb;
let db: Knex;
let os: SearchEngine;
let es: SearchEngine;
let proxy: { url: string; close: () => Promise<void> };
const alias = `conformance-${uniqueId()}`;
const def: IndexDefinition = { alias, version: 1, mappings: MAPPINGS };

function row(d: CDoc) {
  const v = searchVectorSql(fullTexts(d));
  return {
    id: d.id,
    seq: d.seq,
    title_f: foldText(d.title),
    description_f: d.description === null ? null : foldText(d.description),
    creators_f: d.creators.length ? foldText(d.creators.join('\n')) : null,
    type: d.type,
    languages: JSON.stringify(d.languages),
    tags: JSON.stringify(d.tags),
    visibility: d.visibility,
    created: d.created,
    pub_start: d.pub?.[0] ?? null,
    pub_end: d.pub?.[1] ?? null,
    views: d.views,
    search_vector: db.raw(v.sql, v.bindings),
  };
}

function source(d: CDoc) {
  return {
    id: d.id,
    seq: d.seq,
    title: d.title,
    description: d.description,
    creators: d.creators,
    type: d.type,
    languages: d.languages,
    tags: d.tags,
    visibility: d.visibility,
    created: d.created,
    pub_start: d.pub?.[0] ?? null,
    pub_end: d.pub?.[1] ?? null,
    views: d.views,
    search_text: searchTextOf(fullTexts(d)),
  };
}

async function sqlAsk(a: Ask): Promise<Answer> {
  const where = (q: Knex.QueryBuilder, asts: QueryAst[]) => {
    for (const f of asts) {
      const w = compileToSql(f, SQL_FIELDS, { now: NOW });
      q.whereRaw(w.sql, w.bindings);
    }
    return q;
  };
  const base = () => where(db('docs'), [a.ast, ...(a.filters ?? [])]);
  const hits = where(base(), a.postFilters ?? []);
  const order = a.sort.map((s) => `${SQL_SORT[s.path]} ${s.order} NULLS LAST`).join(', ');
  const [ids, total, types, langs] = await Promise.all([
    hits.clone().select('id').orderByRaw(order).offset(a.from).limit(a.size),
    hits.clone().count({ n: '*' }).first(),
    base().select('type as key').count({ count: '*' }).groupBy('type').orderByRaw('count(*) desc, type collate "C"'),
    base()
      .crossJoin(db.raw('jsonb_array_elements_text(languages) as el(v)'))
      .select('el.v as key')
      .count({ count: '*' })
      .groupBy('el.v')
      .orderByRaw('count(*) desc, el.v collate "C"'),
  ]);
  const buckets = (rows: any[]) => rows.map((r) => ({ key: String(r.key), count: Number(r.count) }));
  return {
    total: Number((total as any).n),
    ids: (ids as { id: string }[]).map((r) => r.id),
    facets: { type: buckets(types), language: buckets(langs) },
  };
}

async function engineAsk(e: SearchEngine, a: Ask): Promise<Answer> {
  const res = await e.search(alias, {
    query: a.ast,
    fields: DSL_FIELDS,
    dsl: { now: NOW },
    filters: a.filters,
    postFilters: a.postFilters,
    sort: a.sort,
    from: a.from,
    size: a.size,
    sourceIncludes: ['id'],
    aggs: { type: { type: 'terms', path: 'type' }, language: { type: 'terms', path: 'languages' } },
  });
  return { total: res.total, ids: res.hits.map((h) => h.id), facets: { type: res.aggregations.type, language: res.aggregations.language } };
}

const parse = (q: string) => parseQuery(q, { defaultOperator: 'OR' });

describe.skipIf(!osUrl)('search conformance: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  beforeAll(async () => {
    const corpus = generateCorpus(N);
    t = await testDb('conformance', { migrationsDir: false });
    db = t.db;
    await db.raw(`CREATE TABLE docs (
      id text PRIMARY KEY, seq int NOT NULL, title_f text NOT NULL, description_f text, creators_f text,
      type text NOT NULL, languages jsonb NOT NULL, tags jsonb NOT NULL, visibility text NOT NULL,
      created timestamptz NOT NULL, pub_start date, pub_end date, views int, search_vector tsvector NOT NULL)`);
    for (let i = 0; i < corpus.length; i += 500) await db('docs').insert(corpus.slice(i, i + 500).map(row));
    os = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 30_000 })) as SearchEngine;
    proxy = await startEsCompatProxy(osUrl as string);
    es = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 30_000 })) as SearchEngine;
    await os.ensureIndex(def);
    for (let i = 0; i < corpus.length; i += 1000) {
      const res = await os.bulk(
        alias,
        corpus.slice(i, i + 1000).map((d) => ({ op: 'index' as const, id: d.id, version: 1, source: source(d) })),
      );
      expect(res.failed).toEqual([]);
    }
    await os.refresh(alias);
  });

  afterAll(async () => {
    await os?.dropIndex(alias).catch(() => undefined);
    await os?.close();
    await es?.close();
    await proxy?.close();
    await t?.destroy();
  });

  it(`answers ${QUERIES.length} queries identically (all ids, totals, facets) on all three engines`, async () => {
    const mismatches: string[] = [];
    for (const q of QUERIES) {
      const ask: Ask = { ast: parse(q), sort: SORT_SEQ, from: 0, size: N };
      let pg: Answer;
      let answers: Answer[];
      try {
        [pg, ...answers] = await Promise.all([sqlAsk(ask), engineAsk(os, ask), engineAsk(es, ask)]);
      } catch (e) {
        mismatches.push(`q=${JSON.stringify(q)}: ${e}`);
        continue;
      }
      for (const [name, got] of [
        ['opensearch', answers[0]],
        ['elasticsearch', answers[1]],
      ] as const) {
        if (got.total !== pg.total || JSON.stringify(got.ids) !== JSON.stringify(pg.ids)) {
          const extra = got.ids.filter((id) => !pg.ids.includes(id)).slice(0, 5);
          const missing = pg.ids.filter((id) => !got.ids.includes(id)).slice(0, 5);
          mismatches.push(`${name} q=${JSON.stringify(q)}: total ${got.total} vs postgres ${pg.total}; extra ${extra} missing ${missing}`);
        } else if (JSON.stringify(got.facets) !== JSON.stringify(pg.facets)) {
          mismatches.push(`${name} q=${JSON.stringify(q)}: facets ${JSON.stringify(got.facets)} vs postgres ${JSON.stringify(pg.facets)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  }, 900_000);

  it('the corpus exercises the engines (most queries match something, none matches everything by accident)', async () => {
    let nonEmpty = 0;
    for (const q of QUERIES) if ((await sqlAsk({ ast: parse(q), sort: SORT_SEQ, from: 0, size: 1 })).total > 0) nonEmpty++;
    expect(nonEmpty).toBeGreaterThan(QUERIES.length * 0.8);
  }, 300_000);

  it('pages the same way under total sorts (created desc, views asc with missing last)', async () => {
    for (const q of ['ocean OR river', 'type:dataset', '', 'NOT language:eng']) {
      for (const sort of [SORT_CREATED, SORT_VIEWS]) {
        for (const from of [0, 25, 50, 975]) {
          const ask: Ask = { ast: parse(q), sort, from, size: 25 };
          const pg = await sqlAsk(ask);
          expect((await engineAsk(os, ask)).ids, `${q} ${sort[0].path} from ${from}`).toEqual(pg.ids);
          expect((await engineAsk(es, ask)).ids, `${q} ${sort[0].path} from ${from} (es)`).toEqual(pg.ids);
        }
      }
    }
  }, 300_000);

  it('applies permission filters to hits and facets, and post filters (facet selections) to hits only', async () => {
    const scope = parse('visibility:public OR id:(d00001 OR d00002 OR d00003)');
    const selection = parse('type:Dataset OR type:image');
    const ask: Ask = { ast: parse('ocean OR glacier'), filters: [scope], postFilters: [selection], sort: SORT_CREATED, from: 0, size: 50 };
    const pg = await sqlAsk(ask);
    expect(pg.total).toBeGreaterThan(0);
    expect(pg.facets.type.length).toBeGreaterThan(2); // facets ignore the selection
    expect(await engineAsk(os, ask)).toEqual(pg);
    expect(await engineAsk(es, ask)).toEqual(pg);
  });

  it(`rejects ${BAD_QUERIES.length} bad queries with a QuerySyntaxError on every engine`, async () => {
    const accepted: string[] = [];
    for (const q of BAD_QUERIES) {
      const outcomes = await Promise.all(
        [
          (async () => compileToSql(parse(q), SQL_FIELDS, { now: NOW }))(),
          (async () => engineAsk(os, { ast: parse(q), sort: SORT_SEQ, from: 0, size: 1 }))(),
          (async () => engineAsk(es, { ast: parse(q), sort: SORT_SEQ, from: 0, size: 1 }))(),
        ].map((p) =>
          p.then(
            () => 'ok',
            (e) => (e instanceof QuerySyntaxError ? '400' : `other: ${e}`),
          ),
        ),
      );
      if (outcomes.some((o) => o !== '400')) accepted.push(`${q}: ${outcomes.join(' / ')}`);
    }
    expect(accepted).toEqual([]);
  });
});
