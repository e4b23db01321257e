/**
 * Owners' quota-increase requests, records side (Postgres + NATS, the requests service faked on
 * NATS): the route's checks, the request it creates (payload with the draft's bucket), the
 * owner-only `quota_increase` link, and the mails (administrators on created, the owner on
 * declined and on files' `rdm.files.bucket.quota-changed`) through a real SMTP server.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@rdm/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaRequestWorkers } from '../../src/events/quota-requests.consumer.js';
import { type MailWorkersFixture, publishEvent as publishAny, publishRequestEvent, startMailWorkers } from './mail-workers-support.js';
import { as, type Env, fullMetadata } from './support.js';

const OWNER = '811';
const OTHER = '812';
const ADMIN = as('9', ['admin']);

describe('quota-increase requests (records side)', () => {
  let f: MailWorkersFixture;
  let env: Env;
  let smtp: MailWorkersFixture['smtp'];

  beforeAll(async () => {
    f = await startMailWorkers({ streams: ['REQUESTS', 'FILES'], workers: (base) => quotaRequestWorkers(base) });
    ({ env, smtp } = f);
  });
  afterAll(async () => {
    await f?.close();
  });

  const publishEvent = (type: string, data: Record<string, unknown>, aggregateId: string) => publishAny(env, type, data, aggregateId);
  const requestEvent = (verb: string, r: Record<string, any>) => publishRequestEvent(env, 'quota-increase', verb, r);

  it('should show quota_increase to the draft owner only and refuse everyone else', async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    expect(d.links.quota_increase).toBe(`https://rdm.example.org/api/records/${d.id}/quota-increase`);
    const admin = await env.request.get(`/api/records/${d.id}/draft`).set(ADMIN).expect(200);
    expect(admin.body.links.quota_increase).toBeUndefined();
    for (const who of [as(OTHER), as(null), ADMIN]) {
      const res = await env.request.post(`/api/records/${d.id}/quota-increase`).set(who).send({ quota_size: 1e9, reason: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: 'Permission denied.' });
    }
    expect(
      (await env.request.post('/api/records/zzzzz-zzz00/quota-increase').set(as(OWNER)).send({ quota_size: 1, reason: 'x' })).status,
    ).toBe(404);
    const bad = await env.request.post(`/api/records/${d.id}/quota-increase`).set(as(OWNER)).send({ quota_size: -1, x: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['quota_size', 'reason', 'x']);
    expect((await env.request.post(`/api/records/${d.id}/quota-increase`).set(as(OWNER)).send('nope')).status).toBe(400);
  });

  it("should ask for the draft's bucket, mail the administrators, then the owner when declined or granted", async () => {
    const d = (await env.request.post('/api/records').set(as(OWNER)).send({ metadata: fullMetadata() })).body;
    const { bucket_id } = await env.db('drafts').where({ id: d.id }).first('bucket_id');
    const res = await env.request
      .post(`/api/records/${d.id}/quota-increase`)
      .set(as(OWNER))
      .send({ quota_size: 20_000_000_000, reason: 'Raw sonar data.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'quota-increase', status: 'submitted' });
    const created = env.fakeRequests.calls.find((c) => c.subject === 'create' && c.payload.topic?.record === d.id)!.payload;
    expect(created).toMatchObject({
      type: 'quota-increase',
      created_by: { user: OWNER },
      receiver: { group: 'admin' },
      topic: { record: d.id },
      payload: { quota_size: 20_000_000_000, reason: 'Raw sonar data.', bucket_id },
      comment: { content: 'Raw sonar data.', format: 'html' },
    });
    // One open request per draft, as InvenioRDM refuses duplicate open requests.
    const again = await env.request.post(`/api/records/${d.id}/quota-increase`).set(as(OWNER)).send({ quota_size: 1, reason: 'More.' });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('A quota increase request for this draft is already open.');
    await requestEvent('created', res.body);
    await waitFor(
      () =>
        smtp.received.some((m) => m.to.includes('moderators@rdm.example.org') && m.text.includes(res.body.id) && m.text.includes('20 GB')),
      {
        timeoutMs: 10_000,
      },
    );
    await requestEvent('declined', res.body);
    await waitFor(
      () => smtp.received.some((m) => m.to.includes(`user${OWNER}@example.org`) && m.text.includes('declined') && m.text.includes(d.id)),
      {
        timeoutMs: 10_000,
      },
    );
    // Declined: the draft's slot is free again (records' consumer closed it).
    await waitFor(
      async () =>
        (await env.request.post(`/api/records/${d.id}/quota-increase`).set(as(OWNER)).send({ quota_size: 2, reason: 'Again.' })).status ===
        201,
      { timeoutMs: 10_000 },
    );
    await publishEvent('rdm.files.bucket.quota-changed', { bucket_id, quota_bytes: 20_000_000_000, request_id: res.body.id }, bucket_id);
    await waitFor(
      () => smtp.received.some((m) => m.to.includes(`user${OWNER}@example.org`) && m.text.includes('may now take up to 20 GB')),
      {
        timeoutMs: 10_000,
      },
    );
  });
});
