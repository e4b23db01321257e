/**
 * Request searches on OpenSearch (and the Elasticsearch 8 client through the compatibility proxy)
 * answer exactly as the default postgres engine over the same database: same hits in the same order
 * (total sorts), totals and facets, for creators, receivers, community owners/curators/managers, a
 * stranger and an administrator, on `/api/requests`, `/api/user/requests` and
 * `/api/communities/<id>/requests`, with every filter. Also: read-your-writes after an inline index
 * (PUT, comment activity), `reindex` rebuilding behind the alias while searches keep answering, and an
 * engine outage (search 503 JSON, writes succeed, readiness `degraded`, the outbox indexer catches up).
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import type { Identity, SearchEngine } from '@rdm/platform';
import { createEngine } from '@rdm/platform';
import { requireOpenSearch, startEsCompatProxy, testLogger, uniqueId } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestSearchIndex } from '../../src/search/request-index.js';
import { as, type Env, startEnv } from './support.js';

const osUrl = await requireOpenSearch('requests search on OpenSearch/Elasticsearch');

const SYSTEM: Identity = { sub: 'system', roles: ['system'] };
const OWNER = '10';
const MANAGER = '11';
const CURATOR = '12';
const USERS = ['20', '21', '30'];
const ADMIN = as('1', ['admin']);
const TOPICS = [
  'Ocean plankton',
  'Glacier melt',
  'Roman roads',
  'Strasse data',
  'Cafe culture',
  'Quantum ocean',
  'Ocean glacier',
  'Arctic cafe',
];

let env: Env;
let proxy: { url: string; close: () => Promise<void> };
const engines: SearchEngine[] = [];
type App = ReturnType<Env['appWith']>;
const apps: Record<string, App> = {};
const prefix = `t${uniqueId()}-`;
const logger = testLogger('requests-search');
let c1: string;
let c2: string;
let someNumber = '';

/** Run and ignore a refusal: the corpus only needs a variety of states, the same for every engine. */
async function attempt(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!osUrl)('requests search: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  beforeAll(async () => {
    env = await startEnv({ effectWaitMs: 200 });
    c1 = env.fake.add({ title: 'Ocean people', slug: 'ocean' }).id;
    c2 = env.fake.add({ title: 'Glacier folk', slug: 'glacier' }).id;
    env.fake.setRole(c1, OWNER, 'owner');
    env.fake.setRole(c1, CURATOR, 'curator');
    env.fake.setRole(c2, MANAGER, 'manager');
    env.fake.setRole(c2, CURATOR, 'reader');
    proxy = await startEsCompatProxy(osUrl as string);
    const os = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 30_000 })) as SearchEngine;
    const es = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 30_000 })) as SearchEngine;
    engines.push(os, es);
    apps.postgres = { ...env, http: env.http };
    apps.opensearch = env.appWith({ search: new RequestSearchIndex(os, env.tdb.db, logger, prefix) });
    apps.elasticsearch = env.appWith({ search: new RequestSearchIndex(es, env.tdb.db, logger, prefix) });
    // Written through the OpenSearch app: PostgreSQL rows + inline index (the ES app reads the same index).
    const w = apps.opensearch;
    let changed = 0;
    for (let i = 0; i < 28; i++) {
      const user = USERS[i % 3];
      const c = i % 2 ? c2 : c1;
      const title = TOPICS[i % TOPICS.length];
      const input = [
        { type: 'community-submission', created_by: { user }, receiver: { community: c }, topic: { record: `rec${i}` }, title },
        {
          type: 'community-invitation',
          created_by: { community: c },
          receiver: { user },
          topic: { community: c },
          payload: { role: 'reader' },
          title,
        },
        { type: 'community-membership-request', created_by: { user }, receiver: { community: c }, topic: { community: c }, title },
        {
          type: 'user-access-request',
          created_by: { user },
          receiver: { user: '21' },
          topic: { record: `rec${i % 5}` },
          title,
          description: i % 2 ? 'Please let me see the glacier data' : null,
        },
      ][i % 4];
      const r = (await w.requests.create(SYSTEM, input as never)) as { id: string; number: string; status: string };
      if (i === 5) someNumber = r.number;
      if (r.status === 'created' && i % 8 !== 0) changed += Number(await attempt(() => w.actions.run(SYSTEM, r.id, 'submit')));
      if (i % 8 === 0 && i % 16 === 0) changed += Number(await attempt(() => w.requests.delete(SYSTEM, r.id)));
      if (i % 5 === 1) changed += Number(await attempt(() => w.actions.run(SYSTEM, r.id, 'decline')));
      if (i % 7 === 3) changed += Number(await attempt(() => w.actions.run(SYSTEM, r.id, 'cancel')));
      if (i % 3 === 2)
        changed += Number(await attempt(() => w.comments.create(SYSTEM, r.id, { payload: { content: `note ${i}`, format: 'html' } })));
      if (i % 6 === 4) changed += Number(await attempt(() => w.requests.update(SYSTEM, r.id, { title: `${title} revisited` })));
    }
    expect(changed).toBeGreaterThan(10);
  }, 120_000);

  afterAll(async () => {
    await engines[0]?.dropIndex(`${prefix}requests-requests`).catch(() => undefined);
    for (const e of engines) await e.close();
    await proxy?.close();
    await env?.close();
  });

  const shape = (b: any) => ({
    total: b.hits?.total,
    ids: b.hits?.hits?.map((r: any) => r.id),
    aggregations: b.aggregations,
    status: b.status,
    message: b.message,
  });

  it('has a corpus with several types and statuses', async () => {
    const res = await apps.postgres.http.get('/api/requests?size=100').set(ADMIN).expect(200);
    expect(res.body.aggregations.type.buckets.length).toBe(4);
    expect(res.body.aggregations.status.buckets.length).toBeGreaterThanOrEqual(4);
  });

  it('gives the same answers on every engine for every query, filter, sort, caller and scope', async () => {
    const queries = [
      '',
      'ocean',
      'OCEAN',
      'ocean OR glacier',
      'ocean AND glacier',
      'NOT ocean',
      'ocea*',
      '"ocean plankton"',
      'title:ocean',
      'title:revisited',
      'description:glacier',
      'type:community-invitation',
      'status:submitted',
      'is_open:true',
      'created:[2000 TO *]',
      `receiver.user:${USERS[0]}`,
      `created_by.community:${c1}`,
      'topic.record:rec3',
      `"${someNumber}"`,
      'nothing',
      '_exists_:expires_at',
    ];
    const sorts = ['newest', 'oldest', 'newestactivity', 'oldestactivity'];
    const paths: string[] = [];
    for (const q of queries) for (const sort of sorts) paths.push(`/api/requests?q=${encodeURIComponent(q)}&sort=${sort}&size=50`);
    paths.push(
      '/api/requests?is_open=true&sort=oldest',
      '/api/requests?is_open=false&sort=newest&size=50',
      `/api/requests?created_by=user:${USERS[0]}&sort=oldest`,
      `/api/requests?receiver=community:${c1}&receiver=community:${c2}&sort=newestactivity`,
      '/api/requests?topic=record:rec1&sort=newest',
      '/api/requests?type=community-invitation&type=user-access-request&sort=oldest',
      '/api/requests?status=declined&status=cancelled&sort=newest',
      '/api/requests?q=ocean&type=community-submission&sort=newest&size=3&page=2',
      '/api/requests?sort=oldestactivity&size=5&page=3',
      '/api/user/requests?sort=newest&size=50',
      '/api/user/requests?q=glacier&sort=oldest&is_open=true',
      `/api/communities/${c1}/requests?sort=newest&size=50`,
      `/api/communities/${c2}/requests?q=ocean&sort=oldestactivity`,
      '/api/requests?q=(bad',
      '/api/requests?q=created:abc',
      '/api/requests?created_by=nocolon',
    );
    const callers: Array<[string, Record<string, string>]> = [
      ['anon', {}],
      ...USERS.map((u): [string, Record<string, string>] => [`user${u}`, as(u)]),
      ['owner', as(OWNER)],
      ['curator', as(CURATOR)],
      ['manager', as(MANAGER)],
      ['admin', ADMIN],
    ];
    const diffs: string[] = [];
    let compared = 0;
    for (const path of paths) {
      for (const [who, headers] of callers) {
        const pg = await apps.postgres.http.get(path).set(headers);
        for (const kind of ['opensearch', 'elasticsearch']) {
          const other = await apps[kind].http.get(path).set(headers);
          compared++;
          if (other.status !== pg.status || JSON.stringify(shape(other.body)) !== JSON.stringify(shape(pg.body))) {
            diffs.push(
              `${kind} ${who} ${path}: ${other.status} ${JSON.stringify(shape(other.body))} vs postgres ${pg.status} ${JSON.stringify(shape(pg.body))}`,
            );
          }
        }
      }
    }
    expect(diffs).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  }, 600_000);

  it('bestmatch returns the same set (relevance order differs by design)', async () => {
    for (const q of ['ocean', 'ocean OR glacier', 'cafe']) {
      const path = `/api/requests?q=${encodeURIComponent(q)}&sort=bestmatch&size=100`;
      const pg = await apps.postgres.http.get(path).set(ADMIN).expect(200);
      const os = await apps.opensearch.http.get(path).set(ADMIN).expect(200);
      expect(os.body.hits.total).toBe(pg.body.hits.total);
      expect(os.body.hits.hits.map((r: any) => r.id).sort()).toEqual(pg.body.hits.hits.map((r: any) => r.id).sort());
    }
  });

  it("shows the writer's change in its very next search (inline index with refresh wait_for)", async () => {
    const app = apps.opensearch;
    const mine = await app.http.get('/api/user/requests?sort=oldest&is_open=true').set(as(USERS[0])).expect(200);
    const target = mine.body.hits.hits[0];
    expect(target).toBeDefined();
    const put = await app.http.put(`/api/requests/${target.id}`).set(as(USERS[0])).send({ title: 'Zebra sightings' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const found = await app.http.get('/api/requests?q=zebra').set(as(USERS[0])).expect(200);
    expect(found.body.hits.hits.map((r: any) => r.id)).toEqual([target.id]);
    // A comment raises last_activity_at: the request leads `newestactivity` at once.
    const other = mine.body.hits.hits[mine.body.hits.hits.length - 1];
    await app.http
      .post(`/api/requests/${other.id}/comments`)
      .set(as(USERS[0]))
      .send({ payload: { content: 'bump', format: 'html' } })
      .expect(201);
    const active = await app.http.get('/api/user/requests?sort=newestactivity&size=1').set(as(USERS[0])).expect(200);
    expect(active.body.hits.hits[0].id).toBe(other.id);
  });

  it('reindex rebuilds the index from PostgreSQL and swaps the alias while searches keep answering', async () => {
    const mine = await apps.postgres.http.get('/api/user/requests?sort=newest&is_open=true').set(as(USERS[1])).expect(200);
    const target = mine.body.hits.hits[0];
    // Through the postgres app: the row changes, the index does not (no inline index, no indexer here).
    await apps.postgres.http.put(`/api/requests/${target.id}`).set(as(USERS[1])).send({ title: 'Yak herders' }).expect(200);
    expect((await apps.opensearch.http.get('/api/requests?q=yak').set(ADMIN).expect(200)).body.hits.total).toBe(0);
    const index = new RequestSearchIndex(engines[0], env.tdb.db, logger, prefix);
    let done = false;
    const rebuilt = index.reindex(5).finally(() => {
      done = true;
    });
    const statuses: number[] = [];
    while (!done) statuses.push((await apps.opensearch.http.get('/api/requests?q=ocean').set(ADMIN)).status);
    const res = await rebuilt;
    expect(res.count).toBe(Number((await env.tdb.db('requests').count<{ n: string }[]>({ n: '*' }))[0].n));
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const found = await apps.opensearch.http.get('/api/requests?q=yak').set(ADMIN).expect(200);
    expect(found.body.hits.hits.map((r: any) => r.id)).toEqual([target.id]);
  });

  it('engine down: searches answer 503 JSON, writes still succeed, readiness says degraded, the indexer catches up', async () => {
    const dead = (await createEngine('opensearch', { url: 'http://127.0.0.1:9', timeoutMs: 1000 })) as SearchEngine;
    const app = env.appWith({ search: new RequestSearchIndex(dead, env.tdb.db, logger, prefix) });
    const s = await app.http.get('/api/requests?q=ocean').set(ADMIN);
    expect(s.status).toBe(503);
    expect(s.body).toEqual({ status: 503, message: 'Service unavailable.' });
    const created = (await app.requests.create(SYSTEM, {
      type: 'community-membership-request',
      created_by: { user: USERS[2] },
      receiver: { community: c1 },
      topic: { community: c1 },
      title: 'Written while the engine was down',
    })) as { id: string };
    const put = await app.http.put(`/api/requests/${created.id}`).set(as(USERS[2])).send({ title: 'Walrus while down' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const ready = await app.http.get('/readyz');
    expect(ready.body.checks.search).toMatch(/^degraded/);
    await dead.close();
    // The engine is back: the durable indexer of the service's own outbox events brings the change in.
    expect((await apps.opensearch.http.get('/api/requests?q=walrus').set(ADMIN).expect(200)).body.hits.total).toBe(0);
    const indexer = new RequestSearchIndex(engines[0], env.tdb.db, logger, prefix).startIndexer(env.nats, logger);
    await indexer.ready;
    let ids: string[] = [];
    for (let i = 0; i < 100 && ids.length === 0; i++) {
      await engines[0].refresh(`${prefix}requests-requests`);
      ids = (await apps.opensearch.http.get('/api/requests?q=walrus').set(ADMIN).expect(200)).body.hits.hits.map((r: any) => r.id);
      if (!ids.length) await new Promise((r) => setTimeout(r, 200));
    }
    await indexer.stop();
    expect(ids).toEqual([created.id]);
  }, 60_000);
});
