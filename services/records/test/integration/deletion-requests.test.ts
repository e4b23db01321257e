import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { ensureStream, type EventEnvelope, eventSubjects, OutboxRelay } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMEDIATE_DELETION_COMMENT } from '../../src/deletion/deletion-request.service.js';
import { deletionRequestWorkers } from '../../src/events/deletion-requests.consumer.js';
import { smtpSender } from '../../src/mail/mailer.js';
import { as, type Env, fullMetadata, startEnv, VOCAB } from './support.js';

const OWNER = '801';
const OTHER = '802';
const ADMIN = as('9', ['admin']);

/** A real SMTP server collecting messages. */
async function startSmtp() {
  const received: { to: string[]; text: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => {
        raw += c.toString('utf8');
      });
      stream.on('end', () => {
        const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), text });
        done();
      });
    },
  });
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('record-deletion requests (records side)', () => {
  let env: Env;
  let relay: OutboxRelay;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let workers: ReturnType<typeof deletionRequestWorkers>;

  beforeAll(async () => {
    VOCAB['removalreasons/spam'] = { id: 'spam', title: { en: 'Spam' } } as never;
    env = await startEnv();
    await ensureStream(env.nats.jsm, { name: 'RECORDS', subjects: eventSubjects('records') });
    await ensureStream(env.nats.jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
    relay = new OutboxRelay({ db: env.db, js: env.nats.js, logger: testLogger() as never });
    relay.start();
    smtp = await startSmtp();
    workers = deletionRequestWorkers({
      db: env.db,
      nats: env.nats,
      deletion: env.parts.deletion,
      users: { emails: async (ids) => ids.map((id) => `user${id}@example.org`) },
      sender: smtpSender(`smtp://127.0.0.1:${smtp.port}`),
      logger: testLogger() as never,
      from: 'noreply@rdm.example.org',
      admins: ['moderators@rdm.example.org'],
      baseUrl: 'https://rdm.example.org',
      backoffMs: [200],
    });
    for (const w of workers) w.start();
    await Promise.all(workers.map((w) => w.ready));
  });
  afterAll(async () => {
    for (const w of workers ?? []) await w.stop();
    await relay?.stop();
    await smtp?.close();
    await env?.close();
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
  async function requestEvent(verb: string, request: Record<string, any>) {
    const id = randomUUID();
    const envelope: EventEnvelope = {
      id,
      type: `rdm.requests.request.${verb}`,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'request', id: request.id, revision: 1 },
      data: {
        id: request.id,
        number: '1',
        type: 'record-deletion',
        created_by: request.created_by,
        receiver: request.receiver,
        topic: request.topic,
        actor: { user: '9' },
        payload: request.payload,
      },
    };
    await env.nats.js.publish(envelope.type, JSON.stringify(envelope), { msgID: id });
  }

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
