import { randomUUID } from 'node:crypto';
import { ensureStream } from '@rdm/platform';
import { RPC_SUBJECTS } from '@rdm/contracts';
import { testLogger, waitFor } from '@rdm/platform/testing';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { StatsService } from '../../src/stats/stats.service.js';
import { statsWorkers } from '../../src/events/stats.consumer.js';
import { serveCommunityUsageRpc } from '../../src/rpc/community-usage.rpc.js';
import { STATS_STREAM, StatsPublisher } from '../../src/stats/publisher.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';
import { gatewayFront } from '@rdm/platform/testing';
import { SECRET } from './support.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

describe('usage statistics', () => {
  let env: Env;
  let workers: ReturnType<typeof statsWorkers>;
  let v1: Record<string, any>;
  let v2: Record<string, any>;
  let http: ReturnType<typeof supertest>;
  let other: Record<string, any>;

  /** Publish one envelope as-is (`msgId` defaults to the envelope id). */
  const publishRaw = async (subject: string, envelope: Record<string, unknown>, msgId = String(envelope.id)) => {
    await env.nats.js.publish(subject, JSON.stringify(envelope), { msgID: msgId });
  };
  const envelope = (subject: string, data: Record<string, unknown>) => ({
    id: randomUUID(),
    type: subject,
    version: 1,
    occurred_at: data.at,
    aggregate: { type: 'record', id: data.record_id, revision: 0 },
    data,
  });
  const counts = async (id: string) => (await env.db('stats_counts').where({ record_id: id }).first()) ?? {};

  beforeAll(async () => {
    env = await startEnv();
    await ensureStream(env.nats.jsm, STATS_STREAM);
    // the app as main.ts builds it: with a publisher of view events
    http = supertest(gatewayFront(createApp({ ...env.deps, statsPublisher: new StatsPublisher(env.nats.js) }).app.callback(), SECRET));
    workers = statsWorkers({
      db: env.db,
      nats: env.nats,
      stats: new StatsService({ db: env.db, index: env.parts.index }),
      logger: testLogger() as never,
    });
    for (const w of workers) w.start();
    const d = (await env.request.post('/api/records').set(as('701')).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    v1 = (await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as('701'))).body;
    const n = (await env.request.post(`/api/records/${v1.id}/versions`).set(as('701'))).body;
    env.files.addFile(n.id, 'b.txt');
    v2 = (await env.request.post(`/api/records/${n.id}/draft/actions/publish`).set(as('701'))).body;
    const o = (await env.request.post('/api/records').set(as('702')).send({ metadata: fullMetadata() })).body;
    env.files.addFile(o.id, 'c.txt');
    other = (await env.request.post(`/api/records/${o.id}/draft/actions/publish`).set(as('702'))).body;
  });
  afterAll(async () => {
    for (const w of workers ?? []) await w.stop();
    await env?.close();
  });

  it('should count a redelivered event once (inbox), and a double click within 30 s once', async () => {
    const e = envelope('rdm.stats.record.viewed', { record_id: v1.id, visitor: 'visitor-a', at: '2026-01-01T10:00:00.000Z' });
    await publishRaw('rdm.stats.record.viewed', e);
    // the same event again under another Nats-Msg-Id (past JetStream's duplicate window): a redelivery
    await publishRaw('rdm.stats.record.viewed', e, randomUUID());
    // same visitor 10 s later: double click
    await publishRaw(
      'rdm.stats.record.viewed',
      envelope('rdm.stats.record.viewed', { record_id: v1.id, visitor: 'visitor-a', at: '2026-01-01T10:00:10.000Z' }),
    );
    // same visitor 60 s later: counted, not unique (same day); another visitor: counted and unique
    await publishRaw(
      'rdm.stats.record.viewed',
      envelope('rdm.stats.record.viewed', { record_id: v1.id, visitor: 'visitor-a', at: '2026-01-01T10:01:10.000Z' }),
    );
    await publishRaw(
      'rdm.stats.record.viewed',
      envelope('rdm.stats.record.viewed', { record_id: v1.id, visitor: 'visitor-b', at: '2026-01-01T10:01:11.000Z' }),
    );
    await publishRaw(
      'rdm.stats.file.downloaded',
      envelope('rdm.stats.file.downloaded', { record_id: v2.id, visitor: 'visitor-a', at: '2026-01-01T10:02:00.000Z', size: 1234 }),
    );
    await waitFor(async () => Number((await counts(v1.id)).views) >= 3 && Number((await counts(v2.id)).downloads) >= 1, {
      timeoutMs: 15000,
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await counts(v1.id)).toMatchObject({ views: '3', unique_views: '2', downloads: '0' });
    expect(await counts(v2.id)).toMatchObject({ downloads: '1', unique_downloads: '1', data_volume: '1234' });
    const ids = async (sort: string) =>
      (await env.request.get(`/api/records?sort=${sort}`)).body.hits.hits.map((h: { id: string }) => h.id);
    expect(await ids('newest')).toEqual([other.id, v2.id]);
    expect(await ids('mostviewed')).toEqual([v2.id, other.id]); // all versions' unique views of v2's parent
    expect(await ids('mostdownloaded')).toEqual([v2.id, other.id]);
    expect(await env.db('inbox').where({ consumer: 'records-stats-views' }).count({ n: '*' })).toEqual([{ n: '4' }]); // 4 distinct envelopes: the redelivery adds no row
  });

  it("should sum the usage of a community's records over every version (rdm.records.rpc.community-usage)", async () => {
    const community = randomUUID();
    // As an accepted inclusion leaves it: the parent lists the community.
    await env
      .db('parents')
      .where({ id: v1.parent.id })
      .update({ communities: { ids: [community], default: community } });
    const server = serveCommunityUsageRpc(env.nats.nc, env.db, testLogger());
    try {
      await server.ready;
      // v1 (3 views) and v2 (1 download) share the parent; `other` is not in the community.
      expect(await env.rpc(RPC_SUBJECTS.records.communityUsage, { community_id: community })).toEqual({ views: 3, downloads: 1 });
      expect(await env.rpc(RPC_SUBJECTS.records.communityUsage, { community_id: randomUUID() })).toEqual({ views: 0, downloads: 0 });
    } finally {
      await server.stop();
    }
  });

  it('should show stats{this_version, all_versions} on the record and publish a view for people, not robots', async () => {
    await new Promise((r) => setTimeout(r, 2100)); // the stats read cache (2 s)
    const res = await http.get(`/api/records/${v2.id}`).set('user-agent', BROWSER).set('x-forwarded-for', '192.0.2.7');
    expect(res.status).toBe(200);
    expect(res.body.stats).toEqual({
      this_version: { views: 0, unique_views: 0, downloads: 1, unique_downloads: 1, data_volume: 1234 },
      all_versions: { views: 3, unique_views: 2, downloads: 1, unique_downloads: 1, data_volume: 1234 },
    });
    await http.get(`/api/records/${v2.id}`).set('user-agent', 'Googlebot/2.1 (+http://www.google.com/bot.html)');
    await http.get(`/api/records/${v2.id}`).set('user-agent', BROWSER).set('x-forwarded-for', '192.0.2.7'); // double click
    await waitFor(async () => Number((await counts(v2.id)).views) >= 1, { timeoutMs: 15000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await counts(v2.id)).toMatchObject({ views: '1', unique_views: '1' });
    const seen = await env.db('stats_seen').where({ record_id: v2.id, kind: 'v' });
    expect(seen).toHaveLength(1);
    expect(seen[0].visitor).not.toContain('192.0.2.7');
  });
});
