import { createServer } from 'node:net';
import { ensureStream, eventSubjects, OutboxRelay } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerWorker } from '../../src/events/mailer.consumer.js';
import { smtpSender } from '../../src/mail/mailer.js';
import { communityOwnerEmails } from '../../src/mail/owner-recipients.js';
import { anonymousFrom, as, type Env, fullMetadata, startEnv } from './support.js';

/** A free TCP port (nothing listens on it afterwards: SMTP is "down" there). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A real SMTP server collecting raw messages. */
async function startSmtp(port: number) {
  const received: { to: string[]; raw: string }[] = [];
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
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const report = (extra: Record<string, unknown> = {}) => ({
  abuseType: 'copyright',
  name: 'Jane Reporter',
  email: 'jane@example.org',
  affiliation: 'CERN',
  phone: '+41 22 000 0000',
  address: '1 Route de Meyrin',
  city: 'Geneva',
  zip: '1211',
  country: 'Switzerland',
  message: 'This dataset copies my thesis.',
  ...extra,
});

const COMMUNITY = '5f0c6a3e-8d1b-4c2a-9f00-0000000000c1';

describe('POST /api/records/{id}/report-abuse and the mailer', () => {
  let env: Env;
  let port: number;
  let relay: OutboxRelay;
  let worker: ReturnType<typeof mailerWorker>;
  let recordId: string;

  beforeAll(async () => {
    env = await startEnv();
    await ensureStream(env.nats.jsm, { name: 'RECORDS', subjects: eventSubjects('records') });
    port = await freePort();
    relay = new OutboxRelay({ db: env.db, js: env.nats.js, logger: testLogger() as never });
    relay.start();
    worker = mailerWorker({
      db: env.db,
      nats: env.nats,
      sender: smtpSender(`smtp://127.0.0.1:${port}`),
      logger: testLogger() as never,
      from: 'noreply@rdm.example.org',
      to: ['abuse@rdm.example.org', 'admin2@rdm.example.org'],
      baseUrl: 'https://rdm.example.org',
      backoffMs: [300],
      // The owners of the record's communities hear of it too (stand-ins of the communities and
      // users services' RPCs; the RPCs themselves are tested in those services).
      recipientsOf: communityOwnerEmails({
        db: env.db,
        communities: { owners: async (ids): Promise<Record<string, string[]>> => (ids.includes(COMMUNITY) ? { [COMMUNITY]: ['77'] } : {}) },
        users: { emails: async (ids) => (ids.includes('77') ? ['owner@community.example.org'] : []) },
      }),
    });
    worker.start();
    const d = (await env.request.post('/api/records').set(as('601')).send({ metadata: fullMetadata() })).body;
    env.files.addFile(d.id, 'a.txt');
    expect((await env.request.post(`/api/records/${d.id}/draft/actions/publish`).set(as('601'))).status).toBe(202);
    recordId = d.id;
    // As an accepted inclusion leaves it: the record's parent is in COMMUNITY.
    await env
      .db('parents')
      .where({ id: d.parent.id })
      .update({ communities: { ids: [COMMUNITY], default: COMMUNITY } });
  });
  afterAll(async () => {
    await worker?.stop();
    await relay?.stop();
    await env?.close();
  });

  it('should validate every field with field errors (400)', async () => {
    const res = await env.request
      .post(`/api/records/${recordId}/report-abuse`)
      .set(anonymousFrom('10.0.0.1'))
      .send(report({ abuseType: 'spam', email: 'not-an-email', name: '', message: 'x'.repeat(5001), zip: 12 }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'abuseType', messages: ['Must be one of: abusive, copyright, not-research, illegal.'] },
      { field: 'name', messages: ['Missing data for required field.'] },
      { field: 'email', messages: ['Not a valid email address.'] },
      { field: 'zip', messages: ['Not a valid string.'] },
      { field: 'message', messages: ['Longer than maximum length 5000.'] },
    ]);
    expect((await env.request.post('/api/records/zzzzz-zzz00/report-abuse').set(anonymousFrom('10.0.0.1')).send(report())).status).toBe(
      404,
    );
  });

  it('should rate-limit per client address (429)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await env.request.post(`/api/records/${recordId}/report-abuse`).set(anonymousFrom('10.0.0.2')).send({})).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });

  it('should count by the address the gateway signed, whatever X-Forwarded-For the client writes (issue 18, finding 8)', async () => {
    // Six reports from one client, each claiming another first X-Forwarded-For hop: one budget.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await env.request
        .post(`/api/records/${recordId}/report-abuse`)
        .set(anonymousFrom('10.0.0.4'))
        .set('x-forwarded-for', `192.0.2.${i + 1}, 10.0.0.4`)
        .send({});
      statuses.push(res.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    // Another client (another signed address) still has its own.
    expect((await env.request.post(`/api/records/${recordId}/report-abuse`).set(anonymousFrom('10.0.0.5')).send({})).status).toBe(400);
  });

  it('should accept anonymously (201), keep the report while SMTP is down, and mail it once when SMTP is up', async () => {
    const res = await env.request.post(`/api/records/${recordId}/report-abuse`).set(anonymousFrom('10.0.0.3')).send(report());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'submitted' });
    const row = await env.db('abuse_reports').where({ record_id: recordId }).first();
    expect(row).toMatchObject({ abuse_type: 'copyright', email: 'jane@example.org', mailed_at: null });
    // SMTP is down: several deliveries fail, nothing is lost.
    await new Promise((r) => setTimeout(r, 2000));
    expect((await env.db('abuse_reports').where({ id: row.id }).first()).mailed_at).toBeNull();

    const smtp = await startSmtp(port);
    try {
      await waitFor(async () => smtp.received.length > 0 || undefined, { timeoutMs: 15000 });
      await new Promise((r) => setTimeout(r, 1500));
      expect(smtp.received).toHaveLength(1);
      const m = smtp.received[0]!;
      expect(m.to.sort()).toEqual(['abuse@rdm.example.org', 'admin2@rdm.example.org', 'owner@community.example.org']);
      expect(m.raw).toContain(`Subject: Abuse report for record ${recordId}: Copyrighted material`);
      expect(m.raw).toContain('Reply-To: jane@example.org');
      expect(m.raw).toContain(`Message-ID: <${row.id}@rdm.example.org>`);
      expect(m.raw).toContain('This dataset copies my thesis.');
      expect(m.raw).toContain(`https://rdm.example.org/records/${recordId}`);
      expect((await env.db('abuse_reports').where({ id: row.id }).first()).mailed_at).not.toBeNull();
    } finally {
      await smtp.close();
    }
  });
});
