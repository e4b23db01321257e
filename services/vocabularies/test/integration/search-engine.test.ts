/**
 * The large vocabularies (affiliations, funders, awards, names, subjects) on OpenSearch (and the
 * Elasticsearch 8 client through the compatibility proxy) answer as the default postgres engine over
 * the same database: same hits in the same order for total sorts, same totals, same awards facet,
 * same 400s, for ≥ 20 `q` and ≥ 10 `suggest` values per type (folding, paging, tags, unlisted).
 * Under `bestmatch` the relevance order differs by design: compared as sets.
 * Also: the fixture load reaches the index through the outbox, a private NATS and the durable indexer
 * (records/s printed); read-your-writes of API writes; a late (older) write never overwrites a newer
 * document, delete + re-create included; `reindex` while searches keep answering; engine down → 503.
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { createServer } from 'node:net';
import {
  createLogger,
  ensureStream,
  eventSubjects,
  type IndexerHandle,
  OutboxRelay,
  SYSTEM,
  type SearchEngine,
  createEngine,
} from '@rdm/platform';
import {
  type NatsServerProcess,
  requireOpenSearch,
  spawnNatsServer,
  startEsCompatProxy,
  type TestDb,
  testLogger,
  testNats,
  uniqueId,
  waitFor,
} from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadVocabularies } from '../../src/domain/loader.service.js';
import { VocabularySearchIndex } from '../../src/search/entry-index.js';
import { largeVocabularyCorpus } from '../corpus.js';
import { as, BASE, loadedDb, SECRET } from './setup.js';
import { gatewayFront } from '@rdm/platform/testing';

const osUrl = await requireOpenSearch('vocabularies search on OpenSearch/Elasticsearch');

const USER = as({ sub: '2', roles: [] });
const SYS = as(SYSTEM);
const ADMIN = as({ sub: '1', roles: ['admin'] });
const SIZES = { affiliations: 300, funders: 120, awards: 600, names: 1500, subjects: 500 };
const prefix = `t${uniqueId()}-`;
const logger = createLogger('vocabularies-search-test', process.env.TEST_LOG_LEVEL ?? 'silent');

type App = ReturnType<typeof createApp>;
let t: TestDb;
let server: NatsServerProcess;
let nats: Awaited<ReturnType<typeof testNats>>;
let relay: OutboxRelay;
let indexer: IndexerHandle;
let proxy: { url: string; close: () => Promise<void> };
let os: SearchEngine;
let es: SearchEngine;
let index: VocabularySearchIndex;
const apps: Record<'postgres' | 'opensearch' | 'elasticsearch', App> = {} as never;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const appWith = (search?: VocabularySearchIndex) =>
  createApp({
    config: { PUBLIC_BASE_URL: BASE, IDENTITY_SECRET: SECRET, ENTRY_CACHE_SIZE: 100, ENTRY_CACHE_TTL_MS: 60_000 },
    logger,
    db: t.db,
    search,
  });

/** Documents in the index for the large types, after a refresh. */
async function indexedCount(engine: SearchEngine = os): Promise<number> {
  await engine.refresh(index.def.alias);
  const res = await engine.search(index.def.alias, { query: { type: 'all' }, fields: {}, sort: [], from: 0, size: 0 });
  return res.total;
}

async function largeRowCount(): Promise<number> {
  const r = await t.db('entries').whereIn('type', ['affiliations', 'funders', 'awards', 'names', 'subjects']).count('* as n').first();
  return Number((r as { n: string }).n);
}

const get = (app: App, path: string, who: Record<string, string>) => request(gatewayFront(app.app.callback(), SECRET)).get(path).set(who);
const shape = (b: any) => ({
  status: b.status,
  total: b.hits?.total,
  ids: b.hits?.hits?.map((e: any) => e.id),
  aggregations: b.aggregations,
});

