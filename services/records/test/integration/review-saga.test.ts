import { randomUUID } from 'node:crypto';
import { ensureStream, prepared } from '@rdm/platform';
import { waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunitySummary } from '../../src/domain/ports.js';
import { SAGA_MESSAGES } from '../../src/domain/errors.js';
import { REQUEST_ACCEPTED_DURABLE, requestConsumerWorkers } from '../../src/events/requests-accepted.consumer.js';
import { community } from './review-support.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '951';
const CURATOR = '952';

/** The records side of the saga: request events from JetStream → publication / inclusion / failure. */
describe('review saga (rdm.requests.request.* consumers)', () => {
  let env: Env;
  let workers: ReturnType<typeof requestConsumerWorkers>;
  let open: CommunitySummary;
  let restricted: CommunitySummary;

  beforeAll(async () => {
    env = await startEnv();
    await ensureStream(env.nats.jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
    workers = requestConsumerWorkers({
      db: env.db,
      nats: env.nats,
      saga: env.parts.saga!,
      review: env.parts.review!,
      logger: env.deps.logger,
      backoffMs: [100],
    });
    for (const w of workers) w.start();
    await Promise.all(workers.map((w) => w.ready));
    open = env.fakeCommunities.add(community('saga-open'));
    restricted = env.fakeCommunities.add(community('saga-restricted', { visibility: 'restricted' }));
    env.fakeCommunities.setRole(CURATOR, open.id, 'curator');
    // A restricted community takes submissions from members only.
    env.fakeCommunities.setRole(OWNER, restricted.id, 'reader');
  });
  afterAll(async () => {
    for (const w of workers ?? []) await w.stop();
    await env?.close();
  });

  /** A valid draft with a file and a submitted review to `c`; returns the draft and the request id. */
  async function submitted(
    c: CommunitySummary,
    access?: Record<string, string>,
  ): Promise<{ id: string; parentId: string; requestId: string }> {
    const d = (
      await env.request
        .post('/api/records')
        .set(as(OWNER))
        .send({
          metadata: fullMetadata(),
          ...(access ? { access } : {}),
          parent: { review: { type: 'community-submission', receiver: { community: c.id } } },
        })
        .expect(201)
    ).body;
    env.files.addFile(d.id, 'data.csv', { size: 2048 });
    const r = await env.request.post(`/api/records/${d.id}/draft/actions/submit-review`).set(as(OWNER)).send({}).expect(202);
    return { id: d.id, parentId: d.parent.id, requestId: r.body.id };
  }

  function envelope(
    verb: string,
    requestId: string,
    type: string,
    topic: string,
    communityId: string,
    id = randomUUID(),
    createdBy: string = OWNER,
  ) {
    return {
      id,
      type: `rdm.requests.request.${verb}`,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'request', id: requestId, revision: 2 },
      data: {
        id: requestId,
        number: '1',
        type,
        created_by: { user: createdBy },
        receiver: { community: communityId },
        topic: { record: topic },
        actor: { user: CURATOR },
      },
    };
  }
  /** Publish an envelope on JetStream; a fresh Nats-Msg-Id so a repeated envelope id is a redelivery the inbox sees. */
  const send = (e: ReturnType<typeof envelope>) => env.nats.js.publish(e.type, JSON.stringify(e), { msgID: randomUUID() });
  const outbox = (subject: string, field: string, value: string) =>
    env.db('outbox').where({ subject }).whereRaw(`payload->'data'->>? = ?`, [field, value]).orderBy('seq');
  const processed = async (eventId: string) =>
    (await env.db('inbox').where({ message_id: eventId, consumer: REQUEST_ACCEPTED_DURABLE })).length === 1;

  it('should publish the draft into the community on acceptance, with request_id in record.published', async () => {
    const s = await submitted(open);
    await send(envelope('accepted', s.requestId, 'community-submission', s.id, open.id));
    const rec = await waitFor(async () => {
      const r = await env.request.get(`/api/records/${s.id}`);
      return r.status === 200 ? r.body : undefined;
    });
    expect(rec.is_published).toBe(true);
    expect(rec.parent.communities).toMatchObject({ ids: [open.id], default: open.id, entries: [{ id: open.id, slug: 'saga-open' }] });
    expect(rec.parent.review).toBeUndefined();
    const events = await outbox('rdm.records.record.published', 'id', s.id);
    expect(events).toHaveLength(1);
    expect(events[0].payload.data).toMatchObject({ request_id: s.requestId, communities: [open.id], files_count: 1, files_bytes: 2048 });
    expect(env.files.bucket(s.id).locked).toBe(true);
    const listed = await env.request.get('/api/communities/saga-open/records').expect(200);
    expect(listed.body.hits.hits.map((h: any) => h.id)).toContain(s.id);
    expect((await env.request.get('/api/communities/nope/records')).status).toBe(404);
  });

  it('should publish once whatever is redelivered (same event id, or a second event for the same request)', async () => {
    const s = await submitted(open);
    const first = envelope('accepted', s.requestId, 'community-submission', s.id, open.id);
    await send(first);
    await send(first);
    const second = envelope('accepted', s.requestId, 'community-submission', s.id, open.id);
    await send(second);
    await waitFor(async () => ((await processed(first.id)) && (await processed(second.id)) ? true : undefined));
    expect(await outbox('rdm.records.record.published', 'id', s.id)).toHaveLength(1);
    expect(await env.db('records').where({ id: s.id })).toHaveLength(1);
    expect(await env.db('review_effects').where({ request_id: s.requestId })).toMatchObject([{ outcome: 'published' }]);
  });

  it('should write review.failed with the field errors when the draft became invalid, and publish nothing', async () => {
    const s = await submitted(open);
    await env.db.raw(`UPDATE drafts SET metadata = metadata - 'creators' WHERE id = ?`, [s.id]);
    const e = envelope('accepted', s.requestId, 'community-submission', s.id, open.id);
    await send(e);
    const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', s.requestId))[0]);
    expect(failed.payload.data).toMatchObject({ request_id: s.requestId, record_id: s.id, message: 'A validation error occurred.' });
    expect(failed.payload.data.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'metadata.creators' })]));
    expect(await env.db('records').where({ id: s.id })).toHaveLength(0);
    expect(env.files.bucket(s.id).locked).toBe(false);
    const draft = await env.request.get(`/api/records/${s.id}/draft`).set(as(OWNER)).expect(200);
    expect(draft.body.status).toBe('in_review');
  });

  it('should refuse a public record into a restricted community', async () => {
    const s = await submitted(restricted);
    await send(envelope('accepted', s.requestId, 'community-submission', s.id, restricted.id));
    const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', s.requestId))[0]);
    expect(failed.payload.data.message).toBe(SAGA_MESSAGES.restricted);
    expect(await env.db('records').where({ id: s.id })).toHaveLength(0);
  });

  it("should list a community's restricted records to its members only", async () => {
    const s = await submitted(open, { record: 'restricted', files: 'restricted' });
    await send(envelope('accepted', s.requestId, 'community-submission', s.id, open.id));
    await waitFor(async () => ((await env.db('records').where({ id: s.id })).length ? true : undefined));
    const ids = async (user: string | null) =>
      (await env.request.get(`/api/communities/${open.id}/records`).set(as(user)).expect(200)).body.hits.hits.map((h: any) => h.id);
    expect(await ids(null)).not.toContain(s.id);
    expect(await ids('999')).not.toContain(s.id);
    expect(await ids(CURATOR)).toContain(s.id);
    expect(await ids(OWNER)).toContain(s.id);
    // Members read the restricted record itself too.
    expect((await env.request.get(`/api/records/${s.id}`).set(as(CURATOR))).status).toBe(200);
    expect((await env.request.get(`/api/records/${s.id}`).set(as('999'))).status).toBe(403);
  });

  it('should publish once under 20 concurrent deliveries of the same request', async () => {
    const s = await submitted(open);
    const e = envelope('accepted', s.requestId, 'community-submission', s.id, open.id);
    // As runConsumer runs a delivery: inbox row then the handler, in one transaction each.
    const deliveries = Array.from({ length: 20 }, () =>
      env.db.transaction(async (trx) => {
        await prepared(trx, 'INSERT INTO inbox (message_id, consumer, subject) VALUES (?, ?, ?)', [
          randomUUID(),
          'concurrency-test',
          e.type,
        ]);
        await env.parts.saga!.onAccepted(trx, { ...e, id: randomUUID() });
      }),
    );
    const results = await Promise.allSettled(deliveries);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await outbox('rdm.records.record.published', 'id', s.id)).toHaveLength(1);
    expect(await env.db('records').where({ id: s.id })).toHaveLength(1);
  });

  // Issue 18, finding 2: the request's topic and receiver are another service's data; the saga
  // publishes only the draft whose review IS the request, for a creator who may still submit it.
  describe('authority re-checked at accept time', () => {
    const STRANGER = '953';

    it("should refuse a request that is not the draft's own review (re-aimed topic), and publish nothing", async () => {
      const victim = await submitted(open);
      const attacker = await submitted(open);
      // The attacker's own review, its topic pointed at the victim's draft.
      await send(envelope('accepted', attacker.requestId, 'community-submission', victim.id, open.id));
      const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', attacker.requestId))[0]);
      expect(failed.payload.data).toMatchObject({ record_id: victim.id, message: SAGA_MESSAGES.notTheReview });
      expect(await env.db('records').where({ id: victim.id })).toHaveLength(0);
      expect(await outbox('rdm.records.record.published', 'id', victim.id)).toHaveLength(0);
      expect(env.files.bucket(victim.id).locked).toBe(false);
      const draft = await env.request.get(`/api/records/${victim.id}/draft`).set(as(OWNER)).expect(200);
      expect(draft.body.parent.review.id).toBe(victim.requestId);
    });

    it('should refuse the right review aimed at another community (re-aimed receiver)', async () => {
      const s = await submitted(open);
      const other = env.fakeCommunities.add(community('saga-elsewhere'));
      await send(envelope('accepted', s.requestId, 'community-submission', s.id, other.id));
      const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', s.requestId))[0]);
      expect(failed.payload.data.message).toBe(SAGA_MESSAGES.notTheReview);
      expect(await env.db('records').where({ id: s.id })).toHaveLength(0);
    });

    it('should refuse a review whose creator may not manage the draft (any more)', async () => {
      const s = await submitted(open);
      await send(envelope('accepted', s.requestId, 'community-submission', s.id, open.id, randomUUID(), STRANGER));
      const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', s.requestId))[0]);
      expect(failed.payload.data.message).toBe(SAGA_MESSAGES.creatorMaySubmit);
      expect(await env.db('records').where({ id: s.id })).toHaveLength(0);
      expect(await env.db('review_effects').where({ request_id: s.requestId })).toMatchObject([{ outcome: 'failed' }]);
    });

    it('should refuse an inclusion whose creator may not manage the record, and include nothing', async () => {
      const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() }).expect(201)).body;
      env.files.addFile(d.id, 'x.csv');
      await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
      const requestId = randomUUID();
      await send(envelope('accepted', requestId, 'community-inclusion', d.id, open.id, randomUUID(), STRANGER));
      const failed = await waitFor(async () => (await outbox('rdm.records.review.failed', 'request_id', requestId))[0]);
      expect(failed.payload.data.message).toBe(SAGA_MESSAGES.creatorMayInclude);
      expect(await outbox('rdm.records.inclusion.added', 'request_id', requestId)).toHaveLength(0);
      expect((await env.request.get(`/api/records/${d.id}`).expect(200)).body.parent.communities).toEqual({});
    });
  });

  it('should follow the request status: declined, then unlinked on cancel', async () => {
    const s = await submitted(open);
    await send(envelope('declined', s.requestId, 'community-submission', s.id, open.id));
    await waitFor(async () =>
      (await env.request.get(`/api/records/${s.id}/draft`).set(as(OWNER))).body.status === 'declined' ? true : undefined,
    );
    // A late `submitted` never moves a closed review back.
    await send(envelope('submitted', s.requestId, 'community-submission', s.id, open.id));
    const s2 = await submitted(open);
    await send(envelope('cancelled', s2.requestId, 'community-submission', s2.id, open.id));
    const d2 = await waitFor(async () => {
      const b = (await env.request.get(`/api/records/${s2.id}/draft`).set(as(OWNER))).body;
      return b.parent.review === undefined ? b : undefined;
    });
    expect(d2.status).toBe('draft');
    expect((await env.request.get(`/api/records/${s.id}/draft`).set(as(OWNER))).body.status).toBe('declined');
    // Declined is closed: the draft may be published directly.
    await env.request.post(`/api/records/${s.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
  });

  it('should include a published record through a community-inclusion request, list, suggest and remove it', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() }).expect(201)).body;
    env.files.addFile(d.id, 'x.csv');
    await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER)).expect(202);
    env.fakeCommunities.setRole(OWNER, open.id, 'reader');
    const sugg = await env.request.get(`/api/records/${d.id}/communities-suggestions`).set(as(OWNER)).expect(200);
    expect(sugg.body.hits.hits.map((c: any) => c.id).sort()).toEqual([open.id, restricted.id].sort());
    const add = await env.request
      .post(`/api/records/${d.id}/communities`)
      .set(as(OWNER))
      .send({ communities: [{ id: 'saga-open' }, { id: 'nope' }, { id: restricted.id }] })
      .expect(200);
    expect(add.body.processed).toEqual([{ community_id: open.id, request_id: expect.any(String) }]);
    expect(add.body.errors).toEqual([
      { community_id: 'nope', message: 'Community not found.' },
      { community_id: restricted.id, message: SAGA_MESSAGES.restricted },
    ]);
    const requestId = add.body.processed[0].request_id;
    expect(env.fakeRequests.requests.get(requestId)).toMatchObject({
      type: 'community-inclusion',
      status: 'submitted',
      topic: { record: d.id },
    });
    await send(envelope('accepted', requestId, 'community-inclusion', d.id, open.id));
    const added = await waitFor(async () => (await outbox('rdm.records.inclusion.added', 'request_id', requestId))[0]);
    const published = (await env.request.get(`/api/records/${d.id}`).expect(200)).body;
    expect(added.payload.data).toEqual({
      parent_id: d.parent.id,
      record_id: d.id,
      community_id: open.id,
      request_id: requestId,
      files_count: 1,
      files_bytes: published.files.total_bytes,
    });
    const list = await env.request.get(`/api/records/${d.id}/communities`).expect(200);
    expect(list.body.hits.hits.map((c: any) => c.id)).toEqual([open.id]);
    const after = await env.request.get(`/api/records/${d.id}/communities-suggestions`).set(as(OWNER)).expect(200);
    expect(after.body.hits.hits.map((c: any) => c.id)).toEqual([restricted.id]);
    const listed = await env.request.get(`/api/communities/${open.id}/records`).expect(200);
    expect(listed.body.hits.hits.map((h: any) => h.id)).toContain(d.id);

    expect(
      (
        await env.request
          .delete(`/api/records/${d.id}/communities`)
          .set(as('999'))
          .send({ communities: [{ id: open.id }] })
      ).status,
    ).toBe(403);
    const del = await env.request
      .delete(`/api/records/${d.id}/communities`)
      .set(as(CURATOR))
      .send({ communities: [{ id: open.id }] })
      .expect(200);
    expect(del.body).toEqual({});
    expect(await outbox('rdm.records.inclusion.removed', 'parent_id', d.parent.id)).toHaveLength(1);
    expect((await env.request.get(`/api/records/${d.id}`).expect(200)).body.parent.communities).toEqual({});
    const listedAfter = await env.request.get(`/api/communities/${open.id}/records`).expect(200);
    expect(listedAfter.body.hits.hits.map((h: any) => h.id)).not.toContain(d.id);
  });
});
