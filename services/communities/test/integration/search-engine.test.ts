/**
 * Communities search on OpenSearch (and the Elasticsearch 8 client through the compatibility proxy)
 * answers exactly as the default postgres engine over the same database: same hits in the same order
 * (total sorts), totals and facets, for anonymous users, members, administrators, `/api/user/communities`
 * and featured. Also: read-your-writes after an inline index, `reindex` rebuilding behind the alias,
 * and an engine outage (search 503, writes 201, readiness reports `degraded`).
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { type SearchEngine, createEngine } from '@rdm/platform';
import { requireOpenSearch, startEsCompatProxy, testLogger, uniqueId } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunitiesApp } from '../../src/app.js';
import { CommunitySearchIndex } from '../../src/search/community-index.js';
import { ADMIN, as, type Harness, communityBody, startHarness } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const osUrl = await requireOpenSearch('communities search on OpenSearch/Elasticsearch');

let h: Harness;
let proxy: { url: string; close: () => Promise<void> };
const engines: SearchEngine[] = [];
const apps: Record<string, CommunitiesApp> = {};
const prefix = `t${uniqueId()}-`;

const TOPICS = [
  'Ocean plankton',
  'Glacier melt',
  'Römäns roads',
  'Straße data',
  'Café culture',
  'Quantum ocean',
  'Ocean glacier',
  'Arctic café',
];

const QUERIES = [
  '',
  'ocean',
  'OCEAN',
  'romans',
  'strasse',
  'cafe',
  'ocean OR glacier',
  'ocean AND glacier',
  'NOT ocean',
  'ocea*',
  '"ocean plankton"',
  'title:ocean',
  'metadata.title:glacier',
  'type:project',
  'type:event AND ocean',
  'slug:c-0*',
  'created:[2000 TO *]',
  '_exists_:metadata.website',
  'nothing',
  'access.visibility:restricted',
];
const SORTS = ['newest', 'oldest', 'updated-desc', 'updated-asc'];

describe.skipIf(!osUrl)('communities search: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  beforeAll(async () => {
    h = await startHarness();
    proxy = await startEsCompatProxy(osUrl as string);
    const os = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 30_000 })) as SearchEngine;
    const es = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 30_000 })) as SearchEngine;
    engines.push(os, es);
    apps.postgres = h.sut;
    apps.opensearch = h.appWith({}, { search: new CommunitySearchIndex(os, h.db.db, testLogger(), prefix) });
    apps.elasticsearch = h.appWith({}, { search: new CommunitySearchIndex(es, h.db.db, testLogger(), prefix) });
    // Written through the OpenSearch app: PostgreSQL rows + inline index (the ES app reads the same index).
    for (let i = 0; i < 16; i++) {
      const body = communityBody(`c-${String(i).padStart(2, '0')}`, {
        metadata: {
          title: TOPICS[i % TOPICS.length],
          type: { id: i % 3 ? 'project' : 'event' },
          ...(i % 4 ? {} : { website: 'https://x.example.org' }),
        },
        access: { visibility: i % 5 === 4 ? 'restricted' : 'public' },
      });
      const res = await request(gatewayFront(apps.opensearch.app.callback(), SECRET)).post('/api/communities').set(ADMIN).send(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (i % 5 === 4) await h.seed(res.body.id, { 5: 'reader' });
      if (i === 3) await h.seed(res.body.id, { 2: 'owner' });
      if (i < 3) {
        const f = await request(gatewayFront(apps.opensearch.app.callback(), SECRET))
          .post(`/api/communities/${res.body.id}/featured`)
          .set(ADMIN)
          .send({ start_date: '2020-01-01T00:00:00Z' });
        expect(f.status).toBe(201);
      }
    }
  });

  afterAll(async () => {
    await engines[0]?.dropIndex(`${prefix}communities-communities`).catch(() => undefined);
    for (const e of engines) await e.close();
    await proxy?.close();
    await h?.stop();
  });

  const get = (app: CommunitiesApp, path: string, who: Record<string, string>) =>
    request(gatewayFront(app.app.callback(), SECRET)).get(path).set(who);
  const shape = (b: any) => ({
    total: b.hits?.total,
    ids: b.hits?.hits?.map((c: any) => c.slug),
    aggregations: b.aggregations,
    status: b.status,
  });

  it('gives the same answers on every engine for every query, sort, caller and scope', async () => {
    const diffs: string[] = [];
    const callers: Array<[string, Record<string, string>]> = [
      ['anon', {}],
      ['reader', as('5')],
      ['owner', as('2')],
      ['admin', ADMIN],
    ];
    const paths: string[] = [];
    for (const q of QUERIES) for (const sort of SORTS) paths.push(`/api/communities?q=${encodeURIComponent(q)}&sort=${sort}&size=50`);
    paths.push(
      '/api/communities?type=event&sort=oldest',
      '/api/communities?visibility=restricted&sort=newest',
      '/api/communities?q=ocean&type=project&sort=newest&size=3&page=2',
    );
    paths.push(
      '/api/user/communities?sort=newest',
      '/api/communities/featured?sort=oldest',
      '/api/communities?q=(bad',
      '/api/communities?q=created:abc',
    );
    for (const path of paths) {
      for (const [who, headers] of callers) {
        if (path.startsWith('/api/user') && who === 'anon') continue;
        const pg = await get(apps.postgres, path, headers);
        for (const kind of ['opensearch', 'elasticsearch']) {
          const other = await get(apps[kind], path, headers);
          if (other.status !== pg.status || JSON.stringify(shape(other.body)) !== JSON.stringify(shape(pg.body))) {
            diffs.push(
              `${kind} ${who} ${path}: ${other.status} ${JSON.stringify(shape(other.body))} vs postgres ${pg.status} ${JSON.stringify(shape(pg.body))}`,
            );
          }
        }
      }
    }
    expect(diffs).toEqual([]);
  }, 300_000);

  it('bestmatch returns the same set (relevance order differs by design)', async () => {
    for (const q of ['ocean', 'ocean OR glacier', 'cafe']) {
      const pg = await get(apps.postgres, `/api/communities?q=${q}&sort=bestmatch&size=50`, ADMIN);
      const os = await get(apps.opensearch, `/api/communities?q=${q}&sort=bestmatch&size=50`, ADMIN);
      expect(os.body.hits.hits.map((c: any) => c.slug).sort()).toEqual(pg.body.hits.hits.map((c: any) => c.slug).sort());
    }
  });

  it("shows the writer's update in its very next search (inline index with refresh wait_for)", async () => {
    const app = apps.opensearch;
    const c = (await get(app, '/api/communities/c-01', ADMIN)).body;
    const put = await request(gatewayFront(app.app.callback(), SECRET))
      .put(`/api/communities/${c.id}`)
      .set(ADMIN)
      .send({ ...communityBody('c-01'), metadata: { title: 'Zebra sightings' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await get(app, '/api/communities?q=zebra', ADMIN)).body.hits.hits.map((x: any) => x.slug)).toEqual(['c-01']);
  });

  it('reindex rebuilds the index from PostgreSQL (a change made without indexing becomes searchable)', async () => {
    const c = (await get(apps.postgres, '/api/communities/c-02', ADMIN)).body;
    // Through the postgres app: the row changes, the index does not (no inline index, no relay here).
    const put = await request(gatewayFront(apps.postgres.app.callback(), SECRET))
      .put(`/api/communities/${c.id}`)
      .set(ADMIN)
      .send({ ...communityBody('c-02'), metadata: { title: 'Yak herders' } });
    expect(put.status).toBe(200);
    expect((await get(apps.opensearch, '/api/communities?q=yak', ADMIN)).body.hits.total).toBe(0);
    const index = new CommunitySearchIndex(engines[0], h.db.db, testLogger(), prefix);
    const res = await index.reindex();
    expect(res.count).toBe(16);
    expect((await get(apps.opensearch, '/api/communities?q=yak', ADMIN)).body.hits.hits.map((x: any) => x.slug)).toEqual(['c-02']);
  });

  it('engine down: searches answer 503 JSON fast, writes still succeed, readiness says degraded', async () => {
    const dead = (await createEngine('opensearch', { url: 'http://127.0.0.1:9', timeoutMs: 1000 })) as SearchEngine;
    const app = h.appWith({}, { search: new CommunitySearchIndex(dead, h.db.db, testLogger(), prefix) });
    const t0 = Date.now();
    const s = await get(app, '/api/communities?q=ocean', {});
    expect(s.status).toBe(503);
    expect(s.body).toEqual({ status: 503, message: 'Service unavailable.' });
    expect(Date.now() - t0).toBeLessThan(5000);
    const w = await request(gatewayFront(app.app.callback(), SECRET))
      .post('/api/communities')
      .set(ADMIN)
      .send(communityBody('written-while-down'));
    expect(w.status).toBe(201);
    const ready = await request(gatewayFront(app.app.callback(), SECRET)).get('/readyz');
    expect(ready.body.checks.search).toMatch(/^degraded/);
    await dead.close();
  });
});