/** `q` values per type: shared ones, then the type's own fields. ≥ 20 per type. */
const COMMON_Q = [
  '',
  'zurich',
  'Zürich',
  'ZÜRICH',
  'munchen',
  'krakow OR tromso',
  'geneve AND 12',
  'NOT geneve',
  'gen*',
  'océ*',
  '"institut fur"',
  'title.en:ecology',
  'title.de:physik',
  'tags:legacy',
  'tags:unlisted',
  'created:[2000 TO *]',
  'nothingatall',
  'unknownfield:x',
  'NOT unknownfield:x',
  '@type:names',
  '(bad',
  'created:abc',
];
const TYPE_Q: Record<string, string[]> = {
  affiliations: [
    'name:universite',
    'acronym:aeth0',
    'acronym.keyword:AETH0',
    'country:ch',
    'status:inactive',
    'types:facility',
    'identifiers.scheme:isni',
    'aliases:university',
    'country_name:switzerland',
    'location_name:tromso',
    'cern',
    'id:01ggx4157',
  ],
  funders: [
    'name:academy',
    'types:government',
    'country:NO',
    'aliases:"research council"',
    'location_name:arhus',
    'identifiers.identifier:0f00007',
  ],
  awards: [
    'number:100005',
    'program:"horizon europe"',
    'funder.id:0f00001',
    'acronym:eclat*',
    'oceans',
    'glaciers AND arctic*',
    'identifiers.identifier:"https://cordis.europa.eu/project/id/100042"',
  ],
  names: [
    'muller',
    'Müller',
    'given_name:jose',
    'family_name:lecki',
    'ostergaard',
    'strasse',
    'dvorak',
    'nguyen',
    'identifiers.identifier:0000-0002-1007-0007',
    'affiliations.name:hochschule',
    'affiliations.id:0a00001',
    'props.department:ecology',
  ],
  subjects: [
    'scheme:MeSH',
    'subject:theorie',
    'synonyms:studies',
    'uberblick',
    'id:"https://id.nlm.nih.gov/mesh/D000003"',
    'title.de:thema',
  ],
};
/** `suggest` values per type. ≥ 10 per type. */
const COMMON_SUGGEST = ['zur', 'Zür', 'mun', 'inst fur', 'o', 'x', 'gen 1', 'genève 12', 'abcdefghijklmnopqrstuvwxyz', '!!!', 'ecol'];
const TYPE_SUGGEST: Record<string, string[]> = {
  affiliations: ['CERN', 'cern', 'aeth', 'universite', 'switzer'],
  funders: ['academy', 'FETH', 'research coun'],
  awards: ['ARCTIC', 'eclat', '10001', 'zuri-1'],
  names: ['mul', 'jos mul', 'ostergaard', 'lukasz', 'smith, a', '0000-0002'],
  subjects: ['MeSH:phys', 'FOS,LCSH:eco', 'eco', 'theo', 'MeSH:'],
};
const TOTAL_SORT: Record<string, string> = { affiliations: 'name', funders: 'name', awards: 'newest', names: 'name', subjects: 'subject' };
const TYPES = Object.keys(TOTAL_SORT);

