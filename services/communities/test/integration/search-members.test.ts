/**
 * Member lists on OpenSearch (and the Elasticsearch 8 client through the compatibility proxy) answer
 * exactly as the default postgres engine over the same database: `…/members`, `…/members/public`,
 * `…/invitations` and `…/membership-requests`, for every query, filter, sort, page and caller (whole
 * response bodies compared; bestmatch as sets). Also: read-your-writes after add/update/remove and on
 * the consumer path, an engine outage (lists 503, writes 204, readiness degraded) and the catch-up by
 * the durable indexer, and `reindex` while lists keep answering.
 *
 * Needs OpenSearch (`make opensearch`); skipped loudly without it, failed under CI.
 */
import { createEngine, ensureStream, eventSubjects, OutboxRelay, type SearchEngine } from '@rdm/platform';
import { requireOpenSearch, startEsCompatProxy, testLogger, uniqueId, waitFor } from '@rdm/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunitiesApp } from '../../src/app.js';
import { INVITATION, MEMBERSHIP_REQUEST } from '../../src/domain/members.service.js';
import { CommunitySearchIndex } from '../../src/search/community-index.js';
import { MemberSearchIndex } from '../../src/search/member-index.js';
import { ADMIN, as, communityBody, type Harness, startHarness } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const osUrl = await requireOpenSearch('community member lists on OpenSearch/Elasticsearch');

let h: Harness;
let proxy: { url: string; close: () => Promise<void> };
const engines: SearchEngine[] = [];
const apps: Record<string, CommunitiesApp> = {};
const prefix = `t${uniqueId()}-`;
let cid = '';
let other = '';

/** Users 20–59: repeated names (ties sort by id), accents, an empty full name, affiliations, two mail domains. */
const NAMES = [
  'Alice Archer',
  'Bruno Brook',
  'Zoë Ångström',
  'Chen Wei',
  'Alice Archer',
  '',
  'Dário Dias',
  'Erik Ek',
  'Fatima Zahra',
  'Gus Grant',
];
const AFFILIATIONS = ['CERN', 'Universität Wien', '', 'University of Oslo'];

const M_QUERIES = [
  '',
  'alice',
  'ALICE',
  'angstrom',
  'zoe',
  'name:alice',
  'full_name:archer',
  'name:zoë',
  'username:u2*',
  'username:U21',
  'email:*@uni.example.org',
  'affiliations:cern',
  'affiliations:universitat',
  'role:manager',
  'role:CURATOR',
  'cern OR oslo',
  'alice AND cern',
  'NOT reader',
  '"alice archer"',
  'u3*',
  'nobody',
  'unknown:x',
  '_exists_:email',
];
const SORTS = ['name', 'newest', 'oldest'];

const get = (app: CommunitiesApp, path: string, who: Record<string, string>) =>
  request(gatewayFront(app.app.callback(), SECRET)).get(path).set(who);
const send = (app: CommunitiesApp, method: 'post' | 'put' | 'delete', path: string, who: Record<string, string>, body: unknown) =>
  request(gatewayFront(app.app.callback(), SECRET))
    [method](path)
    .set(who)
    .send(body as object);
const users = (ids: number[]) => ids.map((i) => ({ type: 'user', id: String(i) }));
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/** Apply a request outcome as the consumer does (inbox transaction of the OpenSearch app). */
async function outcome(app: CommunitiesApp, communityId: string, uid: number, type: string, verb: string) {
  const row = await h.db
    .db('members')
    .where({ community_id: communityId, member_id: String(uid), active: false, request_type: type })
    .first();
  expect(row?.request_id, `pending ${type} of ${uid}`).toBeTruthy();
  await h.db.db.transaction((trx) => app.members.applyRequestEvent(trx, verb, { id: row.request_id, type }));
}

/** Status and whole body of a list on an engine app and on postgres, and whether they agree. */
async function compare(kind: string, path: string, who: Record<string, string>) {
  const [pg, engine] = [await get(apps.postgres, path, who), await get(apps[kind], path, who)];
  const same = pg.status === engine.status && JSON.stringify(pg.body) === JSON.stringify(engine.body);
  return {
    same,
    diff: same
      ? ''
      : `${kind} ${path}: ${engine.status} ${JSON.stringify(engine.body)}\n  vs postgres ${pg.status} ${JSON.stringify(pg.body)}`,
  };
}

