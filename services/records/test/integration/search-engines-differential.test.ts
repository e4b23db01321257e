/**
 * The engines agree (issue 11 §3): one corpus of record documents (engine-corpus.ts; 10,000+
 * documents by default, `DIFF_PARENTS` parents) in `search_docs` searched by the postgres indexer
 * and, after `reindex`, by the OpenSearch indexer (and the Elasticsearch client through the
 * test-only compatibility proxy for a subset), with 200+ searches over the whole `q` syntax, facet
 * filters, sorts, paging and the four scopes (anonymous, a user with grants / memberships / secret
 * links, an administrator, the caller's own records). Each must give the same total, the same hit
 * keys in the same order, and the same rendered facets.
 *
 * By design (compared as sets, listed here): `bestmatch` with full-text terms orders by relevance
 * (ts_rank_cd vs BM25), so its hits are compared as sets when the whole result fits on the page,
 * and only the totals and facets otherwise.
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { createEngine, type Identity, type Knex, type SearchEngine } from '@rdm/platform';
import { requireOpenSearch, startEsCompatProxy, testDb, type TestDb, testLogger, uniqueId } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineIndexer } from '../../src/search/engine-index.js';
import { parseFacetFilters } from '../../src/search/facet-params.js';
import { renderAggregations } from '../../src/search/facet-render.js';
import type { Indexer, ScopeSpec, SearchPage } from '../../src/search/indexer.js';
import { PostgresIndexer } from '../../src/search/pg-indexer.js';
import { COMMUNITIES, mulberry32, seedCorpus, WORDS } from './engine-corpus.js';

const PARENTS = Number(process.env.DIFF_PARENTS ?? 4700);
const NOW = new Date('2026-01-15T12:00:00Z');
const osUrl = await requireOpenSearch('the records differential suite (postgres vs OpenSearch vs Elasticsearch-via-proxy)');

const anonymous: Identity = { sub: null, roles: [] };
const user7: Identity = { sub: '7', roles: [] };
const curator: Identity = { sub: '12', roles: ['curators'] };
const admin: Identity = { sub: '1', roles: ['admin'] };
const linkHolder = { sub: null, roles: [], links: [{ parentId: '', permission: 'view' as const }] } as Identity;

interface Plan {
  name: string;
  scope: ScopeSpec;
  q: string;
  query?: Record<string, string | string[]>;
  sort: string;
  limit: number;
  offset: number;
  isPublished?: boolean;
}

function buildPlans(linkParent: string): Plan[] {
  (linkHolder as unknown as { links: { parentId: string }[] }).links[0].parentId = linkParent;
  const rnd = mulberry32(2026);
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)].toLowerCase();
  const qs = [
    '',
    '*',
    w(),
    `${w()} ${w()}`,
    `${w()} AND ${w()}`,
    `${w()} OR ${w()}`,
    `NOT ${w()}`,
    `${w()} -${w()}`,
    `+${w()} +${w()}`,
    `"${w()} ${w()}"`,
    'zurich',
    'Zürich',
    'geneve',
    'GENÈVE',
    'naive cafe',
    'ocean*',
    'gla*',
    'c?mate',
    '/glac.*/',
    'metadata.title:climate',
    'title:ocean',
    'metadata.title:"ocean river"',
    'metadata.description:genome',
    'metadata.creators.person_or_org.name:müller',
    'creators.name:garcia',
    'metadata.creators.person_or_org.family_name:Smith',
    'metadata.creators.affiliations.name:"ETH Zürich"',
    'metadata.creators.person_or_org.identifiers.identifier:0000-0002-1010-0001',
    'metadata.creators.role.id:editor',
    'metadata.languages.id:fra',
    'metadata.languages.id:(deu OR jpn)',
    'metadata.rights.id:cc0-1.0',
    'metadata.resource_type.id:dataset',
    'resource_type:image-photo',
    'metadata.resource_type.props.type:publication',
    'metadata.publication_date:[2000 TO 2010]',
    'metadata.publication_date:1999',
    'publication_date:>=2020',
    'publication_date:{1960 TO 1970}',
    'created:[2016-01-01 TO 2016-06-30]',
    'updated:<2015-03-01',
    'versions.index:2',
    'versions.index:>=2',
    'versions.is_latest:false',
    'is_published:true',
    'access.record:restricted',
    'access.status:embargoed',
    'access.embargo.active:true',
    'access.files:restricted',
    'parent.communities.ids:c-alpha',
    'metadata.funding.award.number:100005',
    'metadata.funding.funder.name:european',
    'metadata.related_identifiers.relation_type.id:iscitedby',
    'metadata.version:v2.0',
    'metadata.publisher:zenodo',
    'metadata.subjects.subject:fjord',
    'files.count:2',
    'files.count:[1 TO 2]',
    'NOT files.count:1',
    'files.types:pdf',
    'file_type:csv',
    'files.entries.key:ocean*',
    'files.enabled:false',
    'pids.doi.identifier:10.1234/*',
    '_exists_:metadata.funding.funder.id',
    'metadata.subjects.subject:*',
    'metadata.*:zurich',
    'unknownfield:x',
    `${w()} AND (metadata.languages.id:eng OR metadata.languages.id:fra)`,
    '(climate OR ocean) AND NOT access.record:restricted',
    'created:abc',
  ];
  const scopes: [string, ScopeSpec][] = [
    ['anonymous', { kind: 'published', identity: anonymous, allVersions: false }],
    ['user 7 (member of c-beta)', { kind: 'published', identity: user7, allVersions: false, memberOf: ['c-beta'] }],
    ['curator role, all versions', { kind: 'published', identity: curator, allVersions: true }],
    ['admin', { kind: 'published', identity: admin, allVersions: false }],
    ['secret link', { kind: 'published', identity: linkHolder, allVersions: false }],
    ['user 7 own records', { kind: 'user', identity: user7, allVersions: false }],
    ['user 12 shared with me, all versions', { kind: 'user', identity: curator, allVersions: true, sharedWithMe: true }],
    ['community c-alpha (anonymous)', { kind: 'published', identity: anonymous, allVersions: false, communityId: 'c-alpha' }],
    ['community c-gamma (member)', { kind: 'published', identity: user7, allVersions: false, communityId: 'c-gamma', member: true }],
  ];
  const sorts = ['mostrecent', 'oldest', 'version', 'updated-desc', 'updated-asc', 'mostviewed', 'mostdownloaded', 'bestmatch'];
  const facets: Record<string, string | string[]>[] = [
    {},
    { access_status: 'open' },
    { resource_types: 'publication' },
    { resource_types: ['image::image-photo', 'dataset'] },
    { resource_types: 'image-figure' },
    { file_type: ['pdf', 'csv'] },
    { publication_date: '2000--2010' },
    { publication_date: ['1950', '1990..'] },
    { access_status: ['restricted', 'embargoed'], resource_types: 'software' },
  ];
  const plans: Plan[] = [];
  let i = 0;
  for (const q of qs) {
    for (let k = 0; k < 3; k++, i++) {
      const [sname, scope] = scopes[(i * 7 + k) % scopes.length];
      const sort = q && k === 2 ? 'bestmatch' : sorts[(i + k) % (sorts.length - 1)];
      const query = facets[(i * 5 + k) % facets.length];
      const page = k === 1 && i % 4 === 0 ? 3 : 1;
      const limit = [10, 25, 50][i % 3];
      plans.push({
        name: `q=${JSON.stringify(q)} scope=${sname} sort=${sort} facets=${JSON.stringify(query)} page=${page}`,
        scope,
        q,
        query,
        sort,
        limit,
        offset: (page - 1) * limit,
        isPublished: scope.kind === 'user',
      });
    }
  }
  // Paging deep and wide, every scope without q.
  for (const [sname, scope] of scopes) {
    plans.push({
      name: `scope=${sname} deep page`,
      scope,
      q: '',
      sort: 'mostrecent',
      limit: 100,
      offset: 1900,
      isPublished: scope.kind === 'user',
    });
  }
  for (const c of COMMUNITIES) {
    plans.push({
      name: `community ${c}, curator`,
      scope: { kind: 'published', identity: curator, allVersions: false, communityId: c },
      q: '',
      sort: 'oldest',
      limit: 20,
      offset: 0,
    });
  }
  return plans;
}

