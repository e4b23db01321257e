/**
 * Owners' quota-increase requests, records side (Postgres + NATS, the requests service faked on
 * NATS): the route's checks, the request it creates (payload with the draft's bucket), the
 * owner-only `quota_increase` link, and the mails (administrators on created, the owner on
 * declined and on files' `rdm.files.bucket.quota-changed`) through a real SMTP server.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { ensureStream, type EventEnvelope, eventSubjects, OutboxRelay } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaRequestWorkers } from '../../src/events/quota-requests.consumer.js';
import { smtpSender } from '../../src/mail/mailer.js';
import { as, type Env, fullMetadata, startEnv } from './support.js';

const OWNER = '811';
const OTHER = '812';
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

describe('quota-increase requests (records side)', () => {
  let env: Env;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let workers: ReturnType<typeof quotaRequestWorkers>;

  beforeAll(async () => {
    env = await startEnv();
    await ensureStream(env.nats.jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
    await ensureStream(env.nats.jsm, { name: 'FILES', subjects: eventSubjects('files') });
    smtp = await startSmtp();
    workers = quotaRequestWorkers({
      db: env.db,
      nats: env.nats,
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
    await smtp?.close();
    await env?.close();
  });

  const publishEvent = async (type: string, data: Record<string, unknown>, aggregateId: string) => {
    const id = randomUUID();
    const envelope: EventEnvelope = {
      id,
      type,
      version: 1,
      occurred_at: new Date().toISOString(),
      aggregate: { type: 'request', id: aggregateId, revision: 1 },
      data,
    };
    await env.nats.js.publish(type, JSON.stringify(envelope), { msgID: id });
  };
  const requestEvent = (verb: string, r: Record<string, any>) =>
    publishEvent(
      `rdm.requests.request.${verb}`,
      {
        id: r.id,
        number: '1',
        type: 'quota-increase',
        created_by: r.created_by,
        receiver: r.receiver,
        topic: r.topic,
        actor: { user: '9' },
        payload: r.payload,
      },
      r.id,
    );

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