describe.skipIf(!osUrl)('member lists: postgres = OpenSearch = Elasticsearch (via proxy)', () => {
  beforeAll(async () => {
    h = await startHarness();
    for (const i of range(20, 60)) {
      const name = NAMES[i % NAMES.length];
      h.users.set(String(i), {
        id: String(i),
        username: `u${i}`,
        full_name: name,
        email: `u${i}@${i % 3 ? 'uni' : 'lab'}.example.org`,
        active: true,
        affiliations: AFFILIATIONS[i % AFFILIATIONS.length],
      });
    }
    proxy = await startEsCompatProxy(osUrl as string);
    const os = (await createEngine('opensearch', { url: osUrl as string, timeoutMs: 30_000 })) as SearchEngine;
    const es = (await createEngine('elasticsearch', { url: proxy.url, timeoutMs: 30_000 })) as SearchEngine;
    engines.push(os, es);
    const log = testLogger();
    apps.postgres = h.sut;
    for (const [kind, engine] of [
      ['opensearch', os],
      ['elasticsearch', es],
    ] as const) {
      apps[kind] = h.appWith(
        {},
        {
          search: new CommunitySearchIndex(engine, h.db.db, log, prefix),
          memberSearch: new MemberSearchIndex(engine, h.db.db, log, prefix),
        },
      );
    }
    const app = apps.opensearch;
    const created: string[] = [];
    for (const slug of ['ml-a', 'ml-b']) {
      const res = await send(
        app,
        'post',
        '/api/communities',
        ADMIN,
        communityBody(slug, { access: { visibility: 'public', member_policy: 'open' } }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      created.push(res.body.id);
    }
    [cid, other] = created;
    // Everything below goes through the OpenSearch app: PostgreSQL rows + inline index.
    const invite = async (c: string, ids: number[], role: string) =>
      expect((await send(app, 'post', `/api/communities/${c}/invitations`, ADMIN, { members: users(ids), role })).status).toBe(204);
    await invite(cid, [2], 'owner');
    await invite(cid, range(20, 32), 'reader');
    await invite(cid, range(32, 40), 'curator');
    await invite(cid, range(40, 44), 'manager');
    await invite(other, range(20, 26), 'reader');
    for (const uid of range(44, 56)) {
      expect((await send(app, 'post', `/api/communities/${cid}/membership-requests`, as(String(uid)), {})).status).toBe(201);
    }
    await outcome(app, cid, 2, INVITATION, 'accepted');
    for (const uid of [...range(20, 28), ...range(32, 37), 40, 41]) await outcome(app, cid, uid, INVITATION, 'accepted');
    for (const [uid, verb] of [
      [28, 'declined'],
      [29, 'cancelled'],
      [37, 'expired'],
      [42, 'declined'],
    ] as const)
      await outcome(app, cid, uid, INVITATION, verb);
    for (const uid of range(20, 23)) await outcome(app, other, uid, INVITATION, 'accepted');
    for (const uid of range(44, 48)) await outcome(app, cid, uid, MEMBERSHIP_REQUEST, 'accepted');
    for (const uid of range(48, 51)) await outcome(app, cid, uid, MEMBERSHIP_REQUEST, 'declined');
    // Members who show themselves; a pending invitation whose role changes.
    for (const uid of [21, 23, 32, 40, 45]) {
      const res = await send(app, 'put', `/api/communities/${cid}/members`, as(String(uid)), { members: users([uid]), visible: true });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
    }
    expect(
      (await send(app, 'put', `/api/communities/${cid}/invitations`, ADMIN, { members: users([30, 31]), role: 'curator' })).status,
    ).toBe(204);
    // The consumer path indexes after its commit, without a waiting writer: wait until it is there.
    await waitFor(async () => (await compare('opensearch', `/api/communities/${cid}/members?size=100`, ADMIN)).same, {
      timeoutMs: 30_000,
      message: 'consumer-path indexing',
    });
  }, 300_000);

  afterAll(async () => {
    for (const alias of ['communities-members', 'communities-communities'])
      await engines[0]?.dropIndex(`${prefix}${alias}`).catch(() => undefined);
    for (const e of engines) await e.close();
    await proxy?.close();
    await h?.stop();
  });

  // bestmatch (the default with q) is compared as sets in the next test: relevance order differs by design.
  it('gives the same answers on every engine for every list, query, filter, sort, page and caller', async () => {
    const base = `/api/communities/${cid}`;
    const lists: Array<[string, Array<[string, Record<string, string>]>]> = [];
    const paths = (list: string, extra: string[]) => {
      const out: string[] = [];
      for (const q of M_QUERIES) for (const sort of SORTS) out.push(`${base}/${list}?q=${encodeURIComponent(q)}&sort=${sort}&size=100`);
      return [...out, ...extra];
    };
    const members = paths('members', [
      `${base}/members?role=reader`,
      `${base}/members?role=curator&role=manager&sort=newest`,
      `${base}/members?visibility=true`,
      `${base}/members?visibility=false&q=alice&sort=name`,
      `${base}/members?visibility=public`,
      `${base}/members?role=Reader`,
      `${base}/members?size=5&page=3`,
      `${base}/members?size=4&page=2&sort=oldest&q=alice OR cern`,
      `${base}/members?q=(bad`,
      `/api/communities/${other}/members?sort=name`,
      '/api/communities/ml-a/members',
    ]);
    const pub = paths('members/public', [`${base}/members/public?size=2&page=2`]);
    const requests = (list: string) =>
      paths(list, [
        `${base}/${list}?status=declined`,
        `${base}/${list}?status=submitted&status=expired&sort=newest`,
        `${base}/${list}?is_open=true`,
        `${base}/${list}?is_open=false&sort=oldest`,
        `${base}/${list}?is_open=true&is_open=false`,
        `${base}/${list}?role=manager&is_open=true`,
        `${base}/${list}?size=3&page=2`,
        `${base}/${list}?q=(bad`,
      ]);
    const owner = as('2');
    const reader = as('24');
    const manager = as('40');
    for (const path of members)
      lists.push([
        path,
        [
          ['owner', owner],
          ['reader', reader],
          ['admin', ADMIN],
          ['outsider', as('6')],
          ['anon', {}],
        ],
      ]);
    for (const path of pub)
      lists.push([
        path,
        [
          ['anon', {}],
          ['outsider', as('6')],
        ],
      ]);
    for (const path of [...requests('invitations'), ...requests('membership-requests')])
      lists.push([
        path,
        [
          ['owner', owner],
          ['manager', manager],
          ['admin', ADMIN],
          ['reader', reader],
        ],
      ]);
    const diffs: string[] = [];
    let compared = 0;
    for (const [path, callers] of lists) {
      for (const [, who] of callers) {
        for (const kind of ['opensearch', 'elasticsearch']) {
          const r = await compare(kind, path, who);
          compared++;
          if (!r.same) diffs.push(r.diff);
        }
      }
    }
    expect(diffs).toEqual([]);
    expect(compared).toBeGreaterThan(800);
    // The lists are not trivially empty: 21 active members, 25 invitations (open and archived), 12 membership requests.
    expect((await get(apps.opensearch, `${base}/members?size=100`, ADMIN)).body.hits.total).toBe(21);
    expect((await get(apps.opensearch, `${base}/invitations?size=100`, ADMIN)).body.hits.total).toBe(25);
    expect((await get(apps.opensearch, `${base}/membership-requests?size=100`, ADMIN)).body.hits.total).toBe(12);
  }, 600_000);

  it('bestmatch returns the same sets (relevance order differs by design)', async () => {
    for (const list of ['members', 'invitations', 'membership-requests']) {
      for (const q of ['alice', 'alice OR cern', 'zoe', 'u3*']) {
        const path = `/api/communities/${cid}/${list}?q=${encodeURIComponent(q)}&sort=bestmatch&size=100`;
        const ids = async (app: CommunitiesApp) => (await get(app, path, ADMIN)).body.hits.hits.map((x: { id: string }) => x.id).sort();
        const pg = await ids(apps.postgres);
        expect(await ids(apps.opensearch), path).toEqual(pg);
        expect(await ids(apps.elasticsearch), path).toEqual(pg);
      }
    }
  });

  it("shows the writer's add, update and removal in its very next list (inline index with refresh wait_for)", async () => {
    const app = apps.opensearch;
    const base = `/api/communities/${cid}`;
    const ids = async (path: string) => (await get(app, path, ADMIN)).body.hits.hits.map((x: { member: { id: string } }) => x.member.id);
    // Invitation: pending at once.
    expect((await send(app, 'post', `${base}/invitations`, ADMIN, { members: users([56]), role: 'reader' })).status).toBe(204);
    expect(await ids(`${base}/invitations?q=username:u56&is_open=true`)).toEqual(['56']);
    // Membership request: pending at once.
    expect((await send(app, 'post', `${base}/membership-requests`, as('57'), {})).status).toBe(201);
    expect(await ids(`${base}/membership-requests?q=username:u57`)).toEqual(['57']);
    // Role update.
    expect((await send(app, 'put', `${base}/members`, ADMIN, { members: users([24]), role: 'manager' })).status).toBe(204);
    expect(await ids(`${base}/members?role=manager&q=username:u24`)).toEqual(['24']);
    // Removal.
    expect((await send(app, 'delete', `${base}/members`, ADMIN, { members: users([25]) })).status).toBe(204);
    expect(await ids(`${base}/members?q=username:u25`)).toEqual([]);
    expect((await compare('opensearch', `${base}/members?size=100`, ADMIN)).diff).toBe('');
    // Accepted through the consumer: indexed once its transaction commits.
    await outcome(app, cid, 56, INVITATION, 'accepted');
    await waitFor(async () => (await ids(`${base}/members?q=username:u56`)).length === 1, { message: 'accepted member indexed' });
    expect((await compare('opensearch', `${base}/invitations?size=100`, ADMIN)).diff).toBe('');
  });

  it('engine down: lists answer 503, writes succeed, readiness is degraded; the durable indexer catches up', async () => {
    const dead = (await createEngine('opensearch', { url: 'http://127.0.0.1:9', timeoutMs: 1000 })) as SearchEngine;
    const down = h.appWith({}, { memberSearch: new MemberSearchIndex(dead, h.db.db, testLogger(), prefix) });
    const base = `/api/communities/${cid}`;
    for (const list of ['members', 'members/public', 'invitations', 'membership-requests']) {
      const s = await get(down, `${base}/${list}`, ADMIN);
      expect(s.status, list).toBe(503);
      expect(s.body).toEqual({ status: 503, message: 'Service unavailable.' });
    }
    expect((await send(down, 'put', `${base}/members`, ADMIN, { members: users([26, 27]), role: 'curator' })).status).toBe(204);
    expect((await send(down, 'delete', `${base}/members`, ADMIN, { members: users([33]) })).status).toBe(204);
    expect((await send(down, 'post', `${base}/invitations`, ADMIN, { members: users([58]), role: 'reader' })).status).toBe(204);
    expect((await get(down, '/readyz', {})).body.checks.search).toMatch(/^degraded/);
    await dead.close();
    // The live index missed those writes.
    expect((await compare('opensearch', `${base}/members?role=curator&size=100`, ADMIN)).same).toBe(false);
    // The outbox relay publishes the events; the durable indexer applies them.
    await ensureStream(h.nats.jsm, { name: 'COMMUNITIES', subjects: eventSubjects('communities') });
    const relay = new OutboxRelay({ db: h.db.db, js: h.nats.js, logger: testLogger('relay') });
    const indexer = new MemberSearchIndex(engines[0], h.db.db, testLogger(), prefix).startIndexer(h.nats, testLogger('indexer'));
    relay.start();
    try {
      await indexer.ready;
      await waitFor(
        async () => {
          for (const path of [`${base}/members?role=curator&size=100`, `${base}/members?size=100`, `${base}/invitations?size=100`]) {
            await engines[0].refresh(`${prefix}communities-members`);
            if (!(await compare('opensearch', path, ADMIN)).same) return false;
          }
          return true;
        },
        { timeoutMs: 30_000, message: 'indexer catch-up' },
      );
    } finally {
      await indexer.stop();
      await relay.stop();
    }
  });

  it('reindex rebuilds the index from PostgreSQL while lists keep answering', async () => {
    const base = `/api/communities/${cid}`;
    // Through the postgres app: rows change, the index does not (no inline index, no relay running).
    expect((await send(apps.postgres, 'put', `${base}/members`, ADMIN, { members: users([34]), role: 'reader' })).status).toBe(204);
    expect((await send(apps.postgres, 'delete', `${base}/members`, ADMIN, { members: users([35]) })).status).toBe(204);
    expect((await compare('opensearch', `${base}/members?size=100`, ADMIN)).same).toBe(false);
    const index = new MemberSearchIndex(engines[0], h.db.db, testLogger(), prefix);
    let searching = true;
    const statuses: number[] = [];
    const searches = (async () => {
      while (searching) statuses.push((await get(apps.opensearch, `${base}/members?q=alice`, ADMIN)).status);
    })();
    const res = await index.reindex(7);
    searching = false;
    await searches;
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const rows =
      Number((await h.db.db('members').count({ n: '*' }).first())?.n) +
      Number((await h.db.db('archived_requests').count({ n: '*' }).first())?.n);
    expect(res.count).toBe(rows);
    for (const list of ['members', 'members/public', 'invitations', 'membership-requests']) {
      expect((await compare('opensearch', `${base}/${list}?size=100`, ADMIN)).diff).toBe('');
      expect((await compare('elasticsearch', `${base}/${list}?size=100&sort=newest`, ADMIN)).diff).toBe('');
    }
  });
});
