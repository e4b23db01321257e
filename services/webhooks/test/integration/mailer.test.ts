import { randomUUID } from 'node:crypto';
import { withTransaction, writeOutbox } from '@rdm/platform';
import { testLogger, waitFor } from '@rdm/platform/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerWorker, smtpSender } from '../../src/delivery/mailer.js';
import { BASE, freePort, type Harness, startHarness } from '../support/harness.js';
import { OutboxRelay } from '@rdm/platform';

describe('mailer of disabled webhooks', () => {
  let h: Harness;
  let smtp: SMTPServer;
  const mails: string[] = [];
  let worker: ReturnType<typeof mailerWorker>;
  let relay: OutboxRelay;

  beforeAll(async () => {
    h = await startHarness({}, { run: false });
    const port = await freePort();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _s, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push(Buffer.concat(chunks).toString('utf8'));
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
    // Addresses from the harness's get-users stand-in (user<id>@example.org).
    relay = new OutboxRelay({ db: h.t.db, js: h.nats.js, logger: testLogger('relay'), pollMs: 50 });
    worker = mailerWorker({
      db: h.t.db,
      nats: h.nats,
      sender: smtpSender(`smtp://127.0.0.1:${port}`),
      logger: testLogger('mailer'),
      from: 'noreply@repo.test',
      baseUrl: BASE,
      rpcTimeoutMs: 2000,
    });
    relay.start();
    await worker.start();
    await worker.ready;
  });
  afterAll(async () => {
    await worker?.stop();
    await relay?.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await h?.stop();
  });

  it('should e-mail the owner once the disabled event is published from the outbox', async () => {
    const id = randomUUID();
    await withTransaction(h.t.db, (trx) =>
      writeOutbox(trx, {
        subject: 'rdm.webhooks.subscription.disabled',
        aggregate: { type: 'webhook', id, revision: 2 },
        data: {
          subscription_id: id,
          owner_id: '41',
          url: 'https://cris.example.org/hook',
          consecutive_failures: 50,
          last_error: 'HTTP 500',
        },
      }),
    );
    const mail = await waitFor(() => mails.find((m) => m.includes(id)), { timeoutMs: 15_000 });
    expect(mail).toMatch(/^To: user41@example\.org/m);
    expect(mail).toMatch(/^Subject: Your webhook to cris\.example\.org was disabled/m);
    const text = String(mail).replace(/=\r?\n/g, ''); // quoted-printable soft line breaks
    expect(text).toContain(`${BASE}/api/webhooks/${id}/deliveries`);
    expect(text).toContain('Last error: HTTP 500');
  });
});