describe.skipIf(!osUrl)('large vocabularies: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  beforeAll(async () => {
    t = await loadedDb();
    await loadVocabularies(t.db, largeVocabularyCorpus(SIZES));
    server = spawnNatsServer({ port: await freePort() });
    await server.start();
    nats = await testNats(server.url);
    await ensureStream(nats.jsm, { name: 'VOCABULARIES', subjects: eventSubjects('vocabularies') });
    proxy = await startEsCompatProxy(osUrl as string);
    os = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 30_000 })) as SearchEngine;
    es = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 30_000 })) as SearchEngine;
    index = new VocabularySearchIndex(os, t.db, testLogger(), prefix);
    apps.postgres = appWith();
    apps.opensearch = appWith(index);
    apps.elasticsearch = appWith(new VocabularySearchIndex(es, t.db, testLogger(), prefix));
    // The fixture load reaches the index the production way: outbox → relay → NATS → durable indexer (bulk).
    const expected = await largeRowCount();
    const t0 = performance.now();
    relay = new OutboxRelay({ db: t.db, js: nats.js, logger, pollMs: 50 });
    relay.start();
    indexer = index.startIndexer(nats, logger);
    await waitFor(async () => (await indexedCount()) === expected, { timeoutMs: 120_000, intervalMs: 250, message: 'indexer caught up' });
    const s = (performance.now() - t0) / 1000;
    console.log(
      `fixture load indexed through the outbox and the durable indexer: ${expected} entries in ${s.toFixed(2)} s = ${Math.round(expected / s)} records/s`,
    );
  }, 180_000);

  afterAll(async () => {
    await indexer?.stop();
    await relay?.stop();
    await os?.dropIndex(`${prefix}vocabularies-entries`).catch(() => undefined);
    for (const e of [os, es]) await e?.close();
    await proxy?.close();
    await nats?.close();
    await server?.dispose();
    await t?.destroy();
  });

  it('should give the same hits, order, totals and facets on every engine for every q, suggest, sort and page', async () => {
    const diffs: string[] = [];
    let compared = 0;
    let withHits = 0;
    const compare = async (path: string, who: Record<string, string>, asSets = false) => {
      const pg = await get(apps.postgres, path, who);
      for (const kind of ['opensearch', 'elasticsearch'] as const) {
        const other = await get(apps[kind], path, who);
        const a = shape(pg.body);
        const b = shape(other.body);
        if (asSets && a.ids && b.ids) {
          a.ids = [...a.ids].sort();
          b.ids = [...b.ids].sort();
        }
        compared++;
        if (a.total > 0) withHits++;
        if (other.status !== pg.status || JSON.stringify(a) !== JSON.stringify(b))
          diffs.push(`${kind} ${path}: ${other.status} ${JSON.stringify(b)} vs postgres ${pg.status} ${JSON.stringify(a)}`);
      }
      return pg;
    };
    for (const type of TYPES) {
      const sort = TOTAL_SORT[type];
      for (const q of [...COMMON_Q, ...TYPE_Q[type]]) {
        const qs = `q=${encodeURIComponent(q)}`;
        await compare(`/api/${type}?${qs}&sort=${sort}&size=50`, USER);
        await compare(`/api/${type}?${qs}&sort=oldest&size=20&page=2`, SYS);
        // bestmatch: the relevance order differs by design; the sets and totals must not.
        const pg = await compare(`/api/${type}?${qs}&size=2000`, USER, true);
        if (pg.status === 200 && pg.body.hits.total > 2000) throw new Error(`widen the bestmatch window for ${type} ${q}`);
      }
      for (const s of [...COMMON_SUGGEST, ...TYPE_SUGGEST[type]]) {
        const qs = `suggest=${encodeURIComponent(s)}`;
        await compare(`/api/${type}?${qs}&sort=${sort}&size=25`, USER);
        await compare(`/api/${type}?${qs}&sort=${sort}&size=9&page=3`, SYS);
        await compare(`/api/${type}?${qs}&size=2000`, USER, true);
      }
      for (const page of [1, 2, 7]) await compare(`/api/${type}?size=13&page=${page}`, USER);
      await compare(`/api/${type}?tags=legacy&tags=verified&sort=newest`, USER);
      await compare(`/api/${type}?tags=unlisted&sort=${sort}`, SYS);
      await compare(`/api/${type}?q=zurich&suggest=zur`, USER);
    }
    await compare('/api/awards?funders=0f00001&sort=newest', USER);
    await compare('/api/awards?q=oceans&funders=0f00001&funders=0f00003&sort=oldest&size=5&page=2', USER);
    await compare('/api/vocabularies/awards?suggest=arctic&funders=0f00002&sort=newest', USER);
    expect(diffs).toEqual([]);
    // Two engines per path; most paths must find something, or the comparison proves little.
    expect(compared).toBeGreaterThan(1400);
    expect(withHits / compared).toBeGreaterThan(0.6);
  }, 600_000);

  it('should fold accents on the engine (é → e, ü → u, ß → ss, ø → o) in q and suggest', async () => {
    const ids = async (path: string) => (await get(apps.opensearch, path, USER)).body.hits.hits.map((e: any) => e.id);
    for (const [accented, plain] of [
      ['q=Zürich', 'q=zurich'],
      ['q=Genève', 'q=geneve'],
      ['q=Straße', 'q=strasse'],
      ['q=Østergaard', 'q=ostergaard'],
      ['suggest=Zür', 'suggest=zur'],
      ['suggest=Łęck', 'suggest=leck'],
    ]) {
      const a = await ids(`/api/names?${accented}&sort=name&size=100`);
      expect(a.length, accented).toBeGreaterThan(0);
      expect(await ids(`/api/names?${plain}&sort=name&size=100`), plain).toEqual(a);
    }
  });

  it('should rank exact acronym and id matches first under suggest, as postgres does', async () => {
    for (const [type, s, first] of [
      ['affiliations', 'CERN', '01ggx4157'],
      ['affiliations', 'aunige3', '0a00003'],
      ['funders', '0f00004', '0f00004'],
    ]) {
      for (const kind of ['postgres', 'opensearch'] as const) {
        const res = await get(apps[kind], `/api/${type}?suggest=${s}`, USER);
        expect(res.body.hits.hits[0]?.id, `${kind} ${type} ${s}`).toBe(first);
      }
    }
  });

  it("should show the writer's create, update and delete in its very next search (inline index, refresh wait_for)", async () => {
    const app = gatewayFront(apps.opensearch.app.callback(), SECRET);
    const body = { id: 'rw-1', name: 'Zanzibar Institute of Wombats', acronym: 'ZIW', country: 'TZ' };
    expect((await request(app).post('/api/affiliations').set(ADMIN).send(body)).status).toBe(201);
    expect((await get(apps.opensearch, '/api/affiliations?q=wombats', USER)).body.hits.hits.map((e: any) => e.id)).toEqual(['rw-1']);
    expect((await get(apps.opensearch, '/api/affiliations?suggest=zanz wom', USER)).body.hits.hits.map((e: any) => e.id)).toEqual(['rw-1']);
    const put = await request(app)
      .put('/api/affiliations/rw-1')
      .set(ADMIN)
      .send({ ...body, name: 'Zanzibar Institute of Koalas' });
    expect(put.status).toBe(200);
    expect((await get(apps.opensearch, '/api/affiliations?q=wombats', USER)).body.hits.total).toBe(0);
    expect((await get(apps.opensearch, '/api/affiliations?q=koalas', USER)).body.hits.total).toBe(1);
    expect((await request(app).delete('/api/affiliations/rw-1').set(ADMIN)).status).toBe(204);
    expect((await get(apps.opensearch, '/api/affiliations?q=koalas', USER)).body.hits.total).toBe(0);
  });

  it('should ignore a late (older) write: an update and a delete + re-create are never undone by a replayed event', async () => {
    const app = gatewayFront(apps.opensearch.app.callback(), SECRET);
    const body = { id: 'late-1', name: 'Quokka Research Centre' };
    expect((await request(app).post('/api/funders').set(ADMIN).send(body)).status).toBe(201);
    const refOf = () => [
      { id: 'funders', revision: 0, subject: 'rdm.vocabularies.entries.changed', data: { type: 'funders', ids: ['late-1'] } },
    ];
    const stale = await index.load(refOf());
    expect(
      (
        await request(app)
          .put('/api/funders/late-1')
          .set(ADMIN)
          .send({ ...body, name: 'Numbat Research Centre' })
      ).status,
    ).toBe(200);
    const replay = await os.bulk(index.def.alias, stale, { refresh: 'wait_for' });
    expect(replay).toMatchObject({ written: 0, stale: 1 });
    expect((await get(apps.opensearch, '/api/funders?q=numbat', USER)).body.hits.total).toBe(1);
    expect((await get(apps.opensearch, '/api/funders?q=quokka', USER)).body.hits.total).toBe(0);
    // Delete, then re-create the same id: revision_id restarts at 1, the index version does not.
    expect((await request(app).delete('/api/funders/late-1').set(ADMIN)).status).toBe(204);
    const deleteOps = await index.load(refOf());
    expect(deleteOps).toEqual([expect.objectContaining({ op: 'delete', id: 'funders/late-1' })]);
    expect(
      (
        await request(app)
          .post('/api/funders')
          .set(ADMIN)
          .send({ ...body, name: 'Bilby Research Centre' })
      ).status,
    ).toBe(201);
    expect((await os.bulk(index.def.alias, [...stale, ...deleteOps], { refresh: 'wait_for' })).stale).toBe(2);
    const hits = (await get(apps.opensearch, '/api/funders?q=bilby', USER)).body.hits;
    expect(hits.hits.map((e: any) => [e.id, e.revision_id])).toEqual([['late-1', 1]]);
  });

  it('should bring writes made without an inline index into the index through the outbox and the durable indexer', async () => {
    // Through the postgres app: the row and the outbox event are written; only the indexer can index it.
    const res = await request(gatewayFront(apps.postgres.app.callback(), SECRET))
      .post('/api/names')
      .set(ADMIN)
      .send({ id: 'via-indexer', given_name: 'Ægir', family_name: 'Þórsson' });
    expect(res.status).toBe(201);
    await waitFor(async () => (await get(apps.opensearch, '/api/names?q=thorsson', USER)).body.hits.total === 1, {
      timeoutMs: 30_000,
      message: 'indexed by the durable indexer',
    });
    expect((await get(apps.opensearch, '/api/names?suggest=aeg thor', USER)).body.hits.hits.map((e: any) => e.id)).toEqual(['via-indexer']);
  });

  it('should rebuild the index with reindex while searches keep answering, then swap the alias', async () => {
    const before = await indexedCount();
    const oldIndices = Object.keys((await (await fetch(`${osUrl}/_alias/${index.def.alias}`)).json()) as object);
    let stop = false;
    const answers: number[] = [];
    const search = (async () => {
      while (!stop) {
        const r = await get(apps.opensearch, '/api/names?q=muller&sort=name&size=5', USER);
        answers.push(r.status === 200 ? r.body.hits.total : -r.status);
      }
    })();
    const res = await index.reindex(500);
    stop = true;
    await search;
    expect(res.count).toBe(await largeRowCount());
    expect(await indexedCount()).toBe(before);
    const nowIndices = Object.keys((await (await fetch(`${osUrl}/_alias/${index.def.alias}`)).json()) as object);
    expect(nowIndices).toEqual([res.index]);
    expect(nowIndices).not.toEqual(oldIndices);
    expect(answers.length).toBeGreaterThan(0);
    expect(new Set(answers)).toEqual(new Set([answers[0]]));
    expect(answers[0]).toBeGreaterThan(0);
  }, 120_000);

  it('should answer 503 JSON when the engine is down, keep writes and single reads working, and report degraded', async () => {
    const dead = (await createEngine('opensearch', { url: 'http://127.0.0.1:9', timeoutMs: 1000 })) as SearchEngine;
    const app = appWith(new VocabularySearchIndex(dead, t.db, testLogger(), prefix));
    const t0 = Date.now();
    const s = await get(app, '/api/names?q=muller', USER);
    expect(s.status).toBe(503);
    expect(s.body).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await get(app, '/api/affiliations?suggest=cern', USER)).status).toBe(503);
    // The small vocabularies stay on PostgreSQL; single reads never touch the engine.
    expect((await get(app, '/api/vocabularies/resourcetypes?q=photo', USER)).status).toBe(200);
    expect((await get(app, '/api/affiliations/01ggx4157', USER)).status).toBe(200);
    const w = await request(gatewayFront(app.app.callback(), SECRET))
      .post('/api/affiliations')
      .set(ADMIN)
      .send({ id: 'written-while-down', name: 'Down Institute' });
    expect(w.status).toBe(201);
    const ready = await request(gatewayFront(app.app.callback(), SECRET)).get('/readyz');
    expect(ready.body.checks.search).toMatch(/^degraded/);
    await dead.close();
  });
});