async function run(index: Indexer, p: Plan): Promise<{ page?: SearchPage; error?: string }> {
  try {
    const filters = parseFacetFilters(p.query ?? {}, { isPublished: p.isPublished, now: NOW });
    return {
      page: await index.search({
        scope: p.scope,
        q: p.q,
        filters,
        sort: p.sort,
        limit: p.limit,
        offset: p.offset,
        isPublished: p.isPublished,
        now: NOW,
      }),
    };
  } catch (e) {
    return { error: `${(e as { status?: number }).status ?? 500}: ${(e as Error).message}` };
  }
}

const keysOf = (p: SearchPage) => p.hits.map((h) => `${h.kind}:${h.doc.id}`);
const rendered = (p: SearchPage, plan: Plan) =>
  renderAggregations(p.rows, parseFacetFilters(plan.query ?? {}, { isPublished: plan.isPublished, now: NOW }), new Map(), {
    isPublished: plan.isPublished,
  });

describe.skipIf(!osUrl)('record search: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  let t: TestDb;
  let db: Knex;
  let pg: PostgresIndexer;
  let os: EngineIndexer;
  let es: EngineIndexer;
  let engines: SearchEngine[] = [];
  let stopProxy: () => Promise<void>;
  let plans: Plan[];
  let docs = 0;

  beforeAll(async () => {
    t = await testDb('records');
    db = t.db;
    docs = await seedCorpus(db, PARENTS);
    const linkParent = (await db.raw("SELECT parent_id FROM search_docs WHERE access_record = 'restricted' AND kind = 'record' LIMIT 1"))
      .rows[0].parent_id as string;
    plans = buildPlans(linkParent);
    pg = new PostgresIndexer(db, { aggCache: { freshMs: 0 } });
    const prefix = `t${uniqueId().toLowerCase()}-`;
    const osEngine = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 60_000 })) as SearchEngine;
    const proxy = await startEsCompatProxy(osUrl as string);
    stopProxy = () => proxy.close();
    const esEngine = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 60_000 })) as SearchEngine;
    engines = [osEngine, esEngine];
    const logger = testLogger('recdiff');
    os = new EngineIndexer({ db, engine: osEngine, logger, prefix });
    es = new EngineIndexer({ db, engine: esEngine, logger, prefix });
    const built = await os.reindex(2000);
    expect(built.count).toBe(docs);
  }, 600_000);

  afterAll(async () => {
    await engines[0]?.dropIndex(os.alias).catch(() => undefined);
    for (const e of engines) await e.close().catch(() => undefined);
    await stopProxy?.();
    await t?.destroy();
  });

  it('should have a corpus of at least 10,000 documents and 200 searches', () => {
    expect(docs).toBeGreaterThanOrEqual(Number(process.env.DIFF_MIN_DOCS ?? 10_000));
    expect(plans.length).toBeGreaterThanOrEqual(200);
  });

  it('should give the same totals, hits and facets on postgres and OpenSearch for every search', { timeout: 600_000 }, async () => {
    const mismatches: string[] = [];
    let compared = 0;
    let nonEmpty = 0;
    for (const plan of plans) {
      const [a, b] = [await run(pg, plan), await run(os, plan)];
      if (a.error || b.error) {
        if (a.error !== b.error) mismatches.push(`${plan.name}: error ${a.error} vs ${b.error}`);
        continue;
      }
      const [x, y] = [a.page as SearchPage, b.page as SearchPage];
      compared++;
      if (x.total > 0) nonEmpty++;
      if (x.total !== y.total) mismatches.push(`${plan.name}: total ${x.total} vs ${y.total}`);
      const relevance = plan.sort === 'bestmatch' && plan.q.trim() !== '' && plan.q.trim() !== '*';
      if (!relevance) {
        if (JSON.stringify(keysOf(x)) !== JSON.stringify(keysOf(y)))
          mismatches.push(`${plan.name}: hits ${keysOf(x).slice(0, 5)} vs ${keysOf(y).slice(0, 5)}`);
      } else if (x.total <= plan.limit && plan.offset === 0) {
        if (JSON.stringify(keysOf(x).sort()) !== JSON.stringify(keysOf(y).sort())) mismatches.push(`${plan.name}: hit sets differ`);
      }
      if (JSON.stringify(rendered(x, plan)) !== JSON.stringify(rendered(y, plan))) mismatches.push(`${plan.name}: facets differ`);
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(190);
    // The corpus makes most searches find something (an all-empty comparison proves nothing).
    expect(nonEmpty).toBeGreaterThan(compared * 0.6);
  });

  it('should give the same answers through the Elasticsearch 8 client (compatibility proxy)', { timeout: 300_000 }, async () => {
    const mismatches: string[] = [];
    for (const plan of plans.filter((_, i) => i % 5 === 0)) {
      const [a, b] = [await run(os, plan), await run(es, plan)];
      if (a.error !== b.error) mismatches.push(`${plan.name}: error ${a.error} vs ${b.error}`);
      if (a.page && b.page && (a.page.total !== b.page.total || JSON.stringify(keysOf(a.page)) !== JSON.stringify(keysOf(b.page))))
        mismatches.push(`${plan.name}: differs`);
    }
    expect(mismatches).toEqual([]);
  });
});
