/**
 * The set-up shared by records' integration tests of request workers that send mail (deletion,
 * quota-increase and access requests): a real SMTP server collecting messages, the test
 * environment with the streams the workers read, an optional outbox relay, the workers started
 * and ready, and a publisher playing the requests service's events.
 *
 * When to use: an integration test of a records consumer that mails through SMTP.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { ensureStream, type EventEnvelope, eventSubjects, OutboxRelay, type Worker } from '@rdm/platform';
import { testLogger } from '@rdm/platform/testing';
import { SMTPServer } from 'smtp-server';
import { smtpSender } from '../../src/mail/mailer.js';
import { type Env, startEnv } from './support.js';

/** A real SMTP server collecting messages, their quoted-printable bodies decoded. */
export async function startSmtp() {
  const received: { to: string[]; raw: string; text: string }[] = [];
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
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text });
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

/** The options every mailing worker of these tests takes. */
export interface MailWorkerBase {
  db: Env['db'];
  nats: Env['nats'];
  users: { emails: (ids: string[]) => Promise<string[]> };
  sender: ReturnType<typeof smtpSender>;
  logger: never;
  from: string;
  admins: string[];
  baseUrl: string;
  backoffMs: number[];
}

/** A consumer worker (`consumerWorker`): started, awaited ready, stopped. */
type ConsumerWorker = Worker & { readonly ready: Promise<void> };

/** The running fixture. */
export interface MailWorkersFixture {
  env: Env;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  workers: ConsumerWorker[];
  close(): Promise<void>;
}

/** Start the environment, the `streams` (RECORDS, REQUESTS, FILES), the relay if asked, the SMTP server and the workers. */
export async function startMailWorkers(o: {
  streams: ('RECORDS' | 'REQUESTS' | 'FILES')[];
  relay?: boolean;
  workers: (base: MailWorkerBase, env: Env) => ConsumerWorker[];
}): Promise<MailWorkersFixture> {
  const env = await startEnv();
  const subjects = { RECORDS: eventSubjects('records'), REQUESTS: ['rdm.requests.request.>'], FILES: eventSubjects('files') };
  for (const name of o.streams) await ensureStream(env.nats.jsm, { name, subjects: subjects[name] });
  const relay = o.relay ? new OutboxRelay({ db: env.db, js: env.nats.js, logger: testLogger() as never }) : undefined;
  relay?.start();
  const smtp = await startSmtp();
  const workers = o.workers(
    {
      db: env.db,
      nats: env.nats,
      users: { emails: async (ids) => ids.map((id) => `user${id}@example.org`) },
      sender: smtpSender(`smtp://127.0.0.1:${smtp.port}`),
      logger: testLogger() as never,
      from: 'noreply@rdm.example.org',
      admins: ['moderators@rdm.example.org'],
      baseUrl: 'https://rdm.example.org',
      backoffMs: [200],
    },
    env,
  );
  for (const w of workers) w.start();
  await Promise.all(workers.map((w) => w.ready));
  return {
    env,
    smtp,
    workers,
    async close() {
      for (const w of workers) await w.stop();
      await relay?.stop();
      await smtp.close();
      await env.close();
    },
  };
}

/** Publish an event `type` with `data` on JetStream as its service would (aggregate: a request `aggregateId`). */
export async function publishEvent(env: Env, type: string, data: Record<string, unknown>, aggregateId: string): Promise<void> {
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
}

/** Play the requests service: publish `rdm.requests.request.<verb>` of `request` (of type `type`) as it would. */
export function publishRequestEvent(env: Env, type: string, verb: string, request: Record<string, any>): Promise<void> {
  const { id, created_by, receiver, topic, payload } = request;
  const data = { id, number: '1', type, created_by, receiver, topic, actor: { user: '9' }, payload };
  return publishEvent(env, `rdm.requests.request.${verb}`, data, id);
}
