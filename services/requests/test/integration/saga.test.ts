import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_ACCEPT_COMMENT } from '../../src/domain/types/community.types.js';
import { as, createRequest, type Env, startEnv } from './support.js';

let env: Env;
const DEPOSITOR = '40';
const CURATOR = '41';
const OUTSIDER = '42';
let reviewed: { id: string };
let openCommunity: { id: string };
let closedSubmission: { id: string };

/** Play the records service: answer accepted submissions with `published` unless told to fail / stay silent. */
const behaviour = new Map<string, 'publish' | 'fail' | 'silent'>();
function simulateRecords(): void {
  env.nats.nc.subscribe('rdm.requests.request.accepted', {
    callback: (_e, msg) => {
      const ev = JSON.parse(new TextDecoder().decode(msg.data));
      if (ev.data.type !== 'community-submission') return;
      const what = behaviour.get(ev.data.topic.record) ?? 'publish';
      if (what === 'publish')
        void env.publishEffect('rdm.records.record.published', {
          id: ev.data.topic.record,
          parent_id: `p-${ev.data.topic.record}`,
          index: 1,
          is_latest: true,
          access_status: 'open',
          bucket_id: 'b',
          request_id: ev.data.id,
        });
      if (what === 'fail')
        void env.publishEffect('rdm.records.review.failed', {
          request_id: ev.data.id,
          record_id: ev.data.topic.record,
          message: 'The draft is invalid.',
          errors: [{ field: 'metadata.title', messages: ['Missing data for required field.'] }],
        });
    },
  });
}

let recordSeq = 0;
const submission = (receiver: string, record = `rec${++recordSeq}`) =>
  createRequest(
    env,
    { type: 'community-submission', created_by: { user: DEPOSITOR }, receiver: { community: receiver }, topic: { record } },
    { sub: DEPOSITOR, roles: [] },
  );

beforeAll(async () => {
  env = await startEnv({ effectWaitMs: 1500 });
  reviewed = env.fake.add({ review_policy: 'closed' });
  env.fake.setRole(reviewed.id, CURATOR, 'curator');
  openCommunity = env.fake.add({ review_policy: 'open' });
  env.fake.setRole(openCommunity.id, DEPOSITOR, 'curator');
  closedSubmission = env.fake.add({ record_submission_policy: 'closed' });
  simulateRecords();
  await env.nats.nc.flush();
});
afterAll(async () => {
  await env?.close();
});

