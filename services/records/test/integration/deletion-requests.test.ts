import { randomUUID } from 'node:crypto';
import { waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMEDIATE_DELETION_COMMENT } from '../../src/deletion/deletion-request.service.js';
import { deletionRequestWorkers } from '../../src/events/deletion-requests.consumer.js';
import { type MailWorkersFixture, publishRequestEvent, startMailWorkers } from './mail-workers-support.js';
import { as, type Env, fullMetadata, VOCAB } from './support.js';

const OWNER = '801';
const OTHER = '802';
const ADMIN = as('9', ['admin']);

describe('record-deletion requests (records side)', () => {
  let f: MailWorkersFixture;
  let env: Env;
  let smtp: MailWorkersFixture['smtp'];

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } } as never;
    f = await startMailWorkers({
      streams: ['RECORDS', 'REQUESTS'],
      relay: true,
      workers: (base, e) => deletionRequestWorkers({ ...base, deletion: e.parts.deletion }),
    });
    ({ env, smtp } = f);
  });
  afterAll(async () => {
    await f?.close();
  });

  /** A published record of OWNER; `ageDays` back-dates its publication. */
  async function publish(ageDays = 0) {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    const r = await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as(OWNER));
    expect(r.status).toBe(202);
    if (ageDays)
      await env
        .db('records')
        .where({ id: d.id })
        .update({ created: new Date(Date.now() - ageDays * 86_400_000) });
    return r.body as Record<string, any>;
  }

  /** Play the requests service: publish a request event for `request` as it would. */
  const requestEvent = (verb: string, request: Record<string, any>) => publishRequestEvent(env, 'record-deletion', verb, request);

  const outboxOf = (subject: string, requestId: string) =>
    env.db('outbox').where({ subject }).whereRaw(`payload->'data'->>'request_id' = ?`, [requestId]).first();

  it('should show request_deletion only to the owner, and refuse everyone else', async () => {
    const r = await publish();
    const owner = await env.request.get(`/api/records/${r.id}`).set(as(OWNER)).expect(200);
    expect(owner.body.links.request_deletion).toBe(`https://rdm.example.org/api/records/${r.id}/request-deletion`);
    for (const who of [as(OTHER), as(null), ADMIN]) {
      const read = await env.request.get(`/api/records/${r.id}`).set(who).expect(200);
      expect(read.body.links.request_deletion).toBeUndefined();
    }
    for (const who of [as(OTHER), as(null), ADMIN]) {
      const res = await env.request.post(`/api/records/${r.id}/request-deletion`).set(who).send({ reason: 'spam' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    expect((await env.request.post('/api/records/zzzzz-zzz00/request-deletion').set(as(OWNER)).send({ reason: 'spam' })).status).toBe(404);
    const bad = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'nope', comment: 3, x: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['comment', 'x']);
    const unknownReason = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'nope' });
    expect(unknownReason.status).toBe(400);
    expect(unknownReason.body.errors).toEqual([{ field: 'reason', messages: ['Invalid value nope.'] }]);
    expect((await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({})).status).toBe(400);
  });

  it('should accept at once within the grace period: the record deleted with a tombstone by its owner, the owner mailed', async () => {
    const r = await publish();
    const res = await env.request
      .post(`/api/records/${r.id}/request-deletion`)
      .set(as(OWNER))
      .send({ reason: { id: 'spam' }, comment: 'Uploaded twice.' });
    expect(res.status).toBe(201);
    const created = env.fakeRequests.calls.find((c) => c.subject === 'create' && c.payload.topic?.record === r.id)!.payload;
    expect(created).toMatchObject({
      type: 'record-deletion',
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record: r.id },
      payload: { reason: 'spam', comment: 'Uploaded twice.' },
      comment: { content: 'Uploaded twice.', format: 'html' },
    });
    const accept = env.fakeRequests.calls.find((c) => c.subject === 'action' && c.payload.id === res.body.id)!.payload;
    expect(accept).toMatchObject({ action: 'accept', identity: { sub: 'system', roles: ['system'] } });
    expect(accept.payload.content).toBe(IMMEDIATE_DELETION_COMMENT);
    expect(res.body).toMatchObject({ id: res.body.id, status: 'accepted' });
    // The requests service publishes the accept; records deletes.
    await requestEvent('accepted', res.body);
    await waitFor(async () => (await env.request.get(`/api/records/${r.id}`)).status === 410, { timeoutMs: 10_000 });
    const gone = await env.request.get(`/api/records/${r.id}`);
    expect(gone.body.tombstone).toMatchObject({ removed_by: { user: OWNER }, removal_reason: { id: 'spam' }, note: 'Uploaded twice.' });
    const deleted = await outboxOf('rdm.records.record.deleted', res.body.id);
    expect(deleted).toBeTruthy();
    await waitFor(() => smtp.received.some((m) => m.to.includes(`user${OWNER}@example.org`) && m.text.includes('was deleted')), {
      timeoutMs: 10_000,
    });
    expect(smtp.received.some((m) => m.to.includes('moderators@rdm.example.org') && m.text.includes(r.id))).toBe(false);
  });

  it('should wait for an administrator after the grace period: one open request per record, decline mailed, then ask again', async () => {
    const r = await publish(400);
    const res = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'spam', comment: 'Old.' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('submitted');
    expect(env.fakeRequests.calls.some((c) => c.subject === 'action' && c.payload.id === res.body.id)).toBe(false);
    const again = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'spam' });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`A deletion request for this record is already open: ${res.body.id}`);
    await requestEvent('created', res.body);
    await waitFor(() => smtp.received.some((m) => m.to.includes('moderators@rdm.example.org') && m.text.includes(res.body.id)), {
      timeoutMs: 10_000,
    });
    await requestEvent('declined', res.body);
    await waitFor(() => smtp.received.some((m) => m.to.includes(`user${OWNER}@example.org`) && m.text.includes('declined')), {
      timeoutMs: 10_000,
    });
    expect((await env.request.get(`/api/records/${r.id}`)).status).toBe(200);
    const next = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'spam' });
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(res.body.id);
  });

  it('should mail the administrators of a request whose created event arrives before records committed its row', async () => {
    const r = await publish(400);
    const requestId = randomUUID();
    const request = {
      id: requestId,
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record: r.id },
      payload: { reason: 'spam' },
    };
    await requestEvent('created', request);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await env
      .db('deletion_requests')
      .insert({ id: randomUUID(), request_id: requestId, record_id: r.id, parent_id: r.parent.id, requester: OWNER });
    await waitFor(() => smtp.received.some((m) => m.to.includes('moderators@rdm.example.org') && m.text.includes(requestId)), {
      timeoutMs: 15_000,
    });
    await env.db('deletion_requests').where({ request_id: requestId }).update({ is_open: false });
  });

  it('should report a deletion it cannot apply (record already deleted) as deletion-failed, keeping the request open', async () => {
    const r = await publish(400);
    const res = await env.request.post(`/api/records/${r.id}/request-deletion`).set(as(OWNER)).send({ reason: 'spam' });
    expect(res.status).toBe(201);
    await env.request.delete(`/api/records/${r.id}/delete`).set(ADMIN).send({}).expect(204);
    await requestEvent('accepted', res.body);
    await waitFor(async () => !!(await outboxOf('rdm.records.record.deletion-failed', res.body.id)), { timeoutMs: 10_000 });
    const failed = await outboxOf('rdm.records.record.deletion-failed', res.body.id);
    expect(failed.payload.data).toEqual({ request_id: res.body.id, record_id: r.id, message: 'Record is already deleted.' });
    expect(await outboxOf('rdm.records.record.deleted', res.body.id)).toBeUndefined();
  });
});