describe('community-submission saga', () => {
  it('should be created in `created`, visible only to its creator, with only submit', async () => {
    const r = await submission(reviewed.id);
    expect(r).toMatchObject({ status: 'created', is_open: false, is_closed: false, title: '', expires_at: null });
    expect(Object.keys(r.links.actions)).toEqual(['submit']);
    const mine = await env.http.get(`/api/requests/${r.id}`).set(as(DEPOSITOR)).expect(200);
    expect(Object.keys(mine.body.links.actions)).toEqual(['submit']);
    expect(mine.body.links.self_html).toMatch(/\/me\/requests\//);
    expect((await env.http.get(`/api/requests/${r.id}`).set(as(CURATOR))).status).toBe(403);
  });

  it('should submit (no log event, comment kept), then curator accept waits for record.published', async () => {
    const r = await submission(reviewed.id);
    const sub = await env.http
      .post(`/api/requests/${r.id}/actions/submit`)
      .set(as(DEPOSITOR))
      .send({ payload: { content: 'Please review', format: 'html' } })
      .expect(200);
    expect(sub.body).toMatchObject({ status: 'submitted', is_open: true });
    expect(Object.keys(sub.body.links.actions)).toEqual(['cancel']);
    const asCurator = await env.http.get(`/api/requests/${r.id}`).set(as(CURATOR)).expect(200);
    expect(Object.keys(asCurator.body.links.actions).sort()).toEqual(['accept', 'decline']);
    const acc = await env.http
      .post(`/api/requests/${r.id}/actions/accept`)
      .set(as(CURATOR))
      .send({ payload: { content: 'Welcome', format: 'html' } })
      .expect(200);
    expect(acc.body).toMatchObject({ status: 'accepted', is_closed: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(CURATOR)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by.user, e.payload.event ?? e.payload.content])).toEqual([
      ['C', DEPOSITOR, 'Please review'],
      ['L', CURATOR, 'accepted'],
      ['C', CURATOR, 'Welcome'],
    ]);
  });

  it('should go back to submitted with an accept_failed log event when records reports review.failed', async () => {
    const r = await submission(reviewed.id, 'bad-record');
    behaviour.set('bad-record', 'fail');
    await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR)).expect(200);
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(CURATOR)).expect(200);
    expect(acc.body).toMatchObject({ status: 'submitted', is_open: true });
    expect(Object.keys(acc.body.links.actions).sort()).toEqual(['accept', 'decline']);
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(CURATOR)).expect(200);
    const last = tl.body.hits.hits.at(-1);
    expect(last).toMatchObject({
      type: 'L',
      created_by: { user: 'system' },
      payload: { event: 'accept_failed', errors: [{ field: 'metadata.title', messages: ['Missing data for required field.'] }] },
    });
    expect(last.payload.content).toContain('The draft is invalid.');
    expect(tl.body.hits.hits.some((e: any) => e.payload.event === 'accepted')).toBe(false);
  });

  it('should answer 202 with the pending state after the wait, then the durable consumer applies a late event exactly once', async () => {
    const r = await submission(reviewed.id, 'slow-record');
    behaviour.set('slow-record', 'silent');
    await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR)).expect(200);
    const started = Date.now();
    const acc = await env.http.post(`/api/requests/${r.id}/actions/accept`).set(as(CURATOR)).expect(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(acc.body).toMatchObject({ status: 'submitted', is_open: true, links: { actions: {} } });
    expect((await env.tdb.db('requests').where({ id: r.id }).first()).status).toBe('accepting');
    await env.startConsumers();
    const data = { id: 'slow-record', parent_id: 'p', index: 1, is_latest: true, access_status: 'open', bucket_id: 'b', request_id: r.id };
    const ev = await env.publishEffect('rdm.records.record.published', data);
    await waitStatus(r.id, 'accepted');
    const after = await env.http.get(`/api/requests/${r.id}`).set(as(CURATOR)).expect(200);
    expect(after.body).toMatchObject({ status: 'accepted', is_closed: true });
    // Redelivered (republished with a new stream sequence, same envelope id) and a second publish: no second effect.
    await env.nats.js.publish('rdm.records.record.published', JSON.stringify(ev));
    await env.publishEffect('rdm.records.record.published', data);
    await new Promise((res) => setTimeout(res, 700));
    const logs = await env.tdb.db('request_events').where({ request_id: r.id, type: 'L' });
    expect(logs.map((l) => l.payload.event)).toEqual(['accepted']);
    const inbox = await env.tdb.db('inbox').where({ message_id: ev.id });
    expect(inbox).toHaveLength(1);
    // A direct publish (no request_id) concerns no request: acked without a transaction or an inbox row.
    const { request_id: _r, ...directData } = data;
    const direct = await env.publishEffect('rdm.records.record.published', { ...directData, id: 'direct-record' });
    const consumer = () => env.nats.jsm.consumers.info('RECORDS', 'requests-record-published');
    for (let i = 0; i < 100 && ((await consumer()).num_pending > 0 || (await consumer()).num_ack_pending > 0); i++) {
      await new Promise((res) => setTimeout(res, 100));
    }
    expect((await consumer()).num_pending).toBe(0);
    expect((await consumer()).num_ack_pending).toBe(0);
    expect(await env.tdb.db('inbox').where({ message_id: direct.id })).toHaveLength(0);
  });

  it('should auto-accept on submit for a curator of an open-review community, with the system comment', async () => {
    const r = await submission(openCommunity.id);
    const sub = await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR)).expect(200);
    expect(sub.body).toMatchObject({ status: 'accepted', is_closed: true });
    const tl = await env.http.get(`/api/requests/${r.id}/timeline`).set(as(DEPOSITOR)).expect(200);
    expect(tl.body.hits.hits.map((e: any) => [e.type, e.created_by.user, e.payload.event ?? e.payload.content])).toEqual([
      ['L', 'system', 'accepted'],
      ['C', 'system', AUTO_ACCEPT_COMMENT],
    ]);
    const ob = await env.tdb.db('outbox').where({ aggregate_id: r.id }).orderBy('seq');
    expect(ob.map((x) => x.subject)).toEqual([
      'rdm.requests.request.created',
      'rdm.requests.request.submitted',
      'rdm.requests.request.accepted',
      // The publication confirmed the accept: accepting → accepted and the pending comment added (search indexer).
      'rdm.requests.request.updated',
    ]);
    expect(ob[2].payload.data.actor).toEqual({ user: 'system' });
    expect(ob[3].payload.data.changes).toEqual(['status', 'activity']);
  });

  it('should answer 202 to an auto-accepting submit whose publication does not arrive within the wait', async () => {
    const r = await submission(openCommunity.id, 'slow-auto');
    behaviour.set('slow-auto', 'silent');
    const sub = await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR)).expect(202);
    expect(sub.body).toMatchObject({ status: 'submitted', is_open: true, links: { actions: {} } });
    expect((await env.tdb.db('requests').where({ id: r.id }).first()).status).toBe('accepting');
  });

  it('should not auto-accept with require_review, nor for a closed review policy', async () => {
    const r = await submission(openCommunity.id);
    const sub = await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR)).send({ require_review: true }).expect(200);
    expect(sub.body.status).toBe('submitted');
    env.fake.setRole(reviewed.id, DEPOSITOR, 'owner');
    const c = await submission(reviewed.id);
    expect((await env.http.post(`/api/requests/${c.id}/actions/submit`).set(as(DEPOSITOR)).expect(200)).body.status).toBe('submitted');
    env.fake.members.get(reviewed.id)?.delete(DEPOSITOR);
  });

  it('should refuse submission to a members-only community with the reference message', async () => {
    const r = await submission(closedSubmission.id);
    const res = await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(DEPOSITOR));
    expect(res.body).toEqual({ status: 403, message: 'Submission to this community is only allowed to community members.' });
    expect((await env.http.post(`/api/requests/${r.id}/actions/submit`).set(as(OUTSIDER))).body).toEqual({
      status: 403,
      message: 'Permission denied.',
    });
  });

  it('should delete only while created (creator), then 404', async () => {
    const r = await submission(reviewed.id);
    expect((await env.http.delete(`/api/requests/${r.id}`).set(as(OUTSIDER))).status).toBe(403);
    await env.http.delete(`/api/requests/${r.id}`).set(as(DEPOSITOR)).expect(204);
    expect((await env.http.get(`/api/requests/${r.id}`).set(as(DEPOSITOR))).status).toBe(404);
    const s = await submission(reviewed.id);
    await env.http.post(`/api/requests/${s.id}/actions/submit`).set(as(DEPOSITOR)).expect(200);
    expect((await env.http.delete(`/api/requests/${s.id}`).set(as(DEPOSITOR))).status).toBe(403);
    expect((await env.http.delete(`/api/requests/${s.id}`).set(as('1', ['admin']))).status).toBe(403);
  });
});

async function waitStatus(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await env.tdb.db('requests').where({ id }).first();
    if (row.status === status) return;
    if (Date.now() > deadline) throw new Error(`status stayed ${row.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
